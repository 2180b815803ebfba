// The compare view's computation: one word in two sentences. The second sentence's attention is the
// same computation as the first's (compute.js, same options); the word's meaning before attention
// (its vector x_i) and after (A(i) = Σ_j α_ij x_j, the output row) is shown by the nearest vocabulary
// words to each (the core's cosine search over the whole word-vector table); with a trained model,
// its input x_i and the chosen layer's output, through the model's own embedding; two sentences of
// the same length also get the difference of their weight matrices. Like compute.js, it reads numbers
// from the core and never computes attention itself.
import { compute, wordOf } from '../../compute.js';

/** How many nearest words each list shows. */
export const NEIGHBOURS = 5;

/** Where `text` (a token) is in `tokens`: the first place, or -1. */
const indexOf = (tokens, text) => tokens.findIndex((t) => t.text === text);

/** The core's nearest words to row i of m (skipping `word` itself when it is in the vocabulary). */
function nearestTo(vectors, m, i, token) {
  const row = m.data.subarray(i * m.cols, (i + 1) * m.cols);
  if (row.every((v) => v === 0)) return { words: [], note: 'a zero vector has no direction: no nearest words' };
  // A composed word (issue 24) is in no row of the table the nearest words are searched in: nothing to skip.
  const exclude =
    token.lookup === 'unknown' || token.lookup === 'composed' ? [] : [token.lookup === 'stemmed' ? token.matched : token.text];
  return { words: vectors.nearest(row, NEIGHBOURS, { exclude }) };
}

/**
 * The compare view's Result from the first sentence's (r1): { ok, first, second, word: [i, j], text,
 * rows: [row of α in sentence 1, in sentence 2], before/after: [nearest lists, per sentence; null for
 * a sentence without the word], difference (T × T, w1 − w2, when both have T tokens), changed (positions whose
 * words differ), meaningful (the lists mean something: the output lives in the word-vector space, no
 * projections, or a trained model's stream, read through its embedding), stages (what the two lists
 * are of: stagesOf), waiting (the nearest lists wait for the whole word-vector table) }, or
 * { ok: false, message }. previous: the last one, reused where its inputs are the same.
 */
export function compareOf(state, sources, r1, previous = null) {
  if (!r1?.ok) return { ok: false, message: '' };
  if (r1.kind !== 'vectors' && r1.kind !== 'model') {
    return {
      ok: false,
      message:
        r1.kind === 'seed003'
          ? 'The compare view compares two sentences: type one above (seed 003’s example has no second).'
          : 'The compare view needs two sentences of your own: imported attention has one.',
    };
  }
  if (r1.model?.blank)
    return {
      ok: false,
      message: `The first sentence has a blank (“${r1.model.blank.word}” hidden): show it whole again (press the word under the map) to compare the two sentences.`,
    };
  const state2 = { ...state, sentence: state.sentence2, input: 'sentence', word: null, blank: null };
  const second = compute(state2, sources, previous?.second?.ok ? previous.second : null);
  if (!second.ok)
    return {
      ok: false,
      message: second.kind === 'empty' ? 'Type a second sentence to compare with.' : `Second sentence: ${second.message}`,
    };
  const i = wordOf(state, r1),
    text = r1.tokens[i].text,
    j = indexOf(second.tokens, text);
  const same = previous?.ok && !previous.waiting && previous.first === r1 && previous.second === second && previous.i === i;
  const out = same
    ? previous
    : {
        ok: true,
        first: r1,
        second,
        i,
        j,
        text,
        rows: [
          r1.shown.data.subarray(i * r1.T, (i + 1) * r1.T),
          j < 0 ? null : second.shown.data.subarray(j * second.T, (j + 1) * second.T),
        ],
        meaningful: r1.kind === 'model' || r1.projection.mode === 'free',
        stages: stagesOf(r1),
        before: null,
        after: null,
        difference: r1.T === second.T ? difference(r1.shown, second.shown) : null,
        changed: r1.T === second.T ? r1.tokens.map((t, k) => (t.text !== second.tokens[k].text ? k : -1)).filter((k) => k >= 0) : [],
      };
  // A trained model's vectors: its input x_i and the chosen layer's output at the word, each read as
  // the model's output head reads its last layer (through LN_f, against the tied embedding).
  if (!out.before && r1.kind === 'model') {
    const model = r1.model.info,
      inSecond = (f) => (j >= 0 ? f() : null);
    const near = (r, m, k) => modelNearestTo(model, m, k, r.tokens[k]);
    const layerOut = (r) => r.model.run.layers[r.model.layer].output;
    out.before = [near(r1, r1.model.run.input, i), inSecond(() => near(second, second.model.run.input, j))];
    out.after = [near(r1, layerOut(r1), i), inSecond(() => near(second, layerOut(second), j))];
  }
  // The nearest words search the whole word-vector table, which the store fetches for this view: until
  // it is here (or if it cannot load), each list says so.
  if (!out.before && out.meaningful && r1.kind === 'vectors' && sources.vectorsPartial) {
    const note = sources.vectorsError
      ? `the whole word-vector table could not load (${sources.vectorsError.message})`
      : 'loading the whole word-vector table…';
    const waiting = [{ words: [], note }, j >= 0 ? { words: [], note } : null];
    return { ...out, before: waiting, after: waiting, waiting: true };
  }
  // The nearest words, where the output is a word vector (Q = K = V = X).
  if (!out.before && out.meaningful && r1.kind === 'vectors') {
    const n = sources.vectors,
      inSecond = (f) => (j >= 0 ? f() : null);
    out.before = [nearestTo(n, r1.X, i, r1.tokens[i]), inSecond(() => nearestTo(n, second.X, j, second.tokens[j]))];
    out.after = [nearestTo(n, r1.output, i, r1.tokens[i]), inSecond(() => nearestTo(n, second.output, j, second.tokens[j]))];
  }
  return out;
}

/** A trained model's nearest words to row i of m (a T × d_model stream), through LN_f, the word itself left out. */
function modelNearestTo(model, m, i, token) {
  const row = m.data.subarray(i * m.cols, (i + 1) * m.cols);
  return { words: model.nearest(row, NEIGHBOURS, { exclude: token.id > 0 ? [token.id] : [], finalNorm: true }) };
}

/**
 * What the two nearest-word lists are of: { before, after, short } — the word vector x_i and the
 * attention output A(i), or a trained model's input and one layer's output — and row: which weights
 * the attention bars are (a trained model's layer and head, or its rollout).
 */
function stagesOf(r) {
  if (r.kind !== 'model') return { before: 'before attention (x)', after: 'after attention (A)', short: 'after attention', row: '' };
  const { layer, layers, kind, head, rollout } = r.model;
  const row = rollout ? ' (the rollout through every layer)' : ` (layer ${layer + 1}, head ${head + 1})`;
  const after = layer === layers - 1 ? `the last layer (${layer + 1} of ${layers})` : `layer ${layer + 1} of ${layers}`;
  return { before: `in the ${kind}’s input (x)`, after: `after ${after}`, short: `after ${after}, in the trained ${kind}`, row };
}

/** w1 − w2, entry by entry (two drawn matrices of the same size; a comparison, not attention). */
function difference(a, b) {
  const data = new Float32Array(a.data.length);
  for (let k = 0; k < data.length; k++) data[k] = a.data[k] - b.data[k];
  return { rows: a.rows, cols: a.cols, data };
}

/**
 * One sentence on what the reader sees, from the numbers: where the word's nearest words move after
 * attention in each sentence (the words that join its list), or how its attention row changes.
 */
export function compareLine(c) {
  if (!c?.ok) return '';
  const word = `“${c.text}”`;
  if (c.j < 0) return `${word} is not in the second sentence: pick a word both sentences have.`;
  if (!c.after || c.waiting) return ''; // no lists yet: nothing to tell
  const joined = (k) => {
    const before = new Set(c.before[k].words.map((n) => n.word));
    return c.after[k].words
      .map((n) => n.word)
      .filter((w) => !before.has(w))
      .slice(0, 3);
  };
  const list = (ws) => (ws.length ? ws.map((w) => `“${w}”`).join(', ') : 'the same words');
  const [a, b] = [joined(0), joined(1)];
  const when = c.stages.short;
  // The decoder is trained to predict the next word at every position: its vectors turn toward what may follow.
  const why = c.first.model?.kind === 'decoder' ? ' (the decoder’s vector at a word is trained to guess the word after it)' : '';
  return `${when[0].toUpperCase()}${when.slice(1)}, the nearest words to ${word} move toward ${list(a)} in the first sentence and toward ${list(b)} in the second${why}.`;
}

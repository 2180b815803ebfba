// The compare view's computation: one word in two sentences. The second sentence's attention is the
// same computation as the first's (compute.js, same options); the word's meaning before attention
// (its vector x_i) and after (A(i) = Σ_j α_ij x_j, the output row) is shown by the nearest vocabulary
// words to each (the core's cosine search over the whole word-vector table); two sentences of
// the same length also get the difference of their weight matrices. Like compute.js, it reads numbers
// from the core and never computes attention itself. Part of the on-demand compare module (index.js):
// it gets compute and wordOf from the page's bundle rather than a second copy of them.

/** How many nearest words each list shows. */
export const NEIGHBOURS = 5;

/** Where `text` (a token) is in `tokens`: the first place, or -1. */
const indexOf = (tokens, text) => tokens.findIndex((t) => t.text === text);

/** The core's nearest words to row i of m (skipping `word` itself when it is in the vocabulary). */
function nearestTo(vectors, m, i, token) {
  const row = m.data.subarray(i * m.cols, (i + 1) * m.cols);
  if (row.every((v) => v === 0)) return { words: [], note: 'a zero vector has no direction: no nearest words' };
  const exclude = token.lookup === 'unknown' ? [] : [token.lookup === 'stemmed' ? token.matched : token.text];
  return { words: vectors.nearest(row, NEIGHBOURS, { exclude }) };
}

/**
 * The compare view's Result from the first sentence's (r1): { ok, first, second, word: [i, j], text,
 * rows: [row of α in sentence 1, in sentence 2], before/after: [nearest lists, per sentence; null for
 * a sentence without the word], difference (T × T, w1 − w2, when both have T tokens), changed (positions whose
 * words differ), meaningful (the output lives in the word-vector space: no projections) }, or
 * { ok: false, message }. previous: the last one, reused where its inputs are the same. lib: the page's
 * own compute(state, sources, previous) and wordOf(state, result).
 */
export function compareOf({ compute, wordOf }, state, sources, r1, previous = null) {
  if (!r1?.ok) return { ok: false, message: '' };
  if (r1.kind !== 'vectors') {
    return {
      ok: false,
      message:
        r1.kind === 'seed003'
          ? 'The compare view compares two sentences: type one above (seed 003’s example has no second).'
          : r1.kind === 'model'
            ? 'The compare view uses the word vectors: choose “word vectors” as the source to compare two sentences.'
            : 'The compare view needs two sentences of your own: imported attention has one.',
    };
  }
  const state2 = { ...state, sentence: state.sentence2, input: 'sentence', word: null };
  const second = compute(state2, sources, previous?.second?.ok ? previous.second : null);
  if (!second.ok)
    return {
      ok: false,
      message: second.kind === 'empty' ? 'Type a second sentence to compare with.' : `Second sentence: ${second.message}`,
    };
  const i = wordOf(state, r1),
    text = r1.tokens[i].text,
    j = indexOf(second.tokens, text);
  const same = previous?.ok && previous.first === r1 && previous.second === second && previous.i === i;
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
        meaningful: r1.projection.mode === 'free',
        before: null,
        after: null,
        difference: r1.T === second.T ? difference(r1.shown, second.shown) : null,
        changed: r1.T === second.T ? r1.tokens.map((t, k) => (t.text !== second.tokens[k].text ? k : -1)).filter((k) => k >= 0) : [],
      };
  // The nearest words, where the output is a word vector (Q = K = V = X).
  if (!out.before && out.meaningful && !sources.vectorsPartial) {
    const n = sources.vectors,
      inSecond = (f) => (j >= 0 ? f() : null);
    out.before = [nearestTo(n, r1.X, i, r1.tokens[i]), inSecond(() => nearestTo(n, second.X, j, second.tokens[j]))];
    out.after = [nearestTo(n, r1.output, i, r1.tokens[i]), inSecond(() => nearestTo(n, second.output, j, second.tokens[j]))];
  }
  return out;
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
  if (!c.after) return '';
  const joined = (k) => {
    const before = new Set(c.before[k].words.map((n) => n.word));
    return c.after[k].words
      .map((n) => n.word)
      .filter((w) => !before.has(w))
      .slice(0, 3);
  };
  const list = (ws) => (ws.length ? ws.map((w) => `“${w}”`).join(', ') : 'the same words');
  const [a, b] = [joined(0), joined(1)];
  return `After attention, the nearest words to ${word} move toward ${list(a)} in the first sentence and toward ${list(b)} in the second.`;
}

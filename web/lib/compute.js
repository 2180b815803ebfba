// The one computation: from the state (state.js) and what is loaded, every number any view draws,
// all of it from the wasm core. Views read the Result and never call the core themselves.
//
// Result (ok: true):
//   kind       'vectors' | 'seed003' | 'model' | 'imported';  key: what it was computed from; edits: the
//              edited weights it used (the store's object itself, compared by identity), else null
//   tokens     [{ text, lookup, matched }] and labels (as the views print them); T; total: the text's
//              token count when it was cut to `cap` tokens (else null)
//   X, d       the inputs (T × d): word vectors, seed 003's rows, or the model's stream entering the layer
//              (word vectors: copied out of the core the first time it is read, unless kept)
//   projection { mode, W: { Wq, Wk, Wv, bq?, bk?, bv? } | null, dk, dv }
//   steps      the core's AttentionSteps of the head followed (Q, K, V, scores, scaled, weights, output;
//              its weights the softmax along the chosen direction), null for imported attention; for
//              word vectors and seed 003 only the steps in compute's options.keep (and weights), all
//              without it;  kept: that Set, or null for all
//   weights    that head's T×T weights as the views draw them (the column softmax when norm is columns;
//              an imported head);  output: weights·V to match (null where there is none or not kept)
//   shown      what the heatmap and lines views draw: weights, or the model's rollout when chosen
//   divisor    what the core divided the scores by, as text ('√50', '1', ...), and scaleDivisor, the
//              number;  score: 'scaled' | 'dot' | 'cosine'
//   heads(n, seed)   multi-head attention: { maps: [{ weights, title, caption, layer, head }], steps (each
//              head's steps: word vectors, its weights only), concat, Wo, bo, output, afterAttention, dk,
//              learnt }, computed on first use and kept (word vectors: over the X the core holds, nothing
//              sent back in but the heads' weights)
//   terms(i)   the core's terms of query i: { products (q_i∘k_j), weighted (α_ij·v_j) }, kept per i
//              (word vectors: from the Q, K, V and weights the core holds)
//   release(result) frees what the core holds for a word-vector or seed 003 result (its X and steps):
//              call it when no view will draw the result again; heads/terms not yet computed then throw
//   model      { run, layer, head, rollout, layers, heads, context, info, learnt(l) } with the trained model
//   imported   { layers, heads, layer, head } with imported attention
//   rounding() seed 003 only: the article's rounded weights and their outputs (core.weightedSum)
//   storyWord  the query whose strongest link to another word is strongest: the word the caption,
//              and the selected-word views, talk about until the reader picks one
// Otherwise { ok: false, kind: 'loading' | 'empty' | 'error' | 'cells', message, cells?, shards? (loading:
// the word-vector shards the sentence's words need, which the store fetches), typing? (those of them only
// the last word needs while it may still be being typed: the text ends inside it) }.
import { AttentionError } from './loader.js';
import { badCells, frozenCells, numericMatrix, parseCell } from './cells.js';
import { labelOf } from './format.js';
import { HEAD_SHARPNESS, identityWeights, multiHeadWeights, mulberry32, xavierUniform } from './rng.js';

export { HEAD_SHARPNESS };
import { ROLLOUT, isTrained } from './sources.js';
import { shardOf } from './vectors-format.js';

/** The figure draws up to this many tokens; longer text is cut, and the figure says so. */
export const MAX_TOKENS = 1024;

/** Seed 003's worked example (row convention), exactly as the article prints it. */
export const SEED003 = Object.freeze({
  X: [
    [1, 0, 1, 0],
    [0, 2, 0, 2],
    [1, 1, 1, 1],
  ],
  Wk: [
    [0, 0, 1],
    [1, 1, 0],
    [0, 1, 0],
    [1, 1, 0],
  ],
  Wq: [
    [1, 0, 1],
    [1, 0, 0],
    [0, 0, 1],
    [0, 1, 1],
  ],
  Wv: [
    [0, 2, 0],
    [0, 3, 0],
    [1, 0, 3],
    [1, 1, 0],
  ],
  // The weights as the article prints them before it sums ("0.0634" appears as 0.0).
  rounded: [
    [0, 0.5, 0.5],
    [0, 1, 0],
    [0, 0.9, 0.1],
  ],
  labels: ['input 1', 'input 2', 'input 3'],
});

const asMatrix = (rows) => ({ rows: rows.length, cols: rows[0].length, data: Float32Array.from(rows.flat()) });
/** Matrices of numbers ({ name: rows }) as editable cells hold them: rows of strings, frozen. */
const asCells = (named) =>
  frozenCells(Object.fromEntries(Object.entries(named).map(([k, rows]) => [k, rows.map((row) => row.map(String))])));
const once = (make) => {
  let value,
    made = false;
  return () => (made ? value : ((made = true), (value = make())));
};

/** The fields of the state the main computation depends on (the rest only changes what is drawn). */
function keyOf(state, sources) {
  const s = state;
  if (sources.imported) return `imported:${sources.imported.id}:${s.layer}:${s.head}`;
  if (isTrained(s.source)) return `${s.source}:${s.sentence}:${s.layer}:${s.head}:${s.blank}`;
  return [
    sources.vectorsPartial ? `first chunk + ${sources.vectorsShards?.size ?? 0} shards` : 'whole table',
    s.input,
    s.input === 'sentence' ? s.sentence : '',
    s.score,
    s.temperature,
    s.mask,
    s.norm,
    s.weights,
    s.dk,
    s.bias,
    s.weights === 'random' ? s.seed : '',
  ].join('\u0001');
}

/**
 * The edited weights a result computed from the state would use, else null. They count by identity,
 * not in the key: the store replaces them with a new object at every edit (store.setEdits), so the
 * same object means the same cells.
 */
function editsOf(state, sources) {
  return state.weights === 'edited' && !sources.imported && !isTrained(state.source) ? sources.edits : null;
}

/**
 * Computes (or reuses `previous`, when the same inputs and it kept what `keep` asks for) everything the
 * views draw.
 * sources: { core, vectors, trained: { decoder, encoder: { core, model } | null }, imported: parsed attention
 *            | null, edits: { Wq, Wk, Wv, bq, bk, bv } as rows of strings (replaced, never changed), vectorsError,
 *            trainedError: { decoder, encoder } }
 * options.keep: a Set of the step names the visible views draw ('X', 'Q', 'K', 'V', 'scores', 'scaled',
 *            'weights', 'output'): only those are copied out of the core for word vectors and seed 003
 *            (weights always). Absent: every step.
 * A result that holds wasm memory (word vectors, seed 003) must be given to release() once no view will
 * draw it again. compute returns `previous` itself when it reuses it, and releases `previous` when it
 * returns a new ok result in its place (the store then draws the new one: `previous` is its last good
 * result); a caller that drops a result otherwise (the store setting `good` to null) releases it.
 */
export function compute(state, sources, previous = null, { keep = null } = {}) {
  const key = keyOf(state, sources),
    edits = editsOf(state, sources);
  if (previous?.ok && previous.key === key && (previous.edits ?? null) === edits && covers(previous.kept, keep)) return previous;
  const result = fresh(state, sources, key, keep, edits);
  if (result.ok && previous && previous !== result) release(previous);
  return result;
}

function fresh(state, sources, key, keep, edits) {
  try {
    if (sources.imported) return importedResult(state, sources.imported, key);
    if (isTrained(state.source)) {
      const trained = sources.trained[state.source];
      if (!trained) return notYet(sources.trainedError[state.source], `the trained ${state.source}`);
      if (!state.sentence.trim()) return empty();
      return modelResult(state, trained, key);
    }
    if (!sources.vectors) return notYet(sources.vectorsError, 'the attention core or the word vectors');
    if (state.input === 'sentence' && !state.sentence.trim()) return empty();
    return Object.assign(vectorResult(state, sources, key, keep), { edits });
  } catch (err) {
    if (err instanceof CellError) return { ok: false, kind: 'cells', cells: err.cells, message: cellMessage(err.cells) };
    if (!(err instanceof AttentionError)) throw err;
    return { ok: false, kind: 'error', message: tokenMessage(sources, state, err) };
  }
}

/** Whether a result that kept `had` (null: everything) holds every step of `wanted` (null: everything). */
const covers = (had, wanted) => had === null || had === undefined || (wanted !== null && [...wanted].every((name) => had.has(name)));

const empty = () => ({
  ok: false,
  kind: 'empty',
  message: 'Type a sentence… its words will appear as the rows and columns of the heatmap.',
});
const notYet = (error, what) =>
  error
    ? { ok: false, kind: 'error', message: `Could not load ${what} (${error.message}).`, loadFailed: true }
    : { ok: false, kind: 'loading', message: `Loading ${what}…` };

function tokenMessage(sources, { sentence: text, source }, err) {
  const core = sources.trained?.[source]?.core ?? sources.core;
  try {
    if (core && core.tokenize(text).length === 0) return 'Type a sentence: there are no words to compare yet.';
  } catch {
    /* the core's own message says it */
  }
  return err.message;
}

class CellError extends Error {
  constructor(cells) {
    super('invalid cells');
    this.cells = cells;
  }
}
const cellMessage = (cells) =>
  `${cells.slice(0, 3).join(', ')}${cells.length > 3 ? ` and ${cells.length - 3} more` : ''} ${cells.length > 1 ? 'are' : 'is'} not a number: the results are from the last good weights.`;

/** The index of the query with the strongest link to another word (off the diagonal), and that weight. */
function strongestRow(weights) {
  const T = weights.rows,
    d = weights.data;
  let best = 0,
    top = -1;
  for (let i = 0; i < T; i++) for (let j = 0; j < T; j++) if (i !== j && d[i * T + j] > top) ((top = d[i * T + j]), (best = i));
  return T > 1 ? best : 0;
}

function finish(result) {
  result.labels = result.tokens.map(labelOf);
  result.T = result.tokens.length;
  result.shown ??= result.weights;
  result.storyWord = strongestRow(result.shown);
  result.ok = true;
  return result;
}

/** Query terms, computed by `terms(i)` on first use and kept per query. */
function cachedTerms(terms) {
  const cache = new Map();
  return (i) => {
    if (!cache.has(i)) cache.set(i, terms(i));
    return cache.get(i);
  };
}

/** Query terms of a result whose steps are JS copies (the trained model's): its Q, K, V and drawn weights go back in. */
const termsOf = (core, result) => cachedTerms((i) => core.queryTerms({ ...result.steps, weights: result.weights }, i));

// ---- word vectors and seed 003 ----------------------------------------------------------------------
/** The shards (vectors-format.js) a table needs to look token t up as the whole one does: its word's and its stems'. */
const shardsOf = (core, t) => [t.text, ...core.stemCandidates(t.text)].map(shardOf);

/** The shards not in `loaded` that the tokens need (none for a token the table has: the whole one has the same bytes). */
function missingShards(core, tokens, loaded) {
  const wanted = new Set();
  for (const t of tokens) if (t.lookup !== 'known') for (const id of shardsOf(core, t)) if (!loaded.has(id)) wanted.add(id);
  return [...wanted];
}

/**
 * A result that waits for word-vector shards: which ones, and which of them only the last word needs
 * while the text ends inside it (a reader typing "zebra" would otherwise fetch the shards of "z",
 * "ze", "zeb"… on the way; the store fetches those after a pause in typing).
 */
function waitForShards(core, tokens, sentence, loaded) {
  const shards = missingShards(core, tokens, loaded);
  const unfinished = /[\p{L}\p{N}]$/u.test(sentence);
  const before = new Set(unfinished ? missingShards(core, tokens.slice(0, -1), loaded) : shards);
  const waiting = tokens.filter((t) => missingShards(core, [t], loaded).length);
  const names = waiting.slice(0, 3).map((t) => `“${t.text}”`);
  return {
    ok: false,
    kind: 'loading',
    message: `Loading the word vector${waiting.length > 1 ? 's' : ''} of ${names.join(', ')}${waiting.length > 3 ? ' and more' : ''}…`,
    shards,
    typing: shards.filter((id) => !before.has(id)),
  };
}

/** What a core divisor is, as the views print it: '1', or '√d' for √d_k (√d_model parameter-free). */
const divisorText = (divisor) => (divisor === 1 ? '1' : `√${Math.round(divisor * divisor)}`);

/** The steps copied out of the core for `keep` (null: all): always the weights (the story word, `shown`). */
function coreKeep(keep, seed003) {
  if (!keep) return undefined;
  const names = new Set(['weights', ...[...keep].filter((name) => STEP_NAMES.includes(name))]);
  if (seed003) names.add('V'); // rounding() reads it: 3 × 3 numbers
  return [...names];
}
const STEP_NAMES = ['X', 'Q', 'K', 'V', 'scores', 'scaled', 'weights', 'output'];

// The kept heap object of each result (core.selfAttention's SelfAttention): release(result) frees it.
// If a result is dropped without release (a caller that does not know about it), the registry frees it
// once the result is garbage collected, so a forgotten call leaks until then rather than forever.
const HELD = Symbol('held');
const unreleased = typeof FinalizationRegistry === 'function' ? new FinalizationRegistry((held) => held.delete()) : null;

/**
 * Frees the wasm heap the result holds (its sentence's X and its head's Q, K, V, weights), for a result
 * no view will draw again: its heads(n, seed) and terms(i) not yet computed then throw. Any result is
 * fine (one that holds nothing, a failed one, null); a second call does nothing.
 */
export function release(result) {
  const held = result?.[HELD];
  if (!held) return;
  result[HELD] = null;
  unreleased?.unregister(result);
  held.delete();
}

function vectorResult(state, sources, key, keep) {
  const { core, vectors } = sources;
  const seed003 = state.input === 'seed003';
  const d = seed003 ? SEED003.X[0].length : vectors.dim;
  const projection = projectionOf(state, sources, d);
  const options = { temperature: state.temperature, causal: state.mask === 'causal' };
  const score = state.score;
  // One call: the core embeds the sentence (X stays on its heap), picks the divisor for the score (√d_k,
  // √d_model parameter-free, or 1), normalises along the rows or down the columns, and copies out only
  // the kept steps.
  const attended = core.selfAttention(seed003 ? { X: asMatrix(SEED003.X) } : { vectors, text: state.sentence, maxTokens: MAX_TOKENS }, {
    ...options,
    score,
    axis: state.norm === 'columns' ? 'columns' : 'rows',
    weights: projection.W,
    keep: coreKeep(keep, seed003),
  });
  let tokens, total;
  try {
    if (seed003) {
      tokens = SEED003.labels.map((text) => ({ text, lookup: 'known', matched: text }));
      total = null;
    } else {
      tokens = attended.tokens;
      total = attended.total > attended.T ? attended.total : null;
      // The first chunk of the table holds the frequent words. A word it does not have (found or stemmed
      // in the whole table, or not there at all) is looked up exactly as the whole table would once the
      // shards of the word and of every stem the core would try are here (the store fetches the ones this
      // result asks for); until then the result waits (the store keeps the last figure) rather than give other numbers.
      const loaded = sources.vectorsShards ?? new Set();
      const shards = sources.vectorsPartial ? missingShards(core, tokens, loaded) : [];
      const missing = shards.length ? tokens.find((t) => t.lookup !== 'known') : null;
      if (missing) {
        attended.delete();
        // A text cut at MAX_TOKENS does not end in its last drawn word.
        if (!sources.vectorsError) return waitForShards(core, tokens, total === null ? state.sentence : '', loaded);
        // The whole table failed: the words the first chunk has still draw, this one cannot.
        return {
          ok: false,
          kind: 'error',
          loadFailed: true,
          message: `“${missing.text}” is not in the word vectors' first chunk (the most frequent words), and the whole table could not load (${sources.vectorsError.message}).`,
        };
      }
    }
  } catch (err) {
    attended.delete();
    throw err;
  }
  const { steps } = attended;
  const result = {
    key,
    kept: keep ? new Set(keep) : null,
    kind: seed003 ? 'seed003' : 'vectors',
    tokens,
    total,
    cap: MAX_TOKENS,
    d,
    projection: { ...projection, dv: attended.dv, dk: attended.dk },
    steps,
    // The core's softmax ran along the chosen direction: its weights are the ones drawn.
    weights: steps.weights,
    output: steps.output ?? null,
    score,
    norm: state.norm,
    divisor: divisorText(attended.divisor),
    scaleDivisor: attended.divisor,
    temperature: state.temperature,
    causal: options.causal,
    [HELD]: attended,
  };
  // X as it was kept, or copied out of the held sentence the first time a view reads it.
  let X = attended.X ?? null;
  Object.defineProperty(result, 'X', { enumerable: true, get: () => (X ??= attended.input()) });
  unreleased?.register(result, attended, result);
  result.terms = cachedTerms((i) => attended.queryTerms(i));
  // The heads score their queries and keys the way the single head does.
  result.heads = headsOf(attended, { ...options, score }, d);
  if (result.kind === 'seed003') {
    result.rounding = once(() => ({ rounded: asMatrix(SEED003.rounded), output: core.weightedSum(asMatrix(SEED003.rounded), steps.V) }));
  }
  return finish(result);
}

/** W_Q, W_K, W_V (d × d_k) for the chosen mode: none (parameter-free), identity, seeded Xavier, seed 003's, or edited. */
function projectionOf(state, sources, d) {
  const mode = state.weights;
  const dk = mode === 'seed' ? 3 : Math.min(state.dk, 16);
  if (mode === 'free') return { mode, W: null, dk: d };
  if (mode === 'identity') {
    const I = identityWeights(d, dk);
    return { mode, W: { Wq: I, Wk: I, Wv: I }, dk };
  }
  if (mode === 'random') {
    // Weight initialisation (not attention maths): seeded Xavier/Glorot uniform.
    const rand = mulberry32(state.seed + 1);
    return { mode, W: { Wq: xavierUniform(d, dk, rand), Wk: xavierUniform(d, dk, rand), Wv: xavierUniform(d, dk, rand) }, dk };
  }
  if (mode === 'seed') return { mode, W: { Wq: asMatrix(SEED003.Wq), Wk: asMatrix(SEED003.Wk), Wv: asMatrix(SEED003.Wv) }, dk: 3 };
  // Edited: the reader's cells, checked; a cell that is not a number stops here (the last good result stays).
  const e = sources.edits;
  const bad = badCells({ W_Q: e.Wq, W_K: e.Wk, W_V: e.Wv, ...(state.bias ? { b_Q: e.bq, b_K: e.bk, b_V: e.bv } : {}) });
  if (bad.length) throw new CellError(bad);
  const W = { Wq: numericMatrix(e.Wq), Wk: numericMatrix(e.Wk), Wv: numericMatrix(e.Wv) };
  if (state.bias) Object.assign(W, { bq: e.bq[0].map(parseCell), bk: e.bk[0].map(parseCell), bv: e.bv[0].map(parseCell) });
  return { mode, W, dk: W.Wq.cols };
}

/** Seeded random heads over the same inputs, computed on first use per (heads, seed) on the held X (the weights go in). */
function headsOf(attended, options, d) {
  const cache = new Map();
  return (n, seed) => {
    const count = Math.min(n, d);
    const key = `${count}/${seed}`;
    if (!cache.has(key)) {
      const w = multiHeadWeights(d, count, seed, HEAD_SHARPNESS);
      // The views draw each head's weights, its concat and output: only those come out.
      const out = attended.multiHead({ heads: w.heads, Wo: w.Wo }, { ...options, keep: ['weights'] });
      cache.set(key, {
        maps: out.heads.map((h, k) => ({ weights: h.weights, title: `head ${k + 1}`, head: k })),
        steps: out.heads,
        concat: out.concat,
        Wo: w.Wo,
        output: out.output,
        dk: w.dk,
        learnt: false,
        seed,
        sharpness: HEAD_SHARPNESS,
      });
    }
    return cache.get(key);
  };
}

// ---- the trained model -------------------------------------------------------------------------------
/**
 * What the model reads of the sentence: { text: the sentence, or its first `context` tokens when it
 * cannot read it all (they tokenise back to themselves), T: its token count, total: the sentence's
 * token count when cut, else null }.
 */
function fitted(sentence, core, model) {
  const tokens = core.tokenize(sentence);
  if (tokens.length <= model.context) return { text: sentence, T: tokens.length, total: null };
  return { text: tokens.slice(0, model.context).join(' '), T: model.context, total: tokens.length };
}

function modelResult(state, { core, model }, key) {
  const encoder = model.kind === 'encoder';
  let run,
    blank = null;
  const { text, T, total } = fitted(state.sentence, core, model);
  if (encoder && state.blank !== null) {
    // Fill the blank: the word at state.blank becomes [MASK]; that run's attention is what is drawn.
    const position = Math.min(state.blank, T - 1);
    const filled = model.fill(text, position, { top: 5 });
    run = filled.run;
    blank = { position, word: filled.tokens[position].text, guesses: filled.guesses };
  } else run = model.run(text);
  const L = run.layers.length,
    H = run.layers[0].heads.length;
  const rollout = state.layer === ROLLOUT;
  // The rollout has no queries or keys of its own: the single-head views show the last layer's head.
  const layer = rollout ? L - 1 : Math.min(state.layer, L - 1);
  const head = Math.min(state.head, H - 1);
  const steps = run.layers[layer].heads[head];
  const learnt = new Map();
  const weightsOf = (l) => (learnt.has(l) ? learnt.get(l) : learnt.set(l, model.attentionWeights(l)).get(l));
  const result = {
    key,
    kind: 'model',
    tokens: run.tokens,
    total,
    cap: model.context,
    X: layer === 0 ? run.input : run.layers[layer - 1].output,
    d: model.dModel,
    projection: { mode: 'learnt', W: null, dk: steps.Q.cols, dv: steps.V.cols },
    steps,
    weights: steps.weights,
    output: steps.output,
    shown: rollout ? run.rollout : steps.weights,
    score: 'scaled',
    norm: 'rows',
    divisor: `√${steps.Q.cols}`,
    scaleDivisor: Math.sqrt(steps.Q.cols),
    temperature: 1,
    causal: !encoder,
    model: {
      run,
      kind: model.kind,
      blank,
      layer,
      head,
      rollout,
      layers: L,
      heads: H,
      context: model.context,
      info: model,
      learnt: weightsOf,
    },
  };
  result.terms = termsOf(core, result);
  result.heads = () => {
    const layers = rollout ? run.layers.map((_, l) => l) : [layer];
    const shown = run.layers[layer];
    return {
      maps: layers.flatMap((l) =>
        run.layers[l].heads.map((h, k) => ({
          weights: h.weights,
          title: `layer ${l + 1} · head ${k + 1}`,
          caption: run.captions[l]?.[k],
          layer: l,
          head: k,
        })),
      ),
      steps: shown.heads,
      concat: shown.concat,
      output: shown.multiHeadOutput,
      afterAttention: shown.afterAttention,
      dk: steps.Q.cols,
      learnt: true,
      layer,
    };
  };
  return finish(result);
}

// ---- imported attention ------------------------------------------------------------------------------
function importedResult(state, imported, key) {
  const layer = Math.min(typeof state.layer === 'number' ? state.layer : 0, imported.layers - 1);
  const head = Math.min(state.head, imported.heads - 1);
  const result = {
    key,
    kind: 'imported',
    tokens: imported.tokens,
    total: null,
    cap: imported.tokens.length,
    X: null,
    d: null,
    projection: null,
    steps: null,
    weights: imported.attentions[layer][head],
    output: null,
    score: null,
    norm: 'rows',
    imported: { layers: imported.layers, heads: imported.heads, layer, head },
    terms: () => null,
  };
  result.heads = () => ({
    maps: imported.attentions[layer].map((weights, k) => ({ weights, title: `head ${k + 1}`, head: k })),
    learnt: true,
  });
  return finish(result);
}

/** The selected query word: the reader's, else the result's story word. */
export function wordOf(state, result) {
  if (!result?.ok) return null;
  return state.word !== null && state.word !== undefined && state.word < result.T ? state.word : result.storyWord;
}

// ---- the by-hand sheet --------------------------------------------------------------------------------
/**
 * The by-hand sheet's example (seeds 001/004's layout): 4 tokens as columns of a 6×4 X, 3×6 weights,
 * as the store holds the sheet's numbers: rows of strings (what the reader types), frozen.
 */
export const HAND_DEFAULT = asCells({
  X: [
    [1, 0, 1, 0],
    [0, 2, 0, 1],
    [1, 1, 0, 0],
    [0, 1, 1, 1],
    [2, 0, 1, 0],
    [1, 0, 0, 2],
  ],
  Wq: [
    [1, 0, 1, 0, 0, 1],
    [0, 1, 0, 1, 0, 0],
    [1, 0, 0, 0, 1, 0],
  ],
  Wk: [
    [0, 1, 0, 0, 1, 0],
    [1, 0, 1, 0, 0, 0],
    [0, 0, 0, 1, 0, 1],
  ],
  Wv: [
    [1, 0, 0, 1, 0, 0],
    [0, 1, 1, 0, 0, 0],
    [0, 0, 0, 0, 1, 1],
  ],
});

/**
 * The by-hand sheet in the column convention (core.attentionByColumns): with the sheet's shortcuts
 * (floor(x/2) for ÷√3, 3^x for e^x) and exactly, plus the 3^x powers and column sums of the shortcut
 * softmax (core.softmaxBase3Terms). values: { X, Wq, Wk, Wv } as rows of strings, which the store
 * replaces rather than changes: `previous` is reused while it was computed from the same object.
 * → { ok: true, values, X, W, hand, exact, powers, sums } or { ok: false, values, kind, message }.
 */
export function computeHand(core, values, previous = null) {
  if (previous?.values === values) return previous;
  return { ...handFrom(core, values), values };
}

function handFrom(core, values) {
  const bad = badCells({ X: values.X, W_Q: values.Wq, W_K: values.Wk, W_V: values.Wv });
  if (bad.length) return { ok: false, kind: 'cells', message: `${cellMessage(bad).replace('weights', 'numbers')}` };
  try {
    const X = numericMatrix(values.X);
    const W = { Wq: numericMatrix(values.Wq), Wk: numericMatrix(values.Wk), Wv: numericMatrix(values.Wv) };
    const hand = core.attentionByColumns(X, W, { handShortcuts: true });
    const exact = core.attentionByColumns(X, W, {});
    const { powers, sums } = core.softmaxBase3Terms(hand.scaled, { axis: 'columns' });
    return { ok: true, X, W, hand, exact, powers, sums };
  } catch (err) {
    if (!(err instanceof AttentionError)) throw err;
    return { ok: false, kind: 'error', message: `${err.message}: the results are from the last good numbers.` };
  }
}

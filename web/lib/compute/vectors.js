// The word-vector and seed 003 results: one call into the core (core.selfAttention) embeds and attends,
// the sentence kept on the core's heap for the heads and query terms; the shards a rarer word waits
// for; the projections of each weights mode. Part of the one computation (../compute.js).
import { numericMatrix, badCells, parseCell } from '../cells.js';
import { HEAD_SHARPNESS, identityWeights, multiHeadWeights, mulberry32, xavierUniform } from '../rng.js';
import { ngramBucket, ngramShardOf, shardOf } from '../vectors-format.js';
import { CellError, asMatrix, cachedTerms, finish, once } from './parts.js';

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

// Issue 24: a word that neither the table nor its stems have may have a vector composed from its
// character n-grams (data/vectors-composed.bin, in shards with the same ids: vectors-format.js). Its
// composed shards are those of the word and its stems, as for the table's shards. A word in neither list
// is then composed by the core from fastText's n-gram rows (vectors-ngrams/, ids 'n…'): the shards of its
// n-grams' buckets, asked only once its list shards are here and it is still unknown (a word the list has
// never costs n-gram rows), and while it waits for them (`found` says the core composed it from n-gram
// rows, maybe only some of them so far). A lone punctuation mark is never composed (the core's rule).
const loneMark = (text) => /^[\x00-\x7f]$/.test(text) && !/^[a-z0-9]$/i.test(text);

/** The n-gram shards of a word's n-grams (core.subwordPieces: fastText's n-grams, as the core composes them). */
const ngramShardsOf = (core, text) => core.subwordPieces(text).map((piece) => ngramShardOf(ngramBucket(piece)));

/** The n-gram shards of the one-character words of a word's ASCII letters and digits ("<q>", "<t>"): its spelling. */
const letterShardsOf = (text) => [...text].filter((c) => /^[a-z0-9]$/i.test(c)).map((c) => ngramShardOf(ngramBucket(`<${c}>`)));

/**
 * The composed shards not in `loaded` that the tokens outside the table need, one round at a time: the list
 * shards of the word and its stems; then its n-gram shards; then, only for a word still unknown or spelled
 * (none of its n-grams trained: the core spells it out), its letters' shards.
 */
function missingComposed(core, tokens, loaded) {
  const wanted = new Set();
  const notLoaded = (ids) => ids.filter((id) => !loaded.has(id));
  for (const t of tokens) {
    if (t.lookup !== 'unknown' && !t.found) continue;
    let ids = notLoaded(shardsOf(core, t));
    if (!ids.length && !loneMark(t.text)) ids = notLoaded(ngramShardsOf(core, t.text));
    if (!ids.length && !loneMark(t.text) && (t.lookup === 'unknown' || t.spelled)) ids = notLoaded(letterShardsOf(t.text));
    for (const id of ids) wanted.add(id);
  }
  return [...wanted];
}

/** A result that waits for composed shards (shaped as waitForShards's, with composed: ids and no table shards). */
function waitForComposed(core, tokens, sentence, loaded) {
  const composed = missingComposed(core, tokens, loaded);
  const unfinished = /[\p{L}\p{N}]$/u.test(sentence);
  const before = new Set(unfinished ? missingComposed(core, tokens.slice(0, -1), loaded) : composed);
  const waiting = tokens.filter((t) => missingComposed(core, [t], loaded).length);
  const names = waiting.slice(0, 3).map((t) => `“${t.text}”`);
  return {
    ok: false,
    kind: 'loading',
    message: `Composing the vector${waiting.length > 1 ? 's' : ''} of ${names.join(', ')}${waiting.length > 3 ? ' and more' : ''} from ${waiting.length > 1 ? 'their' : 'its'} pieces…`,
    shards: [],
    composed,
    typing: composed.filter((id) => !before.has(id)),
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

export function vectorResult(state, sources, key, keep) {
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
      // The first chunk of the table holds the examples' words, and the frequent words once they are
      // here (the store merges them in after the first figure). A word it does not have (found or stemmed
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
          message: `“${missing.text}” is not among the word vectors loaded so far (the examples’ and the most frequent words), and the whole table could not load (${sources.vectorsError.message}).`,
        };
      }
      // The composed vectors of words the table lacks, once the store can fetch them (sources.composedShards).
      const composed = sources.composedShards;
      if (composed && missingComposed(core, tokens, composed).length) {
        attended.delete();
        return waitForComposed(core, tokens, total === null ? state.sentence : '', composed);
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

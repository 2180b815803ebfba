// The one computation: from the state (state.js) and what is loaded, every number any view draws,
// all of it from the wasm core. Views read the Result and never call the core themselves. This file
// chooses which result a change needs; compute/ makes each kind: vectors.js (word vectors and seed
// 003), model.js (a trained model, imported attention), hand.js (the by-hand sheet), parts.js (shared).
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
//   model      { run, layer, head, rollout, layers, heads, context, info, learnt(l), blank } with the trained
//              model (blank: { position (a word), masked (its token positions), tokens (as written), word, guesses })
//   vocabulary a trained model's 'words' | 'pieces';  cut: a pieces model's cut { words, pieces, totalWords,
//              totalPieces } or null;  wordLevel: a pieces model's result as words (units=words: every map
//              merged by the core; no steps), whose `pieces` is this result
//   imported   { layers, heads, layer, head } with imported attention
//   rounding() seed 003 only: the article's rounded weights and their outputs (core.weightedSum)
//   storyWord  the query whose strongest link to another word is strongest: the word the caption,
//              and the selected-word views, talk about until the reader picks one
// Otherwise { ok: false, kind: 'loading' | 'empty' | 'error' | 'cells', message, cells?, shards? (loading:
// the word-vector shards the sentence's words need, which the store fetches), composed? (loading: the
// composed-vector shards its unknown words need, issue 24), typing? (those of them only the last word needs
// while it may still be being typed: the text ends inside it) }.
import { AttentionError } from './loader.js';
import { isTrained } from './sources.js';
import { CellError, cellMessage } from './compute/parts.js';
import { MAX_TOKENS, SEED003, release, vectorResult } from './compute/vectors.js';
import { importedResult, modelResult, unitsOf } from './compute/model.js';

export { HEAD_SHARPNESS } from './rng.js';
export { MAX_TOKENS, SEED003, release, unitsOf };
export { HAND_DEFAULT, computeHand } from './compute/hand.js';

/** The fields of the state the main computation depends on (the rest only changes what is drawn). */
function keyOf(state, sources) {
  const s = state;
  if (sources.imported) return `imported:${sources.imported.id}:${s.layer}:${s.head}`;
  if (isTrained(s.source)) return `${s.source}:${s.sentence}:${s.layer}:${s.head}:${s.blank}:${s.off}:${s.offMode}`;
  return [
    sources.vectorsPartial ? `first chunk, merge ${sources.vectorsMerge ?? 0}` : 'whole table',
    `${sources.composedShards?.size ?? 0} composed shards`,
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

/** The selected query word: the reader's, else the result's story word. */
export function wordOf(state, result) {
  if (!result?.ok) return null;
  return state.word !== null && state.word !== undefined && state.word < result.T ? state.word : result.storyWord;
}

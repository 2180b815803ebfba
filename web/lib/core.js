// Loads the WebAssembly core and the word vectors once per page, however many figures ask: one
// module-level promise each. Files resolve relative to this module's URL (the bundle's location),
// so the widget works from any folder. Then: the calls into the core that the figures make.
import { loadAttention } from 'attention-core';
import { multiHeadWeights } from './rng.js';

export { AttentionError } from 'attention-core';
// The figure draws up to this many tokens (a T×T matrix of float32s: 4 MiB at 1,024, a few copies of
// it per recompute); longer text is cut to its first MAX_TOKENS tokens, and the figure says so.
export const MAX_TOKENS = 1024;

let corePromise = null;
let vectorsPromise = null;

/** Where the widget's own files live (overridable for tests and unusual layouts). */
let base = import.meta.url;
export function setAssetBase(url) {
  base = new URL(url, document.baseURI).href;
}
export const assetURL = (name) => new URL(name, base).href;

/** The shared wasm core (instantiated on first call). A failed load is retried on the next call. */
export function loadCore() {
  corePromise ??= loadAttention({ locateFile: (path) => assetURL(path) }).catch((err) => {
    corePromise = null;
    throw err;
  });
  return corePromise;
}

async function fetchBytes(url) {
  const response = await fetch(url);
  if (!response.ok) throw new Error(`${url}: HTTP ${response.status} ${response.statusText}`);
  return new Uint8Array(await response.arrayBuffer());
}

/** The shared word-vector table (fetched on first call). */
export function loadVectors() {
  vectorsPromise ??= Promise.all([loadCore(), fetchBytes(assetURL('vectors.bin'))])
    .then(([core, bytes]) => core.loadVectors(bytes))
    .catch((err) => {
      vectorsPromise = null;
      throw err;
    });
  return vectorsPromise;
}

const weightCache = new Map();
function weightsFor(dim, heads, seed) {
  const key = `${dim}/${heads}/${seed}`;
  if (!weightCache.has(key)) weightCache.set(key, multiHeadWeights(dim, heads, seed));
  return weightCache.get(key);
}

/**
 * Everything a figure of a sentence needs, from the core: tokens, the parameter-free steps
 * (softmax(X·Xᵀ/√d / temperature), or /1 with scale 'none'; with norm 'columns' also the column softmax), and for the heads view the per-head steps of multiHead with
 * seeded Xavier weights. Throws AttentionError for the core's complaints.
 */
export function computeSentence(core, vectors, { sentence, temperature, mask, heads, seed, view, scale = 'sqrt', norm = 'rows' }) {
  const { embedding, total } = embedPrefix(core, vectors, sentence, MAX_TOKENS);
  const options = { temperature, causal: mask === 'causal' };
  const single = core.parameterFree(embedding.X, scale === 'none' ? 1 : Math.sqrt(vectors.dim), options);
  const model = {
    source: 'vectors',
    tokens: embedding.tokens,
    dim: vectors.dim,
    single,
    heads: null,
    X: embedding.X,
    scale,
    // The same scaled scores, softmaxed down each column instead of along each row (by the core).
    columns: norm === 'columns' ? core.softmax(single.scaled, { axis: 'columns' }) : null,
    // How many tokens the whole text has, when it had more than were embedded (else null).
    tokenTotal: total,
  };
  if (view === 'heads') {
    const w = weightsFor(vectors.dim, heads, seed);
    const result = core.multiHead(embedding.X, { heads: w.heads, Wo: w.Wo }, options);
    model.heads = result.heads;
    model.dk = w.dk;
  }
  return model;
}

/**
 * The embedding of a text's first `cap` tokens: { embedding, total } where total is the text's token
 * count when it had more (else null). The core refuses more than `cap`; the first `cap` tokens,
 * joined by spaces, tokenise back to themselves (a token never holds a space), so the core embeds
 * exactly those.
 */
export function embedPrefix(core, vectors, text, cap) {
  try {
    return { embedding: vectors.embed(text, cap), total: null };
  } catch (err) {
    const tokens = core.tokenize(text);
    if (tokens.length <= cap) throw err;
    return { embedding: vectors.embed(tokens.slice(0, cap).join(' '), cap), total: tokens.length };
  }
}

/** Tokens of a text (for messages about empty or too long input). */
export function tokenCount(core, text) {
  try {
    return core.tokenize(text).length;
  } catch {
    return -1;
  }
}

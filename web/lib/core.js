// Loads the WebAssembly core, the word vectors and the trained language model once per page, however
// many figures ask: one module-level promise each. Files resolve relative to this module's URL (the
// bundle's location), so the widget works from any folder. Then: the calls into the core that the
// figures make.
import { AttentionError, loadAttention, loadAttentionWithModel } from 'attention-core';
import { multiHeadWeights } from './rng.js';

export { AttentionError } from 'attention-core';
// The figure draws up to this many tokens (a T×T matrix of float32s: 4 MiB at 1,024, a few copies of
// it per recompute); longer text is cut to its first MAX_TOKENS tokens, and the figure says so.
export const MAX_TOKENS = 1024;

let corePromise = null;
let vectorsPromise = null;
let modelPromise = null;

/** Where the widget's own files live (overridable for tests and unusual layouts). */
let base = import.meta.url;
export function setAssetBase(url) {
  base = new URL(url, document.baseURI).href;
}
export const assetURL = (name) => new URL(name, base).href;

/** The shared wasm core (instantiated on first call). A failed load is retried on the next call. */
export function loadCore() {
  corePromise ??= instantiate(loadAttention, 'attention_wasm.wasm').catch((err) => {
    corePromise = null;
    throw err;
  });
  return corePromise;
}

// The page starts compiling the core and reading the word vectors before this bundle has even arrived,
// and the trained model's module and file too when its URL asks for the model (web/load-early.js leaves
// { [file]: { url, result: Promise } } in window.attentionEarly). Take a result over (once: a retry
// loads afresh, and the page keeps no second copy of the bytes) when it is the same file and it
// loaded; otherwise (the widget in an article, or an early load failed) load the file here.
function early(file) {
  const started = globalThis.attentionEarly?.[file];
  if (started?.url !== assetURL(file)) return Promise.resolve(null);
  delete globalThis.attentionEarly[file];
  return started.result.catch(() => null);
}

/** One of the two wasm modules through its loader (loadAttention or loadAttentionWithModel). */
async function instantiate(load, file) {
  const locateFile = (path) => assetURL(path);
  const module = await early(file);
  // Without a compiled module Emscripten's glue fetches and compiles the file itself.
  if (!(module instanceof WebAssembly.Module)) return load({ locateFile });
  return new Promise((resolve, reject) => {
    const instantiateWasm = (imports, receive) => {
      WebAssembly.instantiate(module, imports).then((instance) => receive(instance, module), reject);
      return {}; // asynchronous: the glue waits for receive()
    };
    load({ locateFile, instantiateWasm }).then(resolve, reject);
  });
}

async function fetchBytes(url) {
  const response = await fetch(url);
  if (!response.ok) throw new Error(`${url}: HTTP ${response.status} ${response.statusText}`);
  return new Uint8Array(await response.arrayBuffer());
}

/** A data file's bytes: what the page read early, or a fetch now. */
async function bytesOf(file) {
  const buffer = await early(file);
  return buffer instanceof ArrayBuffer ? new Uint8Array(buffer) : fetchBytes(assetURL(file));
}

/** The shared word-vector table (fetched on first call). */
export function loadVectors() {
  vectorsPromise ??= Promise.all([loadCore(), bytesOf('vectors.bin')])
    .then(([core, bytes]) => core.loadVectors(bytes))
    .catch((err) => {
      vectorsPromise = null;
      throw err;
    });
  return vectorsPromise;
}

/**
 * The shared trained language model (data/model.bin, ~0.8 MB), fetched and parsed on the first call
 * only: the page and the widget ask for it when the reader first picks "trained model". The model's
 * code lives in a second, larger wasm module (attention_model_wasm, fetched beside this bundle), so
 * the word-vector figure never pays for it. Resolves to { core (that module's API), model
 * (LanguageModel), timing: { module, fetch, parse, total } in ms, bytes }. A failed load is retried
 * on the next call.
 */
export function loadModel() {
  modelPromise ??= (async () => {
    const started = performance.now();
    const since = (t) => performance.now() - t;
    let module = 0, fetched = 0;
    const [core, bytes] = await Promise.all([
      instantiate(loadAttentionWithModel, 'attention_model_wasm.wasm').then((c) => ((module = since(started)), c)),
      bytesOf('model.bin').then((b) => ((fetched = since(started)), b)),
    ]);
    const parsing = performance.now();
    const model = core.loadModel(bytes);
    const parse = since(parsing);
    return { core, model, bytes: bytes.length, timing: { module, fetch: fetched, parse, total: since(started) } };
  })().catch((err) => {
    modelPromise = null;
    throw err;
  });
  return modelPromise;
}

/**
 * Everything a figure of a sentence needs from the trained model: its run (tokens, every layer's
 * heads, rollout, predictions, captions) on the text's first `context` tokens. The model refuses
 * longer text (it never saw later positions); the figure cuts it instead and says so: tokenTotal is
 * the text's token count when it had more (else null). Throws AttentionError for no words.
 */
export function computeModel({ core, model }, { sentence }) {
  let run, total = null;
  try {
    run = model.run(sentence);
  } catch (err) {
    if (!(err instanceof AttentionError)) throw err;
    const tokens = core.tokenize(sentence);
    if (tokens.length <= model.context) throw err;
    // The first `context` tokens, joined by spaces, tokenise back to themselves (see embedPrefix).
    run = model.run(tokens.slice(0, model.context).join(' '));
    total = tokens.length;
  }
  return {
    source: 'model',
    tokens: run.tokens,
    run,
    layers: run.layers.length,
    heads: run.layers[0].heads.length,
    dk: run.layers[0].heads[0].Q.cols,
    dModel: model.dModel,
    context: model.context,
    captions: run.captions,
    tokenTotal: total,
  };
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

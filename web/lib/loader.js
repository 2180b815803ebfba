// Loads the WebAssembly core, the word vectors and the trained models (decoder, encoder) once per page,
// however many figures ask: one module-level promise each. Files resolve relative to this module's URL (the
// bundle's location), so the widget works from any folder. The calls into the core live in compute.js.
// The relaxed-SIMD check through the core's module (wasm/core-file.js), so a bundle holds it once.
import { FIXED_CORE, RELAXED_CORE, loadAttention, loadAttentionWithModel, relaxedSimd } from '#attention-core';
import { composedShardFile, mergeVectors, shardFile } from './vectors-format.js';

export { AttentionError } from '#attention-core';

let corePromise = null;
let vectorsPromise = null;
let firstVectorsPromise = null;
let firstBytesPromise = null; // the first chunk's bytes, kept to merge with shards
let commonPromise = null; // the first chunk and the frequent words (vectors-common.bin) as one shared table
let commonBytes = null; // the same bytes once they are here
const shardPromises = new Map(); // shard id → its bytes (Promise)
let largerPromise = null;
let modelPromise = null;
let encoderPromise = null;

/**
 * Where the bundle's files live: the wasm modules (the small core's two builds and the model's), the
 * model module's glue (loadAttentionWithModel asks locateFile for it too), vectors-first.bin, vectors-shards/, vectors-composed/, vectors-ngrams/, vectors.bin, model.bin, encoder.bin and the
 * compare view's module. Default: beside this bundle; setAssetBase() moves them all (the widget exports it). Call it
 * before the first load: what has loaded stays loaded.
 */
let base = import.meta.url;
export function setAssetBase(url) {
  base = new URL(url, document.baseURI).href;
}
export const assetURL = (name) => new URL(name, base).href;

/**
 * The shared wasm core (instantiated on first call): the relaxed-SIMD build where this browser runs
 * relaxed SIMD (core-file.js), else the fixed one. A relaxed build that cannot be fetched, compiled or
 * instantiated (a folder copied without it, a server refusing it, an engine whose validate says yes
 * but whose compiler does not) gives way to the fixed build, so a reader never loses the figure to the
 * faster variant. A failed load is retried on the next call.
 */
export function loadCore() {
  corePromise ??= retried(
    relaxedSimd()
      ? instantiate(loadAttention, RELAXED_CORE).catch((err) => {
          console.warn(`${RELAXED_CORE} did not load (${err?.message ?? err}); loading ${FIXED_CORE}`);
          return instantiate(loadAttention, FIXED_CORE);
        })
      : instantiate(loadAttention, FIXED_CORE),
    () => (corePromise = null),
  );
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

/**
 * A wasm module through its loader (loadAttention or loadAttentionWithModel), from `file`: either build
 * of the small core runs under its one glue (wasm/CMakeLists.txt checks they match).
 */
async function instantiate(load, file) {
  const locateFile = (path) => assetURL(path);
  const module = await early(file);
  // Without a compiled module the API fetches and compiles `file` itself (wasmFile: loadAttention's).
  if (!(module instanceof WebAssembly.Module)) return load({ locateFile, wasmFile: file });
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

/** A promise that is forgotten when it fails, so the next call tries again. */
const retried = (promise, forget) =>
  promise.catch((err) => {
    forget();
    throw err;
  });

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
 * The word vectors' first chunk (vectors-first.bin, a few KiB gzip: the words of the sentences a reader
 * meets before typing — the page's, the views' openings, the examples' — built by scripts/build-site.mjs),
 * for a first figure before anything else has arrived. Resolves to null if the file is not there (the
 * whole table will do).
 */
export function loadFirstVectors() {
  firstVectorsPromise ??= Promise.all([loadCore(), firstBytes()])
    .then(([core, bytes]) => core.loadVectors(bytes))
    .catch(() => null);
  return firstVectorsPromise;
}

function firstBytes() {
  firstBytesPromise ??= bytesOf('vectors-first.bin');
  return firstBytesPromise;
}

/**
 * The first chunk and the frequent words (vectors-common.bin, ~105 KiB gzip: the 2,000 most frequent
 * words not in the first chunk) as one table shared by the page's stores, like the first chunk's: a store
 * asks for it once its first figure has drawn, so that most sentences a reader types need no shard.
 * Resolves to null when the file could not load (fetched again on the next call; shards do the work
 * meanwhile). From then on loadShardedVectors merges the frequent words in too.
 */
export function loadCommonVectors() {
  commonPromise ??= Promise.all([loadCore(), firstBytes(), bytesOf('vectors-common.bin')]).then(
    ([core, first, bytes]) => core.loadVectors(mergeVectors([first, (commonBytes = bytes)])),
    () => ((commonPromise = null), null),
  );
  return commonPromise;
}

/**
 * The first chunk, the frequent words once they are here (loadCommonVectors), and the shards `ids` of the whole table (vectors-shards/, ~9 KiB gzip each, split by a
 * hash of the word: vectors-format.js) as one new table, for a sentence with words outside the first
 * chunk while the whole table is on its way. Each shard is fetched once; a failed one is fetched again
 * on the next call. The caller owns (and deletes) the table.
 */
export async function loadShardedVectors(ids) {
  const shards = ids.map((id) => {
    if (!shardPromises.has(id))
      shardPromises.set(
        id,
        retried(fetchBytes(assetURL(shardFile(id))), () => shardPromises.delete(id)),
      );
    return shardPromises.get(id);
  });
  const [core, first, ...bytes] = await Promise.all([loadCore(), firstBytes(), ...shards]);
  return core.loadVectors(mergeVectors([first, ...(commonBytes ? [commonBytes] : []), ...bytes]));
}

// ---- issue 24: vectors composed from character n-grams -------------------------------------------------
const composedPromises = new Map(); // composed shard id → its bytes, or null when it could not be fetched

/**
 * The composed shards `ids` (vectors-composed/, data/vectors-composed.bin split like the table; and ids 'n…',
 * vectors-ngrams/, fastText's n-gram rows keyed by bucket: vectors-format.js) merged into one vectors file's
 * bytes, for WordVectors.attachComposed: the core finds a listed word's row and composes any other word from
 * the n-gram rows of the same table. A shard that cannot be fetched counts as empty
 * (its words stay unknown) and is fetched again on a later call; null when none of them arrived.
 */
export async function loadComposedShards(ids) {
  const shards = ids.map((id) => {
    if (!composedPromises.has(id))
      composedPromises.set(
        id,
        fetchBytes(assetURL(composedShardFile(id))).catch(() => (composedPromises.delete(id), null)),
      );
    return composedPromises.get(id);
  });
  const bytes = (await Promise.all(shards)).filter(Boolean);
  return bytes.length ? mergeVectors(bytes) : null;
}

/** The larger wasm module (the trained models' code), instantiated once, on demand. */
export function loadLargerCore() {
  largerPromise ??= retried(instantiate(loadAttentionWithModel, 'attention_model_wasm.wasm'), () => (largerPromise = null));
  return largerPromise;
}

/**
 * A trained model file fetched and parsed by the larger module (shared by both models): resolves to
 * { core (that module's API), model (LanguageModel), bytes, timing: { module, fetch, parse, total } in ms }.
 */
async function loadTrained(file) {
  const started = performance.now();
  const since = (t) => performance.now() - t;
  let module = 0,
    fetched = 0;
  const [core, bytes] = await Promise.all([
    loadLargerCore().then((c) => ((module = since(started)), c)),
    bytesOf(file).then((b) => ((fetched = since(started)), b)),
  ]);
  const parsing = performance.now();
  const model = core.loadModel(bytes);
  const parse = since(parsing);
  return { core, model, bytes: bytes.length, timing: { module, fetch: fetched, parse, total: since(started) } };
}

/**
 * The shared trained decoder (data/model.bin, ~0.8 MB, model.kind 'decoder': each word sees only the
 * words before it), fetched and parsed on the first call only: the page and the widget ask for it when
 * the reader first picks it. Its code lives in the larger wasm module (attention_model_wasm, fetched
 * beside this bundle), so the word-vector figure never pays for it. Resolves as loadTrained; a failed
 * load is retried on the next call.
 */
export function loadModel() {
  modelPromise ??= retried(loadTrained('model.bin'), () => (modelPromise = null));
  return modelPromise;
}

/**
 * The shared trained encoder (data/encoder.bin, ≤ 1 MB, model.kind 'encoder': each word sees the whole
 * sentence; model.fill(sentence, position) guesses a blanked word), on the first call only, through the
 * same larger module instance as loadModel. Resolves as loadModel; a failed load is retried.
 */
export function loadEncoder() {
  encoderPromise ??= retried(loadTrained('encoder.bin'), () => (encoderPromise = null));
  return encoderPromise;
}

// The friendly JS API over the WebAssembly attention core (types in attention.d.ts).
// It only converts: plain arrays or Float32Arrays in, {rows, cols, data} matrices out, and the core's
// errors rethrown as AttentionError. Every number comes from the C++ core.
// @ts-check
import createAttentionModule from './attention_wasm.js';
import { FIXED_CORE, coreFile } from './core-file.js';

export { FIXED_CORE, RELAXED_CORE, coreFile, relaxedSimd } from './core-file.js';

/** Raised for every shape or value problem; the message is the C++ core's. */
export class AttentionError extends Error {
  constructor(message) {
    super(message);
    this.name = 'AttentionError';
  }
}

/** A row-major {rows, cols, data} matrix from an array of equal-length rows. */
export function matrix(rows) {
  if (!Array.isArray(rows) && !(rows && typeof rows.length === 'number')) {
    throw new AttentionError('a matrix must be an array of rows');
  }
  const rowCount = rows.length;
  const cols = rowCount ? rows[0].length : 0;
  const data = new Float32Array(rowCount * cols);
  for (let r = 0; r < rowCount; r++) {
    const row = rows[r];
    if (!row || row.length !== cols) {
      throw new AttentionError(`row ${r} has ${row ? row.length : 0} values but row 0 has ${cols}`);
    }
    for (let c = 0; c < cols; c++) data[r * cols + c] = toNumber(row[c], `row ${r}, column ${c}`);
  }
  return { rows: rowCount, cols, data };
}

/** A matrix as an array of plain-number rows. */
export function toRows(m) {
  const out = [];
  for (let r = 0; r < m.rows; r++) out.push(Array.from(m.data.subarray(r * m.cols, (r + 1) * m.cols)));
  return out;
}

function toNumber(value, where) {
  // Strings like "2" are refused rather than coerced: a typo in a cell should be reported, not guessed.
  if (typeof value !== 'number') throw new AttentionError(`${where} is ${JSON.stringify(value)}, not a number`);
  return value;
}

// The one place a matrix argument is checked for form (the core checks its values and how its shape fits
// the other operands): {rows, cols, data} with rows·cols values, or an array of equal-length rows.
function asMatrix(input, name) {
  if (input === undefined || input === null) throw new AttentionError(`${name} is missing`);
  if (input.data !== undefined) {
    const { rows, cols, data } = input;
    if (!Number.isInteger(rows) || !Number.isInteger(cols) || rows < 0 || cols < 0) {
      throw new AttentionError(`${name} needs whole-number rows and cols, got ${rows}×${cols}`);
    }
    const values = data instanceof Float32Array ? data : Float32Array.from(data, Number);
    if (values.length !== rows * cols) {
      throw new AttentionError(`${name} says ${rows}×${cols} but holds ${values.length} values`);
    }
    return { rows, cols, data: values };
  }
  try {
    return matrix(input);
  } catch (e) {
    throw new AttentionError(`${name}: ${e.message}`);
  }
}

/**
 * The arguments of a nearest() (word vectors' or a model's) checked: the vector as a Float32Array, k,
 * and exclude as row ids (a word through find(word), -1 when unknown) from 0 to size − 1.
 */
function nearestArgs(vector, k, exclude, find, size) {
  const values = asVector(vector, 'vector');
  if (!values) throw new AttentionError('nearest needs a vector');
  if (!Number.isInteger(k)) throw new AttentionError(`k must be a whole number, got ${JSON.stringify(k)}`);
  if (!Array.isArray(exclude)) throw new AttentionError('exclude must be an array of words and word ids');
  const ids = Int32Array.from(exclude, (item, i) => {
    const id = typeof item === 'string' ? find(item) : item;
    if (typeof item === 'string' && id < 0) throw new AttentionError(`cannot exclude "${item}": it is not in the vocabulary`);
    if (!Number.isInteger(id) || id < 0 || id >= size) {
      throw new AttentionError(`exclude[${i}] is ${JSON.stringify(item)}: give a word or a word id from 0 to ${size - 1}`);
    }
    return id;
  });
  return { values, ids };
}

function asVector(input, name) {
  if (input === undefined || input === null) return undefined;
  if (typeof input.length !== 'number') throw new AttentionError(`${name} must be an array of numbers`);
  const out = new Float32Array(input.length);
  for (let i = 0; i < input.length; i++) out[i] = toNumber(input[i], `${name}[${i}]`);
  return out;
}

/**
 * The score functions: one entry per value of the core's enum attn::Score, which the bindings bind as
 * `Score` (bindings.cpp, enum_). The one table from the core to the page: `name` is the word the API
 * takes and the page's URL and menu use, `core` the enum value's name, `aliases` older spellings the API
 * still accepts, `parameterFree` whether it scores without learnt weights (the page's word-vector
 * attention: q = k = x), `needs` the option it cannot go without. Adding a score: the enum and its
 * maths in the core, one .value() in bindings.cpp, one entry here, and the page's words for it.
 * @type {readonly import('./attention.js').ScoreEntry[]}
 */
export const SCORES = Object.freeze(
  /** @type {import('./attention.js').ScoreEntry[]} */ (
    [
      { name: 'scaled', core: 'ScaledDot', aliases: ['scaled_dot'], parameterFree: true, needs: null },
      { name: 'dot', core: 'Dot', aliases: [], parameterFree: true, needs: null },
      { name: 'cosine', core: 'Cosine', aliases: [], parameterFree: true, needs: null },
      { name: 'additive', core: 'Additive', aliases: [], parameterFree: false, needs: 'additive' },
    ].map((entry) => Object.freeze({ ...entry, aliases: Object.freeze(entry.aliases) }))
  ),
);

/** The SCORES entry for a name or one of its aliases, or undefined. */
export function scoreEntry(name) {
  return SCORES.find((entry) => entry.name === name || entry.aliases.includes(name));
}
const SCORE_WORDS = SCORES.map((entry) => [entry.name, ...entry.aliases].join(' or ')).join(', ');

/** The steps of one head, in the order of their bits in the mask the bindings read (bindings.cpp, to_js). */
const STEPS = ['Q', 'K', 'V', 'scores', 'scaled', 'weights', 'output'];
const ALL_STEPS = (1 << STEPS.length) - 1;
/** selfAttention's keep may also name its input X: bit 7 (bindings.cpp, kKeepX). */
const WITH_X = [...STEPS, 'X'];

// `keep`: which steps of each head come back (copied out of the wasm heap); all of them when not given.
function keepMask(keep, names = STEPS) {
  if (keep === undefined) return ALL_STEPS;
  if (!Array.isArray(keep) && !(keep instanceof Set)) {
    throw new AttentionError(`keep must be an array of step names (${names.join(', ')})`);
  }
  let mask = 0;
  for (const name of keep) {
    const bit = names.indexOf(name);
    if (bit < 0) throw new AttentionError(`keep: unknown step ${JSON.stringify(name)}; use ${names.join(', ')}`);
    mask |= 1 << bit;
  }
  return mask;
}

// Options are checked for type here because a wrongly typed value would otherwise throw inside
// Embind's conversion, in the middle of a wasm call.
// The score goes to the bindings as the bound enum's value (Score: raw.Score).
/** @param {any} options anything a caller passes (undefined: {}); checked here @param {any} Score @param {string[]} [steps] */
function asOptions(options, Score, steps = STEPS) {
  options ??= {};
  if (options === null || typeof options !== 'object') throw new AttentionError('options must be an object');
  const out = {};
  if (options.score !== undefined) {
    const entry = scoreEntry(options.score);
    if (!entry) throw new AttentionError(`unknown score ${JSON.stringify(options.score)}; use ${SCORE_WORDS}`);
    out.score = Score[entry.core];
  }
  const axis = options.axis ?? 'rows';
  if (axis !== 'rows' && axis !== 'columns') throw new AttentionError(`axis must be 'rows' or 'columns', got ${JSON.stringify(axis)}`);
  out.byColumns = axis === 'columns';
  if (options.temperature !== undefined) out.temperature = toNumber(options.temperature, 'temperature');
  out.causal = Boolean(options.causal);
  out.handShortcuts = Boolean(options.handShortcuts);
  if (options.keyPadding !== undefined && options.keyPadding !== null) {
    out.keyPadding = Uint8Array.from(options.keyPadding, (flag) => (flag ? 1 : 0));
  }
  if (options.keep !== undefined) out.keep = keepMask(options.keep, steps);
  if (options.additive) {
    const { W1, W2, v } = options.additive;
    out.additive = {
      W1: asMatrix(W1, 'additive.W1'),
      W2: asMatrix(W2, 'additive.W2'),
      v: asVector(v, 'additive.v') ?? new Float32Array(0),
    };
  }
  return out;
}

function asHead(weights, name = 'weights') {
  if (!weights || typeof weights !== 'object') throw new AttentionError(`${name} must be {Wq, Wk, Wv}`);
  const head = {
    Wq: asMatrix(weights.Wq, `${name}.Wq`),
    Wk: asMatrix(weights.Wk, `${name}.Wk`),
    Wv: asMatrix(weights.Wv, `${name}.Wv`),
  };
  for (const b of ['bq', 'bk', 'bv']) {
    const v = asVector(weights[b], `${name}.${b}`);
    if (v) head[b] = v;
  }
  return head;
}

function checked(result) {
  if (result instanceof Error) throw new AttentionError(result.message);
  return result;
}

// ---- by-hand practice (exercise.hpp; wasm/exercise_bindings.cpp) ----------------------------------------
// Seeded exercises on the by-hand sheet's shapes, their answers and the check of a learner's cell: every
// number, every tolerance and every typed entry's reading ("27/39", ".75") is the core's.
const EXERCISE_STEPS = ['Q', 'K', 'V', 'scores', 'scaled', 'powers', 'sums', 'A', 'Z'];

function asMath(options) {
  const math = options?.math ?? 'shortcuts';
  if (math !== 'shortcuts' && math !== 'real') throw new AttentionError(`math must be 'shortcuts' or 'real', got ${JSON.stringify(math)}`);
  return math;
}

function asGivens(givens) {
  if (!givens || typeof givens !== 'object') throw new AttentionError('an exercise needs its givens { X, Wq, Wk, Wv }');
  return { X: asMatrix(givens.X, 'X'), Wq: asMatrix(givens.Wq, 'Wq'), Wk: asMatrix(givens.Wk, 'Wk'), Wv: asMatrix(givens.Wv, 'Wv') };
}

function asExerciseCell(cell, what) {
  if (!cell || typeof cell !== 'object') throw new AttentionError(`${what} must be { step, row, col }`);
  const { step, row, col } = cell;
  if (!EXERCISE_STEPS.includes(step))
    throw new AttentionError(`${what}'s step must be one of ${EXERCISE_STEPS.join(', ')}, got ${JSON.stringify(step)}`);
  if (!Number.isInteger(row) || !Number.isInteger(col)) throw new AttentionError(`${what}'s row and col must be whole numbers`);
  return { step, row, col };
}

/**
 * The exercise part of the API over the raw module (wrap spreads it in). Only the larger module
 * (loadAttentionWithModel) holds it: the small one is the widget's, which has no room for it.
 */
function exerciseApi(raw) {
  const practice = () => {
    if (!raw.exerciseMake) throw new AttentionError('this module has no by-hand practice: load it with loadAttentionWithModel()');
    return raw;
  };
  // A typed entry (string) through the core's reader, or a finite number as it is.
  const valueOf = (value, what) => {
    if (typeof value === 'number') {
      if (!Number.isFinite(value)) throw new AttentionError(`${what} must be a finite number`);
      return value;
    }
    if (typeof value !== 'string') throw new AttentionError(`${what} must be a number or the text typed`);
    return checked(practice().exerciseParse(value)).value;
  };
  return {
    exercise(seed) {
      if (!Number.isInteger(seed) || seed < 0 || seed > 0xffffffff)
        throw new AttentionError(`an exercise seed must be a whole number from 0 to 4294967295, got ${JSON.stringify(seed)}`);
      return checked(practice().exerciseMake(seed));
    },
    exerciseCode(givens) {
      return checked(practice().exerciseCode(asGivens(givens)));
    },
    exerciseAnswer(givens, options) {
      return checked(practice().exerciseSolve(asGivens(givens), asMath(options)));
    },
    exerciseSteps(options) {
      return checked(practice().exerciseSteps(asMath(options)));
    },
    parseExerciseEntry(text) {
      if (typeof text !== 'string') throw new AttentionError('parseExerciseEntry needs the text typed');
      return checked(practice().exerciseParse(text)).value;
    },
    checkExerciseCell(givens, cell, value, options = {}) {
      const entries = (options.entries ?? []).map((e, i) => ({
        ...asExerciseCell(e, `entry ${i}`),
        value: valueOf(e.value, `entry ${i}'s value`),
      }));
      return checked(
        practice().exerciseCheck(asGivens(givens), asMath(options), entries, asExerciseCell(cell, 'the cell'), valueOf(value, 'the value')),
      );
    },
    exerciseShortcutGap(givens) {
      return checked(practice().exerciseGap(asGivens(givens)));
    },
  };
}
// ---- end of by-hand practice ----------------------------------------------------------------------------

/**
 * Instantiates the small wasm module. With options.wasmBinary (required under node) or
 * options.instantiateWasm, from those. Otherwise it fetches one build itself: options.wasmFile, or else
 * the relaxed-SIMD build (attention_wasm_relaxed.wasm, fused multiply-adds) where this engine validates
 * relaxed SIMD (core-file.js, the page's check), else the fixed one (attention_wasm.wasm). A relaxed build
 * that cannot be fetched or compiled gives way to the fixed one. It compiles the file itself and hands the
 * glue the module, so a failing file is requested once (the glue would ask again on its own).
 */
/** @param {import('./attention.js').LoadOptions} [options] @returns {Promise<import('./attention.js').AttentionCore>} */
export async function loadAttention(options = {}) {
  if (options.wasmBinary || options.instantiateWasm) return wrap(await createAttentionModule(options));
  const first = options.wasmFile ?? coreFile();
  let module;
  try {
    module = await compileFile(first, options.locateFile);
  } catch (err) {
    if (first === FIXED_CORE) throw err;
    console.warn(`${err.message}; loading ${FIXED_CORE}`);
    module = await compileFile(FIXED_CORE, options.locateFile);
  }
  const raw = await new Promise((resolve, reject) => {
    const instantiateWasm = (imports, receive) => {
      WebAssembly.instantiate(module, imports).then((instance) => receive(instance, module), reject);
      return {}; // asynchronous: the glue waits for receive()
    };
    createAttentionModule({ ...options, instantiateWasm }).then(resolve, reject);
  });
  return wrap(raw);
}

/** A build of the small module fetched (beside this file, or where locateFile says) and compiled. */
async function compileFile(file, locateFile) {
  const beside = new URL('./', import.meta.url).href;
  const url = typeof locateFile === 'function' ? locateFile(file, beside) : beside + file;
  try {
    const response = await fetch(url);
    if (!response.ok) throw new Error(`HTTP ${response.status} ${response.statusText}`);
    // Streaming compiles while the bytes arrive; it needs the wasm content type.
    return typeof WebAssembly.compileStreaming === 'function' && response.headers.get('content-type') === 'application/wasm'
      ? await WebAssembly.compileStreaming(response)
      : await WebAssembly.compile(await response.arrayBuffer());
  } catch (err) {
    throw new AttentionError(`could not load ${file} from ${url} (${err?.message ?? err})`);
  }
}

/**
 * The same API from the larger module that also holds the tiny WordNet models (loadModel):
 * attention_model_wasm.js + .wasm, beside this file unless options.locateFile says where (it is asked for
 * 'attention_model_wasm.js' as well as for the .wasm). Under node pass {wasmBinary} (attention_model_wasm.wasm).
 */
/** @param {import('./attention.js').LoadOptions} [options] @returns {Promise<import('./attention.js').AttentionCore>} */
export async function loadAttentionWithModel(options = {}) {
  // A computed specifier, so bundlers leave the model's glue out of the page's and widget's bundles.
  const beside = new URL('./', import.meta.url).href;
  const glue =
    typeof options.locateFile === 'function'
      ? new URL(options.locateFile('attention_model_wasm.js', beside), beside).href
      : new URL('attention_model_wasm.js', beside).href;
  const { default: createAttentionModelModule } = await import(glue);
  return wrap(await createAttentionModelModule(options));
}

/**
 * The friendly API over the raw Embind module: attention.d.ts is its contract, and tsc (tsconfig.check.json,
 * run by scripts/test.sh) holds this object to it.
 * @returns {import('./attention.js').AttentionCore}
 */
function wrap(raw) {
  // The raw table of each live WordVectors, for selfAttention (its #handle is private to the class).
  const tables = new WeakMap();

  class WordVectors {
    #handle;
    #nearest = null; // raw.NearestWords, made on the first nearest() call (the core builds its index then)
    constructor(handle) {
      this.#handle = handle;
      tables.set(this, handle);
      this.size = handle.size();
      this.dim = handle.dim();
    }
    /**
     * Attaches vectors composed from character n-grams (data/vectors-composed.bin, or a file of its rows)
     * for words this table lacks: such a token then has lookup 'composed' and its pieces. Returns this.
     */
    attachComposed(bytes) {
      if (!this.#handle) throw new AttentionError('these word vectors were deleted');
      const error = this.#handle.attachComposed(bytesOf(bytes, 'attachComposed'));
      if (error instanceof Error) throw new AttentionError(error.message);
      return this;
    }
    embed(text, maxTokens = 256) {
      if (!this.#handle) throw new AttentionError('these word vectors were deleted');
      if (typeof text !== 'string') throw new AttentionError('embed needs a string');
      if (!Number.isInteger(maxTokens) || maxTokens < 1) throw new AttentionError('maxTokens must be a whole number ≥ 1');
      return checked(this.#handle.embed(text, maxTokens));
    }
    /**
     * The k words whose vectors are nearest to `vector` by cosine similarity, best first:
     * [{ word, id, similarity }]. exclude: words (strings) or row ids (numbers) to leave out.
     */
    nearest(vector, k, { exclude = [] } = {}) {
      if (!this.#handle) throw new AttentionError('these word vectors were deleted');
      this.#nearest ??= new raw.NearestWords(this.#handle);
      const { values, ids } = nearestArgs(vector, k, exclude, (word) => this.#nearest.find(word), this.size);
      return checked(this.#nearest.nearest(values, k, ids));
    }
    delete() {
      // The index reads the table's words: it goes first.
      if (this.#nearest) this.#nearest.delete();
      this.#nearest = null;
      if (this.#handle) this.#handle.delete();
      this.#handle = null;
      tables.delete(this);
    }
  }

  /**
   * A sentence attended in one crossing (selfAttention): its fields are what came out (tokens, total,
   * T, d, dk, dv, divisor, the kept steps, X when kept); its X and that head's Q, K, V and weights stay
   * on the wasm heap (bindings.cpp, SentenceHandle), so input(), multiHead() and queryTerms() send
   * nothing back in. delete() frees them.
   */
  class SelfAttention {
    #handle;
    constructor(handle, out) {
      this.#handle = handle;
      this.tokens = out.tokens ?? null;
      this.total = out.total ?? out.T;
      this.T = out.T;
      this.d = out.d;
      this.dk = out.dk;
      this.dv = out.dv;
      this.divisor = out.divisor;
      this.steps = out.steps;
      if (out.X) this.X = out.X;
    }
    #live() {
      if (!this.#handle) throw new AttentionError('this self-attention was deleted');
      return this.#handle;
    }
    /** X (T × d), copied out now (it was not kept). */
    input() {
      return this.X ?? checked(this.#live().input());
    }
    /** Multi-head attention over the held X: like core.multiHead(X, weights, options). */
    multiHead(weights, options) {
      return checked(this.#live().multiHead(asHeads(weights), asOptions(options, raw.Score)));
    }
    /** The terms of query i (like core.queryTerms on this head's Q, K, V and weights). */
    queryTerms(query) {
      if (!Number.isInteger(query)) throw new AttentionError(`query must be a whole number, got ${JSON.stringify(query)}`);
      return checked(this.#live().queryTerms(query));
    }
    delete() {
      if (this.#handle) this.#handle.delete();
      this.#handle = null;
    }
  }

  function asHeads(weights) {
    if (!weights || !Array.isArray(weights.heads)) throw new AttentionError('multiHead needs weights.heads, an array of heads');
    const packed = {
      heads: weights.heads.map((h, i) => asHead(h, `heads[${i}]`)),
      Wo: asMatrix(weights.Wo, 'Wo'),
    };
    const bo = asVector(weights.bo, 'bo');
    if (bo) packed.bo = bo;
    return packed;
  }

  /** core.selfAttention: embed (or take X) and attend in one call; see attention.d.ts. @param {any} input @param {any} [options] */
  function selfAttention(input, options = {}) {
    if (!input || typeof input !== 'object') throw new AttentionError('selfAttention needs { vectors, text } or { X }');
    if (options === null || typeof options !== 'object') throw new AttentionError('options must be an object');
    const { weights = null, ...rest } = options;
    const head = weights === null ? null : asHead(weights);
    const o = asOptions(rest, raw.Score, WITH_X);
    let call;
    if (input.X !== undefined) {
      const X = asMatrix(input.X, 'X');
      call = (handle) => handle.attendMatrix(X, head, o);
    } else {
      const table = tables.get(input.vectors);
      if (!table) throw new AttentionError('selfAttention needs loaded word vectors (core.loadVectors), not deleted ones');
      if (typeof input.text !== 'string') throw new AttentionError('selfAttention needs text, a string');
      const cap = input.maxTokens ?? 256;
      if (!Number.isInteger(cap) || cap < 1) throw new AttentionError('maxTokens must be a whole number ≥ 1');
      call = (handle) => handle.embedAndAttend(table, input.text, cap, head, o);
    }
    const handle = new raw.Sentence();
    const out = call(handle);
    if (out instanceof Error) {
      handle.delete();
      throw new AttentionError(out.message);
    }
    return new SelfAttention(handle, out);
  }

  const asTop = (top) => {
    if (!Number.isInteger(top) || top < 0) throw new AttentionError(`top must be a whole number ≥ 0, got ${JSON.stringify(top)}`);
    return top;
  };

  /** The ways to switch a head off, by the number the bindings read (bindings.cpp, intervention_from_js). */
  const ABLATIONS = ['zero', 'mean', 'uniform'];
  const asMode = (mode, what = 'mode') => {
    const index = ABLATIONS.indexOf(mode ?? 'zero');
    if (index < 0) throw new AttentionError(`${what} must be ${ABLATIONS.map((m) => `'${m}'`).join(', ')}; got ${JSON.stringify(mode)}`);
    return index;
  };
  // A layer or head number for the core, which names those outside the model; anything not a whole number
  // in Int32 range is refused here, before it could wrap.
  const asPart = (value, what) => {
    if (!Number.isInteger(value) || Math.abs(value) >= 2 ** 31)
      throw new AttentionError(`${what} must be a whole number, got ${JSON.stringify(value)}`);
    return value;
  };
  // `off` ({ heads?: [layer, head][], mode?, layers?: number[], positions?: boolean }) checked and laid out
  // for the bindings; undefined or null for none.
  const asIntervention = (off) => {
    if (off === undefined || off === null) return undefined;
    if (typeof off !== 'object' || Array.isArray(off)) throw new AttentionError('off must be an object { heads, mode, layers, positions }');
    const heads = off.heads ?? [];
    const layers = off.layers ?? [];
    if (!Array.isArray(heads)) throw new AttentionError('off.heads must be an array of [layer, head] pairs');
    if (!Array.isArray(layers)) throw new AttentionError('off.layers must be an array of layer numbers');
    const pairs = new Int32Array(2 * heads.length);
    heads.forEach((pair, i) => {
      if (!Array.isArray(pair) || pair.length !== 2)
        throw new AttentionError(`off.heads[${i}] must be a [layer, head] pair, got ${JSON.stringify(pair)}`);
      pairs[2 * i] = asPart(pair[0], `off.heads[${i}]'s layer`);
      pairs[2 * i + 1] = asPart(pair[1], `off.heads[${i}]'s head`);
    });
    const positions = off.positions ?? false;
    if (typeof positions !== 'boolean') throw new AttentionError(`off.positions must be true or false, got ${JSON.stringify(positions)}`);
    return {
      heads: pairs,
      mode: asMode(off.mode, 'off.mode'),
      layers: Int32Array.from(layers, (layer, i) => asPart(layer, `off.layers[${i}]`)),
      positions,
    };
  };

  // run's and fill's wordLevel and fit, as the bits after the steps' the bindings read (bindings.cpp, kWordMaps, kFit).
  const runFlags = (wordLevel, fit) => {
    if (typeof wordLevel !== 'boolean') throw new AttentionError(`wordLevel must be true or false, got ${JSON.stringify(wordLevel)}`);
    if (typeof fit !== 'boolean') throw new AttentionError(`fit must be true or false, got ${JSON.stringify(fit)}`);
    return (wordLevel ? 0x100 : 0) | (fit ? 0x200 : 0);
  };

  /** A trained model: kind 'decoder' (model.bin, causal) or 'encoder' (encoder.bin, bidirectional, fill). */
  class LanguageModel {
    #handle;
    #size; // the vocabulary's size, for nearest's checks
    #encoder; // whether headEffects needs a blank
    constructor(handle) {
      this.#handle = handle;
      const info = handle.info();
      Object.assign(this, info);
      this.#size = info.vocabularySize;
      this.#encoder = info.kind === 'encoder';
    }
    /**
     * wordLevel: the result also holds `wordMaps` (every head's map and the rollout merged to words, with
     * the words' text) from the same call; fit: a text longer than the context is cut at a whole word
     * (`fitted` says to what) instead of refused.
     * @param {string} sentence
     * @param {{ top?: number, keep?: readonly string[], off?: import('./attention.js').SwitchedOff, wordLevel?: boolean, fit?: boolean }} [options]
     */
    run(sentence, { top = 5, keep, off, wordLevel = false, fit = false } = {}) {
      if (!this.#handle) throw new AttentionError('this model was deleted');
      if (typeof sentence !== 'string') throw new AttentionError('run needs a string');
      return checked(this.#handle.run(sentence, asTop(top), keepMask(keep) | runFlags(wordLevel, fit), asIntervention(off)));
    }
    /**
     * Fill the blank (encoder only): word `position` (from 0) of the sentence replaced by [MASK] (a pieces
     * model: every piece of that word); { tokens (as written), position, masked (the token positions hidden),
     * guesses: the `top` whole words for the blank, run (the masked sentence's) }.
     * @param {string} sentence @param {number} position
     * wordLevel and fit as for run (fit: a blank past the cut text's words moves to its last word).
     * @param {{ top?: number, keep?: readonly string[], off?: import('./attention.js').SwitchedOff, wordLevel?: boolean, fit?: boolean }} [options]
     */
    fill(sentence, position, { top = 5, keep, off, wordLevel = false, fit = false } = {}) {
      if (!this.#handle) throw new AttentionError('this model was deleted');
      if (typeof sentence !== 'string') throw new AttentionError('fill needs a string');
      if (!Number.isInteger(position)) throw new AttentionError(`position must be a whole number, got ${JSON.stringify(position)}`);
      const flags = keepMask(keep) | runFlags(wordLevel, fit);
      return checked(this.#handle.fill(sentence, position, asTop(top), flags, asIntervention(off)));
    }
    /**
     * Which heads matter for one guess: each head switched off in turn (in `mode`, on top of `off`), the
     * target word's probability and rank each time. Encoder: `position` is the blank (required); decoder:
     * the next word after the last token (position ignored). One core call.
     * @param {string} sentence
     * @param {{ position?: number, off?: import('./attention.js').SwitchedOff, mode?: import('./attention.js').Ablation }} [options]
     */
    headEffects(sentence, { position, off, mode = 'zero' } = {}) {
      if (!this.#handle) throw new AttentionError('this model was deleted');
      if (typeof sentence !== 'string') throw new AttentionError('headEffects needs a string');
      if (this.#encoder && !Number.isInteger(position)) {
        throw new AttentionError(
          `headEffects on the encoder needs position, the blank, as a whole number; got ${JSON.stringify(position)}`,
        );
      }
      if (position !== undefined && !Number.isInteger(position))
        throw new AttentionError(`position must be a whole number, got ${JSON.stringify(position)}`);
      return checked(this.#handle.headEffects(sentence, position ?? -1, asIntervention(off), asMode(mode)));
    }
    /**
     * The k vocabulary words whose embeddings (the tied output head's rows) are nearest to `vector`
     * (dModel values, e.g. a row of a run's input or of a layer's output) by cosine similarity, best
     * first: [{ word, id, similarity }]. finalNorm: read the vector through the final LayerNorm first,
     * as the output head reads the last layer. exclude: words or ids to leave out.
     */
    nearest(vector, k, { exclude = [], finalNorm = false } = {}) {
      if (!this.#handle) throw new AttentionError('this model was deleted');
      const { values, ids } = nearestArgs(vector, k, exclude, (word) => this.#handle.find(word), this.#size);
      if (typeof finalNorm !== 'boolean') throw new AttentionError(`finalNorm must be true or false, got ${JSON.stringify(finalNorm)}`);
      return checked(this.#handle.nearest(values, k, ids, finalNorm));
    }
    /**
     * Layer `layer`'s (from 0) learnt attention weights, copied out of the core: heads[h] = {Wq, Wk, Wv}
     * (d_model × d_k) with biases {bq, bk, bv}, and the output projection Wo (heads·d_k × d_model), bo.
     */
    attentionWeights(layer) {
      if (!this.#handle) throw new AttentionError('this model was deleted');
      if (!Number.isInteger(layer)) throw new AttentionError(`layer must be a whole number, got ${JSON.stringify(layer)}`);
      return checked(this.#handle.attentionWeights(layer));
    }
    /**
     * A piece-level attention map (queries × keys, one row and column per token) as a word-level one, merged
     * by the core (attn::merge_pieces_to_words): weight(word a → word b) is the sum over b's pieces (keys)
     * of the mean over a's pieces (queries). Rows that sum to 1 still do. wordOf[t]: token t's word (the
     * tokens' `word`), from 0, rising by 0 or 1 from token to token.
     * @param {import('./attention.js').MatrixInput} weights @param {ArrayLike<number>} wordOf
     */
    mergePieces(weights, wordOf) {
      return mergePieces(weights, wordOf);
    }
    /**
     * The word-level maps a run() or fill() made with `wordLevel: true` carries (a fill's: its masked run's):
     * { words, labels, heads[layer][head], rollout }, every head's map and the rollout merged to words by
     * the core (mergePieces' rule) in the run's own call. It only reads them, so it works with the model
     * deleted. A result made without wordLevel is refused rather than merged here: that would cross into
     * the core once per head, and without the words' labels.
     * @param {any} result a run() or a fill() result
     */
    wordMaps(result) {
      const run = result && typeof result === 'object' && result.run ? result.run : result;
      if (!run || !Array.isArray(run.tokens) || !Array.isArray(run.layers))
        throw new AttentionError('wordMaps needs the result of run() or fill()');
      if (!run.wordMaps) throw new AttentionError('wordMaps needs a result made with { wordLevel: true }: run or fill with it');
      return run.wordMaps;
    }
    delete() {
      if (this.#handle) this.#handle.delete();
      this.#handle = null;
    }
  }

  // mergePieces of the model object, which needs no model: the map and each token's word checked for form
  // here (whole numbers ≥ 0, so none wraps on its way to the core's unsigned indices), the rest by the core.
  function mergePieces(weights, wordOf) {
    if (!raw.LanguageModel) throw new AttentionError('this module has no language model: load it with loadAttentionWithModel()');
    if (!wordOf || typeof wordOf !== 'object' || typeof wordOf.length !== 'number')
      throw new AttentionError('wordOf must be an array of word indices, one per token');
    const words = Int32Array.from(wordOf, (word, i) => {
      if (!Number.isInteger(word) || word < 0 || word >= 2 ** 31)
        throw new AttentionError(`wordOf[${i}] must be a whole number ≥ 0, got ${JSON.stringify(word)}`);
      return word;
    });
    return checked(raw.LanguageModel.mergePieces(asMatrix(weights, 'weights'), words));
  }

  function bytesOf(bytes, what) {
    const view = bytes instanceof ArrayBuffer ? new Uint8Array(bytes) : bytes;
    if (!(view instanceof Uint8Array)) throw new AttentionError(`${what} needs a Uint8Array or ArrayBuffer`);
    return view;
  }

  // attentionOutput without the object binding's ≈ 15 emval round trips (bindings.cpp, "the output-only
  // path through plain numbers"): the core sizes the operands on its heap and says where; the inputs are
  // set() into place and the output sliced out. raw.HEAP* are read after each call, never kept: memory
  // growth replaces them.
  function outputByNumbers(q, k, v, o) {
    const padding = o.keyPadding;
    const at = raw.outputOperands(q.rows, q.cols, k.rows, k.cols, v.rows, v.cols, padding ? padding.length : 0) >>> 2;
    if (!at) throw new AttentionError(raw.outputError());
    const where = raw.HEAPU32,
      heap = raw.HEAPF32;
    heap.set(q.data, where[at] >>> 2);
    heap.set(k.data, where[at + 1] >>> 2);
    heap.set(v.data, where[at + 2] >>> 2);
    if (padding) raw.HEAPU8.set(padding, where[at + 3]);
    const flags = (o.score === undefined ? 0 : o.score.value + 1) | (o.causal ? 8 : 0) | (o.handShortcuts ? 16 : 0);
    if (raw.outputRun(flags, o.temperature ?? 1) !== 0) throw new AttentionError(raw.outputError());
    const after = raw.HEAPU32,
      start = after[at + 4] >>> 2,
      rows = after[at + 5],
      cols = after[at + 6];
    const data = raw.HEAPF32.slice(start, start + rows * cols);
    raw.outputRelease();
    return { rows, cols, data };
  }

  return {
    softmax(logits, { axis = 'rows', temperature = 1 } = {}) {
      if (axis !== 'rows' && axis !== 'columns') throw new AttentionError(`axis must be 'rows' or 'columns', got ${JSON.stringify(axis)}`);
      return checked(raw.softmax(asMatrix(logits, 'logits'), axis === 'columns', toNumber(temperature, 'temperature')));
    },
    tokenize(text) {
      if (typeof text !== 'string') throw new AttentionError('tokenize needs a string');
      return checked(raw.tokenize(text));
    },
    /** fastText's character n-grams of a word ("<mu", "<mur", …): the pieces a composed vector averages. */
    subwordPieces(word) {
      if (typeof word !== 'string') throw new AttentionError('subwordPieces needs a string');
      return raw.subwordPieces(word);
    },
    stemCandidates(word) {
      if (typeof word !== 'string') throw new AttentionError('stemCandidates needs a string');
      return raw.stemCandidates(word);
    },
    parameterFree(X, constant, options) {
      return checked(raw.parameterFree(asMatrix(X, 'X'), toNumber(constant, 'constant'), asOptions(options, raw.Score)));
    },
    attention(X, weights, options) {
      return checked(raw.attention(asMatrix(X, 'X'), asHead(weights), asOptions(options, raw.Score), false));
    },
    attentionByColumns(X, weights, options) {
      return checked(raw.attention(asMatrix(X, 'X'), asHead(weights), asOptions(options, raw.Score), true));
    },
    queryTerms(steps, query) {
      if (!steps || typeof steps !== 'object') throw new AttentionError('queryTerms needs the steps of an attention call');
      if (!Number.isInteger(query)) throw new AttentionError(`query must be a whole number, got ${JSON.stringify(query)}`);
      const { Q, K, V, weights } = steps;
      return checked(
        raw.queryTerms({ Q: asMatrix(Q, 'Q'), K: asMatrix(K, 'K'), V: asMatrix(V, 'V'), weights: asMatrix(weights, 'weights') }, query),
      );
    },
    weightedSum(weights, V) {
      return checked(raw.weightedSum(asMatrix(weights, 'weights'), asMatrix(V, 'V')));
    },
    softmaxBase3Terms(logits, { axis = 'rows' } = {}) {
      if (axis !== 'rows' && axis !== 'columns') throw new AttentionError(`axis must be 'rows' or 'columns', got ${JSON.stringify(axis)}`);
      return checked(raw.softmaxBase3Terms(asMatrix(logits, 'logits'), axis === 'columns'));
    },
    attentionOutput(Q, K, V, options) {
      const q = asMatrix(Q, 'Q'),
        k = asMatrix(K, 'K'),
        v = asMatrix(V, 'V'),
        o = asOptions(options, raw.Score);
      // Additive weights are matrices themselves: that rare call keeps the object binding.
      // So does a column softmax, which the core refuses there with its reason.
      if (o.additive || o.byColumns || !raw.HEAPF32) return checked(raw.attentionOutput(q, k, v, o));
      return outputByNumbers(q, k, v, o);
    },
    multiHead(X, weights, options) {
      return checked(raw.multiHead(asMatrix(X, 'X'), asHeads(weights), asOptions(options, raw.Score)));
    },
    selfAttention,
    ...exerciseApi(raw), // by-hand practice (the exercise block above)
    /** Wasm memory, for leak tests: heap size, bytes in use by malloc, live Embind handles and objects. */
    memory() {
      const { heapBytes, mallocBytes } = raw.memoryStats();
      return {
        heapBytes,
        mallocBytes,
        emvalHandles: typeof raw.count_emval_handles === 'function' ? raw.count_emval_handles() : null,
        liveObjects: typeof raw.getInheritedInstanceCount === 'function' ? raw.getInheritedInstanceCount() : null,
      };
    },
    loadVectors(bytes) {
      const view = bytesOf(bytes, 'loadVectors');
      const handle = new raw.WordVectors();
      const error = handle.load(view);
      if (error instanceof Error) {
        handle.delete();
        throw new AttentionError(error.message);
      }
      return new WordVectors(handle);
    },
    loadModel(bytes) {
      const view = bytesOf(bytes, 'loadModel');
      if (!raw.LanguageModel) throw new AttentionError('this module has no language model: load it with loadAttentionWithModel()');
      const handle = new raw.LanguageModel();
      const error = handle.load(view);
      if (error instanceof Error) {
        handle.delete();
        throw new AttentionError(error.message);
      }
      // Its hyper-parameters and captions come from the binding's info(), which tsc cannot see.
      return /** @type {import('./attention.js').LanguageModel} */ (/** @type {unknown} */ (new LanguageModel(handle)));
    },
  };
}

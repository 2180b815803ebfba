// Bytes across the JS ↔ wasm boundary and time per change, before → after issue 23's one crossing:
// the page's old call sequence for a change (vectors.embed, X back into core.parameterFree with every
// step copied out, core.softmax + core.weightedSum for columns, core.queryTerms sending Q, K, V and the
// weights back, core.multiHead sending X again) against the new one (one core.selfAttention with X kept
// on the heap and only the drawn steps copied out; terms and heads from the held sentence), both in the
// same run on the same module, at T = 7, 128, 1,024 word-vector tokens.
//   node bench/crossing.mjs [--smoke] [build/wasm]     one JSON object on stdout, a table on stderr
// Bytes: every typed array (4 bytes a float) and string (UTF-8) handed to or returned by the core's JS API
// calls a change makes, counted by wrapping those calls (the JS API copies each matrix across exactly
// once each way: bindings.cpp copy_in / to_js). Time: the median of the whole change, freeing included.
import { readFile } from 'node:fs/promises';
import { join, resolve, dirname } from 'node:path';
import { pathToFileURL, fileURLToPath } from 'node:url';
import { multiHeadWeights, HEAD_SHARPNESS } from '../web/lib/rng.js';

const args = process.argv.slice(2);
const smoke = args.includes('--smoke');
const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const dir = resolve(args.find((a) => !a.startsWith('--')) ?? join(root, 'build', 'wasm'));
const TS = [7, 128, 1024];

const { loadAttention } = await import(pathToFileURL(join(dir, 'attention.js')).href);
const core = await loadAttention({ wasmBinary: await readFile(join(dir, 'attention_wasm.wasm')) });
const vectors = core.loadVectors(new Uint8Array(await readFile(join(root, 'data', 'vectors.bin'))));

// ---- counting ----------------------------------------------------------------------------------------
const utf8 = new TextEncoder();
/** Bytes of the typed arrays, number arrays and strings in a value (own enumerable fields, deeply). */
function bytesIn(value, seen = new Set()) {
  if (value === null || value === undefined) return 0;
  if (typeof value === 'string') return utf8.encode(value).length;
  if (typeof value === 'number') return 0; // shapes, options, indices: a handful of scalars
  if (ArrayBuffer.isView(value)) return value.byteLength;
  if (typeof value !== 'object' || seen.has(value)) return 0;
  seen.add(value);
  if (value instanceof Set) return 0; // a keep set: names, not data
  if (Array.isArray(value) && value.every((x) => typeof x === 'number')) return 4 * value.length; // a row → Float32
  let sum = 0;
  for (const key of Object.keys(value)) if (key !== 'vectors') sum += bytesIn(value[key], seen);
  return sum;
}
const tally = { in: 0, out: 0, calls: 0 };
/** f, counting what it is handed and what it returns. */
const counted =
  (f, self) =>
  (...a) => {
    tally.calls++;
    tally.in += bytesIn(a);
    const out = f.apply(self, a);
    tally.out += bytesIn(out);
    return out;
  };
const api = {
  embed: counted(vectors.embed, vectors),
  parameterFree: counted(core.parameterFree, core),
  softmax: counted(core.softmax, core),
  weightedSum: counted(core.weightedSum, core),
  queryTerms: counted(core.queryTerms, core),
  multiHead: counted(core.multiHead, core),
  selfAttention: counted(core.selfAttention, core),
};
const held = (s) => ({ queryTerms: counted(s.queryTerms, s), multiHead: counted(s.multiHead, s), free: () => s.delete() });

// ---- the changes ---------------------------------------------------------------------------------------
const WORDS = 'the train left the station on time and the river bank was quiet while he cashed a check at the bank'.split(' ');
const textOf = (T) =>
  T === 7 ? 'the train left the station on time' : Array.from({ length: T }, (_, i) => WORDS[i % WORDS.length]).join(' ');
const d = vectors.dim;
const heads = multiHeadWeights(d, 4, 1, HEAD_SHARPNESS);
const headWeights = { heads: heads.heads, Wo: heads.Wo };
const opts = { temperature: 1, causal: false };

// Each change: before (the old sequence, as compute.js called it) and after (the new one), returning a
// checksum so both can be compared.
const CHANGES = {
  // The default heatmap, a change that recomputes (temperature, mask, sentence): it draws the weights.
  'heatmap, rows': {
    before(text) {
      const { X } = api.embed(text, 1024);
      return api.parameterFree(X, Math.sqrt(d), { ...opts, score: 'dot' }).weights;
    },
    after(text) {
      const s = api.selfAttention({ vectors, text, maxTokens: 1024 }, { ...opts, score: 'scaled', keep: ['weights'] });
      held(s).free();
      return s.steps.weights;
    },
  },
  // The same with the softmax down the columns: the row softmax discarded, two more round trips before.
  'heatmap, columns': {
    before(text) {
      const { X } = api.embed(text, 1024);
      const steps = api.parameterFree(X, Math.sqrt(d), { ...opts, score: 'dot' });
      const weights = api.softmax(steps.scaled, { axis: 'columns' });
      api.weightedSum(weights, steps.V);
      return weights;
    },
    after(text) {
      const s = api.selfAttention({ vectors, text, maxTokens: 1024 }, { ...opts, score: 'scaled', axis: 'columns', keep: ['weights'] });
      held(s).free();
      return s.steps.weights;
    },
  },
  // The walkthrough on a change: every step drawn (X too), one word's query terms and 4 heads.
  'walkthrough: all steps, terms, 4 heads': {
    before(text) {
      const { X } = api.embed(text, 1024);
      const steps = api.parameterFree(X, Math.sqrt(d), { ...opts, score: 'dot' });
      api.queryTerms(steps, 1);
      api.multiHead(X, headWeights, { ...opts, score: 'scaled' });
      return steps.weights;
    },
    after(text) {
      const s = api.selfAttention({ vectors, text, maxTokens: 1024 }, { ...opts, score: 'scaled' });
      const h = held(s);
      h.queryTerms(1);
      h.multiHead(headWeights, { ...opts, score: 'scaled', keep: ['weights'] }); // the heads' maps: weights only
      h.free();
      return s.steps.weights;
    },
  },
};

const median = (xs) => [...xs].sort((a, b) => a - b)[(xs.length - 1) >> 1];
function measure(f, text) {
  Object.assign(tally, { in: 0, out: 0, calls: 0 });
  const result = f(text);
  return { bytesIn: tally.in, bytesOut: tally.out, calls: tally.calls, result };
}

// One warm-up of every change, so the heap check below sees no one-time allocation.
for (const change of Object.values(CHANGES)) for (const way of ['before', 'after']) change[way](textOf(7));
const rows = [];
const before0 = core.memory();
for (const T of TS) {
  const text = textOf(T);
  for (const [name, change] of Object.entries(CHANGES)) {
    const b = measure(change.before, text),
      a = measure(change.after, text);
    if (b.result.rows !== T || a.result.data.some((x, i) => x !== b.result.data[i]))
      throw new Error(`${name}, T = ${T}: after differs from before`);
    // Interleaved repetitions, so a busy moment hits both alike, in alternating order, so the garbage
    // one way leaves (up to 76 MB at T = 1,024) is collected as often during the other.
    const reps = smoke ? 2 : T >= 1024 ? 20 : T >= 128 ? 60 : 300;
    const times = { before: [], after: [] };
    for (let r = 0; r < reps + 2; r++)
      for (const way of r % 2 ? ['after', 'before'] : ['before', 'after']) {
        const t0 = performance.now();
        change[way](text);
        if (r >= 2) times[way].push(performance.now() - t0); // 2 warm-up rounds
      }
    const row = {
      change: name,
      T,
      before: { bytes_in: b.bytesIn, bytes_out: b.bytesOut, calls: b.calls, ms: median(times.before) },
      after: { bytes_in: a.bytesIn, bytes_out: a.bytesOut, calls: a.calls, ms: median(times.after) },
      reps,
    };
    rows.push(row);
    process.stderr.write(
      `${name.padEnd(40)} T=${String(T).padStart(4)}  bytes ${fmtBytes(b.bytesIn + b.bytesOut).padStart(9)} → ${fmtBytes(a.bytesIn + a.bytesOut).padStart(9)}` +
        `  calls ${b.calls} → ${a.calls}  ms ${row.before.ms.toFixed(3)} → ${row.after.ms.toFixed(3)}\n`,
    );
  }
}
const after0 = core.memory();
if (after0.mallocBytes !== before0.mallocBytes) throw new Error(`the heap kept ${after0.mallocBytes - before0.mallocBytes} bytes`);
vectors.delete();
function fmtBytes(n) {
  return n >= 2 ** 20 ? `${(n / 2 ** 20).toFixed(2)} MiB` : n >= 1024 ? `${(n / 1024).toFixed(1)} KiB` : `${n} B`;
}
console.log(JSON.stringify({ kind: 'crossing', smoke, load: (await import('node:os')).loadavg(), d, rows }));

// The shipped module (build/wasm: what the page loads) through its JS API, marshalling included:
// attentionOutput (the streaming path) at every T, the full path at T = 4096 for memory, the page's
// own computation (embed + parameterFree) at T = 16, 64, 128, and at 1,024 with and without `keep`, the
// wasm heap after each, and the bytes of wasm + JS (raw and gzip -9). Usage: node bench/shipped.mjs [--smoke]
import { readFile, stat } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { gzipSync } from 'node:zlib';
import { D, SDPA_T, emit, parseArgs, sdpaFlops, sdpaInputs, time } from './common.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const wasmDir = join(root, 'build', 'wasm');
const opts = parseArgs();
const { loadAttention } = await import(pathToFileURL(join(wasmDir, 'attention.js')).href);
const bytes = await readFile(join(wasmDir, 'attention_wasm.wasm'));
let memory;
const core = await loadAttention({
  instantiateWasm(imports, receive) {
    WebAssembly.instantiate(bytes, imports).then(({ instance }) => {
      memory = Object.values(instance.exports).find((e) => e instanceof WebAssembly.Memory);
      receive(instance);
    });
    return {};
  },
});
const heap = () => memory.buffer.byteLength;
const results = [];
const extra = { heap_after: {} };

// Output-only path at every T (the page's route for long inputs).
for (const T of opts.smoke ? [64] : SDPA_T) {
  const { Q, K, V } = sdpaInputs(T);
  const m = (data) => ({ rows: T, cols: D, data });
  await time(opts, 'shipped', 'sdpa', 'js_api_output', T, sdpaFlops(T), () => core.attentionOutput(m(Q), m(K), m(V)).data, results);
  extra.heap_after[`output_T${T}`] = heap();
}
// The full path (every T×T step copied out to JS) at 4096: does it fit, and how much heap.
if (!opts.smoke) {
  const T = 4096;
  const { Q } = sdpaInputs(T);
  const I = { rows: D, cols: D, data: new Float32Array(D * D).map((_, i) => (i % (D + 1) === 0 ? 1 : 0)) };
  const t0 = performance.now();
  const s = core.attention({ rows: T, cols: D, data: Q }, { Wq: I, Wk: I, Wv: I });
  extra.full_T4096_ms = performance.now() - t0;
  const o = core.attentionOutput({ rows: T, cols: D, data: Q }, { rows: T, cols: D, data: Q }, { rows: T, cols: D, data: Q });
  let maxDiff = 0;
  for (let i = 0; i < o.data.length; i++) maxDiff = Math.max(maxDiff, Math.abs(o.data[i] - s.output.data[i]));
  extra.full_vs_output_T4096_max_abs_diff = maxDiff;
  extra.heap_after.full_T4096 = heap();
}
// The streaming path agrees with the full one through the JS API (small T, masks too).
{
  const T = 67;
  const g = sdpaInputs(T);
  const X = { rows: T, cols: D, data: g.Q };
  const I = { rows: D, cols: D, data: new Float32Array(D * D).map((_, i) => (i % (D + 1) === 0 ? 1 : 0)) };
  let maxDiff = 0;
  for (const options of [{}, { causal: true }, { score: 'dot', temperature: 2 }]) {
    const full = core.attention(X, { Wq: I, Wk: I, Wv: I }, options).output.data;
    const out = core.attentionOutput(X, X, X, options).data;
    for (let i = 0; i < out.length; i++) maxDiff = Math.max(maxDiff, Math.abs(out[i] - full[i]));
  }
  extra.output_vs_full_max_abs_diff = maxDiff;
  if (!(maxDiff <= 1e-5)) throw new Error(`attentionOutput differs from attention().output by ${maxDiff}`);
}
// What the page computes per keystroke: embed + parameter-free attention.
if (!opts.smoke) {
  const vectors = core.loadVectors(new Uint8Array(await readFile(join(root, 'data', 'vectors.bin'))));
  const words = 'the train left the station on time and a man ran after it with his bag'.split(' ');
  for (const T of [16, 64, 128]) {
    const sentence = Array.from({ length: T }, (_, i) => words[i % words.length]).join(' ');
    await time(
      opts,
      'shipped',
      'page',
      'embed_parameter_free',
      T,
      4 * T * T * vectors.dim,
      () => {
        const { X } = vectors.embed(sentence, 256);
        return core.parameterFree(X, Math.sqrt(vectors.dim)).weights.data;
      },
      results,
    );
  }
  // The page's full path at its longest input (MAX_TOKENS = 1,024 in web/lib/compute.js): embed +
  // parameterFree returning every step, as the page calls it today (no `keep`), against keeping only what
  // it reads (all but the raw scores: scaled, weights, output, Q = K = V = X) and only what the heatmap
  // draws (the weights). Each T×T step is 4 MB here. Interleaved rounds (7 × 5 calls each, rotated):
  // the median of the round medians, so a busy machine moves all three alike.
  {
    const T = 1024;
    const sentence = Array.from({ length: T }, (_, i) => words[i % words.length]).join(' ');
    const keeps = [
      ['page_all_steps', undefined],
      ['page_keep_read', ['Q', 'K', 'V', 'scaled', 'weights', 'output']],
      ['page_keep_weights', ['weights']],
    ];
    const call = (keep) => {
      const { X } = vectors.embed(sentence, T);
      return core.parameterFree(X, Math.sqrt(vectors.dim), keep ? { keep } : undefined).weights.data;
    };
    const median = (xs) => [...xs].sort((a, b) => a - b)[(xs.length - 1) >> 1];
    const rounds = keeps.map(() => []);
    for (const [, keep] of keeps) call(keep); // warm-up
    for (let r = 0; r < (opts.smoke ? 1 : 7); r++)
      for (let k = 0; k < keeps.length; k++) {
        const i = (k + r) % keeps.length;
        const times = [];
        for (let n = 0; n < (opts.smoke ? 1 : 5); n++) {
          const t0 = performance.now();
          call(keeps[i][1]);
          times.push(performance.now() - t0);
        }
        rounds[i].push(median(times));
      }
    keeps.forEach(([variant], i) =>
      results.push({ kind: 'page', variant, T, median_ms: median(rounds[i]), rounds_ms: rounds[i], flops: 4 * T * T * vectors.dim }),
    );
  }
  vectors.delete();
}
// Bytes: the module as built (wasm + glue + wrapper), and the page's bundle (page code included).
const size = async (file) => {
  const data = await readFile(file);
  return { file: file.slice(root.length + 1), raw: data.length, gzip: gzipSync(data, { level: 9 }).length };
};
extra.bytes = [
  await size(join(wasmDir, 'attention_wasm.wasm')),
  await size(join(wasmDir, 'attention_wasm.js')),
  await size(join(wasmDir, 'attention.js')),
];
try {
  await stat(join(root, 'build', 'site', 'app.js'));
  // The site's two builds of the core: a browser fetches one of them (web/lib/core-file.js).
  for (const file of ['app.js', 'attention_wasm.wasm', 'attention_wasm_relaxed.wasm'])
    extra.bytes.push(await size(join(root, 'build', 'site', file)));
} catch {
  /* no site built */
}
emit('shipped', extra, results);

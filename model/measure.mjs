// Times the language model in wasm under node through the JS API (loadModel, run), as the page would call
// it (the attention_model_wasm module): medians of repeated runs. run() includes copying every intermediate (all heads' Q, K, V, scores,
// weights, …) out to JS. Usage: node model/measure.mjs [wasm dir, default build/wasm]; prints one JSON line.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const wasmDir = path.resolve(root, process.argv[2] ?? 'build/wasm');
const { loadAttentionWithModel } = await import(pathToFileURL(path.join(wasmDir, 'attention.js')).href);
const core = await loadAttentionWithModel({ wasmBinary: await readFile(path.join(wasmDir, 'attention_model_wasm.wasm')) });
const bytes = new Uint8Array(await readFile(path.join(root, 'data', 'model.bin')));

function medianMs(repetitions, body) {
  const times = [];
  for (let i = 0; i < repetitions; i++) {
    const start = performance.now();
    body();
    times.push(performance.now() - start);
  }
  times.sort((a, b) => a - b);
  return times[times.length >> 1];
}

const parse = medianMs(21, () => core.loadModel(bytes).delete());
const model = core.loadModel(bytes);
const short = 'the train left the station on time';
const full = 'the train left the station on time . '.repeat(4);
if (core.tokenize(full).length !== 32) throw new Error('the long sentence must have 32 tokens');
for (let i = 0; i < 50; i++) model.run(full);  // let V8 tier up before timing
const t7 = medianMs(201, () => model.run(short));
const t32 = medianMs(201, () => model.run(full));
model.delete();
console.log(JSON.stringify({ where: 'wasm (node, JS API)', bytes: bytes.length, parse_ms: +parse.toFixed(3),
  forward_T7_ms: +t7.toFixed(3), forward_T32_ms: +t32.toFixed(3) }));

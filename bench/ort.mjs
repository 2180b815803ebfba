// The same attention as ONNX graphs (bench/sdpa.onnx, bench/mha.onnx, exported by bench/export_onnx.py
// from PyTorch) on onnxruntime-web's wasm backend in node, one thread, SIMD. Each timed run is one
// session.run() with the inputs already made. Usage: node bench/ort.mjs [--smoke] [--T N]
import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as ort from 'onnxruntime-web';
import { D, D_MODEL, MHA_T, SDPA_T, emit, mhaFlops, mhaInputs, parseArgs, sdpaFlops, sdpaInputs, time } from './common.mjs';

const here = dirname(fileURLToPath(import.meta.url));
ort.env.wasm.numThreads = 1;
ort.env.wasm.simd = true;
ort.env.logLevel = 'error';
const session = async (file) =>
  ort.InferenceSession.create(await readFile(join(here, file)), {
    executionProviders: ['wasm'],
    graphOptimizationLevel: 'all',
  });

const opts = parseArgs();
const results = [];
const sdpa = await session('sdpa.onnx');
for (const T of opts.smoke ? [64] : SDPA_T) {
  const { Q, K, V } = sdpaInputs(T);
  const feeds = {
    q: new ort.Tensor('float32', Q, [T, D]),
    k: new ort.Tensor('float32', K, [T, D]),
    v: new ort.Tensor('float32', V, [T, D]),
  };
  await time(opts, 'ort-wasm', 'sdpa', 'ort_wasm', T, sdpaFlops(T), async () => (await sdpa.run(feeds)).out.data, results);
}
const mha = await session('mha.onnx');
for (const T of opts.smoke ? [64] : MHA_T) {
  const { X, Wq, Wk, Wv, Wo } = mhaInputs(T);
  const w = (data) => new ort.Tensor('float32', data, [D_MODEL, D_MODEL]);
  const feeds = { x: new ort.Tensor('float32', X, [T, D_MODEL]), wq: w(Wq), wk: w(Wk), wv: w(Wv), wo: w(Wo) };
  await time(opts, 'ort-wasm', 'mha', 'ort_wasm', T, mhaFlops(T), async () => (await mha.run(feeds)).out.data, results);
}
emit('ort-wasm', { version: ort.env.versions?.web ?? 'unknown' }, results);

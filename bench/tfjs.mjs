// The same attention with @tensorflow/tfjs-core on @tensorflow/tfjs-backend-wasm (XNNPACK), in node,
// one thread. Inputs are made once (like the core's, already in memory); each timed run builds the graph
// of ops and reads the output back with dataSync(). Usage: node bench/tfjs.mjs [--smoke] [--T N]
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as tf from '@tensorflow/tfjs-core';
import { setThreadsCount, setWasmPaths } from '@tensorflow/tfjs-backend-wasm';
import { D, D_MODEL, HEADS, MHA_T, SDPA_T, emit, mhaFlops, mhaInputs, parseArgs, sdpaFlops, sdpaInputs, time } from './common.mjs';

const here = dirname(fileURLToPath(import.meta.url));
setWasmPaths(join(here, 'node_modules', '@tensorflow', 'tfjs-backend-wasm', 'dist') + '/');
setThreadsCount(1);
await tf.setBackend('wasm');
await tf.ready();

const opts = parseArgs();
const results = [];
const scale = 1 / Math.sqrt(D);
for (const T of opts.smoke ? [64] : SDPA_T) {
  const { Q, K, V } = sdpaInputs(T);
  const q = tf.tensor2d(Q, [T, D]),
    k = tf.tensor2d(K, [T, D]),
    v = tf.tensor2d(V, [T, D]);
  await time(
    opts,
    'tfjs-wasm',
    'sdpa',
    'tfjs_wasm',
    T,
    sdpaFlops(T),
    () => {
      const out = tf.tidy(() => tf.matMul(tf.softmax(tf.mul(tf.matMul(q, k, false, true), scale)), v));
      const data = out.dataSync();
      out.dispose();
      return data;
    },
    results,
  );
  tf.dispose([q, k, v]);
}
for (const T of opts.smoke ? [64] : MHA_T) {
  const { X, Wq, Wk, Wv, Wo } = mhaInputs(T);
  const x = tf.tensor2d(X, [T, D_MODEL]);
  const [wq, wk, wv, wo] = [Wq, Wk, Wv, Wo].map((w) => tf.tensor2d(w, [D_MODEL, D_MODEL]));
  const dk = D_MODEL / HEADS;
  const heads = (m) => tf.transpose(tf.reshape(m, [T, HEADS, dk]), [1, 0, 2]); // HEADS × T × dk
  await time(
    opts,
    'tfjs-wasm',
    'mha',
    'tfjs_wasm',
    T,
    mhaFlops(T),
    () => {
      const out = tf.tidy(() => {
        const q = heads(tf.matMul(x, wq)),
          k = heads(tf.matMul(x, wk)),
          v = heads(tf.matMul(x, wv));
        const weights = tf.softmax(tf.mul(tf.matMul(q, k, false, true), 1 / Math.sqrt(dk)));
        const concat = tf.reshape(tf.transpose(tf.matMul(weights, v), [1, 0, 2]), [T, D_MODEL]);
        return tf.matMul(concat, wo);
      });
      const data = out.dataSync();
      out.dispose();
      return data;
    },
    results,
  );
  tf.dispose([x, wq, wk, wv, wo]);
}
emit('tfjs-wasm', { version: tf.version_core, backend: tf.getBackend() }, results);

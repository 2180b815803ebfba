// Attention in plain JavaScript, the way an article's author would write it by hand: Float32Arrays,
// textbook triple loops, Math.exp. No library, no tricks. Usage: node bench/plain.mjs [--smoke] [--T N]
import { D, D_MODEL, HEADS, MHA_T, SDPA_T, emit, mhaFlops, mhaInputs, parseArgs, sdpaFlops, sdpaInputs, time } from './common.mjs';

/** C = A·B for row-major A (n×m) and B (m×p). */
function matmul(A, B, n, m, p) {
  const C = new Float32Array(n * p);
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < p; j++) {
      let sum = 0;
      for (let k = 0; k < m; k++) sum += A[i * m + k] * B[k * p + j];
      C[i * p + j] = sum;
    }
  }
  return C;
}

/** softmax(Q·Kᵀ/√d)·V for Q, K: T×d and V: T×dv, row-major. */
export function attention(Q, K, V, T, d, dv = d) {
  const scale = 1 / Math.sqrt(d);
  const weights = new Float32Array(T * T);
  for (let i = 0; i < T; i++) {
    // scores of query i against every key
    let max = -Infinity;
    for (let j = 0; j < T; j++) {
      let dot = 0;
      for (let k = 0; k < d; k++) dot += Q[i * d + k] * K[j * d + k];
      const s = dot * scale;
      weights[i * T + j] = s;
      if (s > max) max = s;
    }
    // softmax along the row
    let sum = 0;
    for (let j = 0; j < T; j++) {
      const e = Math.exp(weights[i * T + j] - max);
      weights[i * T + j] = e;
      sum += e;
    }
    for (let j = 0; j < T; j++) weights[i * T + j] /= sum;
  }
  return matmul(weights, V, T, T, dv);
}

/** Multi-head attention: Q = X·Wq …, heads of width d_model/heads, concat, ·Wo. */
export function multiHead(X, Wq, Wk, Wv, Wo, T) {
  const dk = D_MODEL / HEADS;
  const Q = matmul(X, Wq, T, D_MODEL, D_MODEL),
    K = matmul(X, Wk, T, D_MODEL, D_MODEL),
    V = matmul(X, Wv, T, D_MODEL, D_MODEL);
  const concat = new Float32Array(T * D_MODEL);
  const slice = (M, h) => {
    const out = new Float32Array(T * dk);
    for (let t = 0; t < T; t++) for (let c = 0; c < dk; c++) out[t * dk + c] = M[t * D_MODEL + h * dk + c];
    return out;
  };
  for (let h = 0; h < HEADS; h++) {
    const O = attention(slice(Q, h), slice(K, h), slice(V, h), T, dk);
    for (let t = 0; t < T; t++) for (let c = 0; c < dk; c++) concat[t * D_MODEL + h * dk + c] = O[t * dk + c];
  }
  return matmul(concat, Wo, T, D_MODEL, D_MODEL);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const opts = parseArgs();
  const results = [];
  for (const T of opts.smoke ? [64] : SDPA_T) {
    const { Q, K, V } = sdpaInputs(T);
    await time(opts, 'plain-js', 'sdpa', 'plain_js', T, sdpaFlops(T), () => attention(Q, K, V, T, D), results);
  }
  for (const T of opts.smoke ? [64] : MHA_T) {
    const { X, Wq, Wk, Wv, Wo } = mhaInputs(T);
    await time(opts, 'plain-js', 'mha', 'plain_js', T, mhaFlops(T), () => multiHead(X, Wq, Wk, Wv, Wo, T), results);
  }
  emit('plain-js', { node: process.version }, results);
}

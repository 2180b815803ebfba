// Deterministic random numbers for the "heads" view's projection weights. This is weight
// *initialisation* (there are no learned weights with word vectors), not attention maths: every
// product and softmax still happens in the wasm core (core.multiHead).

/** mulberry32: a small, well-mixed 32-bit PRNG; returns floats in [0, 1). */
export function mulberry32(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A rows×cols matrix drawn from Xavier/Glorot uniform: U(−√(6/(rows+cols)), +√(6/(rows+cols))). */
export function xavierUniform(rows, cols, rand) {
  const limit = Math.sqrt(6 / (rows + cols));
  const data = new Float32Array(rows * cols);
  for (let i = 0; i < data.length; i++) data[i] = (rand() * 2 - 1) * limit;
  return { rows, cols, data };
}

/** Columns [from, from + count) of a row-major matrix (a copy; no arithmetic). */
export function columns(m, from, count) {
  const data = new Float32Array(m.rows * count);
  for (let r = 0; r < m.rows; r++) data.set(m.data.subarray(r * m.cols + from, r * m.cols + from + count), r * count);
  return { rows: m.rows, cols: count, data };
}

/** The d × dk identity (ones on the diagonal): a projection that keeps the first dk features. */
export function identityWeights(d, dk) {
  const data = new Float32Array(d * dk);
  for (let i = 0; i < Math.min(d, dk); i++) data[i * dk + i] = 1;
  return { rows: d, cols: dk, data };
}

/**
 * Random heads' W_Q and W_K are drawn at this multiple of the Xavier scale (so their scores at this
 * multiple squared): untrained heads at the usual scale give near-uniform weights on word vectors, and
 * heads that all look alike teach nothing about heads.
 */
export const HEAD_SHARPNESS = 3;

/** A matrix with every entry times f (an initialisation scale, not attention maths). */
const scaled = (m, f) => (f === 1 ? m : { rows: m.rows, cols: m.cols, data: m.data.map((v) => v * f) });

/**
 * Seeded Xavier W_Q, W_K, W_V (d_model × h·d_k) split column-wise into h heads of d_k = ⌊d_model / h⌋,
 * and W_O (h·d_k × d_model): the argument core.multiHead takes. sharpness multiplies W_Q and W_K (so
 * every score by its square): 1 is plain Xavier.
 */
export function multiHeadWeights(dModel, heads, seed = 1, sharpness = 1) {
  const dk = Math.max(1, Math.floor(dModel / heads));
  const width = dk * heads;
  const rand = mulberry32(seed);
  const Wq = scaled(xavierUniform(dModel, width, rand), sharpness);
  const Wk = scaled(xavierUniform(dModel, width, rand), sharpness);
  const Wv = xavierUniform(dModel, width, rand);
  const Wo = xavierUniform(width, dModel, rand);
  const list = [];
  for (let h = 0; h < heads; h++) {
    list.push({ Wq: columns(Wq, h * dk, dk), Wk: columns(Wk, h * dk, dk), Wv: columns(Wv, h * dk, dk) });
  }
  return { heads: list, Wo, dk };
}

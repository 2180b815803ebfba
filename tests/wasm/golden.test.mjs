// The wasm module, through its JS API, against the float64 PyTorch reference of tests/golden/golden.bin
// (1,000 cases per variant; format and variants in tests/golden/generate.py). Same inputs, same error
// measures and the same 1e-5 bound as tests/core/test_golden.cpp:
//   weights: per softmax line, max |wasm − ref| / max |ref| (a fully masked line must be exactly 0);
//   outputs: |wasm − ref| / (the sum of absolute products that make the value, e.g. |weights|·|V|).
// mha_batched has no batched JS entry point: each sequence goes through multiHead with its padding.
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { load, root } from './load.mjs';

const VARIANTS = ['dot', 'scaled_dot', 'cosine', 'additive', 'parameter_free', 'by_columns', 'mha', 'mha_batched'];
const SCORES = ['dot', 'scaled_dot', 'cosine', 'additive'];
const BOUND = 1e-5;

let core;
before(async () => ({ core } = await load()));

/** The generator of generate.py: a Weyl sequence through the lowbias32 hash. */
class Rng {
  constructor(seed) {
    this.state = seed >>> 0;
    this.total = 0;
  }
  next() {
    this.state = (this.state + 0x9e3779b9) >>> 0;
    let x = this.state;
    x ^= x >>> 16;
    x = Math.imul(x, 0x7feb352d) >>> 0;
    x ^= x >>> 15;
    x = Math.imul(x, 0x846ca68b) >>> 0;
    x ^= x >>> 16;
    return x >>> 0;
  }
  value(exp) {
    const v = ((this.next() >>> 8) - 8388608) * 2 ** (exp - 23);
    this.total += v;
    return v;
  }
  matrix(rows, cols, exp) {
    const data = new Float32Array(rows * cols);
    for (let i = 0; i < data.length; i++) data[i] = this.value(exp);
    return { rows, cols, data };
  }
  vector(n, exp) {
    const v = new Float32Array(n);
    for (let i = 0; i < n; i++) v[i] = this.value(exp);
    return v;
  }
}

function readCases(buffer) {
  const view = new DataView(buffer.buffer, buffer.byteOffset, buffer.byteLength);
  assert.equal(buffer.subarray(0, 8).toString('latin1'), 'ATTNGLD1');
  assert.equal(view.getUint32(8, true), 1);
  const count = view.getUint32(12, true);
  let at = 16;
  const cases = [];
  for (let i = 0; i < count; i++) {
    const c = {
      variant: view.getUint8(at),
      score: view.getUint8(at + 1),
      flags: view.getUint8(at + 2),
      xExp: view.getInt8(at + 3),
      wExp: view.getInt8(at + 4),
      heads: view.getUint8(at + 5),
      N: view.getUint16(at + 6, true),
      T: view.getUint16(at + 8, true),
      d: view.getUint16(at + 10, true),
      dk: view.getUint16(at + 12, true),
      dv: view.getUint16(at + 14, true),
      da: view.getUint16(at + 16, true),
      temperature: view.getFloat32(at + 18, true),
      constant: view.getFloat32(at + 22, true),
      seed: view.getUint32(at + 26, true),
      inputSum: view.getFloat64(at + 30, true),
    };
    const n = view.getUint32(at + 38, true);
    at += 42;
    c.expected = new Float32Array(buffer.buffer.slice(buffer.byteOffset + at, buffer.byteOffset + at + 4 * n));
    at += 4 * n;
    cases.push(c);
  }
  assert.equal(at, buffer.length, 'the file ends after the last case');
  return cases;
}

// ---- small float64 matrix helpers for the magnitudes ---------------------------------------------
const abs = (m) => ({ rows: m.rows, cols: m.cols, data: Float64Array.from(m.data, Math.abs) });
const transpose = (m) => {
  const out = new Float64Array(m.rows * m.cols);
  for (let r = 0; r < m.rows; r++) for (let c = 0; c < m.cols; c++) out[c * m.rows + r] = m.data[r * m.cols + c];
  return { rows: m.cols, cols: m.rows, data: out };
};
function mul(a, b) {
  const out = new Float64Array(a.rows * b.cols);
  for (let i = 0; i < a.rows; i++)
    for (let k = 0; k < a.cols; k++) {
      const x = a.data[i * a.cols + k];
      if (x === 0) continue;
      for (let j = 0; j < b.cols; j++) out[i * b.cols + j] += x * b.data[k * b.cols + j];
    }
  return { rows: a.rows, cols: b.cols, data: out };
}
/** |X|·|W| + |b| on every row. */
function absAffine(X, W, b) {
  const m = mul(abs(X), abs(W));
  if (b) for (let r = 0; r < m.rows; r++) for (let c = 0; c < m.cols; c++) m.data[r * m.cols + c] += Math.abs(b[c]);
  return m;
}
const columns = (m, from, count) => {
  const out = new Float32Array(m.rows * count);
  for (let r = 0; r < m.rows; r++) for (let c = 0; c < count; c++) out[r * count + c] = m.data[r * m.cols + from + c];
  return { rows: m.rows, cols: count, data: out };
};

class Checker {
  constructor() {
    this.weights = 0;
    this.output = 0;
    this.compared = 0;
  }
  take(c, rows, cols) {
    assert.ok(c.at + rows * cols <= c.expected.length, 'expected values run out');
    const ref = c.expected.subarray(c.at, c.at + rows * cols);
    c.at += rows * cols;
    return ref;
  }
  weightsOf(actual, c, byColumns = false) {
    const { rows, cols, data } = actual;
    const ref = this.take(c, rows, cols);
    const lines = byColumns ? cols : rows,
      len = byColumns ? rows : cols;
    const at = (i, j) => (byColumns ? j * cols + i : i * cols + j);
    for (let i = 0; i < lines; i++) {
      let scale = 0,
        diff = 0;
      for (let j = 0; j < len; j++) {
        assert.ok(Number.isFinite(data[at(i, j)]), 'finite weights');
        scale = Math.max(scale, Math.abs(ref[at(i, j)]));
        diff = Math.max(diff, Math.abs(data[at(i, j)] - ref[at(i, j)]));
      }
      if (scale === 0) assert.equal(diff, 0, 'a fully masked line is all zero');
      else this.weights = Math.max(this.weights, diff / scale);
    }
    this.compared += data.length;
  }
  /** ref laid out like actual (rows × cols); magnitude likewise. */
  outputOf(actual, magnitude, ref) {
    assert.equal(magnitude.data.length, actual.data.length);
    for (let i = 0; i < actual.data.length; i++) {
      assert.ok(Number.isFinite(actual.data[i]), 'finite output');
      const diff = Math.abs(actual.data[i] - ref[i]);
      this.output = Math.max(this.output, magnitude.data[i] > 0 ? diff / magnitude.data[i] : diff);
    }
    this.compared += actual.data.length;
  }
}

function padding(rng, c) {
  if (!(c.flags & 4)) return undefined;
  return Array.from({ length: c.T }, () => (rng.next() % 4 === 0 ? 1 : 0));
}

function runCase(c, check) {
  const rng = new Rng(c.seed);
  c.at = 0;
  const causal = Boolean(c.flags & 1),
    bias = Boolean(c.flags & 2);
  if (c.variant <= 3 || c.variant === 5) {
    const byColumns = c.variant === 5;
    const X = byColumns ? rng.matrix(c.d, c.T, c.xExp) : rng.matrix(c.T, c.d, c.xExp);
    const w = byColumns
      ? { Wq: rng.matrix(c.dk, c.d, c.wExp), Wk: rng.matrix(c.dk, c.d, c.wExp), Wv: rng.matrix(c.dv, c.d, c.wExp) }
      : { Wq: rng.matrix(c.d, c.dk, c.wExp), Wk: rng.matrix(c.d, c.dk, c.wExp), Wv: rng.matrix(c.d, c.dv, c.wExp) };
    if (bias) Object.assign(w, { bq: rng.vector(c.dk, c.wExp), bk: rng.vector(c.dk, c.wExp), bv: rng.vector(c.dv, c.wExp) });
    const options = { score: SCORES[c.score], temperature: c.temperature, causal };
    if (c.score === 3) {
      options.additive = { W1: rng.matrix(c.da, c.dk, c.wExp), W2: rng.matrix(c.da, c.dk, c.wExp), v: rng.vector(c.da, c.wExp) };
    }
    options.keyPadding = padding(rng, c);
    assert.equal(rng.total, c.inputSum, "the inputs are the generator's");
    const s = byColumns ? core.attentionByColumns(X, w, options) : core.attention(X, w, options);
    check.weightsOf(s.weights, c, byColumns);
    if (byColumns) {
      // Z = V·A: compare transposes in the row layout
      const magnitude = mul(abs(transpose(s.weights)), absAffine(transpose(X), transpose(w.Wv), w.bv));
      const ref = transpose({ rows: c.dv, cols: c.T, data: check.take(c, c.dv, c.T) });
      check.outputOf(transpose(s.output), magnitude, ref.data);
    } else {
      check.outputOf(s.output, mul(abs(s.weights), absAffine(X, w.Wv, w.bv)), check.take(c, c.T, c.dv));
    }
  } else if (c.variant === 4) {
    const X = rng.matrix(c.T, c.d, c.xExp);
    const options = { temperature: c.temperature, causal, keyPadding: padding(rng, c) };
    assert.equal(rng.total, c.inputSum);
    const s = core.parameterFree(X, c.constant, options);
    check.weightsOf(s.weights, c);
    check.outputOf(s.output, mul(abs(s.weights), abs(X)), check.take(c, c.T, c.d));
  } else {
    const E = c.d;
    const Xs = Array.from({ length: c.N }, () => rng.matrix(c.T, E, c.xExp));
    const [Wq, Wk, Wv, Wo] = [0, 1, 2, 3].map(() => rng.matrix(E, E, c.wExp));
    const b = bias ? [0, 1, 2, 3].map(() => rng.vector(E, c.wExp)) : null;
    // torch's head h is columns [h·d_k, (h+1)·d_k) of W_Q = in_proj_weight[:E]ᵀ (what split_heads does).
    const heads = Array.from({ length: c.heads }, (_, h) => {
      const head = { Wq: columns(Wq, h * c.dk, c.dk), Wk: columns(Wk, h * c.dk, c.dk), Wv: columns(Wv, h * c.dv, c.dv) };
      if (b)
        Object.assign(head, {
          bq: b[0].subarray(h * c.dk, (h + 1) * c.dk),
          bk: b[1].subarray(h * c.dk, (h + 1) * c.dk),
          bv: b[2].subarray(h * c.dv, (h + 1) * c.dv),
        });
      return head;
    });
    const weights = { heads, Wo, ...(b ? { bo: b[3] } : {}) };
    const lengths = c.flags & 4 ? Xs.map(() => 1 + (rng.next() % c.T)) : null;
    assert.equal(rng.total, c.inputSum);
    Xs.forEach((X, n) => {
      const keyPadding = lengths ? Array.from({ length: c.T }, (_, j) => (j >= lengths[n] ? 1 : 0)) : undefined;
      const s = core.multiHead(X, weights, { score: 'scaled_dot', causal, keyPadding });
      s.heads.forEach((h) => check.weightsOf(h.weights, c));
      const concat = { rows: c.T, cols: E, data: new Float64Array(c.T * E) };
      s.heads.forEach((h, i) => {
        const part = mul(abs(h.weights), absAffine(X, heads[i].Wv, heads[i].bv));
        for (let r = 0; r < c.T; r++) for (let k = 0; k < c.dv; k++) concat.data[r * E + i * c.dv + k] = part.data[r * c.dv + k];
      });
      check.outputOf(s.output, absAffine(concat, Wo, b?.[3]), check.take(c, c.T, E));
    });
  }
  assert.equal(c.at, c.expected.length, 'every expected value was compared');
}

test('the wasm module matches the float64 PyTorch reference: ≥ 1,000 cases per variant, max relative error ≤ 1e-5', async () => {
  const cases = readCases(await readFile(path.join(root, 'tests', 'golden', 'golden.bin')));
  const checks = VARIANTS.map(() => new Checker());
  const counts = VARIANTS.map(() => 0);
  for (const c of cases) {
    try {
      runCase(c, checks[c.variant]);
    } catch (e) {
      e.message = `${VARIANTS[c.variant]} case seed ${c.seed} (T ${c.T}, d ${c.d}): ${e.message}`;
      throw e;
    }
    counts[c.variant]++;
  }
  VARIANTS.forEach((name, v) => {
    const { weights, output, compared } = checks[v];
    console.log(
      `golden wasm ${name}: ${counts[v]} cases, ${compared} values; max relative error: weights ${weights.toExponential(3)}, outputs ${output.toExponential(3)}`,
    );
    assert.ok(counts[v] >= 1000, `${name}: ${counts[v]} cases`);
    assert.ok(weights <= BOUND, `${name}: weights error ${weights}`);
    assert.ok(output <= BOUND, `${name}: output error ${output}`);
  });
});

// Large scores through the wasm module (largest scaled score 250 to 1,900): every scaled score is the
// correctly rounded exact value, the output is within float rounding of the float32 floor (exact
// arithmetic on those rounded scores), and attentionOutput equals attention().output to 1e-5 × max |V|,
// as attention.d.ts says. The reference is computed here in float64 from the same float32 inputs
// (tests/core/test_accuracy.cpp holds the native core to a derived bound; this checks the wasm build).
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { load } from './load.mjs';

let core;
before(async () => ({ core } = await load()));

const u = 2 ** -24; // float32's unit roundoff

function gaussian(seed) {
  let s = seed >>> 0;
  const uniform = () => ((s = (Math.imul(s, 1664525) + 1013904223) >>> 0) + 0.5) / 2 ** 32;
  return () => Math.sqrt(-2 * Math.log(uniform())) * Math.cos(2 * Math.PI * uniform());
}

/** Q, K, V (T × d, float32) whose largest scaled score under `options` is `target`. */
function largeScores(T, d, dv, options, target, seed) {
  const g = gaussian(seed);
  const Q = Float64Array.from({ length: T * d }, g);
  const K = Float64Array.from({ length: T * d }, (_, i) => 0.8 * Q[((Math.floor(i / d) * 5 + 1) % T) * d + (i % d)] + 0.2 * g());
  const V = Float32Array.from({ length: T * dv }, () => 4 * g());
  const divisor = Math.sqrt(d) * Math.fround(options.temperature ?? 1); // the core's temperature is a float32
  let largest = 0;
  for (let i = 0; i < T; i++)
    for (let j = 0; j < T; j++) {
      let dot = 0;
      for (let p = 0; p < d; p++) dot += Q[i * d + p] * K[j * d + p];
      largest = Math.max(largest, dot / divisor);
    }
  const f = Math.sqrt(target / largest);
  return { Q: Float32Array.from(Q, (x) => x * f), K: Float32Array.from(K, (x) => x * f), V, divisor };
}

/**
 * Exact scaled scores (float64 sums of float32 products), -Infinity where masked, and for each the slack a
 * float64 sum may be off by: d·2⁻⁵³·Σ|q·k| (on this side and in the core's double sums alike).
 */
function exactScores({ Q, K, divisor }, T, d, options) {
  const s = new Float64Array(T * T),
    slack = new Float64Array(T * T);
  for (let i = 0; i < T; i++)
    for (let j = 0; j < T; j++) {
      let dot = 0,
        magnitude = 0;
      for (let p = 0; p < d; p++) {
        dot += Q[i * d + p] * K[j * d + p];
        magnitude += Math.abs(Q[i * d + p] * K[j * d + p]);
      }
      const hidden = (options.causal && j > i) || (options.keyPadding && options.keyPadding[j]);
      s[i * T + j] = hidden ? -Infinity : dot / divisor;
      slack[i * T + j] = (2 * d * 2 ** -53 * magnitude) / divisor;
    }
  return { s, slack };
}

/** softmax(scores)·V in float64. */
function outputOf(scores, V, T, dv) {
  const out = new Float64Array(T * dv);
  for (let i = 0; i < T; i++) {
    const row = scores.subarray(i * T, (i + 1) * T);
    const max = Math.max(...row);
    if (max === -Infinity) continue;
    let sum = 0;
    const w = Array.from(row, (x) => (x === -Infinity ? 0 : Math.exp(x - max)));
    for (const x of w) sum += x;
    for (let c = 0; c < dv; c++) {
      let o = 0;
      for (let j = 0; j < T; j++) o += w[j] * V[j * dv + c];
      out[i * dv + c] = o / sum;
    }
  }
  return out;
}

// X = [Q | K | V] with 0/1 selector projections: attention() then works on exactly these Q, K, V.
function viaProjections({ Q, K, V }, T, d, dv) {
  const width = 2 * d + dv;
  const X = new Float32Array(T * width);
  for (let t = 0; t < T; t++) {
    X.set(Q.subarray(t * d, (t + 1) * d), t * width);
    X.set(K.subarray(t * d, (t + 1) * d), t * width + d);
    X.set(V.subarray(t * dv, (t + 1) * dv), t * width + 2 * d);
  }
  const selector = (from, cols) => ({
    rows: width,
    cols,
    data: Float32Array.from({ length: width * cols }, (_, i) => (Math.floor(i / cols) === from + (i % cols) ? 1 : 0)),
  });
  return { X: { rows: T, cols: width, data: X }, weights: { Wq: selector(0, d), Wk: selector(d, d), Wv: selector(2 * d, dv) } };
}

const CASES = [];
for (const [T, d, dv] of [
  [17, 8, 5],
  [70, 64, 16],
  [130, 24, 7],
])
  for (const [temperature, causal, padded] of [
    [1, false, false],
    [0.5, true, false],
    [1.7, false, true],
  ])
    for (const target of [250, 1900])
      CASES.push({
        T,
        d,
        dv,
        options: { temperature, causal, ...(padded && { keyPadding: Array.from({ length: T }, (_, j) => j % 3 === 1) }) },
        target,
      });

test('at large scores the wasm core rounds each scaled score once and stays at the float32 floor', () => {
  let worstScore = 0,
    worstFloor = 0,
    worstCore = 0,
    worstPaths = 0;
  CASES.forEach(({ T, d, dv, options, target }, n) => {
    const c = largeScores(T, d, dv, options, target, 17 + n);
    const { X, weights } = viaProjections(c, T, d, dv);
    const steps = core.attention(X, weights, { ...options, keep: ['scaled', 'output'] });
    const streamed = core.attentionOutput(
      { rows: T, cols: d, data: c.Q },
      { rows: T, cols: d, data: c.K },
      { rows: T, cols: dv, data: c.V },
      options,
    );
    const { s: exact, slack } = exactScores(c, T, d, options);
    for (let k = 0; k < exact.length; k++) {
      if (exact[k] === -Infinity) {
        assert.equal(steps.scaled.data[k], -Infinity);
        continue;
      }
      // Correctly rounded: within half an ulp (u·|s|), up to what the float64 sums themselves may be off.
      worstScore = Math.max(worstScore, Math.abs(steps.scaled.data[k] - exact[k]) / (u * Math.abs(exact[k]) + slack[k]));
    }
    const floor = outputOf(exact.map(Math.fround), c.V, T, dv),
      truth = outputOf(exact, c.V, T, dv);
    const maxV = c.V.reduce((m, x) => Math.max(m, Math.abs(x)), 0);
    for (let k = 0; k < floor.length; k++) {
      worstFloor = Math.max(worstFloor, Math.abs(floor[k] - truth[k]));
      worstCore = Math.max(worstCore, Math.abs(steps.output.data[k] - floor[k]) / maxV, Math.abs(streamed.data[k] - floor[k]) / maxV);
      worstPaths = Math.max(worstPaths, Math.abs(streamed.data[k] - steps.output.data[k]) / maxV);
    }
  });
  console.log(
    `wasm, large scores: scaled scores at ${worstScore.toFixed(4)} of the correct-rounding bound; |core − floor| ≤ ${worstCore.toExponential(2)}·max|V| (the floor itself is ${worstFloor.toExponential(2)} from exact); |attentionOutput − attention().output| ≤ ${worstPaths.toExponential(2)}·max|V|`,
  );
  assert.ok(worstScore <= 1, `a scaled score is ${worstScore} times as far from exact as correct rounding allows`);
  // Float rounding after the scores: a few dozen u of max |V| (tests/core/test_accuracy.cpp derives it).
  assert.ok(worstCore <= 2e-6, `the output is ${worstCore}·max|V| from the floor`);
  assert.ok(worstPaths <= 1e-5, `attentionOutput differs from attention().output by ${worstPaths}·max|V|`);
});

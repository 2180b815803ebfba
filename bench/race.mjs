// Interleaved rounds of several attention implementations in one JS process (node or a browser page),
// same inputs, timed through their JS APIs: per T, each round runs every implementation (in a rotated
// order) for a few batches of calls, and the report takes the median over rounds of each one's median per
// call, and the spread of the per-round ratios. Batches (≥ batchMs each) keep a coarse clock (a page's
// performance.now is 0.1 ms) out of the numbers. No node or DOM imports: bench/relaxed.mjs drives it in
// node and in Chromium.
import { D, sdpaInputs } from './common.mjs';

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const n = s.length;
  return n % 2 ? s[(n - 1) / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
};

/**
 * impls: [{ name, prepare(T, { Q, K, V }) → async or sync () → Float32Array (T×64 output) }].
 * Returns { rows: [{ T, name, ms, rounds: [ms…] }], check: [{ T, name, maxAbsDiff }] } (ms per call;
 * maxAbsDiff against the first implementation's output).
 */
export async function race(impls, { Ts, rounds = 7, samples = 5, batchMs = 20, log = () => {} }) {
  const rows = [];
  const check = [];
  for (const T of Ts) {
    const inputs = sdpaInputs(T);
    const calls = [];
    let reference = null;
    for (const impl of impls) {
      const call = await impl.prepare(T, inputs);
      const out = await call();
      if (out.length !== T * D) throw new Error(`${impl.name}: ${out.length} outputs at T = ${T}`);
      reference ??= out;
      let maxAbsDiff = 0;
      for (let i = 0; i < out.length; i++) maxAbsDiff = Math.max(maxAbsDiff, Math.abs(out[i] - reference[i]));
      check.push({ T, name: impl.name, maxAbsDiff });
      // Warm-up (a browser compiles each wasm function on its first call, and tiers up later), then the
      // calls per batch from ~batchMs of calls.
      for (let t0 = performance.now(), w = 0; w < 10 || performance.now() - t0 < 5 * batchMs; w++) await call();
      let n = 0;
      const t0 = performance.now();
      while (performance.now() - t0 < batchMs) (await call(), n++);
      calls.push({ name: impl.name, call, batch: Math.max(1, n) });
    }
    const perRound = calls.map(() => []);
    for (let r = 0; r < rounds; r++) {
      for (let k = 0; k < calls.length; k++) {
        const i = (k + r) % calls.length; // rotated: no implementation always runs first
        const { call, batch } = calls[i];
        const times = [];
        for (let s = 0; s < samples; s++) {
          const t0 = performance.now();
          for (let b = 0; b < batch; b++) await call();
          times.push((performance.now() - t0) / batch);
        }
        perRound[i].push(median(times));
      }
    }
    calls.forEach(({ name }, i) => {
      rows.push({ T, name, ms: median(perRound[i]), rounds: perRound[i] });
      log(`  T=${T} ${name}: ${median(perRound[i]).toFixed(4)} ms`);
    });
  }
  return { rows, check };
}

/** Ratio a ÷ b (time of a over time of b, so > 1 means b is faster) per T: median and per-round spread. */
export function ratios(result, a, b) {
  const out = [];
  for (const T of [...new Set(result.rows.map((r) => r.T))]) {
    const ra = result.rows.find((r) => r.T === T && r.name === a);
    const rb = result.rows.find((r) => r.T === T && r.name === b);
    if (!ra || !rb) continue;
    const per = ra.rounds.map((x, i) => x / rb.rounds[i]);
    out.push({ T, ratio: ra.ms / rb.ms, min: Math.min(...per), max: Math.max(...per) });
  }
  return out;
}

/** Our module through its JS API: core.attentionOutput, the output-only path (what ORT computes). */
export const oursOutput = (name, core) => ({
  name,
  prepare: (T, { Q, K, V }) => {
    const m = (data) => ({ rows: T, cols: D, data });
    const q = m(Q),
      k = m(K),
      v = m(V);
    return () => core.attentionOutput(q, k, v).data;
  },
});

/** onnxruntime-web's session on bench/sdpa.onnx (its JS API: one session.run per call). */
export const ortOutput = (name, ort, session) => ({
  name,
  prepare: (T, { Q, K, V }) => {
    const feeds = {
      q: new ort.Tensor('float32', Q, [T, D]),
      k: new ort.Tensor('float32', K, [T, D]),
      v: new ort.Tensor('float32', V, [T, D]),
    };
    return async () => (await session.run(feeds)).out.data;
  },
});

// Shared by the JS benchmarks: the inputs (the same LCG as bench/attention_bench.cpp and
// bench/torch_bench.py, so every implementation attends over identical numbers), the timing loop and
// the output format (one JSON object on stdout, progress on stderr).
export const SDPA_T = [16, 64, 128, 256, 512, 1024, 4096];
export const MHA_T = [64, 512];
export const D = 64;
export const D_MODEL = 512;
export const HEADS = 8;

/** A 32-bit LCG; each value is 24 high bits mapped to a float32 in [-1, 1), times scale. */
export function lcg(seed) {
  let state = seed >>> 0;
  return (n, scale) => {
    const out = new Float32Array(n);
    const s = Math.fround(scale);
    for (let i = 0; i < n; i++) {
      state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
      out[i] = Math.fround(((state >>> 8) / 16777216) * 2 - 1) * s;
    }
    return out;
  };
}

/** Q, K, V (T×64, row-major) for scaled dot-product attention at T. */
export function sdpaInputs(T) {
  const g = lcg(42 + T);
  return { Q: g(T * D, 2), K: g(T * D, 2), V: g(T * D, 1) };
}

/** X (T×512) and W_Q, W_K, W_V, W_O (512×512) for multi-head attention at T. */
export function mhaInputs(T) {
  const g = lcg(7 + T);
  const X = g(T * D_MODEL, 1);
  const w = () => g(D_MODEL * D_MODEL, 0.08);
  return { X, Wq: w(), Wk: w(), Wv: w(), Wo: w() };
}

export const sdpaFlops = (T) => 4 * T * T * D;
export const mhaFlops = (T) => 8 * T * D_MODEL * D_MODEL + 4 * T * T * D_MODEL;

export function parseArgs(argv = process.argv.slice(2)) {
  const o = { smoke: false, only: null, T: 0, reps: 0, minTimeMs: 400 };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--smoke') o.smoke = true;
    else if (a === '--only') o.only = argv[++i];
    else if (a === '--T') o.T = Number(argv[++i]);
    else if (a === '--reps') o.reps = Number(argv[++i]);
    else if (a === '--min-time') o.minTimeMs = Number(argv[++i]) * 1000;
    else throw new Error(`unknown argument ${a}`);
  }
  if (o.smoke && !o.reps) o.reps = 2;
  return o;
}

/** Runs body() once to warm up, then `reps` times (adaptive like the C++ driver); median in ms. */
export async function time(opts, label, kind, variant, T, flops, body, results) {
  if (opts.only && opts.only !== variant) return;
  if (opts.T && opts.T !== T) return;
  // Warm-up (and the output): up to 3 runs or 0.2 s; the last one estimates the repetitions.
  let out,
    first = 0;
  for (let w = 0, spent = 0; w < 3 && spent < 200; w++) {
    const t0 = performance.now();
    out = await body();
    first = performance.now() - t0;
    spent += first;
  }
  let reps = opts.reps;
  if (!reps) {
    reps = Math.max(5, Math.min(41, Math.floor(opts.minTimeMs / Math.max(first, 1e-3))));
    if (first > 2000) reps = 3;
  }
  const times = [];
  for (let r = 0; r < reps; r++) {
    const a = performance.now();
    await body();
    times.push(performance.now() - a);
  }
  times.sort((x, y) => x - y);
  const n = times.length;
  const median = n % 2 ? times[(n - 1) / 2] : (times[n / 2 - 1] + times[n / 2]) / 2;
  let checksum = 0;
  for (let i = 0; i < out.length; i++) checksum += out[i];
  results.push({ kind, variant, T, median_ms: median, min_ms: times[0], reps, flops, checksum, head: Array.from(out.subarray(0, 8)) });
  process.stderr.write(
    `  ${label.padEnd(10)} ${kind.padEnd(5)} ${variant.padEnd(12)} T=${String(T).padEnd(5)} ${median.toFixed(3).padStart(10)} ms  ${(flops / median / 1e6).toFixed(2).padStart(7)} GFLOP/s  (${reps} reps)\n`,
  );
}

export function emit(label, extra, results) {
  process.stdout.write(JSON.stringify({ label, ...extra, results }) + '\n');
}

// Where a small attentionOutput call's time goes, through the shipped module in node: the JS API
// (attention.js: checks, options, then the numbers-only binding: outputOperands/outputRun/outputRelease),
// the object binding under the old API (raw.attentionOutput: reading {rows, cols, data} and the options
// through emval, the result object and Float32Array made through emval), and, with --before, another
// build's JS API (e.g. main's, before the numbers-only path) in the same process. The core itself (the C++
// driver's `output` row at the same T) comes from build/bench-wasm-simd when built. At T = 1 the compute
// is nothing, so that call is the fixed cost. Interleaved rounds (rotated order), median of the round
// medians, µs per call.
//   node --no-liftoff bench/overhead.mjs [DIR] [--before DIR] [--T 1,16,64,128] [--rounds N] [--batch-ms MS]
//     DIR: a build/wasm (default build/wasm)
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { D, sdpaInputs } from './common.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const arg = (name, fallback) => {
  const i = args.indexOf(name);
  if (i < 0) return fallback;
  const value = args[i + 1];
  args.splice(i, 2);
  return value;
};
const beforeDir = arg('--before');
const Ts = arg('--T', '1,16,64,128').split(',').map(Number);
const roundCount = Number(arg('--rounds', 9));
const batchMs = Number(arg('--batch-ms', 40));
const dir = resolve(args[0] ?? join(root, 'build', 'wasm'));

async function loadBuild(at) {
  const bytes = await readFile(join(at, 'attention_wasm.wasm'));
  const { loadAttention } = await import(pathToFileURL(join(at, 'attention.js')).href);
  const { default: createRaw } = await import(pathToFileURL(join(at, 'attention_wasm.js')).href);
  return { core: await loadAttention({ wasmBinary: bytes }), raw: await createRaw({ wasmBinary: bytes }) };
}
const after = await loadBuild(dir);
const before = beforeDir ? await loadBuild(resolve(beforeDir)) : null;
const median = (xs) => [...xs].sort((a, b) => a - b)[(xs.length - 1) >> 1];

const out = { load: (await import('node:os')).loadavg(), rows: [] };
for (const T of Ts) {
  const { Q, K, V } = sdpaInputs(T);
  const m = (data) => ({ rows: T, cols: D, data });
  const q = m(Q),
    k = m(K),
    v = m(V);
  const options = { byColumns: false, causal: false, handShortcuts: false }; // what attention.js's asOptions({}) builds
  const ways = [
    ['api_us', () => after.core.attentionOutput(q, k, v)],
    ['binding_us', () => after.raw.attentionOutput(q, k, v, options)],
  ];
  if (before) ways.push(['api_before_us', () => before.core.attentionOutput(q, k, v)]);
  // Same result both ways, bit for bit (same core, same operands).
  const reference = after.raw.attentionOutput(q, k, v, options).data;
  for (const [name, f] of ways) {
    const got = f().data;
    if (got.length !== reference.length || got.some((x, i) => x !== reference[i])) throw new Error(`${name}: a different output`);
  }
  // Warm-up, which also sizes the batches: ~batchMs of the slowest way each. Short batches and many
  // rounds keep the load's swings out of the per-round ratios.
  let slowest = 0;
  for (const [, f] of ways) {
    const n = 200,
      t0 = performance.now();
    for (let i = 0; i < n; i++) f();
    slowest = Math.max(slowest, (performance.now() - t0) / n);
  }
  const calls = Math.max(5, Math.round(batchMs / slowest));
  const rounds = ways.map(() => []);
  for (let r = 0; r < roundCount; r++)
    for (let j = 0; j < ways.length; j++) {
      const i = (j + r) % ways.length; // rotated: no way always runs first
      const f = ways[i][1];
      const t0 = performance.now();
      for (let n = 0; n < calls; n++) f();
      rounds[i].push(((performance.now() - t0) / calls) * 1000);
    }
  const row = { T };
  ways.forEach(([name], i) => (row[name] = median(rounds[i])));
  if (before) {
    // Per-round ratios, before ÷ after: the spread says how far the load moved them.
    const per = rounds[2].map((x, i) => x / rounds[0][i]);
    row.before_over_after = median(per);
    row.ratio_min = Math.min(...per);
    row.ratio_max = Math.max(...per);
  }
  const driver = join(root, 'build', 'bench-wasm-simd', 'bench', 'attention_bench.cjs');
  if (existsSync(driver) && T > 1) {
    const json = JSON.parse(
      execFileSync('node', ['--no-experimental-fetch', '--no-liftoff', driver, '--only', 'output', '--T', String(T)], { encoding: 'utf8' }),
    );
    const r = json.results.find((x) => x.variant === 'output' && x.T === T);
    if (r) row.core_us = r.median_ms * 1000;
  }
  out.rows.push(row);
  process.stderr.write(`T=${T}: ${JSON.stringify(row)}\n`);
}
process.stdout.write(`${JSON.stringify(out)}\n`);

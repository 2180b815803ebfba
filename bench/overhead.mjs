// Where a small attentionOutput call's time goes, through the shipped module in node: the JS API
// (attention.js: checks, options), the raw Embind function under it (the binding: reading {rows, cols,
// data} and the options through emval, one TypedArray.set per input into an Eigen matrix, the result
// copied into a new Float32Array), and the core itself (the C++ driver's `output` row at the same T, from
// build/bench-wasm-simd when built). At T = 1 the compute is nothing, so that call is the fixed cost.
// Interleaved rounds, median of the round medians, µs per call.
//   node --no-liftoff bench/overhead.mjs [DIR]     DIR: a build/wasm (default build/wasm)
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { D, sdpaInputs } from './common.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const dir = resolve(process.argv[2] ?? join(root, 'build', 'wasm'));
const bytes = await readFile(join(dir, 'attention_wasm.wasm'));
const { loadAttention } = await import(pathToFileURL(join(dir, 'attention.js')).href);
const { default: createRaw } = await import(pathToFileURL(join(dir, 'attention_wasm.js')).href);
const core = await loadAttention({ wasmBinary: bytes });
const raw = await createRaw({ wasmBinary: bytes });
const median = (xs) => [...xs].sort((a, b) => a - b)[(xs.length - 1) >> 1];

const out = { rows: [] };
for (const T of [1, 16, 64]) {
  const { Q, K, V } = sdpaInputs(T);
  const m = (data) => ({ rows: T, cols: D, data });
  const q = m(Q),
    k = m(K),
    v = m(V);
  const options = { causal: false, handShortcuts: false }; // what attention.js's asOptions({}) builds
  const ways = [
    ['api', () => core.attentionOutput(q, k, v)],
    ['binding', () => raw.attentionOutput(q, k, v, options)],
  ];
  const calls = T === 64 ? 200 : 2000;
  for (const [, f] of ways) for (let i = 0; i < calls; i++) f();
  const rounds = ways.map(() => []);
  for (let r = 0; r < 9; r++)
    ways.forEach(([, f], i) => {
      const t0 = performance.now();
      for (let n = 0; n < calls; n++) f();
      rounds[i].push(((performance.now() - t0) / calls) * 1000);
    });
  const row = { T, api_us: median(rounds[0]), binding_us: median(rounds[1]) };
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

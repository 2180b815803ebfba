// Our module with fixed SIMD (attention_wasm.wasm) against its relaxed-SIMD variant
// (attention_wasm_relaxed.wasm: fused multiply-adds) and onnxruntime-web (wasm, SIMD, 1 thread), all
// through their JS APIs in one process, interleaved rounds (bench/race.mjs), in node or in Chromium.
//
//   node --no-liftoff --experimental-wasm-relaxed-simd bench/relaxed.mjs [--browser] [--rounds N] [--T 64,128]
//        [--before DIR]   also time DIR's fixed module (another build of the bindings: before/after rows)
//        [--dir DIR]      the fixed and relaxed modules from DIR instead of build/wasm (an experimental build)
//        [--smoke]        T = 64, 1 round, tiny batches: the outputs must agree, no timing is judged
// Prints one JSON object (rows, ratios, output checks). Needs build/wasm and bench/node_modules.
import { readFile } from 'node:fs/promises';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { oursOutput, ortOutput, race, ratios } from './race.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const arg = (name, fallback) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : fallback;
};
const smoke = args.includes('--smoke');
const config = {
  Ts: smoke ? [64] : arg('--T', '64,128,256,512,1024').split(',').map(Number),
  rounds: smoke ? 1 : Number(arg('--rounds', 7)),
  samples: smoke ? 1 : 5,
  batchMs: smoke ? 1 : 20,
};
const dirs = { fixed: arg('--dir') ? relative(root, resolve(arg('--dir'))) : 'build/wasm' };
if (arg('--before')) dirs.before = relative(root, resolve(arg('--before')));
const log = (line) => process.stderr.write(`${line}\n`);
// Our output-only path against ORT's: FMA rounds differently, so agreement to 1e-5, not bit for bit.
const TOLERANCE = 1e-5;

function summarise(result, environment) {
  const names = [...new Set(result.rows.map((r) => r.name))];
  const out = { environment, config, rows: result.rows, check: result.check, ratios: {} };
  for (const a of names) for (const b of names) if (a !== b) out.ratios[`${a}/${b}`] = ratios(result, a, b);
  const worst = Math.max(...result.check.map((c) => c.maxAbsDiff));
  if (!(worst <= TOLERANCE)) throw new Error(`outputs disagree by ${worst} (> ${TOLERANCE}): ${JSON.stringify(result.check)}`);
  return out;
}

async function inNode() {
  const ort = await import('onnxruntime-web');
  ort.env.wasm.numThreads = 1;
  ort.env.wasm.simd = true;
  ort.env.logLevel = 'error';
  const impls = [];
  const load = async (dir, file) => {
    const { loadAttention } = await import(pathToFileURL(join(root, dir, 'attention.js')).href);
    return loadAttention({ wasmBinary: await readFile(join(root, dir, file)) });
  };
  impls.push(oursOutput('fixed', await load(dirs.fixed, 'attention_wasm.wasm')));
  const relaxedBytes = await readFile(join(root, dirs.fixed, 'attention_wasm_relaxed.wasm')).catch(() => null);
  if (relaxedBytes && WebAssembly.validate(relaxedBytes))
    impls.push(oursOutput('relaxed', await load(dirs.fixed, 'attention_wasm_relaxed.wasm')));
  else log('relaxed: not run (no attention_wasm_relaxed.wasm, or node without --experimental-wasm-relaxed-simd)');
  if (dirs.before) impls.push(oursOutput('before', await load(dirs.before, 'attention_wasm.wasm')));
  const session = await ort.InferenceSession.create(await readFile(join(root, 'bench', 'sdpa.onnx')), {
    executionProviders: ['wasm'],
    graphOptimizationLevel: 'all',
  });
  impls.push(ortOutput('ort', ort, session));
  return summarise(await race(impls, { ...config, log }), { runtime: `node ${process.version}`, execArgv: process.execArgv });
}

async function inChromium() {
  const { launchChromium } = await import('../scripts/chromium.mjs');
  const { startServer } = await import('../scripts/serve.mjs');
  const { server, url } = await startServer(root, 0);
  // --no-liftoff, as every wasm run of the benchmark in node: V8's optimising tier from the first call.
  const browser = await launchChromium(['--js-flags=--no-liftoff']);
  try {
    const page = await browser.newPage();
    page.on('console', (m) => log(`  [page] ${m.text()}`));
    page.on('pageerror', (e) => log(`  [page error] ${e.message}`));
    await page.route('**/race.html', (route) =>
      route.fulfill({ contentType: 'text/html', body: '<!doctype html><link rel="icon" href="data:,"><title>race</title>' }),
    );
    await page.goto(`${url}/race.html`);
    const result = await page.evaluate(
      async ({ config, dirs }) => {
        const { race, oursOutput, ortOutput } = await import('/bench/race.mjs');
        const ort = await import('/bench/node_modules/onnxruntime-web/dist/ort.wasm.min.mjs');
        ort.env.wasm.numThreads = 1;
        ort.env.logLevel = 'error';
        // The check the page and the widget make before they load the relaxed build.
        const { relaxedSimd } = await import('/web/lib/core-file.js');
        const relaxedOk = relaxedSimd();
        const load = async (dir, file) => {
          const { loadAttention } = await import(`/${dir}/attention.js`);
          const bytes = new Uint8Array(await (await fetch(`/${dir}/${file}`)).arrayBuffer());
          return loadAttention({ wasmBinary: bytes });
        };
        const impls = [oursOutput('fixed', await load(dirs.fixed, 'attention_wasm.wasm'))];
        if (relaxedOk) impls.push(oursOutput('relaxed', await load(dirs.fixed, 'attention_wasm_relaxed.wasm')));
        else console.log('relaxed SIMD does not validate here');
        if (dirs.before) impls.push(oursOutput('before', await load(dirs.before, 'attention_wasm.wasm')));
        const bytes = new Uint8Array(await (await fetch('/bench/sdpa.onnx')).arrayBuffer());
        const session = await ort.InferenceSession.create(bytes, { executionProviders: ['wasm'], graphOptimizationLevel: 'all' });
        impls.push(ortOutput('ort', ort, session));
        return race(impls, { ...config, log: (line) => console.log(line) });
      },
      { config, dirs },
    );
    return summarise(result, { runtime: `chromium ${browser.version()}` });
  } finally {
    await browser.close();
    server.close();
  }
}

const out = args.includes('--browser') ? await inChromium() : await inNode();
process.stdout.write(`${JSON.stringify(out, null, 1)}\n`);

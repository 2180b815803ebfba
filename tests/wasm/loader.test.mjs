// loadAttention's choice of build (wasm/attention.js with wasm/core-file.js's relaxed-SIMD check): with no
// bytes given it fetches attention_wasm_relaxed.wasm where the engine runs relaxed SIMD, else
// attention_wasm.wasm, and falls back to the fixed build when the relaxed one is missing or does not
// compile, asking for each file once. Each case runs in a child node, without and with
// --experimental-wasm-relaxed-simd (off by default in node 20), whose fetch serves build/wasm's files
// (and records what was asked). Build first: bash scripts/build.sh.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { wasmDir } from './load.mjs';

const run = promisify(execFile);
const FIXED = 'attention_wasm.wasm';
const RELAXED = 'attention_wasm_relaxed.wasm';

/**
 * Loads the core in a child node. `serve` says what the fetch answers for the relaxed build: 'file' (the
 * real one), 'missing' (404) or 'broken' (the fixed build's bytes cut short). Resolves to { relaxedSimd,
 * asked (file names in order), warnings, softmax (a row computed by the loaded core) } or { error }.
 */
async function load({ relaxedFlag, serve = 'file', options = '{}' }) {
  const script = `
    const { readFile } = await import('node:fs/promises');
    const dir = ${JSON.stringify(wasmDir)};
    const asked = [];
    globalThis.fetch = async (url) => {
      const name = String(url).split('/').pop().split('?')[0];
      asked.push(String(url).split('/').pop());
      if (String(url).includes('/gone/')) throw new TypeError('fetch failed');
      if (name === ${JSON.stringify(RELAXED)} && ${JSON.stringify(serve)} === 'missing')
        return new Response('no such file', { status: 404, statusText: 'Not Found' });
      let bytes = await readFile(dir + '/' + name);
      if (name === ${JSON.stringify(RELAXED)} && ${JSON.stringify(serve)} === 'broken') bytes = bytes.subarray(0, 4000);
      return new Response(bytes, { headers: { 'content-type': 'application/wasm' } });
    };
    const warnings = [];
    console.warn = (message) => warnings.push(String(message));
    const api = await import(${JSON.stringify(pathToFileURL(path.join(wasmDir, 'attention.js')).href)});
    try {
      const core = await api.loadAttention(${options});
      const softmax = Array.from(core.softmax([[1, 2, 3]]).data, (x) => x.toFixed(6));
      console.log(JSON.stringify({ relaxedSimd: api.relaxedSimd(), asked, warnings, softmax }));
    } catch (err) {
      console.log(JSON.stringify({ asked, error: err.name + ': ' + err.message }));
    }`;
  const flags = relaxedFlag ? ['--experimental-wasm-relaxed-simd'] : [];
  const { stdout } = await run(process.execPath, [...flags, '--input-type=module', '-e', script]);
  return JSON.parse(stdout);
}

const SOFTMAX = ['0.090031', '0.244728', '0.665241'];

test('without relaxed SIMD it fetches the fixed build only', async () => {
  const got = await load({ relaxedFlag: false });
  assert.deepEqual(got, { relaxedSimd: false, asked: [FIXED], warnings: [], softmax: SOFTMAX });
});

test('with relaxed SIMD it fetches the relaxed build only, and computes with it', async () => {
  const got = await load({ relaxedFlag: true });
  assert.deepEqual(got, { relaxedSimd: true, asked: [RELAXED], warnings: [], softmax: SOFTMAX });
});

test('a missing relaxed build gives way to the fixed one, asked once each, with a warning naming it', async () => {
  const got = await load({ relaxedFlag: true, serve: 'missing' });
  assert.deepEqual(got.asked, [RELAXED, FIXED]);
  assert.deepEqual(got.softmax, SOFTMAX);
  assert.equal(got.warnings.length, 1);
  assert.match(got.warnings[0], /could not load attention_wasm_relaxed\.wasm .*HTTP 404.*; loading attention_wasm\.wasm/);
});

test('a relaxed build that does not compile gives way to the fixed one', async () => {
  const got = await load({ relaxedFlag: true, serve: 'broken' });
  assert.deepEqual(got.asked, [RELAXED, FIXED]);
  assert.deepEqual(got.softmax, SOFTMAX);
  assert.equal(got.warnings.length, 1);
});

test('wasmFile picks the build; locateFile says where it is', async () => {
  const fixed = await load({ relaxedFlag: true, options: `{ wasmFile: ${JSON.stringify(FIXED)} }` });
  assert.deepEqual(fixed.asked, [FIXED]);
  assert.deepEqual(fixed.softmax, SOFTMAX);
  const located = await load({
    relaxedFlag: true,
    options: `{ locateFile: (file, beside) => 'https://example.org/assets/' + file + '?from=' + (beside.startsWith('file:') ? 'beside' : beside) }`,
  });
  assert.deepEqual(located.asked, [`${RELAXED}?from=beside`]);
});

test('the fixed build missing too is an AttentionError naming the file', async () => {
  const got = await load({ relaxedFlag: false, options: `{ locateFile: (file) => 'https://example.org/gone/' + file }` });
  // The stub's fetch fails for /gone/ as for a server that does not answer.
  assert.deepEqual(got.asked, [FIXED]);
  assert.match(got.error, /^AttentionError: could not load attention_wasm\.wasm from https:\/\/example\.org\/gone\/attention_wasm\.wasm/);
});

test('given wasmBinary, it fetches nothing (the node way, as before)', async () => {
  const got = await load({
    relaxedFlag: true,
    options: `{ wasmBinary: await readFile(dir + '/' + ${JSON.stringify(FIXED)}) }`,
  });
  assert.deepEqual(got.asked, []);
  assert.deepEqual(got.softmax, SOFTMAX);
});

// The relaxed-SIMD check that picks the core's build (web/lib/core-file.js), in node: its probe is one
// f32x4.relaxed_madd in the final encoding, and it says yes exactly where the shipped relaxed build
// (build/wasm/attention_wasm_relaxed.wasm) validates — checked in this node (relaxed SIMD off by default
// in node 20) and with --experimental-wasm-relaxed-simd, each in a child node. The browser tests (page,
// widget) check what Chromium then fetches. Build first: bash scripts/build.sh.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { relaxSimd } from '../../scripts/relaxed-simd.mjs';
import { FIXED_CORE, PROBE, RELAXED_CORE } from '../../web/lib/core-file.js';
import { root } from './harness.mjs';

const run = promisify(execFile);

test('the probe is a valid module whose one SIMD arithmetic instruction is f32x4.relaxed_madd (final opcode)', () => {
  const counts = relaxSimd(new Uint8Array(PROBE), false);
  assert.deepEqual(
    Object.entries(counts).filter(([, n]) => n > 0),
    [['f32x4_madd', 1]],
  );
});

test('the check agrees with the relaxed build itself, with relaxed SIMD off and on', async () => {
  // In a child node without and with relaxed SIMD: [check, relaxed build validates, fixed build validates, chosen file].
  const probe = `
    const { readFileSync } = await import('node:fs');
    const m = await import(${JSON.stringify(pathToFileURL(join(root, 'web', 'lib', 'core-file.js')).href)});
    const valid = (f) => WebAssembly.validate(readFileSync(${JSON.stringify(join(root, 'build', 'wasm'))} + '/' + f));
    console.log(JSON.stringify([m.relaxedSimd(), valid(m.RELAXED_CORE), valid(m.FIXED_CORE), m.coreFile()]));`;
  const answers = {};
  for (const flags of [[], ['--experimental-wasm-relaxed-simd']]) {
    const { stdout } = await run(process.execPath, [...flags, '--input-type=module', '-e', probe]);
    answers[flags.join(' ') || 'off'] = JSON.parse(stdout);
  }
  assert.deepEqual(answers, {
    off: [false, false, true, FIXED_CORE],
    '--experimental-wasm-relaxed-simd': [true, true, true, RELAXED_CORE],
  });
});

// core.attentionOutput goes through the numbers-only binding (outputOperands / outputRun / outputRelease,
// wasm/bindings.cpp); the object binding it replaced (raw.attentionOutput) is still there for additive
// weights. Both run the same core, so on random inputs with every option they must agree bit for bit,
// refuse the same inputs with the same messages, and leave the heap as they found it, growth included.
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { load, wasmDir } from './load.mjs';

let api, core, raw;
before(async () => {
  ({ api, core } = await load());
  // A second instance of the same module, for its object binding (the old path).
  const { default: create } = await import(pathToFileURL(path.join(wasmDir, 'attention_wasm.js')).href);
  raw = await create({ wasmBinary: await readFile(path.join(wasmDir, process.env.ATTN_WASM_FILE ?? 'attention_wasm.wasm')) });
});

let state = 11;
const rand = () => ((state = (Math.imul(state, 1664525) + 1013904223) >>> 0) / 2 ** 32) * 4 - 2;
const matrix = (rows, cols) => ({ rows, cols, data: Float32Array.from({ length: rows * cols }, rand) });

// The old path as attention.js calls it: asOptions' object (every field present and typed; the score
// as the bound Score enum's value that api.SCORES names).
function oldPath(q, k, v, options = {}) {
  const o = { causal: Boolean(options.causal), handShortcuts: Boolean(options.handShortcuts), byColumns: false };
  if (options.score !== undefined) o.score = raw.Score[api.scoreEntry(options.score).core];
  if (options.temperature !== undefined) o.temperature = options.temperature;
  if (options.keyPadding !== undefined) o.keyPadding = Uint8Array.from(options.keyPadding, (f) => (f ? 1 : 0));
  return raw.attentionOutput(q, k, v, o);
}

test('the numbers-only path equals the object binding bit for bit, with every option', () => {
  let cases = 0;
  for (const [Tq, Tk, dk, dv] of [
    [1, 1, 1, 1],
    [3, 5, 4, 2],
    [16, 16, 64, 64],
    [17, 40, 7, 9],
    [64, 64, 64, 64],
    [65, 65, 13, 3],
    [128, 128, 64, 64],
    [130, 70, 5, 11],
  ]) {
    const q = matrix(Tq, dk),
      k = matrix(Tk, dk),
      v = matrix(Tk, dv);
    const padding = Array.from({ length: Tk }, (_, j) => Tk > 1 && (j % 3 === 1 || j >= 64));
    for (const score of [undefined, 'dot', 'scaled_dot', 'cosine'])
      for (const temperature of [undefined, 0.25, 3])
        for (const causal of Tq === Tk ? [false, true] : [false])
          for (const keyPadding of [undefined, padding]) {
            const options = { score, temperature, causal, keyPadding };
            const what = `${Tq}×${dk}, ${Tk}×${dk}, ${Tk}×${dv} ${JSON.stringify({ ...options, keyPadding: keyPadding && 'mask' })}`;
            const expected = oldPath(q, k, v, options);
            assert.ok(!(expected instanceof Error), `${what}: ${expected.message}`);
            const got = core.attentionOutput(q, k, v, options);
            assert.deepEqual([got.rows, got.cols], [expected.rows, expected.cols], what);
            assert.ok(got.data instanceof Float32Array, what);
            for (let i = 0; i < got.data.length; i++)
              if (!Object.is(got.data[i], expected.data[i])) assert.fail(`${what}: [${i}] ${got.data[i]} vs ${expected.data[i]}`);
            cases++;
          }
  }
  assert.ok(cases > 100, `${cases} cases`);
});

test('the numbers-only path refuses what the object binding refuses, with the same message', () => {
  const q = matrix(4, 3),
    k = matrix(5, 3),
    v = matrix(5, 2);
  const refused = [
    [q, matrix(5, 4), v, {}], // d_k differs
    [q, k, matrix(4, 2), {}], // one value row per key
    [matrix(0, 0), k, v, {}],
    [q, k, v, { causal: true }], // 4 queries, 5 keys
    [q, k, v, { keyPadding: [1, 0] }],
    [q, k, v, { temperature: 0 }],
    [q, k, v, { temperature: NaN }],
    [q, k, v, { score: 'additive' }],
    [q, k, v, { handShortcuts: true }],
    [{ rows: 1, cols: 3, data: new Float32Array([1, NaN, 0]) }, k, v, {}],
    // the output overflows float32
    [
      { rows: 1, cols: 3, data: new Float32Array(3).fill(3e38) },
      { rows: 1, cols: 3, data: new Float32Array(3).fill(3e38) },
      matrix(1, 2),
      {},
    ],
  ];
  for (const [Q, K, V, options] of refused) {
    const expected = oldPath(Q, K, V, options);
    const what = `${Q.rows}×${Q.cols}, ${K.rows}×${K.cols}, ${V.rows}×${V.cols} ${JSON.stringify(options)}`;
    assert.ok(expected instanceof Error, `${what}: the core refuses it`);
    assert.throws(
      () => core.attentionOutput(Q, K, V, options),
      (e) => e instanceof api.AttentionError && e.message === expected.message,
      `${what}: ${expected.message}`,
    );
  }
  // And a call after a refusal runs normally.
  assert.deepEqual(Array.from(core.attentionOutput(q, k, v).data), Array.from(oldPath(q, k, v).data));
});

test('calls, refusals and heap growth leave no bytes, handles or objects behind', () => {
  const small = [matrix(8, 16), matrix(8, 16), matrix(8, 16)];
  const step = (i) => {
    if (i % 7 === 3) assert.throws(() => core.attentionOutput(small[0], small[1], small[2], { temperature: -1 }), api.AttentionError);
    else
      core.attentionOutput(small[0], small[1], small[2], { causal: i % 2 === 0, keyPadding: i % 3 ? undefined : [0, 1, 0, 0, 0, 0, 0, 1] });
  };
  for (let i = 0; i < 200; i++) step(i);
  const before = core.memory();
  for (let i = 0; i < 5_000; i++) step(i);
  const after = core.memory();
  assert.equal(after.mallocBytes, before.mallocBytes, 'bytes in use by malloc');
  assert.equal(after.emvalHandles, before.emvalHandles, 'live Embind handles');
  assert.equal(after.liveObjects, before.liveObjects, 'live Embind objects');

  // Larger and larger calls grow the heap inside outputOperands (Q) and outputRun (the output): the heap
  // views attention.js reads must be the new ones (a stale view has length 0: an empty or wrong output).
  // Many queries over a few keys: megabytes of operands, little compute.
  const heapBefore = core.memory().heapBytes;
  for (const T of [1024, 16_384, 65_536]) {
    const [Q, K, V] = [matrix(T, 64), matrix(4, 64), matrix(4, 64)];
    const got = core.attentionOutput(Q, K, V);
    const expected = oldPath(Q, K, V);
    assert.equal(got.data.length, T * 64);
    for (let i = 0; i < got.data.length; i += 97) assert.equal(got.data[i], expected.data[i], `T=${T} [${i}]`);
    assert.equal(core.memory().mallocBytes, before.mallocBytes, `T=${T}: nothing kept after the call`);
  }
  assert.ok(core.memory().heapBytes > heapBefore, `the heap grew: ${heapBefore} → ${core.memory().heapBytes}`);
});

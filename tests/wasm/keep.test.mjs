// The `keep` option: every call that returns a head's steps (attention, attentionByColumns, parameterFree,
// multiHead, the model's run) returns exactly the steps named in keep, with the very numbers the call
// returns without it; without keep, all seven, as before.
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { load, root, wasmDir } from './load.mjs';

const STEPS = ['Q', 'K', 'V', 'scores', 'scaled', 'weights', 'output'];

let api, core;
before(async () => ({ api, core } = await load()));

let state = 11;
const rand = () => ((state = (Math.imul(state, 1664525) + 1013904223) >>> 0) / 2 ** 32) * 2 - 1;
const matrix = (rows, cols) => ({ rows, cols, data: Float32Array.from({ length: rows * cols }, rand) });

/** Every subset of the seven steps (128 of them), as arrays in a shuffled-looking order. */
const subsets = Array.from({ length: 1 << STEPS.length }, (_, mask) => STEPS.filter((_, i) => mask & (1 << i)).reverse());

/** `kept` has exactly the fields `keep` names, each equal (bit for bit) to the same field of `all`. */
function assertKept(kept, all, keep, what) {
  assert.deepEqual(Object.keys(kept).sort(), [...keep].sort(), `${what}: fields for keep ${JSON.stringify(keep)}`);
  for (const name of keep) assert.deepEqual(kept[name], all[name], `${what}: ${name} for keep ${JSON.stringify(keep)}`);
}

test('without keep every call returns all seven steps, as before', () => {
  const X = matrix(5, 4),
    head = { Wq: matrix(4, 3), Wk: matrix(4, 3), Wv: matrix(4, 2) };
  for (const steps of [
    core.attention(X, head),
    core.attentionByColumns(matrix(4, 5), { Wq: matrix(3, 4), Wk: matrix(3, 4), Wv: matrix(2, 4) }),
    core.parameterFree(X, 2),
    core.multiHead(X, { heads: [head], Wo: matrix(2, 4) }).heads[0],
  ]) {
    assert.deepEqual(Object.keys(steps), STEPS);
  }
});

test('attention returns exactly the kept steps, with the same numbers, for every subset', () => {
  const X = matrix(6, 5),
    head = { Wq: matrix(5, 4), Wk: matrix(5, 4), Wv: matrix(5, 3), bq: [0.1, 0.2, 0.3, 0.4] };
  const options = { causal: true, temperature: 0.7, keyPadding: [0, 0, 1, 0, 0, 0] };
  const all = core.attention(X, head, options);
  for (const keep of subsets) assertKept(core.attention(X, head, { ...options, keep }), all, keep, 'attention');
});

test('parameterFree, attentionByColumns, multiHead and the model keep what they are asked to', async () => {
  const X = matrix(7, 4);
  const some = [['weights'], ['weights', 'scaled'], ['Q', 'K', 'V', 'output'], ['scores', 'weights', 'scaled', 'output'], []];
  for (const keep of some) {
    assertKept(core.parameterFree(X, 2, { causal: true, keep }), core.parameterFree(X, 2, { causal: true }), keep, 'parameterFree');
    const cols = matrix(4, 7),
      byColumns = { Wq: matrix(3, 4), Wk: matrix(3, 4), Wv: matrix(2, 4) };
    assertKept(
      core.attentionByColumns(cols, byColumns, { score: 'dot', keep }),
      core.attentionByColumns(cols, byColumns, { score: 'dot' }),
      keep,
      'attentionByColumns',
    );
    const heads = [
      { Wq: matrix(4, 2), Wk: matrix(4, 2), Wv: matrix(4, 2) },
      { Wq: matrix(4, 2), Wk: matrix(4, 2), Wv: matrix(4, 2) },
    ];
    const weights = { heads, Wo: matrix(4, 4) };
    const full = core.multiHead(X, weights),
      kept = core.multiHead(X, weights, { keep });
    kept.heads.forEach((h, i) => assertKept(h, full.heads[i], keep, `multiHead head ${i}`));
    assert.deepEqual(kept.concat, full.concat, 'multiHead concat comes back whatever keep says');
    assert.deepEqual(kept.output, full.output, 'multiHead output comes back whatever keep says');
  }
  const withModel = await api.loadAttentionWithModel({ wasmBinary: await readFile(path.join(wasmDir, 'attention_model_wasm.wasm')) });
  const model = withModel.loadModel(new Uint8Array(await readFile(path.join(root, 'tests', 'reference', 'words_decoder.bin'))));
  try {
    const sentence = 'the train left the station on time';
    const full = model.run(sentence);
    for (const keep of some) {
      const kept = model.run(sentence, { keep });
      kept.layers.forEach((layer, l) => {
        layer.heads.forEach((h, i) => assertKept(h, full.layers[l].heads[i], keep, `model layer ${l} head ${i}`));
        assert.deepEqual(layer.output, full.layers[l].output);
      });
      assert.deepEqual(kept.rollout, full.rollout);
      assert.deepEqual(kept.predictions, full.predictions);
    }
  } finally {
    model.delete();
  }
});

test('keep refuses what is not a list of step names', () => {
  const X = matrix(3, 2);
  const throwsWith = (fn, pattern) => assert.throws(fn, (e) => e instanceof api.AttentionError && pattern.test(e.message), String(pattern));
  throwsWith(
    () => core.parameterFree(X, 1, { keep: ['weights', 'attention'] }),
    /keep: unknown step "attention"; use Q, K, V, scores, scaled, weights, output/,
  );
  throwsWith(() => core.parameterFree(X, 1, { keep: 'weights' }), /keep must be an array of step names/);
  throwsWith(
    () => core.multiHead(X, { heads: [{ Wq: [[1], [0]], Wk: [[1], [0]], Wv: [[1], [0]] }], Wo: [[1]] }, { keep: [1] }),
    /unknown step 1/,
  );
});

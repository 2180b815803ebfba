// Switching parts of the trained models off through the wasm module under node (attention_model_wasm):
// run's and fill's `off` option (heads in each mode, layers, positions), no `off` or an empty one giving
// the same numbers as before, headEffects' shape and its agreement with single runs, and every bad value
// refused as an AttentionError that names it. The PyTorch golden cases of every kind are checked in
// model-intervention-golden.test.mjs.
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { load, root, wasmDir } from './load.mjs';

const SENTENCE = 'the train left the station on time';
let api, core, encoderBytes, decoderBytes;
before(async () => {
  ({ api } = await load());
  core = await api.loadAttentionWithModel({ wasmBinary: await readFile(path.join(wasmDir, 'attention_model_wasm.wasm')) });
  encoderBytes = new Uint8Array(await readFile(path.join(root, 'tests', 'reference', 'words_encoder.bin')));
  decoderBytes = new Uint8Array(await readFile(path.join(root, 'tests', 'reference', 'words_decoder.bin')));
});

function withModel(bytes, fn) {
  const model = core.loadModel(bytes);
  try {
    return fn(model);
  } finally {
    model.delete();
  }
}

const sameArray = (a, b, what) => assert.deepEqual(Array.from(a), Array.from(b), what);
const maxDifference = (a, b) => Math.max(...Array.from(a, (x, i) => Math.abs(x - b[i])));

test('no off, an empty off and off: {} give the numbers of a run without the option', () => {
  for (const bytes of [decoderBytes, encoderBytes]) {
    withModel(bytes, (model) => {
      const plain = model.run(SENTENCE);
      for (const off of [undefined, null, {}, { heads: [], layers: [], positions: false, mode: 'mean' }]) {
        const run = model.run(SENTENCE, { off });
        sameArray(run.finalNorm.data, plain.finalNorm.data, `finalNorm with off = ${JSON.stringify(off)}`);
        sameArray(run.rollout.data, plain.rollout.data, 'rollout');
        assert.deepEqual(run.predictions, plain.predictions);
      }
    });
  }
  withModel(encoderBytes, (model) => {
    const plain = model.fill(SENTENCE, 4);
    assert.deepEqual(model.fill(SENTENCE, 4, { off: {} }).guesses, plain.guesses);
  });
});

test('each mode: zero empties the head, mean repeats one row, uniform spreads the weights evenly', () => {
  withModel(decoderBytes, (model) => {
    const plain = model.run(SENTENCE);
    const zero = model.run(SENTENCE, { off: { heads: [[1, 2]] } });
    assert.ok(
      zero.layers[1].heads[2].output.data.every((x) => x === 0),
      'zero: the head outputs nothing',
    );
    sameArray(zero.layers[1].heads[2].weights.data, plain.layers[1].heads[2].weights.data, 'zero keeps the learnt weights');
    sameArray(zero.layers[0].output.data, plain.layers[0].output.data, 'layer 0 untouched');
    assert.notDeepEqual(zero.predictions, plain.predictions);

    const mean = model.run(SENTENCE, { off: { heads: [[1, 2]], mode: 'mean' } }).layers[1].heads[2].output;
    for (let t = 1; t < mean.rows; t++)
      sameArray(mean.data.subarray(t * mean.cols, (t + 1) * mean.cols), mean.data.subarray(0, mean.cols), `mean row ${t}`);

    const uniform = model.run(SENTENCE, { off: { heads: [[0, 3]], mode: 'uniform' } }).layers[0].heads[3].weights;
    for (let t = 0; t < uniform.rows; t++)
      for (let j = 0; j < uniform.cols; j++) {
        const expected = j <= t ? 1 / (t + 1) : 0;
        assert.ok(Math.abs(uniform.data[t * uniform.cols + j] - expected) < 1e-6, `uniform (${t}, ${j})`);
      }
  });
});

test('a layer off adds nothing to the stream; positions off leaves the positional encoding out', () => {
  withModel(encoderBytes, (model) => {
    const run = model.run(SENTENCE, { off: { layers: [1] } });
    sameArray(run.layers[1].afterAttention.data, run.layers[0].output.data, 'x + 0');
    assert.ok(run.layers[1].multiHeadOutput.data.every((x) => x === 0));
    const plain = model.run(SENTENCE);
    const bag = model.run(SENTENCE, { off: { positions: true } });
    // Row 0 of the positional encoding is sin(0), cos(0), … = 0, 1, 0, 1, …
    const d = model.dModel;
    for (let k = 0; k < d; k++) assert.ok(Math.abs(plain.input.data[k] - bag.input.data[k] - (k % 2)) < 1e-5, `input[0][${k}]`);
    // A bag of words: the two "the"s are the same to the encoder.
    assert.ok(maxDifference(bag.finalNorm.data.subarray(0, d), bag.finalNorm.data.subarray(3 * d, 4 * d)) < 1e-5);
    const guesses = model.fill(SENTENCE, 4, { off: { positions: true } }).guesses;
    assert.notDeepEqual(guesses, model.fill(SENTENCE, 4).guesses);
  });
});

test('headEffects: every head, layer-major, each the run with that head also off', () => {
  withModel(encoderBytes, (model) => {
    const effects = model.headEffects(SENTENCE, { position: 4 });
    assert.deepEqual(Object.keys(effects).sort(), ['heads', 'probability', 'rank', 'target']);
    assert.equal(effects.target.word, 'station');
    assert.equal(effects.heads.length, model.layers * model.heads);
    effects.heads.forEach((e, i) => {
      assert.deepEqual([e.layer, e.head], [Math.floor(i / model.heads), i % model.heads]);
      assert.ok(Math.abs(e.drop - (effects.probability - e.probability)) < 1e-7);
    });
    // Against fill with the head switched off, through the same API.
    const top = model.fill(SENTENCE, 4, { top: 500 }).guesses;
    const at = top.findIndex((g) => g.word === 'station');
    if (at >= 0) assert.equal(effects.rank, at + 1);
    else assert.ok(effects.rank > 500);
    const mean = model.headEffects(SENTENCE, { position: 4, mode: 'mean', off: { positions: true } });
    const e = mean.heads[5];
    const guesses = model.fill(SENTENCE, 4, { top: 8000, off: { positions: true, heads: [[e.layer, e.head]], mode: 'mean' } }).guesses;
    const found = guesses.findIndex((g) => g.word === 'station');
    assert.equal(found + 1, e.rank);
    assert.ok(Math.abs(guesses[found].probability - e.probability) <= 1e-6 * e.probability);
  });
  withModel(decoderBytes, (model) => {
    const effects = model.headEffects(SENTENCE);
    assert.equal(effects.target.word, model.run(SENTENCE, { top: 1 }).predictions[0].word);
    assert.equal(effects.rank, 1);
    assert.equal(effects.heads.length, model.layers * model.heads);
  });
});

test('bad off values and bad headEffects arguments throw AttentionError naming them', () => {
  withModel(decoderBytes, (model) => {
    const refuses = (fn, pattern) => assert.throws(fn, (e) => e instanceof api.AttentionError && pattern.test(e.message), String(pattern));
    refuses(() => model.run(SENTENCE, { off: { heads: [[1, 4]] } }), /head 4 of layer 1.*4 heads per layer/);
    refuses(() => model.run(SENTENCE, { off: { heads: [[2, 0]] } }), /layer 2.*2 layers/);
    refuses(() => model.run(SENTENCE, { off: { layers: [5] } }), /layer 5/);
    refuses(() => model.run(SENTENCE, { off: { heads: [[0, 0]], mode: 'half' } }), /off\.mode.*'zero', 'mean', 'uniform'.*"half"/);
    refuses(() => model.run(SENTENCE, { off: { heads: [1, 2] } }), /off\.heads\[0\] must be a \[layer, head\] pair/);
    refuses(() => model.run(SENTENCE, { off: { heads: [[0, 1.5]] } }), /off\.heads\[0\]'s head must be a whole number/);
    refuses(() => model.run(SENTENCE, { off: { layers: ['1'] } }), /off\.layers\[0\]/);
    refuses(() => model.run(SENTENCE, { off: { positions: 'yes' } }), /off\.positions must be true or false/);
    refuses(() => model.run(SENTENCE, { off: [] }), /off must be an object/);
    refuses(() => model.headEffects(SENTENCE, { mode: 'off' }), /mode must be/);
    refuses(() => model.headEffects(SENTENCE, { off: { heads: [[0, 9]] } }), /head 9 of layer 0/);
  });
  withModel(encoderBytes, (model) => {
    const refuses = (fn, pattern) => assert.throws(fn, (e) => e instanceof api.AttentionError && pattern.test(e.message), String(pattern));
    refuses(() => model.headEffects(SENTENCE), /needs position/);
    refuses(() => model.headEffects(SENTENCE, { position: 9 }), /position 9/);
    refuses(() => model.fill(SENTENCE, 4, { off: { heads: [[3, 0]] } }), /layer 3.*3 layers/);
  });
});

test('switching off leaks nothing on the wasm heap', () => {
  withModel(encoderBytes, (model) => {
    const run = () => {
      model.fill(SENTENCE, 4, { off: { heads: [[0, 1]], mode: 'uniform', layers: [2], positions: true } });
      model.headEffects(SENTENCE, { position: 4 });
      try {
        model.run(SENTENCE, { off: { heads: [[7, 0]] } });
      } catch {}
    };
    for (let i = 0; i < 5; i++) run();
    const before = core.memory();
    for (let i = 0; i < 30; i++) run();
    const after = core.memory();
    assert.equal(after.mallocBytes, before.mallocBytes);
    if (before.emvalHandles !== null) assert.equal(after.emvalHandles, before.emvalHandles);
  });
});

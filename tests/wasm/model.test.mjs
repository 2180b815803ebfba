// The tiny language model through the wasm module under node (attention_model_wasm, loaded with
// loadAttentionWithModel): the words decoder (tests/reference/words_decoder.bin) against the PyTorch reference
// (tests/reference/words_decoder_cases.txt) to 1e-4, each layer's attention input and learnt weights (attentionWeights)
// against its heads' Q, K, V and W_O mixing, refusals as AttentionError, and no leak.
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { assertNoLeak, load, root, wasmDir } from './load.mjs';
import { affine, assertCloseRows, assertRunMatchesCase, fnv1a64, parseGolden } from './model-cases.mjs';

let api, core, plainCore, modelBytes, golden;
before(async () => {
  ({ api, core: plainCore } = await load());
  core = await api.loadAttentionWithModel({ wasmBinary: await readFile(path.join(wasmDir, 'attention_model_wasm.wasm')) });
  modelBytes = new Uint8Array(await readFile(path.join(root, 'tests', 'reference', 'words_decoder.bin')));
  golden = parseGolden(await readFile(path.join(root, 'tests', 'reference', 'words_decoder_cases.txt'), 'utf8'));
});

test('the golden file was made from the words decoder (tests/reference/words_decoder.bin)', () => {
  assert.equal(modelBytes.length, golden.bytes);
  assert.equal(fnv1a64(modelBytes), golden.hash, 'regenerate with model/make_golden.py');
});

test('every layer, head, rollout, prediction and nearest word matches PyTorch to 1e-4', () => {
  const model = core.loadModel(modelBytes);
  try {
    assert.equal(golden.cases.length, 5);
    let worst = 0;
    for (const c of golden.cases) {
      const run = model.run(c.sentence, { top: 5 });
      assert.deepEqual(
        run.tokens.map(({ text, lookup, matched, id }) => ({ text, lookup, matched, id })),
        c.tokens,
        c.name,
      );
      worst = Math.max(worst, assertRunMatchesCase(model, run, c, c.name));
      const logits = c.m.top5_logits.data;
      const logitScale = Math.max(1, ...Array.from(logits, Math.abs));
      assert.equal(run.predictions.length, 5);
      run.predictions.forEach((p, k) => {
        assert.equal(p.id, c.m.top5_ids.data[k], `${c.name} prediction ${k}`);
        assert.ok(Math.abs(p.logit - logits[k]) / logitScale <= 1e-4, `${c.name} logit ${k}`);
        assert.ok(Math.abs(p.probability - c.m.top5_probabilities.data[k]) <= 1e-4, `${c.name} probability ${k}`);
      });
      assert.equal(run.captions.length, model.layers);
    }
    console.log(`# largest scaled difference from PyTorch (float64): ${worst.toExponential(2)}`);
  } finally {
    model.delete();
  }
});

test('the model object: hyperparameters, captions, heads steps', () => {
  const model = core.loadModel(modelBytes.buffer.slice(modelBytes.byteOffset, modelBytes.byteOffset + modelBytes.length));
  try {
    assert.equal(model.vocabularySize, 8193);
    assert.equal(model.context, 32);
    assert.equal(model.captions.length, model.layers);
    for (const layer of model.captions) {
      assert.equal(layer.length, model.heads);
      for (const caption of layer) assert.ok(caption.length > 0);
    }
    const run = model.run('the train left the station on time');
    const head = run.layers[0].heads[0];
    for (const m of [head.Q, head.K, head.V, head.scores, head.scaled, head.weights, head.output])
      assert.ok(m.data instanceof Float32Array);
    assert.equal(head.weights.rows, 7);
    assert.equal(head.weights.data[1], 0, 'causal: the first word does not see the second');
    assert.equal(run.predictions.length, 5);
    assert.equal(model.run('the train', { top: 0 }).predictions.length, 0);
  } finally {
    model.delete();
  }
});

test("each layer's attention input and learnt weights give its heads' Q, K, V and its W_O mixing", () => {
  const model = core.loadModel(modelBytes);
  try {
    const run = model.run('the train left the station on time');
    const T = run.tokens.length;
    assert.equal(run.layers.length, model.layers);
    run.layers.forEach((layer, l) => {
      const x = layer.attentionInput;
      assert.deepEqual([x.rows, x.cols], [T, model.dModel], `L${l} attentionInput shape`);
      assert.ok(x.data instanceof Float32Array);
      const w = model.attentionWeights(l);
      assert.equal(w.heads.length, model.heads);
      const dk = model.dModel / model.heads;
      w.heads.forEach((hw, h) => {
        for (const name of ['Wq', 'Wk', 'Wv']) assert.deepEqual([hw[name].rows, hw[name].cols], [model.dModel, dk], `L${l}.H${h}.${name}`);
        for (const name of ['bq', 'bk', 'bv']) {
          assert.ok(hw[name] instanceof Float32Array, `L${l}.H${h}.${name}`);
          assert.equal(hw[name].length, dk, `L${l}.H${h}.${name}`);
        }
        const steps = layer.heads[h];
        assertCloseRows(steps.Q, affine(x, hw.Wq, hw.bq), 1e-4, `L${l}.H${h} Q = attentionInput·Wq + bq`);
        assertCloseRows(steps.K, affine(x, hw.Wk, hw.bk), 1e-4, `L${l}.H${h} K = attentionInput·Wk + bk`);
        assertCloseRows(steps.V, affine(x, hw.Wv, hw.bv), 1e-4, `L${l}.H${h} V = attentionInput·Wv + bv`);
      });
      assert.deepEqual([w.Wo.rows, w.Wo.cols], [model.dModel, model.dModel]);
      assert.ok(w.bo instanceof Float32Array);
      assert.equal(w.bo.length, model.dModel);
      // concat holds the heads' outputs side by side; multiHeadOutput = concat·Wo + bo; afterAttention
      // adds it to x, the stream entering the layer.
      assert.deepEqual([layer.concat.rows, layer.concat.cols], [T, model.heads * dk]);
      layer.heads.forEach((steps, h) => {
        for (let r = 0; r < T; r++) {
          for (let c = 0; c < dk; c++)
            assert.equal(
              layer.concat.data[r * layer.concat.cols + h * dk + c],
              steps.output.data[r * dk + c],
              `L${l} concat (${r}, ${h * dk + c})`,
            );
        }
      });
      assertCloseRows(layer.multiHeadOutput, affine(layer.concat, w.Wo, w.bo), 1e-4, `L${l} multiHeadOutput = concat·Wo + bo`);
      const stream = l === 0 ? run.input : run.layers[l - 1].output;
      const mixed = { ...layer.multiHeadOutput, data: layer.multiHeadOutput.data.map((v, i) => v + stream.data[i]) };
      assertCloseRows(layer.afterAttention, mixed, 1e-5, `L${l} afterAttention = x + multiHeadOutput`);
    });
    // Copies owned by JS: a second call gives equal, separate arrays.
    const again = model.attentionWeights(0);
    assert.deepEqual(again.Wo.data, model.attentionWeights(0).Wo.data);
    assert.notEqual(again.Wo.data, model.attentionWeights(0).Wo.data);
  } finally {
    model.delete();
  }
});

test('attentionWeights refuses a layer out of range as an AttentionError naming the range', () => {
  const model = core.loadModel(modelBytes);
  try {
    for (const layer of [2, -1, 1e12]) {
      assert.throws(
        () => model.attentionWeights(layer),
        (e) => e instanceof api.AttentionError && /out of range: the model has 2 layers, numbered 0 to 1/.test(e.message),
        `layer ${layer}`,
      );
    }
    for (const layer of [1.5, '0', undefined, NaN]) {
      assert.throws(
        () => model.attentionWeights(layer),
        (e) => e instanceof api.AttentionError && /whole number/.test(e.message),
        `layer ${layer}`,
      );
    }
  } finally {
    model.delete();
  }
  assert.throws(
    () => model.attentionWeights(0),
    (e) => e instanceof api.AttentionError && /deleted/.test(e.message),
  );
});

test("nearest's refusals are AttentionErrors that say why; the word itself and <unk> are left out", () => {
  const model = core.loadModel(modelBytes);
  try {
    const run = model.run('the train left the station on time');
    const station = run.tokens[4];
    const row = run.input.data.subarray(4 * run.input.cols, 5 * run.input.cols);
    const words = model.nearest(row, 20, { finalNorm: true }).map((n) => n.word);
    assert.ok(!words.includes('<unk>'));
    assert.ok(!model.nearest(row, 20, { exclude: ['station'] }).some((n) => n.id === station.id));
    assert.deepEqual(model.nearest(row, 5, { exclude: [station.id] }), model.nearest(row, 5, { exclude: ['station'] }));
    const refusals = [
      [() => model.nearest(row.subarray(1), 5), /has 63 values; the model's vectors have 64/],
      [() => model.nearest(new Float32Array(64), 5), /all zeros/],
      [
        () =>
          model.nearest(
            Float32Array.from(row, (v, i) => (i === 2 ? NaN : v)),
            5,
          ),
        /NaN/,
      ],
      [() => model.nearest(row, 0), /at least 1/],
      [() => model.nearest(row, 1.5), /whole number/],
      [() => model.nearest(row, 5, { exclude: ['zorblaxian'] }), /not in the vocabulary/],
      [() => model.nearest(row, 5, { exclude: [1e9] }), /word id from 0/],
      [() => model.nearest(row, 5, { finalNorm: 'yes' }), /true or false/],
      [() => model.nearest('bank', 5), /vector/],
    ];
    for (const [call, message] of refusals)
      assert.throws(call, (e) => e instanceof api.AttentionError && message.test(e.message), String(message));
  } finally {
    model.delete();
  }
});

test('the model module has the whole API; the shipped module has no model', () => {
  assert.deepEqual(Object.keys(core).sort(), Object.keys(plainCore).sort());
  assert.deepEqual(core.tokenize('The train left.'), ['the', 'train', 'left', '.']);
  assert.throws(
    () => plainCore.loadModel(modelBytes),
    (e) => e instanceof api.AttentionError && /loadAttentionWithModel/.test(e.message),
  );
});

test('bad bytes and bad sentences are AttentionErrors', () => {
  assert.throws(
    () => core.loadModel(new Uint8Array([1, 2, 3])),
    (e) => e instanceof api.AttentionError && /not a model file/.test(e.message),
  );
  const wrongMagic = modelBytes.slice();
  wrongMagic[0] = 0x58;
  assert.throws(() => core.loadModel(wrongMagic), /not a model file/);
  assert.throws(
    () => core.loadModel(modelBytes.subarray(0, modelBytes.length >> 1)),
    (e) => e instanceof api.AttentionError && /truncated/.test(e.message),
  );
  const badShape = modelBytes.slice();
  badShape[20] = 3; // heads = 3 does not divide d_model = 64
  assert.throws(() => core.loadModel(badShape), /impossible shape: heads = 3/);
  assert.throws(() => core.loadModel('model'), api.AttentionError);

  const model = core.loadModel(modelBytes);
  try {
    const long = Array.from({ length: 40 }, () => 'word').join(' ');
    assert.throws(
      () => model.run(long),
      (e) => e instanceof api.AttentionError && /40 tokens but the model's context holds 32/.test(e.message),
    );
    assert.throws(() => model.run(''), /empty/);
    assert.throws(() => model.run(7), api.AttentionError);
    assert.throws(() => model.run('a', { top: -1 }), api.AttentionError);
  } finally {
    model.delete();
  }
  assert.throws(() => model.run('the train'), /deleted/);
});

test('runs and refusals leave the wasm heap where it was', () => {
  const model = core.loadModel(modelBytes);
  try {
    const sentences = ['the train left the station on time', 'he cashed a check at the bank', '', 'x '.repeat(40)];
    const step = (i) => {
      try {
        model.run(sentences[i % sentences.length]);
      } catch (e) {
        if (!(e instanceof api.AttentionError)) throw e;
      }
      try {
        model.attentionWeights(i % 3); // 2 is out of range: a refusal
      } catch (e) {
        if (!(e instanceof api.AttentionError)) throw e;
      }
      try {
        model.nearest(
          Float32Array.from({ length: 64 }, (_, k) => (i % 2 ? k - 30 : 0)),
          5,
          { exclude: [2], finalNorm: true },
        ); // all zeros: refused
      } catch (e) {
        if (!(e instanceof api.AttentionError)) throw e;
      }
    };
    assertNoLeak(core, step, 400);
  } finally {
    model.delete();
  }
});

// The trained encoder through the wasm module under node (attention_model_wasm):
// the words encoder (tests/reference/words_encoder.bin) against the PyTorch reference (tests/reference/words_encoder_cases.txt) to 1e-4 — a plain
// run and fill-the-blank on five sentences: every layer's heads and outputs, the rollout, the top-5
// guesses and every position's nearest words (model.nearest through LN_f); its attention input and learnt weights (attentionWeights) against its heads' Q, K, V and W_O;
// fill's refusals as AttentionError (the decoder, positions outside the sentence), and no leak.
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { assertNoLeak, load, root, wasmDir } from './load.mjs';
import { affine, assertCloseRows, assertRunMatchesCase, fnv1a64, parseGolden } from './model-cases.mjs';

const SENTENCE = 'the train left the station on time';
let api, core, encoderBytes, decoderBytes, golden;
before(async () => {
  ({ api } = await load());
  core = await api.loadAttentionWithModel({ wasmBinary: await readFile(path.join(wasmDir, 'attention_model_wasm.wasm')) });
  encoderBytes = new Uint8Array(await readFile(path.join(root, 'tests', 'reference', 'words_encoder.bin')));
  decoderBytes = new Uint8Array(await readFile(path.join(root, 'tests', 'reference', 'words_decoder.bin')));
  golden = parseGolden(await readFile(path.join(root, 'tests', 'reference', 'words_encoder_cases.txt'), 'utf8'));
});

/** The encoder, deleted after fn. */
function withEncoder(fn) {
  const model = core.loadModel(encoderBytes);
  try {
    return fn(model);
  } finally {
    model.delete();
  }
}

test('the golden file was made from the words encoder (tests/reference/words_encoder.bin)', () => {
  assert.equal(encoderBytes.length, golden.bytes);
  assert.equal(fnv1a64(encoderBytes), golden.hash, 'regenerate with model/make_golden.py');
  assert.ok(encoderBytes.length <= 1_000_000, `${encoderBytes.length} bytes: over the 1 MB budget`);
});

test('the encoder object: kind, [MASK], shapes; the decoder says it is one', () => {
  withEncoder((model) => {
    assert.equal(model.kind, 'encoder');
    assert.equal(model.maskToken, '[MASK]');
    assert.equal(model.vocabularySize, 8194);
    assert.equal(model.context, 32);
    assert.equal(model.captions.length, model.layers);
  });
  const decoder = core.loadModel(decoderBytes);
  try {
    assert.equal(decoder.kind, 'decoder');
    assert.equal(decoder.maskToken, undefined);
  } finally {
    decoder.delete();
  }
});

test('every layer, head, rollout, blank guess and nearest word matches PyTorch to 1e-4', () => {
  withEncoder((model) => {
    assert.equal(golden.cases.length, 6);
    let worst = 0;
    for (const c of golden.cases) {
      const where = `${c.name} (blank ${c.blank})`;
      const filled = c.blank >= 0 ? model.fill(c.sentence, c.blank, { top: 5 }) : null;
      const run = filled ? filled.run : model.run(c.sentence, { top: 5 });
      const written = filled ? filled.tokens : run.tokens;
      assert.deepEqual(
        written.map(({ text, lookup, matched, id }) => ({ text, lookup, matched, id })),
        c.tokens,
        where,
      );
      if (filled) {
        assert.equal(filled.position, c.blank);
        assert.equal(run.tokens[c.blank].text, '[MASK]');
        assert.deepEqual(filled.guesses, run.predictions);
      }
      worst = Math.max(worst, assertRunMatchesCase(model, run, c, where));
      if (!filled) {
        assert.equal(run.predictions.length, 0, 'run() on an encoder guesses nothing');
        continue;
      }
      const logits = c.m.top5_logits.data;
      const logitScale = Math.max(1, ...Array.from(logits, Math.abs));
      assert.equal(filled.guesses.length, 5);
      filled.guesses.forEach((p, k) => {
        assert.equal(p.id, c.m.top5_ids.data[k], `${where} guess ${k}`);
        assert.ok(Math.abs(p.logit - logits[k]) / logitScale <= 1e-4, `${where} logit ${k}`);
        assert.ok(Math.abs(p.probability - c.m.top5_probabilities.data[k]) <= 1e-4, `${where} probability ${k}`);
        assert.ok(p.word !== '<unk>' && p.word !== '[MASK]', `${where}: ${p.word}`);
      });
    }
    console.log(`# largest scaled difference from PyTorch (float64): ${worst.toExponential(2)}`);
  });
});

test('bidirectional: the first word attends to the last', () => {
  withEncoder((model) => {
    const run = model.run(SENTENCE);
    const T = run.tokens.length;
    for (const layer of run.layers)
      for (const head of layer.heads) assert.ok(head.weights.data[T - 1] > 0, 'row 0, column T − 1 is not masked');
  });
});

test("each layer's attention input and learnt weights give its heads' Q, K, V and W_O (both models)", () => {
  for (const bytes of [encoderBytes, decoderBytes]) {
    const model = core.loadModel(bytes);
    try {
      const run = model.kind === 'encoder' ? model.fill(SENTENCE, 4).run : model.run(SENTENCE);
      run.layers.forEach((layer, l) => {
        const w = model.attentionWeights(l);
        const x = layer.attentionInput; // LN1(x)
        w.heads.forEach((hw, h) => {
          const steps = layer.heads[h];
          const where = `${model.kind} L${l}.H${h}`;
          assertCloseRows(steps.Q, affine(x, hw.Wq, hw.bq), 1e-4, `${where} Q = LN1(x)·Wq + bq`);
          assertCloseRows(steps.K, affine(x, hw.Wk, hw.bk), 1e-4, `${where} K = LN1(x)·Wk + bk`);
          assertCloseRows(steps.V, affine(x, hw.Wv, hw.bv), 1e-4, `${where} V = LN1(x)·Wv + bv`);
        });
        assertCloseRows(layer.multiHeadOutput, affine(layer.concat, w.Wo, w.bo), 1e-4, `${model.kind} L${l} concat·Wo + bo`);
      });
    } finally {
      model.delete();
    }
  }
});

test("fill's refusals are AttentionErrors that say why", () => {
  const decoder = core.loadModel(decoderBytes);
  try {
    assert.throws(
      () => decoder.fill(SENTENCE, 1),
      (e) => e instanceof api.AttentionError && /needs an encoder/.test(e.message),
    );
  } finally {
    decoder.delete();
  }
  withEncoder((model) => {
    for (const position of [7, -1, 1e12])
      assert.throws(
        () => model.fill(SENTENCE, position),
        (e) => e instanceof api.AttentionError && /7 tokens, numbered 0 to 6/.test(e.message),
        `position ${position}`,
      );
    for (const position of [1.5, '1', undefined, NaN])
      assert.throws(
        () => model.fill(SENTENCE, position),
        (e) => e instanceof api.AttentionError && /whole number/.test(e.message),
        `position ${position}`,
      );
    assert.throws(() => model.fill('', 0), /empty/);
    assert.throws(() => model.fill(7, 0), api.AttentionError);
    assert.throws(() => model.fill(SENTENCE, 0, { top: -1 }), api.AttentionError);
    assert.equal(model.fill(SENTENCE, 0, { top: 0 }).guesses.length, 0);
    assert.throws(
      () => model.fill(Array.from({ length: 40 }, () => 'word').join(' '), 0),
      (e) => e instanceof api.AttentionError && /context holds 32/.test(e.message),
    );
  });
});

test('fills and refusals leave the wasm heap where it was', () => {
  withEncoder((model) => {
    const cases = [
      [SENTENCE, 4],
      ['he cashed a check at the bank', 6],
      [SENTENCE, 9],
      ['', 0],
      ['x '.repeat(40), 0],
    ];
    const step = (i) => {
      try {
        model.fill(...cases[i % cases.length]);
      } catch (e) {
        if (!(e instanceof api.AttentionError)) throw e;
      }
    };
    assertNoLeak(core, step, 300);
  });
});

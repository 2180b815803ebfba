// Every kind of switching off (zero, mean and uniform heads, two heads, a layer, positions) and headEffects
// through the wasm module under node, on both committed models, against PyTorch in float64
// (tests/reference/intervention_cases.txt, made by model/make_intervention_golden.py): each layer's
// output, the switched heads' weights, the rollout and the top-5 guesses; the target's probability and
// rank with each head off.
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { load, root, wasmDir } from './load.mjs';
import { assertCloseRows, parseInterventionCases } from './model-cases.mjs';

let core, bytes, cases;
before(async () => {
  const { api } = await load();
  core = await api.loadAttentionWithModel({ wasmBinary: await readFile(path.join(wasmDir, 'attention_model_wasm.wasm')) });
  bytes = {
    decoder: new Uint8Array(await readFile(path.join(root, 'tests', 'reference', 'words_decoder.bin'))),
    encoder: new Uint8Array(await readFile(path.join(root, 'tests', 'reference', 'words_encoder.bin'))),
  };
  cases = parseInterventionCases(await readFile(path.join(root, 'tests', 'reference', 'intervention_cases.txt'), 'utf8'));
});

const relativeClose = (actual, expected, what, tolerance = 1e-3) =>
  assert.ok(Math.abs(actual - expected) <= tolerance * Math.abs(expected), `${what}: ${actual}, expected ${expected}`);

test('the reference was made from the committed model files', () => {
  assert.equal(bytes.decoder.length, cases.sizes.decoder, 'regenerate with model/make_intervention_golden.py');
  assert.equal(bytes.encoder.length, cases.sizes.encoder, 'regenerate with model/make_intervention_golden.py');
  assert.equal(cases.cases.length, 18);
});

test('every kind of switching off matches PyTorch: layer outputs, weights, rollout, guesses', () => {
  for (const c of cases.cases.filter((c) => !c.effects)) {
    const model = core.loadModel(bytes[c.model]);
    try {
      const what = `${c.model} ${c.name}`;
      const run = c.blank < 0 ? model.run(c.sentence, { off: c.off }) : model.fill(c.sentence, c.blank, { off: c.off }).run;
      run.layers.forEach((layer, l) => assertCloseRows(layer.output, c.m[`L${l}.output`], 1e-4, `${what} L${l}.output`));
      for (const [l, h] of c.off.heads)
        assertCloseRows(run.layers[l].heads[h].weights, c.m[`L${l}.H${h}.weights`], 1e-5, `${what} L${l}.H${h}.weights`);
      assertCloseRows(run.rollout, c.m.rollout, 1e-5, `${what} rollout`);
      assert.deepEqual(
        run.predictions.map((p) => p.id),
        Array.from(c.m.top5_ids.data),
        `${what} top-5`,
      );
      run.predictions.forEach((p, i) => relativeClose(p.probability, c.m.top5_probabilities.data[i], `${what} probability ${i}`));
    } finally {
      model.delete();
    }
  }
});

test('headEffects matches PyTorch: the target, its probability and rank with each head off', () => {
  for (const c of cases.cases.filter((c) => c.effects)) {
    const model = core.loadModel(bytes[c.model]);
    try {
      const what = `${c.model} ${c.name}`;
      const effects = model.headEffects(c.sentence, { position: c.blank < 0 ? undefined : c.blank, mode: c.effects });
      assert.equal(effects.target.id, c.m.target.data[0], what);
      relativeClose(effects.probability, c.m.base.data[0], `${what} base probability`);
      assert.equal(effects.rank, c.m.base.data[1], `${what} base rank`);
      assert.equal(effects.heads.length, c.m.heads.rows);
      effects.heads.forEach((e, i) => {
        const [layer, head, probability, rank, drop] = c.m.heads.data.subarray(5 * i, 5 * i + 5);
        assert.deepEqual([e.layer, e.head, e.rank], [layer, head, rank], `${what} head ${i}`);
        relativeClose(e.probability, probability, `${what} head ${i} probability`);
        assert.ok(Math.abs(e.drop - drop) <= 1e-6, `${what} head ${i} drop ${e.drop}, expected ${drop}`);
      });
    } finally {
      model.delete();
    }
  }
});

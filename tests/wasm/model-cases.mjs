// Helpers shared by the trained models' wasm tests (model, encoder, pieces, model-intervention-golden):
// the readers of model/make_golden.py's and make_intervention_golden.py's files, the FNV-1a hash they
// record, a row-scaled comparison and a float64 affine map. (Not a test file itself: node --test only
// runs *.test.mjs.)
import assert from 'node:assert/strict';

/**
 * The format written by model/make_golden.py (and make_pieces_fixture.py); an encoder case has `blank`
 * (−1: a plain run). A pieces model's tokens also carry their `word`, and a pieces encoder's blank its
 * whole-word `guesses` (best first).
 */
export function parseGolden(text) {
  const lines = text.split('\n');
  const out = { cases: [] };
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    if (!line) continue;
    const [kind, ...rest] = line.split(' ');
    const current = out.cases.at(-1);
    if (kind === 'model') [out.bytes, out.hash] = [Number(rest[0]), rest[1]];
    else if (kind === 'case') out.cases.push({ name: rest[0], tokens: [], m: {} });
    else if (kind === 'sentence') current.sentence = line.slice('sentence '.length);
    else if (kind === 'blank') current.blank = Number(rest[0]);
    else if (kind === 'guess') (current.guesses ??= []).push(line.slice('guess '.length));
    else if (kind === 'token') {
      const token = { text: rest[0], lookup: rest[1], matched: rest[2], id: Number(rest[3]) };
      // Only a pieces model's lines give the word: a words model's token is its own word.
      current.tokens.push(rest[4] === undefined ? token : { ...token, word: Number(rest[4]) });
    } else {
      const [rows, cols] = rest.map(Number);
      current.m[kind] = { rows, cols, data: Float64Array.from(lines[++i].split(' '), Number) };
    }
  }
  return out;
}

export function fnv1a64(bytes) {
  let h = 0xcbf29ce484222325n;
  for (const b of bytes) h = ((h ^ BigInt(b)) * 0x100000001b3n) & 0xffffffffffffffffn;
  return h.toString(16).padStart(16, '0');
}

/** |actual − expected| ≤ tolerance · max(1, max |expected row|), as tests/core/test_model.cpp. */
export function assertCloseRows(actual, expected, tolerance, what) {
  assert.equal(actual.rows, expected.rows, `${what}: rows`);
  assert.equal(actual.cols, expected.cols, `${what}: cols`);
  let worst = 0;
  for (let r = 0; r < expected.rows; r++) {
    let scale = 1;
    for (let c = 0; c < expected.cols; c++) scale = Math.max(scale, Math.abs(expected.data[r * expected.cols + c]));
    for (let c = 0; c < expected.cols; c++) {
      const i = r * expected.cols + c;
      const error = Math.abs(actual.data[i] - expected.data[i]) / scale;
      assert.ok(error <= tolerance, `${what}[${r}][${c}] = ${actual.data[i]}, expected ${expected.data[i]}`);
      worst = Math.max(worst, error);
    }
  }
  return worst;
}

/** a·B + b (a: T × n, B: n × m, b: m entries), in float64: the tests' own reference. */
export function affine(a, B, b) {
  const out = { rows: a.rows, cols: B.cols, data: new Float64Array(a.rows * B.cols) };
  for (let r = 0; r < a.rows; r++) {
    for (let c = 0; c < B.cols; c++) {
      let acc = b ? b[c] : 0;
      for (let k = 0; k < a.cols; k++) acc += a.data[r * a.cols + k] * B.data[k * B.cols + c];
      out.data[r * B.cols + c] = acc;
    }
  }
  return out;
}

/**
 * A golden case's nearest words (make_golden.py's nearest.input / nearest.L<l>, through LN_f, each
 * position's own word left out) against model.nearest on the wasm run: the same words in the same
 * order where PyTorch's similarities are more than 1e-5 apart, similarities to 1e-4. Returns the
 * largest difference.
 */
export function assertNearestMatches(model, run, c, where) {
  let worst = 0;
  const streams = [['input', run.input], ...run.layers.map((layer, l) => [`L${l}`, layer.output])];
  for (const [what, m] of streams) {
    const ids = c.m[`nearest.${what}.ids`],
      similarities = c.m[`nearest.${what}.similarities`];
    assert.equal(ids.rows, m.rows, `${where} nearest.${what}: rows`);
    for (let t = 0; t < m.rows; t++) {
      const got = model.nearest(m.data.subarray(t * m.cols, (t + 1) * m.cols), 5, { exclude: [run.tokens[t].id], finalNorm: true });
      assert.equal(got.length, 5);
      const s = (k) => similarities.data[t * 5 + k];
      got.forEach((n, k) => {
        const tied = (k > 0 && s(k - 1) - s(k) < 1e-5) || (k < 4 && s(k) - s(k + 1) < 1e-5);
        if (!tied) assert.equal(n.id, ids.data[t * 5 + k], `${where} nearest.${what} row ${t} neighbour ${k}`);
        assert.ok(Math.abs(n.similarity - s(k)) <= 1e-4, `${where} nearest.${what} row ${t} similarity ${k}`);
        worst = Math.max(worst, Math.abs(n.similarity - s(k)));
      });
    }
  }
  return worst;
}

/**
 * A run's every step against a golden case's matrices to 1e-4: the input, each head's weights and each
 * layer's output, the final norm, the rollout and the nearest words. Returns the largest difference.
 */
export function assertRunMatchesCase(model, run, c, where) {
  let worst = assertCloseRows(run.input, c.m.input, 1e-4, `${where} input`);
  run.layers.forEach((layer, l) => {
    layer.heads.forEach((head, h) => {
      worst = Math.max(worst, assertCloseRows(head.weights, c.m[`L${l}.H${h}.weights`], 1e-4, `${where} L${l}.H${h}`));
    });
    worst = Math.max(worst, assertCloseRows(layer.output, c.m[`L${l}.output`], 1e-4, `${where} L${l}.output`));
  });
  worst = Math.max(worst, assertCloseRows(run.finalNorm, c.m.final_norm, 1e-4, `${where} final_norm`));
  worst = Math.max(worst, assertCloseRows(run.rollout, c.m.rollout, 1e-4, `${where} rollout`));
  return Math.max(worst, assertNearestMatches(model, run, c, where));
}

/**
 * The format model/make_intervention_golden.py writes (and make_pieces_fixture.py's pieces_effects_cases.txt):
 * { sizes: { model: bytes }, cases: [{ model, name, sentence, blank, effects (the mode), off, m: named matrices }] }.
 */
export function parseInterventionCases(text) {
  const lines = text.split('\n');
  const out = { sizes: {}, cases: [] };
  let model;
  for (let i = 0; i < lines.length; i++) {
    if (!lines[i]) continue;
    const [kind, ...rest] = lines[i].split(' ');
    const current = out.cases.at(-1);
    if (kind === 'model') [model, out.sizes[rest[0]]] = [rest[0], Number(rest[1])];
    else if (kind === 'case') out.cases.push({ model, name: rest[0], m: {} });
    else if (kind === 'sentence') current.sentence = lines[i].slice('sentence '.length);
    else if (kind === 'blank') current.blank = Number(rest[0]);
    else if (kind === 'effects') current.effects = rest[0];
    else if (kind === 'off') {
      const [heads, mode, layers, positions] = rest;
      current.off = {
        heads: heads === '-' ? [] : heads.split(',').map((pair) => pair.split('.').map(Number)),
        mode,
        layers: layers === '-' ? [] : layers.split(',').map(Number),
        positions: positions === '1',
      };
    } else {
      const [rows, cols] = rest.map(Number);
      current.m[kind] = { rows, cols, data: Float64Array.from(lines[++i].split(' '), Number) };
    }
  }
  return out;
}

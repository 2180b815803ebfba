// Node tests of the pure modules the page and the widget share: the checker of imported attention
// (messages name the problem and its position), URL/attribute state, and the seeded weights.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ImportError, parseAttention } from '../../web/lib/importer.js';
import { DEFAULTS, apply, fromParams, parseControls, parseValue, settingsFor, toParams } from '../../web/lib/state.js';
import { columns, mulberry32, multiHeadWeights, xavierUniform } from '../../web/lib/rng.js';

const tokens = ['the', 'cat', 'sat'];
const good = [
  [1, 0, 0],
  [0.5, 0.5, 0],
  [0.2, 0.3, 0.5],
];
const hf = (attentions) => JSON.stringify({ tokens, attentions });
const rejects = (input, pattern, tok) =>
  assert.throws(
    () => parseAttention(input, tok),
    (e) => e instanceof ImportError && pattern.test(e.message),
    String(pattern),
  );

test('accepts the Hugging Face shape and its variants, keeping every weight', () => {
  const four = parseAttention(
    hf([
      [good, good],
      [good, good],
    ]),
  );
  assert.equal(four.layers, 2);
  assert.equal(four.heads, 2);
  assert.deepEqual(
    four.tokens.map((t) => t.text),
    tokens,
  );
  assert.deepEqual(Array.from(four.attentions[1][1].data), good.flat().map(Math.fround));
  // Tuple of layers, each batch × heads × T × T with a batch of one (what output_attentions gives).
  const five = parseAttention(hf([[[good]], [[good]]]));
  assert.equal(five.layers, 2);
  assert.equal(five.heads, 1);
  // heads × T × T, a bare T × T, and the bare array with the tokens given separately.
  assert.equal(parseAttention(hf([good, good, good])).heads, 3);
  assert.equal(parseAttention(hf(good)).layers, 1);
  assert.equal(parseAttention([[good]], tokens).tokens.length, 3);
  assert.equal(parseAttention({ tokens, attentions: [[good]] }).heads, 1);
});

test('malformed input, wrong shapes and bad rows get messages naming the problem', () => {
  rejects('{"tokens": [', /not valid JSON/);
  rejects('', /Paste or load/);
  rejects('42', /Expected a JSON object/);
  rejects(JSON.stringify({ tokens }), /no "attentions" field/);
  rejects(JSON.stringify({ attentions: [[good]] }), /no "tokens" field/);
  rejects(JSON.stringify({ tokens: ['a', 3, 'c'], attentions: [[good]] }), /tokens\[1\] is 3, not a string/);
  rejects(hf([[good, good.slice(0, 2)]]), /attentions\[0\]\[1\] has 2 rows but there are 3 tokens/);
  rejects(hf([[good], [good, good]]), /attentions\[1\] has 2 heads but attentions\[0\] has 1/);
  rejects(
    hf([
      [
        [
          [1, 0, 0],
          [0.5, 0.5],
          [0, 0, 1],
        ],
      ],
    ]),
    /attentions\[0\]\[0\] row 1 has 2 values but there are 3 tokens/,
  );
  rejects(
    hf([
      [
        [
          [1, 0, 0],
          [0.5, 0.32, 0],
          [0, 0, 1],
        ],
      ],
    ]),
    /attentions\[0\]\[0\] row 1 sums to 0\.82, not 1/,
  );
  rejects(
    hf([
      [
        [
          [1, 0, 0],
          [1.5, -0.5, 0],
          [0, 0, 1],
        ],
      ],
    ]),
    /row 1, column 1 is -0\.5; attention weights cannot be negative/,
  );
  rejects(
    hf([
      [
        [
          [1, 0, 0],
          ['0.5', 0.5, 0],
          [0, 0, 1],
        ],
      ],
    ]),
    /row 1, column 0 is the string "0\.5", not a number/,
  );
  rejects('{"tokens": ["a"], "attentions": [[[[1e999]]]]}', /row 0, column 0 is Infinity, not a finite number/);
  rejects(hf([[[[[good]]]]]), /nested 7 deep; expected layers × heads × T × T/);
  rejects(JSON.stringify({ tokens, attentions: [[[good], [good]]].map((l) => [[good], [good]]) }), /batch of 2 sequences/);
  // Within 1e-3 is fine; just past it is not.
  assert.equal(
    parseAttention(
      hf([
        [
          [
            [1, 0, 0],
            [0.5, 0.5009, 0],
            [0, 0, 1],
          ],
        ],
      ]),
    ).heads,
    1,
  );
  rejects(
    hf([
      [
        [
          [1, 0, 0],
          [0.5, 0.5011, 0],
          [0, 0, 1],
        ],
      ],
    ]),
    /row 1 sums to 1\.001, not 1/,
  );
});

test('state: URL parameters round-trip, bad values fall back to the defaults, old links still work', () => {
  const state = { ...DEFAULTS, sentence: 'a <b> & c', view: 'steps', heads: 3, temperature: 0.7, mask: 'causal', word: 2 };
  assert.deepEqual(fromParams(new URLSearchParams(toParams(state).toString())), state);
  // Options are only written when not the default, and round-trip.
  assert.equal(toParams(state).has('score'), false);
  const options = {
    ...state,
    score: 'cosine',
    norm: 'columns',
    diagonal: 'scale',
    weights: 'random',
    dk: 6,
    seed: 9,
    bias: true,
    full: true,
    tour: 2,
  };
  assert.equal(toParams(options).get('norm'), 'columns');
  assert.equal(toParams(options).get('bias'), '1');
  assert.deepEqual(fromParams(new URLSearchParams(toParams(options).toString())), options);
  // A trained model: source (encoder or decoder), and layer as a number or 'rollout'.
  const model = { ...state, source: 'decoder', layer: 'rollout', head: 3 };
  assert.deepEqual(fromParams(new URLSearchParams(toParams(model).toString())), model);
  const bad = fromParams(
    new URLSearchParams(
      'view=pie&heads=99&temperature=abc&mask=maybe&word=-1&blank=x&score=cube&norm=diag&diagonal=0&source=bert&layer=all&weights=magic&dk=99&tour=x&input=poem',
    ),
  );
  assert.deepEqual(bad, { ...DEFAULTS });
  // Links made before the score choice and the diagonal's new default: scale=none meant dot scores.
  assert.equal(fromParams(new URLSearchParams('scale=none')).score, 'dot');
  assert.equal(fromParams(new URLSearchParams('scale=none&score=cosine')).score, 'cosine');
  assert.equal(fromParams(new URLSearchParams('diagonal=hide')).diagonal, 'apart');
  assert.equal(parseValue('temperature', '9'), 3);
  assert.equal(parseValue('temperature', '0.01'), 0.1);
  assert.deepEqual([...parseControls('sentence, view bogus', [])], ['sentence', 'view']);
  assert.equal(parseControls('all', []).size, 11);
  assert.ok(parseControls('all', []).has('source'));
  assert.ok(parseControls('all', []).has('options'));
  assert.equal(parseControls('none', ['view']).size, 0);
  assert.deepEqual([...parseControls(null, ['view'])], ['view']);
});

test('state: a change brings what it implies, so no combination is half-applied', () => {
  const start = apply(DEFAULTS, { word: 4, weights: 'identity' });
  // A new sentence forgets the selected word (its index means another word now).
  assert.equal(apply(start, { sentence: 'the bus left' }).word, null);
  assert.equal(apply(start, { sentence: 'the bus left', word: 1 }).word, 1);
  // Seed 003's example comes with its own weights, the article's unscaled scores and its first input.
  const seed = apply(start, { input: 'seed003' });
  assert.deepEqual([seed.weights, seed.score, seed.word, seed.source], ['seed', 'dot', 0, 'vectors']);
  // Typing a sentence leaves the example; its weights mean nothing for a sentence.
  const back = apply(seed, { sentence: 'the train left' });
  assert.deepEqual([back.input, back.weights], ['sentence', 'free']);
  // Which settings apply: the model has its own; steps has no colour scale; heads only in the heads view.
  assert.deepEqual(settingsFor({ ...DEFAULTS, source: 'decoder' }), {
    source: true,
    score: false,
    temperature: false,
    mask: false,
    norm: false,
    diagonal: true,
    heads: false,
    layer: true,
    head: true,
    sentence2: false,
  });
  assert.equal(settingsFor({ ...DEFAULTS, view: 'heads' }).heads, true);
  assert.equal(settingsFor({ ...DEFAULTS, view: 'heads' }).norm, false);
  assert.equal(settingsFor({ ...DEFAULTS, view: 'steps' }).diagonal, false);
  assert.equal(settingsFor(DEFAULTS, true).score, false);
  // Each view's own rule (views/registry.js): the compare view's second sentence; every layer has no layer or head to pick.
  assert.equal(settingsFor({ ...DEFAULTS, view: 'compare' }).sentence2, true);
  assert.deepEqual(pick(settingsFor({ ...DEFAULTS, source: 'encoder', view: 'model' }), 'layer', 'head'), { layer: false, head: false });
  assert.deepEqual(pick(settingsFor({ ...DEFAULTS, source: 'encoder', view: 'heads' }), 'layer', 'head'), { layer: true, head: false });
});

const pick = (o, ...keys) => Object.fromEntries(keys.map((k) => [k, o[k]]));

test('seeded Xavier weights: deterministic, within the Xavier bound, split by columns', () => {
  const a = multiHeadWeights(50, 4, 7),
    b = multiHeadWeights(50, 4, 7),
    c = multiHeadWeights(50, 4, 8);
  assert.equal(a.dk, 12);
  assert.equal(a.heads.length, 4);
  assert.deepEqual(a.heads[2].Wq.data, b.heads[2].Wq.data);
  assert.notDeepEqual(a.heads[2].Wq.data, c.heads[2].Wq.data);
  assert.deepEqual([a.heads[0].Wq.rows, a.heads[0].Wq.cols, a.Wo.rows, a.Wo.cols], [50, 12, 48, 50]);
  const m = xavierUniform(50, 48, mulberry32(1));
  const limit = Math.sqrt(6 / 98);
  assert.ok(m.data.every((x) => Math.abs(x) <= limit));
  assert.ok(Math.max(...m.data) > 0.9 * limit && Math.min(...m.data) < -0.9 * limit, 'spans the range');
  const full = { rows: 2, cols: 4, data: Float32Array.from([1, 2, 3, 4, 5, 6, 7, 8]) };
  assert.deepEqual(Array.from(columns(full, 1, 2).data), [2, 3, 6, 7]);
});

// The page's one computation (web/lib/compute.js), in node against the wasm core called directly: for
// every option (score, temperature, mask, softmax direction, projections, seed 003's input, heads) the
// Result holds exactly the core's numbers, and the parts it computes on demand (heads, query terms,
// seed 003's rounding) agree with the core too. The browser tests (lesson.test.mjs) then check that
// every view draws this Result.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { DEFAULTS, apply } from '../../web/lib/state.js';
import { HEAD_SHARPNESS, SEED003, compute, release, wordOf } from '../../web/lib/compute.js';
import { frozenCells, withCell } from '../../web/lib/cells.js';
import { identityWeights, mulberry32, multiHeadWeights, xavierUniform } from '../../web/lib/rng.js';
import { reference } from './harness.mjs';

const SENTENCE = DEFAULTS.sentence;
let core, vectors;

before(async () => ({ core, vectors } = await reference()));
after(() => vectors?.delete());

const sources = () => ({
  core,
  vectors,
  trained: { decoder: null, encoder: null },
  trainedError: { decoder: null, encoder: null },
  imported: null,
  edits: null,
});
const same = (a, b, where, tol = 0) => {
  assert.equal(a.rows, b.rows, `${where}: rows`);
  assert.equal(a.cols, b.cols, `${where}: cols`);
  for (let i = 0; i < a.data.length; i++) {
    const x = a.data[i],
      y = b.data[i];
    assert.ok(x === y || Math.abs(x - y) <= tol, `${where}[${i}]: ${x} vs ${y}`);
  }
};
const run = (changes) => compute(apply(DEFAULTS, changes), sources());

test('the word-vector figure: every score, temperature and mask is the core’s own numbers', () => {
  const { X, tokens } = vectors.embed(SENTENCE, 1024);
  const d = vectors.dim;
  const cases = [
    [{}, () => core.parameterFree(X, Math.sqrt(d), { temperature: 1 })],
    [{ score: 'dot' }, () => core.parameterFree(X, 1, { temperature: 1 })],
    [{ score: 'cosine', temperature: 0.3 }, () => core.parameterFree(X, 1, { score: 'cosine', temperature: 0.3 })],
    [{ mask: 'causal', temperature: 0.5 }, () => core.parameterFree(X, Math.sqrt(d), { temperature: 0.5, causal: true })],
  ];
  for (const [changes, want] of cases) {
    const r = run(changes),
      w = want(),
      where = JSON.stringify(changes);
    assert.equal(r.ok, true, where);
    assert.deepEqual(
      r.tokens.map((t) => t.text),
      tokens.map((t) => t.text),
    );
    for (const k of ['Q', 'K', 'V', 'scores', 'scaled', 'weights', 'output']) same(r.steps[k], w[k], `${where} ${k}`);
    same(r.weights, w.weights, `${where} drawn weights`);
    same(r.shown, w.weights, `${where} shown`);
    same(r.output, w.output, `${where} output`);
  }
});

test('softmax down the columns: the drawn weights and the output are the column softmax’s, from the core', () => {
  const { X } = vectors.embed(SENTENCE, 1024);
  const r = run({ norm: 'columns' });
  const base = core.parameterFree(X, Math.sqrt(vectors.dim), { temperature: 1 });
  const columns = core.softmax(base.scaled, { axis: 'columns' });
  same(r.weights, columns, 'weights');
  same(r.steps.weights, columns, 'the core ran the column softmax itself (AttentionOptions axis)');
  same(r.output, core.weightedSum(columns, base.V), 'output');
  same(r.steps.scaled, base.scaled, 'the scaled scores are the same');
  // The query terms follow what is drawn: α_ij·v_j with the column weights; their rows add up to the output.
  const terms = r.terms(1);
  same(terms.weighted, core.queryTerms({ ...base, weights: columns }, 1).weighted, 'terms');
});

test('projections: identity, seeded random, edited (with a bad cell), and seed 003’s own', () => {
  const { X } = vectors.embed(SENTENCE, 1024);
  const I = identityWeights(vectors.dim, 4);
  const identity = run({ weights: 'identity' });
  same(identity.steps.weights, core.attention(X, { Wq: I, Wk: I, Wv: I }, { score: 'scaled_dot', temperature: 1 }).weights, 'identity');
  assert.equal(identity.divisor, '√4');
  const rand = mulberry32(7 + 1);
  const W = { Wq: xavierUniform(vectors.dim, 6, rand), Wk: xavierUniform(vectors.dim, 6, rand), Wv: xavierUniform(vectors.dim, 6, rand) };
  same(
    run({ weights: 'random', seed: 7, dk: 6 }).steps.weights,
    core.attention(X, W, { score: 'scaled_dot', temperature: 1 }).weights,
    'random',
  );
  // Edited weights: the reader's strings, parsed; a cell that is not a number is named and nothing is computed.
  const text = (m) => Array.from({ length: m.rows }, (_, r) => Array.from(m.data.subarray(r * m.cols, (r + 1) * m.cols), String));
  const edits = frozenCells({
    Wq: text(I),
    Wk: text(I),
    Wv: text(I),
    bq: [['0', '0', '0', '1']],
    bk: [['0', '0', '0', '0']],
    bv: [['0', '0', '0', '0']],
  });
  const state = apply(DEFAULTS, { weights: 'edited', bias: true });
  const edited = compute(state, { ...sources(), edits: withCell(edits, 'Wq', 0, 1, '−2') });
  const Wq = { rows: I.rows, cols: 4, data: I.data.slice() };
  Wq.data[1] = -2;
  same(
    edited.steps.weights,
    core.attention(X, { Wq, Wk: I, Wv: I, bq: [0, 0, 0, 1], bk: [0, 0, 0, 0], bv: [0, 0, 0, 0] }, { score: 'scaled_dot' }).weights,
    'edited',
  );
  const bad = compute(state, { ...sources(), edits: withCell(edits, 'Wk', 2, 3, 'abc') });
  assert.deepEqual([bad.ok, bad.kind], [false, 'cells']);
  assert.match(bad.message, /^W_K\[3, 4\] is not a number/);
  // Seed 003: its inputs, its weights, unscaled scores as the article computes them, and its rounding.
  const seed = run({ input: 'seed003' });
  assert.equal(seed.kind, 'seed003');
  const article = core.attention(SEED003.X, { Wq: SEED003.Wq, Wk: SEED003.Wk, Wv: SEED003.Wv }, { score: 'dot' });
  for (const k of ['Q', 'K', 'V', 'scores', 'weights', 'output']) same(seed.steps[k], article[k], `seed 003 ${k}`);
  same(seed.rounding().output, core.weightedSum(SEED003.rounded, article.V), 'rounded outputs');
  assert.deepEqual(
    Array.from(seed.rounding().output.data.subarray(0, 3), (v) => Number(v.toFixed(1))),
    [2, 7, 1.5],
  );
  assert.equal(wordOf(apply(DEFAULTS, { input: 'seed003' }), seed), 0, 'the article works with input 1');
});

test('heads: seeded, sharpened random heads from core.multiHead, with the figure’s score, temperature and mask', () => {
  const { X } = vectors.embed(SENTENCE, 1024);
  const r = run({ mask: 'causal', temperature: 0.8, score: 'dot' });
  const heads = r.heads(3, 5);
  const w = multiHeadWeights(vectors.dim, 3, 5, HEAD_SHARPNESS);
  const want = core.multiHead(X, { heads: w.heads, Wo: w.Wo }, { temperature: 0.8, causal: true, score: 'dot' });
  heads.maps.forEach((m, k) => same(m.weights, want.heads[k].weights, `head ${k + 1}`));
  same(heads.concat, want.concat, 'concat');
  same(heads.output, want.output, 'output');
  assert.equal(r.heads(3, 5), heads, 'computed once per (heads, seed)');
  // Distinct heads: on the default sentence each of the 4 heads gives "train" another strongest link or a clearly different row.
  const rows = run({})
    .heads(4, 1)
    .maps.map((m) => Array.from(m.weights.data.subarray(7, 14)));
  const spread = rows.map((row) => Math.max(...row) - Math.min(...row));
  assert.ok(
    spread.every((s) => s > 0.15),
    `each head is far from uniform: ${spread.map((s) => s.toFixed(2))}`,
  );
  for (let a = 0; a < 4; a++)
    for (let b = a + 1; b < 4; b++) {
      const diff = Math.max(...rows[a].map((x, j) => Math.abs(x - rows[b][j])));
      assert.ok(diff > 0.1, `heads ${a + 1} and ${b + 1} differ (${diff.toFixed(2)})`);
    }
});

test('one computation per change: a change that does not alter the numbers reuses the Result', () => {
  const state = apply(DEFAULTS, {});
  const first = compute(state, sources());
  for (const changes of [{ word: 3 }, { view: 'lines' }, { diagonal: 'scale' }, { full: true }, { heads: 2 }, { tour: 1 }]) {
    assert.equal(compute(apply(state, changes), sources(), first), first, JSON.stringify(changes));
  }
  for (const changes of [{ temperature: 0.5 }, { score: 'dot' }, { norm: 'columns' }, { sentence: 'the bus' }, { weights: 'identity' }]) {
    assert.notEqual(compute(apply(state, changes), sources(), first), first, JSON.stringify(changes));
  }
  // The word the story and the selected-word views use when the reader has chosen none: the query with
  // the strongest link to another word (train, on the default sentence).
  assert.equal(wordOf(state, first), 1);
});

test('edited weights count by identity: the same object reuses the Result, an edit (a new object) recomputes', () => {
  const text = (m) => Array.from({ length: m.rows }, (_, r) => Array.from(m.data.subarray(r * m.cols, (r + 1) * m.cols), String));
  const I = identityWeights(vectors.dim, 4),
    zeros = [['0', '0', '0', '0']];
  const edits = frozenCells({ Wq: text(I), Wk: text(I), Wv: text(I), bq: zeros, bk: zeros, bv: zeros });
  const state = apply(DEFAULTS, { weights: 'edited' });
  const first = compute(state, { ...sources(), edits });
  assert.equal(first.edits, edits, 'the Result says which edits it used');
  assert.equal(compute(apply(state, { word: 2 }), { ...sources(), edits }, first), first, 'same edits object: reused');
  const next = withCell(edits, 'Wq', 0, 1, '2');
  assert.equal(edits.Wq[0][1], '0', 'the edit left the old object as it was');
  assert.equal(next.Wk, edits.Wk, 'the matrices the edit did not touch are shared');
  assert.throws(() => {
    next.Wq[0][1] = '5';
  }, TypeError);
  const second = compute(state, { ...sources(), edits: next }, first);
  assert.notEqual(second, first, 'a new edits object: recomputed');
  assert.notDeepEqual(Array.from(second.steps.weights.data), Array.from(first.steps.weights.data));
  // Another mode does not care which edits the store holds.
  const identity = compute(apply(state, { weights: 'identity' }), { ...sources(), edits });
  assert.equal(identity.edits, null);
  assert.equal(compute(apply(state, { weights: 'identity' }), { ...sources(), edits: next }, identity), identity);
});

test('options.keep: only the steps the visible views draw come out; X, heads and terms from the core’s heap', () => {
  const { X } = vectors.embed(SENTENCE, 1024);
  const full = run({});
  const r = compute(apply(DEFAULTS, {}), sources(), null, { keep: new Set(['weights']) });
  try {
    assert.deepEqual(Object.keys(r.steps), ['weights'], 'only the weights were copied out');
    assert.equal(r.output, null);
    same(r.weights, full.weights, 'weights');
    assert.equal(r.divisor, '√50');
    // What was not kept is read from the sentence the core holds, with the same numbers.
    same(r.X, X, 'X, copied out when read');
    for (const i of [0, 4]) same(r.terms(i).weighted, core.queryTerms(full.steps, i).weighted, `terms(${i})`);
    same(r.heads(2, 3).output, full.heads(2, 3).output, 'heads');
    // A result that kept less is recomputed for a view that draws more; one that kept all is reused.
    const more = compute(apply(DEFAULTS, {}), sources(), r, { keep: new Set(['weights', 'scores', 'scaled', 'output']) });
    assert.notEqual(more, r);
    assert.deepEqual(Object.keys(more.steps).sort(), ['output', 'scaled', 'scores', 'weights']);
    assert.equal(compute(apply(DEFAULTS, {}), sources(), more, { keep: new Set(['scores']) }), more);
    assert.equal(compute(apply(DEFAULTS, {}), sources(), full, { keep: new Set(['Q']) }), full);
    release(more);
    // Seed 003 keeps V for its rounding whatever the views draw.
    const seed = compute(apply(DEFAULTS, { input: 'seed003' }), sources(), null, { keep: new Set(['scores']) });
    assert.deepEqual(Object.keys(seed.steps).sort(), ['V', 'scores', 'weights']);
    assert.equal(seed.rounding().output.rows, 3);
    release(seed);
  } finally {
    release(r);
    release(full);
  }
});

test('release() gives the core’s heap back; a released result refuses new terms', () => {
  const changes = [{}, { norm: 'columns' }, { weights: 'identity', score: 'dot' }, { input: 'seed003' }, { mask: 'causal' }];
  const once = (i) => {
    const r = compute(apply(DEFAULTS, changes[i % changes.length]), sources(), null, { keep: new Set(['weights', 'scores']) });
    r.terms(1);
    r.heads(2, 1);
    release(r);
    return r;
  };
  for (let i = 0; i < 20; i++) once(i);
  const before = core.memory();
  for (let i = 0; i < 200; i++) once(i);
  assert.deepEqual(core.memory(), before);
  const r = once(0);
  assert.equal(r.terms(1).weighted.rows, 7, 'computed before release: kept');
  assert.throws(() => r.terms(2), /deleted/);
  release(r); // a second time: nothing to do
  release(null);
  release(run({ sentence: '' }));
  // compute frees the previous result it replaces with a new ok one (the store's last good result), and
  // keeps it when the new one is a problem (the store may keep showing it).
  const previous = compute(apply(DEFAULTS, {}), sources());
  const problem = compute(apply(DEFAULTS, { sentence: '   ' }), sources(), previous);
  assert.equal(problem.ok, false);
  assert.equal(previous.terms(3).weighted.rows, 7, 'kept under a problem');
  const next = compute(apply(DEFAULTS, { temperature: 0.5 }), sources(), previous);
  assert.ok(next.ok && next !== previous);
  assert.throws(() => previous.terms(4), /deleted/, 'released once replaced');
  release(next);
});

test('a chain of changes, each compute given the last good result as the store does, holds one result’s heap', () => {
  const sentences = ['the train left the station on time', 'he cashed a check at the bank', '   ', 'the bank of the river flooded'];
  let good = null;
  const step = (i) => {
    const r = compute(apply(DEFAULTS, { sentence: sentences[i % 4], temperature: 0.5 + (i % 3) / 4 }), sources(), good, {
      keep: new Set(['weights']),
    });
    if (r.ok) good = r;
    if (i % 5 === 0 && good) good.heads(2, i);
  };
  for (let i = 0; i < 20; i++) step(i);
  const before = core.memory();
  // Each run ends on the sentence it started from: results of the same size held. The allocator's count
  // for the same live objects varies by a few bytes with the order they were made in (8–24 seen), so two
  // runs of 400 changes are held within 64 bytes: a leak of one byte a change would be 400 over.
  for (const end of [420, 820]) {
    for (let i = end - 400; i < end; i++) step(i);
    const now = core.memory();
    assert.deepEqual({ ...now, mallocBytes: 0 }, { ...before, mallocBytes: 0 });
    assert.ok(
      Math.abs(now.mallocBytes - before.mallocBytes) <= 64,
      `malloc ${before.mallocBytes} → ${now.mallocBytes} after ${end - 20} changes`,
    );
  }
  release(good);
});

test('problems are results, never exceptions: no words, not loaded yet, a failed load', () => {
  assert.deepEqual(run({ sentence: '   ' }).kind, 'empty');
  assert.equal(compute(apply(DEFAULTS, {}), { ...sources(), vectors: null }).kind, 'loading');
  const failed = compute(apply(DEFAULTS, {}), { ...sources(), vectors: null, vectorsError: new Error('HTTP 404') });
  assert.deepEqual([failed.kind, failed.loadFailed], ['error', true]);
  assert.match(failed.message, /HTTP 404/);
  assert.equal(compute(apply(DEFAULTS, { source: 'decoder' }), sources()).kind, 'loading');
  assert.equal(compute(apply(DEFAULTS, { source: 'encoder' }), sources()).kind, 'loading');
});

test('the story line of a long text keeps four decimals where two would print 0.00', async () => {
  const { storyOf } = await import('../../web/lib/figure/notes.js');
  const long = run({ sentence: 'the cat sat on the mat '.repeat(200) });
  assert.ok(long.ok && long.T === 1024);
  const line = storyOf(apply(DEFAULTS, { sentence: 'x' }), long);
  assert.doesNotMatch(line, /\(0\.00\)|itself 0\.00\b/, line);
  assert.match(line, /\(0\.00\d\d\)/, line);
  // A short sentence keeps two.
  assert.match(storyOf(apply(DEFAULTS, {}), run({})), /“train” looks most at “station” \(0\.21\)/);
});

test('the story word of a pieces model is a word’s first piece, told by its strongest link to another word', async () => {
  const { strongestRow } = await import('../../web/lib/compute/parts.js');
  // "the sta ##tion": tion → sta (0.9) is the strongest cell, but within one word; the → sta (0.6) is the
  // strongest link between words.
  const weights = { rows: 3, cols: 3, data: Float32Array.from([0.3, 0.6, 0.1, 0.2, 0.5, 0.3, 0.05, 0.9, 0.05]) };
  assert.equal(strongestRow(weights), 2, 'without words: any row, any link');
  const tokens = [{ word: 0 }, { word: 1 }, { word: 1 }];
  assert.equal(strongestRow(weights, tokens), 0);
  // A word's later piece never asks, even with the strongest link to another word.
  const later = { rows: 3, cols: 3, data: Float32Array.from([0.5, 0.3, 0.2, 0.4, 0.5, 0.1, 0.95, 0.02, 0.03]) };
  assert.equal(strongestRow(later, tokens), 1);
  assert.equal(strongestRow({ rows: 1, cols: 1, data: Float32Array.from([1]) }, [{ word: 0 }]), 0);
});

test('the story names a piece of a longer word with that word: “hav” (of “haven’t”)', async () => {
  const { named } = await import('../../web/lib/words.js');
  const tokens = [
    { text: 'cat', word: 0 },
    { text: 'hav', word: 1 },
    { text: '##en', word: 1 },
    { text: 'cat', word: 2 },
  ];
  const words = ['cat', "haven't", 'cat'];
  assert.equal(named(tokens, 1, words), "“hav” (of “haven't”)");
  assert.equal(named(tokens, 0, words), '“cat” (1)', 'a one-piece word is named as it is, with its position when repeated');
  assert.equal(named(tokens, 1), '“hav”', 'without word labels: the piece alone');
});

test('the query menu names a piece of a longer word with that word: “g (gtk)”', async () => {
  const { pickerLabels } = await import('../../web/lib/words.js');
  const tokens = [
    { text: 'the', word: 0 },
    { text: 'g', word: 1 },
    { text: '##tk', word: 1 },
  ];
  assert.deepEqual(pickerLabels(tokens, ['the', 'gtk']), ['the', 'g (gtk)', '##tk (gtk)']);
  assert.deepEqual(pickerLabels(tokens), ['the', 'g', '##tk']);
});

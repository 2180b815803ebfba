// core.selfAttention, the page's one crossing per change: embedding and attention in one call with X
// kept on the wasm heap. Its numbers equal the old call sequence (embed, parameterFree or attention,
// softmax down the columns, weightedSum, queryTerms, multiHead) bit for bit on the default sentence and
// seed 003; only the kept steps come out; errors say what is wrong; nothing stays on the heap after
// delete(). Also: the SCORES table names exactly the core's Score enum, old spellings still work.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { load, root, wasmDir } from './load.mjs';

const SENTENCE = 'the train left the station on time';
const SEED003 = {
  X: [
    [1, 0, 1, 0],
    [0, 2, 0, 2],
    [1, 1, 1, 1],
  ],
  W: {
    Wq: [
      [1, 0, 1],
      [1, 0, 0],
      [0, 0, 1],
      [0, 1, 1],
    ],
    Wk: [
      [0, 0, 1],
      [1, 1, 0],
      [0, 1, 0],
      [1, 1, 0],
    ],
    Wv: [
      [0, 2, 0],
      [0, 3, 0],
      [1, 0, 3],
      [1, 1, 0],
    ],
  },
};
const STEPS = ['Q', 'K', 'V', 'scores', 'scaled', 'weights', 'output'];

let api, core, vectors, raw;
before(async () => {
  ({ api, core } = await load());
  vectors = core.loadVectors(new Uint8Array(await readFile(path.join(root, 'data', 'vectors.bin'))));
  const { default: create } = await import(pathToFileURL(path.join(wasmDir, 'attention_wasm.js')).href);
  raw = await create({ wasmBinary: await readFile(path.join(wasmDir, process.env.ATTN_WASM_FILE ?? 'attention_wasm.wasm')) });
});
after(() => vectors?.delete());

const same = (a, b, where) => {
  assert.deepEqual([a.rows, a.cols], [b.rows, b.cols], `${where}: shape`);
  for (let i = 0; i < a.data.length; i++) if (!Object.is(a.data[i], b.data[i])) assert.fail(`${where}[${i}]: ${a.data[i]} vs ${b.data[i]}`);
};

/** The page's old sequence for parameter-free attention: X out, back in with a JS-chosen divisor, columns after. */
function oldFree(score, { temperature = 1, causal = false, axis = 'rows' } = {}) {
  const { X, tokens } = vectors.embed(SENTENCE, 1024);
  const divisor = score === 'scaled' ? Math.sqrt(vectors.dim) : 1;
  const steps = core.parameterFree(X, divisor, { temperature, causal, score: score === 'cosine' ? 'cosine' : 'dot' });
  if (axis === 'columns') {
    steps.weights = core.softmax(steps.scaled, { axis: 'columns' });
    steps.output = core.weightedSum(steps.weights, steps.V);
  }
  return { X, tokens, steps };
}

test('the default sentence: every score, temperature, mask and direction equals the old call sequence', () => {
  for (const score of ['scaled', 'dot', 'cosine'])
    for (const options of [
      {},
      { temperature: 0.4, causal: true },
      { axis: 'columns' },
      { axis: 'columns', causal: true, temperature: 2 },
    ]) {
      const where = `${score} ${JSON.stringify(options)}`;
      const want = oldFree(score, options);
      const got = core.selfAttention({ vectors, text: SENTENCE, maxTokens: 1024 }, { ...options, score });
      try {
        assert.deepEqual(got.tokens, want.tokens, where);
        assert.equal(got.total, 7);
        assert.deepEqual([got.T, got.d, got.dk, got.dv], [7, vectors.dim, vectors.dim, vectors.dim], where);
        same(got.X, want.X, `${where} X`);
        for (const k of STEPS) same(got.steps[k], want.steps[k], `${where} ${k}`);
        // The core chose the divisor: √d_model (as the float the old constant was) for scaled, else 1.
        assert.equal(got.divisor, score === 'scaled' ? Math.fround(Math.sqrt(vectors.dim)) : 1, where);
        for (const i of [0, 3, 6]) {
          const terms = got.queryTerms(i),
            old = core.queryTerms(want.steps, i);
          same(terms.products, old.products, `${where} products ${i}`);
          same(terms.weighted, old.weighted, `${where} weighted ${i}`);
        }
      } finally {
        got.delete();
      }
    }
});

test('seed 003 with its projections: the same numbers as core.attention, the divisor √d_k or 1', () => {
  for (const score of ['scaled', 'scaled_dot', 'dot', 'cosine']) {
    const want = core.attention(SEED003.X, SEED003.W, { score });
    const got = core.selfAttention({ X: SEED003.X }, { weights: SEED003.W, score });
    try {
      assert.equal(got.tokens, null);
      assert.deepEqual([got.T, got.d, got.dk, got.dv, got.total], [3, 4, 3, 3, 3]);
      for (const k of STEPS) same(got.steps[k], want[k], `${score} ${k}`);
      assert.equal(got.divisor, score.startsWith('scaled') ? Math.sqrt(3) : 1, score);
    } finally {
      got.delete();
    }
  }
  // Seed 003's dot-product numbers: weights row 1 ≈ [0.0634, 0.4683, 0.4683], its output their sum of value rows.
  const dot = core.selfAttention({ X: SEED003.X }, { weights: SEED003.W, score: 'dot', keep: ['weights', 'output'] });
  try {
    assert.deepEqual(
      Array.from(dot.steps.weights.data.subarray(0, 3), (x) => Number(x.toFixed(4))),
      [0.0634, 0.4683, 0.4683],
    );
    assert.deepEqual(
      Array.from(dot.steps.output.data.subarray(0, 3), (x) => Number(x.toFixed(4))),
      [1.9366, 6.6831, 1.5951],
    );
  } finally {
    dot.delete();
  }
});

test('the heads run over the held X: the same numbers as core.multiHead(X, …)', () => {
  const d = vectors.dim;
  const rand = (
    (s) => () =>
      (s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32 - 0.5
  )(3);
  const m = (rows, cols) => ({ rows, cols, data: Float32Array.from({ length: rows * cols }, rand) });
  const weights = { heads: [0, 1, 2].map(() => ({ Wq: m(d, 4), Wk: m(d, 4), Wv: m(d, 4) })), Wo: m(12, d) };
  const got = core.selfAttention({ vectors, text: SENTENCE }, { keep: ['weights'] });
  try {
    const { X } = vectors.embed(SENTENCE, 256);
    const want = core.multiHead(X, weights, { score: 'scaled', causal: true });
    const heads = got.multiHead(weights, { score: 'scaled', causal: true });
    for (let h = 0; h < 3; h++) for (const k of STEPS) same(heads.heads[h][k], want.heads[h][k], `head ${h} ${k}`);
    same(heads.concat, want.concat, 'concat');
    same(heads.output, want.output, 'output');
    same(got.input(), X, 'X copied out on demand');
  } finally {
    got.delete();
  }
});

test('keep: only the kept steps come out, X only when kept', () => {
  const cases = [
    [['weights'], ['weights'], false],
    [new Set(['weights', 'scores', 'X']), ['scores', 'weights'], true],
    [['Q', 'K', 'V', 'output'], ['Q', 'K', 'V', 'output'], false],
    [[], [], false],
  ];
  for (const [keep, steps, withX] of cases) {
    const got = core.selfAttention({ vectors, text: SENTENCE }, { keep });
    try {
      assert.deepEqual(Object.keys(got.steps).sort(), [...steps].sort(), JSON.stringify([...keep]));
      assert.equal('X' in got, withX, `X ${JSON.stringify([...keep])}`);
      // Terms and X still come from the heap when not kept.
      assert.equal(got.queryTerms(2).weighted.rows, 7);
      assert.equal(got.input().rows, 7);
    } finally {
      got.delete();
    }
  }
  const all = core.selfAttention({ vectors, text: SENTENCE });
  try {
    assert.deepEqual(Object.keys(all.steps).sort(), [...STEPS].sort());
    assert.ok(all.X, 'X when keep is absent');
  } finally {
    all.delete();
  }
});

test('a long text: its first maxTokens tokens, as the page cut it by re-embedding their words', () => {
  const text = Array.from({ length: 40 }, (_, i) => ['the', 'bank', 'of', 'the', 'river'][i % 5]).join(' ');
  const got = core.selfAttention({ vectors, text, maxTokens: 12 }, { keep: ['X', 'weights'] });
  try {
    assert.equal(got.T, 12);
    assert.equal(got.total, 40);
    const words = core.tokenize(text).slice(0, 12);
    same(got.X, vectors.embed(words.join(' '), 12).X, 'X');
    assert.deepEqual(
      got.tokens.map((t) => t.text),
      words,
    );
  } finally {
    got.delete();
  }
});

test('errors name the problem, and a failed call leaves nothing on the heap', () => {
  const before = core.memory();
  const refused = [
    [() => core.selfAttention({ vectors, text: '   ' }), /the text is empty/],
    [
      () => core.selfAttention({ vectors, text: SENTENCE }, { score: 'magic' }),
      /unknown score "magic"; use scaled or scaled_dot, dot, cosine, additive/,
    ],
    [() => core.selfAttention({ vectors, text: SENTENCE }, { score: 'additive' }), /set score to Dot, ScaledDot or Cosine/],
    [() => core.selfAttention({ vectors, text: SENTENCE }, { axis: 'diagonal' }), /axis must be 'rows' or 'columns'/],
    [() => core.selfAttention({ vectors, text: SENTENCE }, { keep: ['weights', 'W'] }), /keep: unknown step "W"/],
    [() => core.selfAttention({ vectors, text: SENTENCE, maxTokens: 0 }), /maxTokens must be a whole number/],
    [() => core.selfAttention({ vectors: {}, text: SENTENCE }), /needs loaded word vectors/],
    [() => core.selfAttention({ X: SEED003.X }, { weights: { ...SEED003.W, Wq: [[1, 2]] } }), /W_Q is 1×2 but must be 4×d_out/],
    [() => core.selfAttention({ X: [[1, NaN]] }), /X/],
    [() => core.attentionOutput(SEED003.X, SEED003.X, SEED003.X, { axis: 'columns' }), /online softmax/],
    [() => core.attentionByColumns(SEED003.X, SEED003.W, { axis: 'columns' }), /already normalises down its columns/],
  ];
  for (const [call, message] of refused)
    assert.throws(call, (e) => e instanceof api.AttentionError && message.test(e.message), String(message));
  const deleted = core.selfAttention({ X: SEED003.X });
  deleted.delete();
  assert.throws(() => deleted.queryTerms(0), /deleted/);
  assert.throws(() => deleted.multiHead({ heads: [], Wo: [[1]] }), /deleted/);
  assert.deepEqual(core.memory(), before);
});

test('1,000 changes through selfAttention, heads and terms leave the heap as it was', () => {
  const run = (i) => {
    const got = core.selfAttention(
      i % 4 === 3 ? { X: SEED003.X } : { vectors, text: `${SENTENCE} ${'again '.repeat(i % 9)}`, maxTokens: 12 },
      { score: ['scaled', 'dot', 'cosine'][i % 3], axis: i % 2 ? 'columns' : 'rows', keep: i % 5 ? ['weights'] : undefined },
    );
    try {
      got.queryTerms(0);
      const ones = (rows, cols) => ({ rows, cols, data: new Float32Array(rows * cols).fill(0.1) });
      const head = { Wq: ones(got.d, 2), Wk: ones(got.d, 2), Wv: ones(got.d, 2) };
      if (i % 7 === 0) assert.equal(got.multiHead({ heads: [head, head], Wo: ones(4, got.d) }).output.rows, got.T);
      // A head that does not fit X is refused: that path must not leak either.
      if (i % 11 === 0)
        assert.throws(
          () => got.multiHead({ heads: [{ Wq: ones(1, 1), Wk: ones(1, 1), Wv: ones(1, 1) }], Wo: ones(1, 1) }),
          api.AttentionError,
        );
    } finally {
      got.delete();
    }
  };
  for (let i = 0; i < 100; i++) run(i);
  const before = core.memory();
  for (let i = 0; i < 1000; i++) run(i);
  assert.deepEqual(core.memory(), before);
});

test('SCORES: one entry per value of the core’s Score enum, frozen; old spellings still accepted', () => {
  assert.deepEqual(
    api.SCORES.map((s) => s.core).sort(),
    Object.keys(raw.Score)
      .filter((k) => k !== 'values')
      .sort(),
  );
  assert.deepEqual(
    api.SCORES.map((s) => s.name),
    ['scaled', 'dot', 'cosine', 'additive'],
  );
  assert.ok(Object.isFrozen(api.SCORES) && api.SCORES.every((s) => Object.isFrozen(s) && Object.isFrozen(s.aliases)));
  assert.equal(api.scoreEntry('scaled_dot'), api.scoreEntry('scaled'));
  assert.equal(api.scoreEntry('magic'), undefined);
  // Each name reaches its enum value: the same numbers as its alias, and distinct scores differ.
  const byName = Object.fromEntries(
    ['scaled', 'scaled_dot', 'dot', 'cosine'].map((s) => [s, core.attention(SEED003.X, SEED003.W, { score: s }).scaled]),
  );
  same(byName.scaled, byName.scaled_dot, 'scaled = scaled_dot');
  assert.notDeepEqual(byName.scaled.data, byName.dot.data);
  assert.notDeepEqual(byName.dot.data, byName.cosine.data);
  // The default is scaled dot (as before): the same as naming it.
  same(core.attention(SEED003.X, SEED003.W).scaled, byName.scaled, 'default');
  // Additive needs its weights, as its entry says.
  assert.equal(api.scoreEntry('additive').needs, 'additive');
  assert.throws(() => core.attention(SEED003.X, SEED003.W, { score: 'additive' }), api.AttentionError);
  // The raw binding refuses a score that is not the enum's value instead of reading it as Dot.
  const wrong = raw.attention(
    api.matrix(SEED003.X),
    { Wq: api.matrix(SEED003.W.Wq), Wk: api.matrix(SEED003.W.Wk), Wv: api.matrix(SEED003.W.Wv) },
    { score: 'scaled', causal: false, handShortcuts: false, byColumns: false },
    false,
  );
  assert.ok(wrong instanceof Error && /score must be a value of the module's Score/.test(wrong.message));
});

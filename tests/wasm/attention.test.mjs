// The wasm module through its JS API under node: seed 003's numbers, the other entry points, and errors.
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { load, root } from './load.mjs';

let api, core;
before(async () => ({ api, core } = await load()));

const inputs = [
  [1, 0, 1, 0],
  [0, 2, 0, 2],
  [1, 1, 1, 1],
];
const seed003 = {
  Wk: [
    [0, 0, 1],
    [1, 1, 0],
    [0, 1, 0],
    [1, 1, 0],
  ],
  Wq: [
    [1, 0, 1],
    [1, 0, 0],
    [0, 0, 1],
    [0, 1, 1],
  ],
  Wv: [
    [0, 2, 0],
    [0, 3, 0],
    [1, 0, 3],
    [1, 1, 0],
  ],
};

function assertClose(actual, expected, tolerance, what) {
  const rows = api.toRows(actual);
  assert.equal(rows.length, expected.length, `${what}: rows`);
  rows.forEach((row, r) => {
    assert.equal(row.length, expected[r].length, `${what}: columns of row ${r}`);
    row.forEach((value, c) =>
      assert.ok(Math.abs(value - expected[r][c]) <= tolerance, `${what}[${r}][${c}] = ${value}, expected ${expected[r][c]}`),
    );
  });
}

test('seed 003 through the JS API reproduces every printed number', () => {
  const s = core.attention(inputs, seed003, { score: 'dot' });
  assertClose(
    s.K,
    [
      [0, 1, 1],
      [4, 4, 0],
      [2, 3, 1],
    ],
    1e-5,
    'keys',
  );
  assertClose(
    s.Q,
    [
      [1, 0, 2],
      [2, 2, 2],
      [2, 1, 3],
    ],
    1e-5,
    'queries',
  );
  assertClose(
    s.V,
    [
      [1, 2, 3],
      [2, 8, 0],
      [2, 6, 3],
    ],
    1e-5,
    'values',
  );
  assertClose(
    s.scores,
    [
      [2, 4, 4],
      [4, 16, 12],
      [4, 12, 10],
    ],
    1e-5,
    'scores',
  );
  assertClose(
    s.weights,
    [
      [6.3379e-2, 4.6831e-1, 4.6831e-1],
      [6.0337e-6, 9.8201e-1, 1.7986e-2],
      [2.9539e-4, 8.8054e-1, 1.1917e-1],
    ],
    1e-5,
    'softmax',
  );
  assertClose(
    s.output,
    [
      [1.936621, 6.683105, 1.595068],
      [1.999994, 7.963992, 0.053976],
      [1.999705, 7.759892, 0.358389],
    ],
    1e-5,
    'outputs',
  );
  assert.ok(s.weights.data instanceof Float32Array);
});

test('seed 003 scaled by √3 (the default score)', () => {
  const s = core.attention(inputs, seed003);
  assertClose({ rows: 1, cols: 3, data: s.weights.data.subarray(0, 3) }, [[0.136126, 0.431937, 0.431937]], 1e-5, 'row 1');
});

test('matrices may be given as {rows, cols, data} and results survive later calls', () => {
  const X = api.matrix(inputs);
  const first = core.attention(X, seed003, { score: 'dot' });
  const copy = Float32Array.from(first.weights.data);
  for (let i = 0; i < 50; i++) core.attention(api.matrix(Array.from({ length: 64 }, () => [1, 2, 3, 4])), seed003);
  assert.deepEqual(first.weights.data, copy);
});

test('query terms: q∘k and α·v for one query', () => {
  const s = core.attention(inputs, seed003, { score: 'dot' });
  const t = core.queryTerms(s, 1);
  assertClose(
    t.products,
    [
      [0, 2, 2],
      [8, 8, 0],
      [4, 6, 2],
    ],
    0,
    'q∘k',
  );
  const w = api.toRows(s.weights)[1];
  assertClose(
    t.weighted,
    api.toRows(s.V).map((v, j) => v.map((x) => x * w[j])),
    1e-6,
    'α·v',
  );
  assert.throws(() => core.queryTerms(s, 3), /query 3 is outside 0..2/);
  assert.throws(() => core.queryTerms(s, 0.5), /whole number/);
});

test('column convention and hand shortcuts', () => {
  const X = api.matrix(inputs);
  const T = (m) => api.toRows(m)[0].map((_, c) => api.toRows(m).map((row) => row[c]));
  const byColumns = core.attentionByColumns(
    T(X),
    { Wq: T(api.matrix(seed003.Wq)), Wk: T(api.matrix(seed003.Wk)), Wv: T(api.matrix(seed003.Wv)) },
    { score: 'dot' },
  );
  assertClose(byColumns.weights, T(core.attention(X, seed003, { score: 'dot' }).weights), 1e-6, 'Aᵀ');
  const hand = core.attention(X, seed003, { handShortcuts: true });
  assertClose(
    hand.scaled,
    [
      [1, 2, 2],
      [2, 8, 6],
      [2, 6, 5],
    ],
    0,
    'floor(x/2)',
  );
  assert.ok(Math.abs(hand.weights.data[0] - 3 / (3 + 9 + 9)) < 1e-6, '3^x');
});

test('parameter-free attention, masks, softmax and multi-head', () => {
  const p = core.parameterFree(
    [
      [1, 0],
      [0, 2],
      [1, 1],
    ],
    2,
    { causal: true },
  );
  assertClose(
    p.scores,
    [
      [1, 0, 1],
      [0, 4, 2],
      [1, 2, 2],
    ],
    1e-6,
    'X·Xᵀ',
  );
  assert.equal(p.weights.data[1], 0);
  assert.equal(p.scaled.data[1], -Infinity);
  const padded = core.attention(inputs, seed003, { keyPadding: [true, true, true] });
  assert.ok(
    padded.weights.data.every((w) => w === 0),
    'fully masked rows are zero, not NaN',
  );
  const s = core.softmax(
    [
      [1e4, -1e4, 0],
      [0, 0, 0],
    ],
    { axis: 'rows' },
  );
  assertClose(
    s,
    [
      [1, 0, 0],
      [1 / 3, 1 / 3, 1 / 3],
    ],
    1e-6,
    'softmax',
  );
  assertClose(
    core.softmax(
      [
        [0, 1],
        [0, 1],
      ],
      { axis: 'columns' },
    ),
    [
      [0.5, 0.5],
      [0.5, 0.5],
    ],
    1e-6,
    'by columns',
  );
  const identity = [
    [1, 0, 0],
    [0, 1, 0],
    [0, 0, 1],
  ];
  const m = core.multiHead(inputs, { heads: [seed003, seed003], Wo: [...identity, ...identity].map((r) => [...r]) }, { score: 'dot' });
  assert.equal(m.heads.length, 2);
  assert.deepEqual([m.concat.rows, m.concat.cols], [3, 6]);
  const single = core.attention(inputs, seed003, { score: 'dot' }).output.data;
  m.output.data.forEach((v, i) => assert.ok(Math.abs(v - 2 * single[i]) < 1e-5));
});

test('attentionOutput (the SIMD online-softmax kernel) equals the full path across tile edges and masks', () => {
  // The kernel works in 64×64 tiles with f32x4 vectors; sizes straddle both, masks hide whole tiles.
  let state = 7;
  const rand = () => ((state = (state * 1664525 + 1013904223) >>> 0) / 2 ** 32) * 4 - 2;
  const matrix = (rows, cols) => ({ rows, cols, data: Float32Array.from({ length: rows * cols }, rand) });
  for (const [T, d, dk] of [
    [1, 3, 2],
    [5, 4, 3],
    [63, 8, 8],
    [64, 6, 5],
    [65, 8, 16],
    [130, 5, 7],
  ]) {
    const X = matrix(T, d);
    const head = { Wq: matrix(d, dk), Wk: matrix(d, dk), Wv: matrix(d, dk) };
    const padding = Array.from({ length: T }, (_, j) => T > 1 && (j % 3 === 1 || (j >= 64 && j < 128)));
    for (const options of [
      {},
      { score: 'dot' },
      { score: 'cosine' },
      { causal: true },
      { keyPadding: padding },
      { causal: true, keyPadding: padding, temperature: 0.5 },
    ]) {
      const full = core.attention(X, head, options);
      const streamed = core.attentionOutput(full.Q, full.K, full.V, options);
      const what = `T=${T} d_k=${dk} ${JSON.stringify({ ...options, keyPadding: options.keyPadding && 'every 3rd + 64..127' })}`;
      assert.deepEqual([streamed.rows, streamed.cols], [T, dk], what);
      streamed.data.forEach((v, i) =>
        assert.ok(Math.abs(v - full.output.data[i]) <= 1e-5, `${what}: [${i}] ${v} vs ${full.output.data[i]}`),
      );
    }
  }
});

test('errors arrive as AttentionError with the core message', () => {
  const throwsWith = (fn, pattern) => assert.throws(fn, (e) => e instanceof api.AttentionError && pattern.test(e.message), String(pattern));
  throwsWith(() => core.attention([[1, 2, 3]], seed003), /W_Q is 4×3 but must be 3×d_out/);
  throwsWith(() => core.attention([[1, 0, 1, NaN]], seed003), /X \(1×4\) has NaN at row 0, column 3/);
  throwsWith(() => core.attention([], seed003), /X is 0×0/);
  throwsWith(() => core.attention([[1, 2], [3]], seed003), /row 1 has 1 values/);
  throwsWith(() => core.attention(inputs, seed003, { temperature: 0 }), /temperature must be a finite number > 0/);
  throwsWith(() => core.attention(inputs, seed003, { temperature: 'hot' }), /temperature is "hot"/);
  throwsWith(() => core.attention(inputs, seed003, { score: 'magic' }), /unknown score "magic"/);
  throwsWith(() => core.attention(inputs, { ...seed003, bq: [1, 2] }), /b_Q has 2 entries/);
  throwsWith(() => core.parameterFree(inputs, -1), /constant c/);
  throwsWith(() => core.softmax([[Infinity]]), /\+Inf/);
  throwsWith(() => core.multiHead(inputs, { heads: [seed003], Wo: [[1]] }), /W_O is 1×1/);
  throwsWith(() => core.loadVectors(new Uint8Array([1, 2, 3])), /ATTNVEC1/);
  // The module keeps working after errors.
  assert.equal(core.attention(inputs, seed003).weights.rows, 3);
});

test('tokenize and the committed word vectors', async () => {
  assert.deepEqual(core.tokenize('The train, left!'), ['the', 'train', ',', 'left', '!']);
  assert.deepEqual(core.tokenize('<b>hi</b> 🚂'), ['<', 'b', '>', 'hi', '<', '/', 'b', '>', '🚂']);
  // The stems the core tries for a word not in a table (the page fetches their shards too).
  assert.ok(core.stemCandidates('stations').includes('station'));
  assert.ok(core.stemCandidates('cities').includes('city'));
  assert.deepEqual(core.stemCandidates('a'), []);
  assert.throws(
    () => core.stemCandidates(7),
    (e) => e instanceof api.AttentionError,
  );
  const vectors = core.loadVectors(await readFile(path.join(root, 'data/vectors.bin')));
  try {
    assert.ok(vectors.size > 10000);
    const e = vectors.embed('The train left the station on time qwzxvq', 64);
    assert.deepEqual(
      e.tokens.map((t) => t.text),
      ['the', 'train', 'left', 'the', 'station', 'on', 'time', 'qwzxvq'],
    );
    assert.equal(e.tokens[7].lookup, 'unknown');
    assert.equal(e.X.rows, 8);
    assert.equal(e.X.cols, vectors.dim);
    assert.ok(e.X.data.subarray(7 * vectors.dim).every((v) => v === 0));
    const s = core.parameterFree(e.X, Math.sqrt(vectors.dim));
    const row = api.toRows(s.weights)[1];
    const best = row
      .map((w, j) => [w, j])
      .filter(([, j]) => j !== 1)
      .sort((a, b) => b[0] - a[0])[0][1];
    assert.equal(e.tokens[best].text, 'station');
    assert.throws(() => vectors.embed('   '), /empty/);
    assert.throws(() => vectors.embed('a '.repeat(2000), 64), /2000 tokens; at most 64/);
  } finally {
    vectors.delete();
  }
  assert.throws(() => vectors.embed('x'), /deleted/);
});

test('the weighted sum of any weights, cosine parameter-free scores, the weighted sum and the 3^x terms', () => {
  const rows = core.attention(inputs, seed003, { score: 'dot' });
  const byColumns = core.softmax(rows.scaled, { axis: 'columns' });
  // Column j of the weights times V, by hand: Σ_i w(i, j)·v_i … here each output row i = Σ_j w(i, j) v_j.
  const out = api.toRows(core.weightedSum(byColumns, rows.V));
  const w = api.toRows(byColumns),
    v = api.toRows(rows.V);
  out.forEach((row, i) => row.forEach((x, c) => assert.ok(Math.abs(x - w[i].reduce((a, wij, j) => a + wij * v[j][c], 0)) < 1e-4)));
  assert.throws(() => core.weightedSum([[1, 0]], rows.V), /needs one row of V per column/);
  // The article's rounded weights times V: its printed outputs.
  assertClose(
    core.weightedSum(
      [
        [0, 0.5, 0.5],
        [0, 1, 0],
        [0, 0.9, 0.1],
      ],
      rows.V,
    ),
    [
      [2, 7, 1.5],
      [2, 8, 0],
      [2, 7.8, 0.3],
    ],
    1e-5,
    'rounded',
  );
  const cosine = core.parameterFree(
    [
      [3, 4],
      [6, 8],
      [0, 1],
    ],
    1,
    { score: 'cosine' },
  );
  assertClose(
    cosine.scores,
    [
      [1, 1, 0.8],
      [1, 1, 0.8],
      [0.8, 0.8, 1],
    ],
    1e-6,
    'cosine scores',
  );
  const terms = core.softmaxBase3Terms(
    [
      [2, 0],
      [1, 1],
    ],
    { axis: 'columns' },
  );
  assertClose(
    terms.powers,
    [
      [9, 1],
      [3, 3],
    ],
    0,
    '3^x',
  );
  assert.deepEqual(Array.from(terms.sums), [12, 4]);
});

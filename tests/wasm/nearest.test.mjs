// vectors.nearest (the core's NearestWords through the binding) against a plain-JS reference over the
// real data/vectors.bin: every word's cosine with the query in double precision, sorted by the float
// similarity, ties by row. Also exclusions, refusals, and no leak over many calls.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { load, root } from './load.mjs';
import { parseVectors } from '../../scripts/vectors-file.mjs';

let api, core, vectors, table;

/** The reference: brute force in double precision over every word, for q as the core gets it (float32). */
function reference(vector, k, exclude = []) {
  const { count, dim, data: rows, words } = table;
  const q = Float32Array.from(vector);
  const skip = new Set(exclude.map((e) => (typeof e === 'string' ? words.indexOf(e) : e)));
  let qq = 0;
  for (let j = 0; j < dim; j++) qq += q[j] * q[j];
  const all = [];
  for (let i = 0; i < count; i++) {
    if (skip.has(i)) continue;
    let dot = 0,
      vv = 0;
    for (let j = 0; j < dim; j++) {
      dot += q[j] * rows[i * dim + j];
      vv += rows[i * dim + j] * rows[i * dim + j];
    }
    all.push({ id: i, similarity: Math.fround(vv === 0 ? 0 : dot / (Math.sqrt(qq) * Math.sqrt(vv))) });
  }
  all.sort((a, b) => b.similarity - a.similarity || a.id - b.id);
  return all.slice(0, k).map(({ id, similarity }) => ({ word: words[id], id, similarity }));
}

// Same words in the same order, similarities within 1e-5; returns the largest difference.
function assertSame(got, want, where) {
  assert.equal(got.length, want.length, `${where}: ${got.length} words, want ${want.length}`);
  let worst = 0;
  got.forEach((n, r) => {
    assert.equal(n.id, want[r].id, `${where} rank ${r}: ${n.word} (${n.similarity}), reference ${want[r].word} (${want[r].similarity})`);
    assert.equal(n.word, want[r].word);
    const diff = Math.abs(n.similarity - want[r].similarity);
    assert.ok(diff <= 1e-5, `${where} rank ${r}: similarity ${n.similarity} vs ${want[r].similarity}`);
    worst = Math.max(worst, diff);
  });
  return worst;
}

const vectorOf = (word) => vectors.embed(word, 1).X.data;

before(async () => {
  ({ api, core } = await load());
  const bytes = new Uint8Array(await readFile(path.join(root, 'data', 'vectors.bin')));
  vectors = core.loadVectors(bytes);
  table = parseVectors(bytes);
  assert.equal(table.count, vectors.size);
  assert.equal(table.dim, vectors.dim);
});
after(() => vectors?.delete());

test('nearest words equal a double-precision brute force over the real vectors', () => {
  const queries = {};
  for (const w of ['bank', 'check', 'station', 'train', 'river', 'the', ',']) queries[w] = vectorOf(w);
  // What the page will ask about: a word after attention, A(i), here "check" in the default sentence.
  const { tokens, X } = vectors.embed('he cashed a check at the bank', 64);
  const out = core.parameterFree(X, Math.sqrt(vectors.dim)).output;
  const at = tokens.findIndex((t) => t.text === 'check');
  queries['A(check)'] = out.data.subarray(at * out.cols, (at + 1) * out.cols);
  // A plain Array, tiny and huge scales, and a vector along one negative axis.
  queries.array = Array.from(queries.bank, (x, j) => x + Math.sin(j));
  queries.tiny = queries.station.map((x) => x * 1e-30);
  queries.huge = queries.train.map((x) => x * 1e30);
  queries.axis = Float32Array.from({ length: vectors.dim }, (_, j) => (j === 3 ? -1 : 0));
  let worst = 0;
  for (const [name, q] of Object.entries(queries)) {
    for (const k of [1, 10, 60]) worst = Math.max(worst, assertSame(vectors.nearest(q, k), reference(q, k), `${name}, k = ${k}`));
  }
  // The core scores its answer in double precision too, so the two floats differ by a rounding at
  // most (one float step below 1 is 6e-8); its single-precision first pass alone is off by up to ~1e-6.
  assert.ok(worst <= 6e-8, `largest difference from the reference: ${worst}`);
  // A word is its own nearest, at similarity 1.
  const [self] = vectors.nearest(queries.bank, 1);
  assert.equal(self.word, 'bank');
  assert.ok(Math.abs(self.similarity - 1) < 1e-6, String(self.similarity));
});

test('exclude takes words and ids; k beyond what is left gives what is left', () => {
  const q = vectorOf('bank');
  const five = vectors.nearest(q, 5);
  const rest = vectors.nearest(q, 5, { exclude: ['bank', five[1].id, 'bank'] });
  assertSame(rest, reference(q, 5, ['bank', five[1].id]), 'excluding bank and the second');
  assert.deepEqual(
    rest.slice(0, 3).map((n) => n.word),
    [five[2].word, five[3].word, five[4].word],
  );
  const everything = vectors.nearest(q, vectors.size + 10, { exclude: [0, 1, 2] });
  assert.equal(everything.length, vectors.size - 3);
  assertSame(everything.slice(-20), reference(q, vectors.size, [0, 1, 2]).slice(-20), 'the least similar');
});

test('refusals arrive as AttentionError with the reason', () => {
  const q = vectorOf('bank');
  const refuses = (fn, pattern) => assert.throws(fn, (e) => e instanceof api.AttentionError && pattern.test(e.message), String(pattern));
  refuses(() => vectors.nearest(q.subarray(1), 5), /49 values; the word vectors have 50/);
  refuses(
    () =>
      vectors.nearest(
        Array.from(q, (x, j) => (j === 7 ? NaN : x)),
        5,
      ),
    /NaN at index 7/,
  );
  refuses(
    () =>
      vectors.nearest(
        Array.from(q, (x, j) => (j === 2 ? Infinity : x)),
        5,
      ),
    /\+Inf at index 2/,
  );
  refuses(() => vectors.nearest(new Float32Array(vectors.dim), 5), /all zeros/);
  refuses(() => vectors.nearest(q, 0), /k is 0; it must be at least 1/);
  refuses(() => vectors.nearest(q, -3), /k is -3/);
  refuses(() => vectors.nearest(q, 2.5), /k must be a whole number/);
  refuses(() => vectors.nearest(q, '5'), /k must be a whole number/);
  refuses(() => vectors.nearest(['1', ...q.subarray(1)], 5), /vector\[0\] is "1", not a number/);
  refuses(() => vectors.nearest(q, 5, { exclude: ['qwzxv'] }), /cannot exclude "qwzxv": it is not in the vocabulary/);
  refuses(() => vectors.nearest(q, 5, { exclude: [vectors.size] }), /exclude\[0\] is 20586: give a word or a word id from 0 to 20585/);
  refuses(() => vectors.nearest(q, 5, { exclude: 'bank' }), /exclude must be an array/);
});

test('a deleted table refuses, and many calls leave the heap and handles where they were', async () => {
  const bytes = new Uint8Array(await readFile(path.join(root, 'data', 'vectors.bin')));
  const before = core.memory();
  const v = core.loadVectors(bytes);
  const q = vectorOf('train');
  v.nearest(q, 10); // builds the index
  const warm = core.memory();
  for (let i = 0; i < 2000; i++) {
    const k = 1 + (i % 40);
    if (i % 7 === 0) assert.throws(() => v.nearest(new Float32Array(v.dim), k), api.AttentionError);
    else if (i % 11 === 0) assert.throws(() => v.nearest(q, k, { exclude: ['qwzxv'] }), api.AttentionError);
    else assert.equal(v.nearest(q, k, { exclude: i % 2 ? ['train'] : [] }).length, k);
  }
  const after = core.memory();
  assert.equal(after.mallocBytes, warm.mallocBytes, "malloc'd bytes after 2,000 calls");
  assert.equal(after.emvalHandles, warm.emvalHandles, 'live Embind handles');
  assert.equal(after.liveObjects, warm.liveObjects, 'live Embind objects');
  v.delete();
  assert.throws(() => v.nearest(q, 5), /deleted/);
  const freed = core.memory();
  assert.equal(freed.mallocBytes, before.mallocBytes, 'the table and its index freed');
  assert.equal(freed.liveObjects, before.liveObjects);
});

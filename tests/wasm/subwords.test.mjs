// Issue 24 through the wasm API: the stem fallbacks for real text, fastText's character n-grams
// (core.subwordPieces) and the composed vectors of data/vectors-composed.bin attached to the table
// (vectors.attachComposed), for the words the issue lists as falling through.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { load, root } from './load.mjs';

let api, core, vectors, composedOnly, tableBytes;

before(async () => {
  ({ api, core } = await load());
  tableBytes = await readFile(path.join(root, 'data/vectors.bin'));
  vectors = core.loadVectors(tableBytes);
  const composed = await readFile(path.join(root, 'data/vectors-composed.bin'));
  vectors.attachComposed(composed);
  composedOnly = core.loadVectors(composed);
});
after(() => {
  vectors?.delete();
  composedOnly?.delete();
});

/** Row r of a Matrix ({ rows, cols, data }) as a plain array. */
const row = (m, r) => Array.from(m.data.subarray(r * m.cols, (r + 1) * m.cols));
const isZero = (values) => values.every((x) => x === 0);

test("fastText's n-grams: 3 to 6 characters of <word>, by start then length", () => {
  assert.deepEqual(core.subwordPieces('mur'), ['<mu', '<mur', '<mur>', 'mur', 'mur>', 'ur>']);
  assert.equal(core.subwordPieces('station').length, 22);
  assert.deepEqual(core.subwordPieces(''), []);
  assert.throws(() => core.subwordPieces(3), api.AttentionError);
});

test('every word issue 24 lists gets a vector: stemmed or composed, none zero', () => {
  const expected = {
    "you've": ['stemmed', 'you'],
    "aren't": ['stemmed', 'are'],
    "they'll": ['stemmed', 'they'],
    maybe: ['composed', 'maybe'],
    replied: ['stemmed', 'reply'],
    ought: ['composed', 'ought'],
    deserve: ['composed', 'deserve'],
    smarter: ['stemmed', 'smart'],
    someday: ['composed', 'someday'],
    paranoid: ['composed', 'paranoid'],
    afterward: ['composed', 'afterward'],
    "murphy's": ['composed', 'murphy'],
    'non-linear': ['stemmed', 'linear'],
    95: ['stemmed', '90'],
  };
  const words = Object.keys(expected);
  const e = vectors.embed(words.join(' '), 64);
  assert.equal(e.tokens.length, words.length);
  e.tokens.forEach((t, i) => {
    assert.deepEqual([t.lookup, t.matched], expected[t.text], t.text);
    assert.ok(!isZero(row(e.X, i)), `${t.text} has a zero vector`);
    if (t.lookup === 'composed') {
      // Its vector is the composed table's row, to the bit, and its pieces are the matched word's n-grams.
      const alone = composedOnly.embed(t.matched, 1);
      assert.equal(alone.tokens[0].lookup, 'known');
      assert.deepEqual(row(e.X, i), row(alone.X, 0), t.text);
      assert.deepEqual(t.pieces, core.subwordPieces(t.matched));
    } else assert.equal(t.pieces, undefined);
  });
});

test('the table comes first: a sentence of known words embeds exactly as without the composed table', () => {
  const plain = core.loadVectors(tableBytes);
  try {
    const text = 'the train left the station on time; he cashed a check at the bank';
    const a = plain.embed(text, 64),
      b = vectors.embed(text, 64);
    assert.deepEqual(b.tokens, a.tokens);
    assert.deepEqual(Array.from(b.X.data), Array.from(a.X.data));
  } finally {
    plain.delete();
  }
});

test('attachComposed refuses bad bytes and a table of another dimension, and keeps the old table', async () => {
  assert.throws(() => vectors.attachComposed(new Uint8Array([1, 2, 3])), /ATTNVEC1/);
  const narrow = new Uint8Array(20 + 2 + 4 + 1);
  narrow.set(new TextEncoder().encode('ATTNVEC1'));
  const view = new DataView(narrow.buffer);
  view.setUint32(8, 1, true);
  view.setUint32(12, 1, true);
  view.setUint32(16, 2, true);
  narrow.set(new TextEncoder().encode('x\n'), 20);
  view.setFloat32(22, 1, true);
  assert.throws(() => vectors.attachComposed(narrow), /1 dimensions, the word vectors 50/);
  assert.equal(vectors.embed('paranoid', 1).tokens[0].lookup, 'composed');
});

// The store (web/lib/store.js) in node, with the wasm core and the word vectors handed to it as loaded:
// what the reader brings (edited weights, the by-hand sheet's numbers) is replaced through the store,
// never changed in place, and each replacement is one recompute of everything, the by-hand sheet's
// result included.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { Store } from '../../web/lib/store.js';
import { withCell } from '../../web/lib/cells.js';
import { HAND_DEFAULT } from '../../web/lib/compute.js';
import { reference } from './harness.mjs';

let core, vectors;
before(async () => ({ core, vectors } = await reference()));
after(() => vectors?.delete());

/** A store with the core and the whole word-vector table already here (start() is never called: nothing is fetched). */
function loaded(options = {}) {
  const store = new Store({}, options);
  Object.assign(store.sources, { core, vectors });
  const told = [];
  store.subscribe((state, result) => told.push(result));
  store.recompute();
  return { store, told };
}
const numbers = (rows) => rows.map((row) => row.map(Number));

test('the by-hand sheet: its numbers are the store’s, replaced through setHand, and its result comes with every recompute', () => {
  const { store, told } = loaded({ byHand: true });
  assert.equal(store.sources.hand, HAND_DEFAULT, 'the page starts from the example');
  const first = store.handResult;
  assert.ok(first.ok);
  const W = { Wq: numbers(HAND_DEFAULT.Wq), Wk: numbers(HAND_DEFAULT.Wk), Wv: numbers(HAND_DEFAULT.Wv) };
  const exact = core.attentionByColumns(numbers(HAND_DEFAULT.X), W, {});
  assert.deepEqual(Array.from(first.exact.output.data), Array.from(exact.output.data));

  // A change elsewhere recomputes the figure but reuses the sheet's result: same numbers, same object.
  store.set({ temperature: 0.5 });
  assert.equal(store.handResult, first);

  // A typed cell: a new object through the store, one recompute, the old numbers left as they were.
  const before = store.sources.hand;
  const count = told.length;
  store.setHand(withCell(before, 'X', 0, 0, '3'));
  assert.equal(told.length, count + 1, 'one recompute, one redraw');
  assert.equal(before.X[0][0], '1');
  assert.equal(store.sources.hand.X[0][0], '3');
  assert.ok(Object.isFrozen(store.sources.hand.X[0]), 'what the store holds cannot be edited in place');
  const X = numbers(store.sources.hand.X);
  const hand = core.attentionByColumns(X, W, { handShortcuts: true });
  assert.notEqual(store.handResult, first);
  assert.deepEqual(Array.from(store.handResult.hand.output.data), Array.from(hand.output.data));
  assert.notDeepEqual(Array.from(store.handResult.hand.output.data), Array.from(first.hand.output.data));

  // A cell that is not a number: named, and the last good result stays for the sheet to draw.
  const good = store.handResult;
  store.setHand(withCell(store.sources.hand, 'Wk', 1, 2, 'abc'));
  assert.equal(store.handResult.ok, false);
  assert.match(store.handResult.message, /W_K\[2, 3\] is not a number/);
  assert.equal(store.handGood, good);

  // Back to the example.
  store.setHand(HAND_DEFAULT);
  assert.deepEqual(Array.from(store.handResult.exact.output.data), Array.from(first.exact.output.data));
});

test('a widget’s store holds no sheet and computes none', () => {
  const { store } = loaded();
  assert.equal(store.sources.hand, null);
  assert.equal(store.handResult, null);
});

test('edited weights: each edit a new object through setEdits, which makes the weights "edited" in the same recompute', () => {
  // The page's store: its walkthrough (where weights are edited) draws every step, so all come out of the core.
  const { store, told } = loaded({ walkthrough: true });
  store.set({ weights: 'identity', dk: 4 });
  const { W } = store.result.projection;
  const text = (m) => Array.from({ length: m.rows }, (_, r) => Array.from(m.data.subarray(r * m.cols, (r + 1) * m.cols), String));
  const zeros = [['0', '0', '0', '0']];
  const shown = { Wq: text(W.Wq), Wk: text(W.Wk), Wv: text(W.Wv), bq: zeros, bk: zeros, bv: zeros };

  let count = told.length;
  store.setEdits(withCell(shown, 'Wq', 0, 1, '2'));
  assert.equal(told.length, count + 1, 'one recompute, one redraw');
  assert.equal(store.state.weights, 'edited');
  assert.equal(shown.Wq[0][1], '0', 'the weights shown before the first edit are untouched');
  const first = store.sources.edits,
    firstResult = store.result;
  assert.equal(firstResult.edits, first);
  assert.throws(() => {
    first.Wq[0][1] = '7';
  }, TypeError);

  // The next edit starts from the store's edits and leaves them as they were.
  count = told.length;
  store.setEdits(withCell(first, 'Wv', 3, 3, '−1'));
  assert.equal(told.length, count + 1);
  assert.equal(first.Wv[3][3], '1');
  assert.notEqual(store.sources.edits, first);
  assert.notEqual(store.result, firstResult, 'a new edits object: a new Result');
  const X = vectors.embed(store.state.sentence, 64).X;
  const Wv = Array.from({ length: vectors.dim }, (_, r) => Array.from({ length: 4 }, (_, c) => (r === c ? 1 : 0)));
  Wv[3][3] = -1;
  const Wq = Wv.map((row, r) => row.map((v, c) => (r === 3 && c === 3 ? 1 : r === 0 && c === 1 ? 2 : v)));
  const I = Wv.map((row, r) => row.map((v, c) => (r === c ? 1 : 0)));
  const want = core.attention(X, { Wq, Wk: I, Wv }, { score: 'scaled_dot' });
  const got = store.result.steps.output.data;
  want.output.data.forEach((v, i) => assert.ok(Math.abs(got[i] - v) < 1e-6, `output[${i}]: ${got[i]} vs ${v}`));

  // A change that leaves the weights alone reuses the Result: the edits are the same object.
  const result = store.result;
  store.set({ word: 2 });
  assert.equal(store.result, result);

  // A bad cell: the figure keeps the last good result, and names the cell.
  store.setEdits(withCell(store.sources.edits, 'Wk', 0, 0, 'abc'));
  assert.equal(store.result.kind, 'cells');
  assert.equal(store.shown, result);
});

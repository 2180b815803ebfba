// By-hand practice through the JS API under node (the larger module, which holds it): seeded exercises (the same numbers as the native core's
// tests pin), the worked sheet's answer, the check of a learner's cells, and refusals as AttentionError.
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { load } from './load.mjs';
import { HAND_DEFAULT } from '../../web/lib/compute/hand.js';

let api, core, small;
before(async () => {
  ({ api, core } = await load({ larger: true }));
  ({ core: small } = await load());
});

// The page's worked sheet (web/lib/compute/hand.js HAND_DEFAULT: rows of the strings a reader types), as numbers.
const sheet = Object.fromEntries(Object.entries(HAND_DEFAULT).map(([name, rows]) => [name, rows.map((row) => row.map(Number))]));

test('seed 1 draws the numbers the native core pins (tests/core/test_exercise.cpp)', () => {
  const e = core.exercise(1);
  assert.equal(e.seed, 1);
  assert.equal(e.code, 'ZRPZ');
  assert.equal(e.draws, 26);
  assert.deepEqual(api.toRows(e.X), [
    [0, 1, 1, 1],
    [1, 1, 1, 0],
    [1, 1, 0, 0],
    [2, 1, 0, 0],
    [0, 1, 0, 0],
    [0, 1, 1, 0],
  ]);
  assert.deepEqual(api.toRows(e.Wq), [
    [0, 1, 1, 0, 0, 0],
    [0, 0, 1, -1, 0, 0],
    [0, 0, 0, 1, 0, 1],
  ]);
  assert.deepEqual(api.toRows(e.Wk), [
    [1, 0, 0, 0, 1, 0],
    [0, 1, 1, 0, 0, 0],
    [0, 1, 1, 0, 0, 0],
  ]);
  assert.deepEqual(api.toRows(e.Wv), [
    [0, 1, 1, 0, 0, 0],
    [0, 0, 0, 1, 0, 1],
    [0, 1, 1, 0, 0, 0],
  ]);
  assert.deepEqual(core.exercise(1), e, 'the same seed, the same exercise');
  assert.equal(core.exerciseCode(e), 'ZRPZ');
  assert.notDeepEqual(api.toRows(core.exercise(2).X), api.toRows(e.X));
  assert.equal(core.exercise(4294967295).seed, 4294967295);
});

test('the worked sheet: the shortcuts answer, the steps, the gap to the real maths', () => {
  const a = core.exerciseAnswer(sheet);
  assert.deepEqual(api.toRows(a.sums), [[918, 100, 72, 120]]);
  assert.deepEqual(api.toRows(a.powers)[3], [729, 1, 27, 3]);
  assert.ok(Math.abs(a.A.data[12] - 729 / 918) < 1e-6);
  const real = core.exerciseAnswer(sheet, { math: 'real' });
  assert.ok(Math.abs(real.scaled.data[0] - 9 / Math.sqrt(3)) < 1e-5);
  const steps = core.exerciseSteps({ math: 'real' });
  assert.deepEqual(
    steps.map((s) => s.step),
    ['Q', 'K', 'V', 'scores', 'scaled', 'powers', 'sums', 'A', 'Z'],
  );
  assert.equal(steps[4].name, 'S = KᵀQ ÷ √3');
  assert.equal(core.exerciseSteps()[4].name, 'S = floor(KᵀQ ÷ 2)');
  assert.deepEqual(steps[6], { step: 'sums', name: 'Σ = column sums of P', rows: 1, cols: 4 });
  const gap = core.exerciseShortcutGap(sheet);
  assert.ok(gap.aGap > 0.05);
  assert.equal(gap.aCell.step, 'A');
});

test('a cell: right, wrong, and right from the learner own wrong upstream, with its source', () => {
  const right = core.checkExerciseCell(sheet, { step: 'Q', row: 1, col: 2 }, '1');
  assert.equal(right.verdict, 'right');
  assert.equal(right.source, 'row 2 of W_Q · column 3 of X');
  assert.equal(right.cellName, 'Q₂₃');
  const wrong = core.checkExerciseCell(sheet, { step: 'Q', row: 1, col: 2 }, 2);
  assert.equal(wrong.verdict, 'wrong');
  assert.equal(wrong.expected, 1);
  const entries = [{ step: 'K', row: 0, col: 0, value: '3' }];
  const forgiven = core.checkExerciseCell(sheet, { step: 'scores', row: 0, col: 0 }, '12', { entries });
  assert.equal(forgiven.verdict, 'right-from-yours');
  assert.equal(forgiven.expected, 9);
  assert.equal(forgiven.expectedFromYours, 12);
  assert.deepEqual(forgiven.upstreamOff, [{ step: 'K', row: 0, col: 0 }]);
  assert.match(forgiven.hint, /your K₁₁ is off/);
  const fraction = core.checkExerciseCell(sheet, { step: 'A', row: 3, col: 0 }, '729/918');
  assert.equal(fraction.verdict, 'right');
  assert.equal(fraction.tolerance, 0.01);
  const realScaled = core.checkExerciseCell(sheet, { step: 'scaled', row: 0, col: 0 }, '5.20', { math: 'real' });
  assert.equal(realScaled.verdict, 'right');
  assert.equal(core.parseExerciseEntry('−.5'), -0.5);
});

test("the small module (the widget's) has no practice, and says where it is", () => {
  assert.throws(
    () => small.exercise(1),
    (err) => err instanceof api.AttentionError && /loadAttentionWithModel/.test(err.message),
  );
});

test('bad exercise input throws AttentionError with its reason', () => {
  const refuses = (fn, pattern) => assert.throws(fn, (err) => err instanceof api.AttentionError && pattern.test(err.message));
  refuses(() => core.exercise(-1), /seed/);
  refuses(() => core.exercise(1.5), /seed/);
  refuses(() => core.exercise(2 ** 32), /seed/);
  refuses(() => core.parseExerciseEntry('abc'), /not a number or a fraction/);
  refuses(() => core.parseExerciseEntry('1/0'), /divides by zero/);
  refuses(() => core.checkExerciseCell(sheet, { step: 'B', row: 0, col: 0 }, 1), /step/);
  refuses(() => core.checkExerciseCell(sheet, { step: 'sums', row: 1, col: 0 }, 1), /outside/);
  refuses(() => core.checkExerciseCell(sheet, { step: 'Q', row: 0, col: 0 }, 'x'), /not a number/);
  refuses(() => core.checkExerciseCell(sheet, { step: 'Q', row: 0, col: 0 }, 1, { math: 'exact' }), /math/);
  refuses(() => core.exerciseAnswer({ ...sheet, X: [[1, 2]] }), /X must be 6×4/);
  refuses(() => core.exerciseAnswer(null), /givens/);
});

test('checks leak no wasm memory or handles', () => {
  const e = core.exercise(7);
  const run = () => {
    for (let i = 0; i < 200; i++) {
      core.checkExerciseCell(e, { step: 'Z', row: 0, col: 0 }, '1.5', { entries: [{ step: 'A', row: 0, col: 0, value: '1/3' }] });
      try {
        core.parseExerciseEntry('nope');
      } catch {
        // refused, as it should be
      }
    }
  };
  run();
  const before = core.memory();
  run();
  const after = core.memory();
  assert.equal(after.mallocBytes, before.mallocBytes);
  if (before.emvalHandles !== null) assert.equal(after.emvalHandles, before.emvalHandles);
});

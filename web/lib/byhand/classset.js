// A class set of by-hand sheets (page only): N different exercises from a starting seed (seeds start,
// start+1, …), each printed as a worksheet with its seed and four-letter code, then its answer key on a
// page of its own with the real maths beside the shortcuts. One PDF from the browser's print (the
// worksheet's print rules in style.css: one page per sheet and per key). Every number is the core's.
import { h } from '../dom.js';
import { num } from '../format.js';

/** The most sheets one print makes (2 pages each). */
export const MAX_SHEETS = 60;
const SUBSCRIPT = '₀₁₂₃₄₅₆₇₈₉';
const cellName = ({ step, row, col }) => `${step}${SUBSCRIPT[row + 1]}${SUBSCRIPT[col + 1]}`;
const at = (m, { row, col }) => m.data[row * m.cols + col];

/**
 * The sheets of seeds start … start+count−1 for Worksheet.fillAll: { result (the shape of the by-hand
 * sheet's: X, W, hand, exact, powers, sums), meta: { label, keyNote } } each, from `core` (the API with
 * the exercise part). Throws AttentionError for a bad seed.
 */
export function classSheets(core, { start, count }) {
  const sheets = [];
  for (let k = 0; k < count; k++) {
    const exercise = core.exercise((start + k) % 2 ** 32);
    const a = core.exerciseAnswer(exercise);
    const real = core.exerciseAnswer(exercise, { math: 'real' });
    const gap = core.exerciseShortcutGap(exercise);
    const result = {
      X: exercise.X,
      W: { Wq: exercise.Wq, Wk: exercise.Wk, Wv: exercise.Wv },
      hand: { Q: a.Q, K: a.K, V: a.V, scaled: a.scaled, weights: a.A, output: a.Z },
      exact: { scores: a.scores, weights: real.A, output: real.Z },
      powers: a.powers,
      sums: a.sums.data,
    };
    const keyNote =
      `Where the shortcuts differ from the real maths: floor(x/2) stands for ÷√3 ≈ 1.73 and 3^x for e^x, so A moves most at ` +
      `${cellName(gap.aCell)} (${num(at(a.A, gap.aCell), 4)} by the shortcuts, ${num(at(real.A, gap.aCell), 4)} really; ` +
      `${num(gap.aGap, 2)} apart) and Z most at ${cellName(gap.zCell)} (${num(at(a.Z, gap.zCell), 2)} against ` +
      `${num(at(real.Z, gap.zCell), 2)}). Accept either on the sheet; the shortcuts are its own.`;
    sheets.push({ result, meta: { label: `Seed ${exercise.seed} · code ${exercise.code}`, keyNote } });
  }
  return sheets;
}

/** The class-set controls: how many sheets from which seed, and the print button. onPrint({ start, count }). */
export function classSetControls({ startSeed, onPrint }) {
  const count = h('input', { type: 'number', id: 'classset-count', min: 1, max: MAX_SHEETS, value: 30, inputmode: 'numeric' });
  const start = h('input', { type: 'number', id: 'classset-start', min: 0, max: 2 ** 32 - 1, value: startSeed(), inputmode: 'numeric' });
  const message = h('p', { class: 'x-message', role: 'alert', hidden: true });
  const button = h('button', { type: 'button', id: 'classset-print' }, 'Print the class set');
  button.addEventListener('click', () => {
    const n = Number(count.value),
      s = Number(start.value);
    const bad =
      !Number.isInteger(n) || n < 1 || n > MAX_SHEETS
        ? `The number of sheets must be a whole number from 1 to ${MAX_SHEETS}.`
        : !Number.isInteger(s) || s < 0 || s > 2 ** 32 - 1
          ? 'The first seed must be a whole number from 0 to 4294967295.'
          : null;
    message.hidden = !bad;
    message.textContent = bad ?? '';
    if (!bad) onPrint({ start: s, count: n });
  });
  return h(
    'div',
    { class: 'classset no-print' },
    h('h4', {}, 'A class set to print'),
    h(
      'p',
      {},
      'A different sheet for each learner: each with its seed and code, then its answer key on a page of its own (one PDF from the print dialogue).',
    ),
    h('div', { class: 'row' }, h('label', {}, 'Sheets ', count), h('label', {}, 'from seed ', start), button),
    message,
  );
}

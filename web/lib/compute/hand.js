// The by-hand sheet's numbers in the column convention (core.attentionByColumns), with its shortcuts
// and exactly. Part of the one computation (../compute.js).
import { AttentionError } from '../loader.js';
import { badCells, frozenCells, numericMatrix } from '../cells.js';
import { cellMessage } from './parts.js';

/** Matrices of numbers ({ name: rows }) as editable cells hold them: rows of strings, frozen. */
const asCells = (named) =>
  frozenCells(Object.fromEntries(Object.entries(named).map(([k, rows]) => [k, rows.map((row) => row.map(String))])));

// ---- the by-hand sheet --------------------------------------------------------------------------------
/**
 * The by-hand sheet's example (seeds 001/004's layout): 4 tokens as columns of a 6×4 X, 3×6 weights,
 * as the store holds the sheet's numbers: rows of strings (what the reader types), frozen.
 */
export const HAND_DEFAULT = asCells({
  X: [
    [1, 0, 1, 0],
    [0, 2, 0, 1],
    [1, 1, 0, 0],
    [0, 1, 1, 1],
    [2, 0, 1, 0],
    [1, 0, 0, 2],
  ],
  Wq: [
    [1, 0, 1, 0, 0, 1],
    [0, 1, 0, 1, 0, 0],
    [1, 0, 0, 0, 1, 0],
  ],
  Wk: [
    [0, 1, 0, 0, 1, 0],
    [1, 0, 1, 0, 0, 0],
    [0, 0, 0, 1, 0, 1],
  ],
  Wv: [
    [1, 0, 0, 1, 0, 0],
    [0, 1, 1, 0, 0, 0],
    [0, 0, 0, 0, 1, 1],
  ],
});

/**
 * The by-hand sheet in the column convention (core.attentionByColumns): with the sheet's shortcuts
 * (floor(x/2) for ÷√3, 3^x for e^x) and exactly, plus the 3^x powers and column sums of the shortcut
 * softmax (core.softmaxBase3Terms). values: { X, Wq, Wk, Wv } as rows of strings, which the store
 * replaces rather than changes: `previous` is reused while it was computed from the same object.
 * → { ok: true, values, X, W, hand, exact, powers, sums } or { ok: false, values, kind, message }.
 */
export function computeHand(core, values, previous = null) {
  if (previous?.values === values) return previous;
  return { ...handFrom(core, values), values };
}

function handFrom(core, values) {
  const bad = badCells({ X: values.X, W_Q: values.Wq, W_K: values.Wk, W_V: values.Wv });
  if (bad.length) return { ok: false, kind: 'cells', message: `${cellMessage(bad).replace('weights', 'numbers')}` };
  try {
    const X = numericMatrix(values.X);
    const W = { Wq: numericMatrix(values.Wq), Wk: numericMatrix(values.Wk), Wv: numericMatrix(values.Wv) };
    const hand = core.attentionByColumns(X, W, { handShortcuts: true });
    const exact = core.attentionByColumns(X, W, {});
    const { powers, sums } = core.softmaxBase3Terms(hand.scaled, { axis: 'columns' });
    return { ok: true, X, W, hand, exact, powers, sums };
  } catch (err) {
    if (!(err instanceof AttentionError)) throw err;
    return { ok: false, kind: 'error', message: `${err.message}: the results are from the last good numbers.` };
  }
}

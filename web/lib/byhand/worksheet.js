// The printed by-hand worksheet, as the AI-by-Hand sheets lay it out: page 1 gives X and W_Q, W_K, W_V
// and leaves a blank cell for every number to work out (Q, K, V, KᵀQ, floor(·/2), a 3^x row block and a
// column-sum row, A as fractions, Z); page 2 is the answer key, every number from the core, A's entries
// as fraction = decimal (729/918 = .7941). Printed from #worksheet (index.html), shown only in print.
import { h } from '../dom.js';
import { num } from '../format.js';

export const TOKENS = ['x1', 'x2', 'x3', 'x4'];
export const FEATURES = ['f1', 'f2', 'f3', 'f4', 'f5', 'f6'];
export const QK_ROWS = ['d1', 'd2', 'd3'];

/** "0.7941" → ".7941" (the sheets' style), "1.0000" stays. */
const short = (x) => num(x, 4).replace(/^0\./, '.').replace(/^−0\./, '−.');

/** One grid: a caption, column labels, row labels, and cells (text, or '' for a blank to fill in). */
function grid(caption, name, rowLabels, colLabels, cell, { wide = false, givens = false } = {}) {
  return h(
    'table',
    { class: `sheet-grid${wide ? ' wide' : ''}${givens ? ' givens' : ''}`, 'data-name': name },
    h('caption', {}, caption),
    h('thead', {}, h('tr', {}, h('td', { class: 'corner' }), ...colLabels.map((c) => h('th', { scope: 'col' }, c)))),
    h(
      'tbody',
      {},
      ...rowLabels.map((r, i) =>
        h(
          'tr',
          {},
          h('th', { scope: 'row' }, r),
          ...colLabels.map((_, j) => {
            const text = cell(i, j);
            return h('td', { class: text === '' ? 'blank' : 'given' }, text);
          }),
        ),
      ),
    ),
  );
}

const at = (m, r, c) => m.data[r * m.cols + c];

export class Worksheet {
  constructor(root) {
    this.root = root;
  }

  /** Fills both pages from the by-hand result { X, W, hand, exact, powers, sums }. */
  fill(result) {
    this.root.replaceChildren(...pages(result));
  }

  /** Fills the root with several sheets, each followed by its key (pages() of each). */
  fillAll(sheets) {
    this.root.replaceChildren(...sheets.flatMap(({ result, meta }) => pages(result, meta)));
  }
}

/**
 * A sheet and its answer key, two <section class="sheet-page">s, from the by-hand result { X, W, hand,
 * exact, powers, sums }. meta (a practice sheet's, classset.js): { label ("Seed 12 · code ABCD", on both
 * pages), keyNote (what the key says about the shortcuts against the real maths) }.
 */
export function pages({ X, W, hand, exact, powers, sums }, meta = null) {
  const given = (m) => (i, j) => num(at(m, i, j), 0);
  const sheet = (key) => {
    const val =
      (m, digits = 0) =>
      (i, j) =>
        key ? num(at(m, i, j), digits) : '';
    const fraction = (i, j) => (key ? `${num(at(powers, i, j), 0)}/${num(sums[j], 0)} = ${short(at(hand.weights, i, j))}` : '');
    return h(
      'section',
      { class: `sheet-page${key ? ' answer-key' : ''}` },
      h('h2', {}, key ? 'Self-attention by hand: answer key' : 'Self-attention by hand: worksheet'),
      meta ? h('p', { class: 'sheet-label' }, meta.label, key ? '' : '\u2003Name: ____________________') : null,
      h(
        'p',
        { class: 'sheet-note' },
        key
          ? `Every number from the WebAssembly core (${meta ? 'the exercise of this seed' : 'attentionByColumns'}, with the sheet’s shortcuts). A = 3^x ÷ its column’s sum.`
          : 'Tokens are columns. Work down the page: Q = W_Q·X, K = W_K·X, V = W_V·X; scores KᵀQ; scale with floor(x/2) (for ÷√3); raise 3 to each; add each column; divide by the column’s sum to get A (each column sums to 1); Z = V·A.',
      ),
      // A class set's key leaves its givens to the sheet of the same seed and code: the page holds the
      // real maths and the note on the shortcuts instead.
      key && meta
        ? h('p', { class: 'sheet-note' }, 'X, W_Q, W_K and W_V are on the worksheet with the same seed and code.')
        : h(
            'div',
            { class: 'sheet-row' },
            grid('X (given)', 'ws-X', FEATURES, TOKENS, given(X), { givens: true }),
            h(
              'div',
              { class: 'sheet-stack' },
              grid('W_Q (given)', 'ws-Wq', QK_ROWS, FEATURES, given(W.Wq), { givens: true }),
              grid('W_K (given)', 'ws-Wk', QK_ROWS, FEATURES, given(W.Wk), { givens: true }),
            ),
            grid('W_V (given)', 'ws-Wv', QK_ROWS, FEATURES, given(W.Wv), { givens: true }),
          ),
      h(
        'div',
        { class: 'sheet-row' },
        grid('Q = W_Q·X', 'ws-Q', QK_ROWS, TOKENS, val(hand.Q)),
        grid('K = W_K·X', 'ws-K', QK_ROWS, TOKENS, val(hand.K)),
        grid('V = W_V·X', 'ws-V', QK_ROWS, TOKENS, val(hand.V)),
      ),
      h(
        'div',
        { class: 'sheet-row' },
        grid('KᵀQ', 'ws-scores', TOKENS, TOKENS, val(exact.scores)),
        grid('floor(KᵀQ / 2)', 'ws-scaled', TOKENS, TOKENS, val(hand.scaled)),
        h(
          'div',
          { class: 'sheet-stack' },
          grid('3^x', 'ws-powers', TOKENS, TOKENS, val(powers)),
          grid('column sums', 'ws-sums', ['Σ'], TOKENS, (i, j) => (key ? num(sums[j], 0) : '')),
        ),
      ),
      h(
        'div',
        { class: 'sheet-row' },
        grid('A = 3^x ÷ Σ (fraction = decimal)', 'ws-A', TOKENS, TOKENS, fraction, { wide: true }),
        grid('Z = V·A', 'ws-Z', QK_ROWS, TOKENS, val(hand.output, 2)),
      ),
      key && meta
        ? h(
            'div',
            { class: 'sheet-row' },
            grid('A with the real maths (÷√3, e^x)', 'ws-A-real', TOKENS, TOKENS, (i, j) => short(at(exact.weights, i, j))),
            grid('Z with the real maths', 'ws-Z-real', QK_ROWS, TOKENS, (i, j) => num(at(exact.output, i, j), 2)),
          )
        : null,
      key && meta ? h('p', { class: 'sheet-note' }, meta.keyNote) : null,
    );
  };
  return [sheet(false), sheet(true)];
}

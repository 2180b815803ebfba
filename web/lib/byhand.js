// By-hand mode (page only), after the "Self-attention by hand" sheets (seeds 001/004): the column
// convention, 4 tokens as columns of a 6×4 X, 3×6 weights, Q = W_Q·X, K = W_K·X, V = W_V·X,
// scores KᵀQ, softmax down each column, Z = V·A. The hand shortcuts (floor(x/2) for ÷√3, 3^x for e^x)
// beside the exact values. Both come from the core (attentionByColumns with and without
// handShortcuts); every cell is editable; "Print a blank worksheet" prints the same layout empty.
import { h } from './dom.js';
import { drawLegend } from './heatmap.js';
import { badCells, editTable, formula, frac, matrixTable, mi, mo, mrow, numeric, sqrt, sub, sup } from './tables.js';

export const HAND_DEFAULT = Object.freeze({
  X: [[1, 0, 1, 0], [0, 2, 0, 1], [1, 1, 0, 0], [0, 1, 1, 1], [2, 0, 1, 0], [1, 0, 0, 2]],
  Wq: [[1, 0, 1, 0, 0, 1], [0, 1, 0, 1, 0, 0], [1, 0, 0, 0, 1, 0]],
  Wk: [[0, 1, 0, 0, 1, 0], [1, 0, 1, 0, 0, 0], [0, 0, 0, 1, 0, 1]],
  Wv: [[1, 0, 0, 1, 0, 0], [0, 1, 1, 0, 0, 0], [0, 0, 0, 0, 1, 1]],
});
const TOKENS = ['x1', 'x2', 'x3', 'x4'];

function legend() {
  const box = h('div', { class: 'legend-wrap no-print' });
  drawLegend(box, 1, 'a weight of 1');
  return box;
}

export class ByHand {
  constructor(root, { core }) {
    this.core = core;
    this.values = { X: HAND_DEFAULT.X.map((r) => r.map(String)), Wq: HAND_DEFAULT.Wq.map((r) => r.map(String)), Wk: HAND_DEFAULT.Wk.map((r) => r.map(String)), Wv: HAND_DEFAULT.Wv.map((r) => r.map(String)) };
    const e = (this.els = {});
    e.message = h('p', { class: 'x-message', role: 'alert', hidden: true });
    e.inputs = h('div', { class: 'editor-row hand-inputs' });
    e.results = h('div', { class: 'hand-results' });
    e.print = h('button', { type: 'button', id: 'print-blank' }, 'Print a blank worksheet');
    e.reset = h('button', { type: 'button', id: 'hand-reset' }, 'Back to the example numbers');
    root.append(
      h('p', {}, 'Tokens are columns here, as on the hand-exercise sheets. Each column of the weight matrix A sums to 1. ',
        'The “by hand” columns use the sheets’ shortcuts: floor(x/2) instead of ÷√3 (≈ 1.73), and 3', h('sup', {}, 'x'), ' instead of e', h('sup', {}, 'x'), '.'),
      formula('Q equals W Q X, K equals W K X, V equals W V X; A equals softmax down the columns of K transpose Q over root d k; Z equals V A',
        mi('Q'), mo('='), sub('W', 'Q'), mi('X'), mo(',\u2003'), mi('A'), mo('='), mrow(mi('softmax'), sub(mo('↓'), mi('col'))), mo('('),
        frac(mrow(sup('K', 'T'), mi('Q')), sqrt(sub('d', 'k'))), mo(')'), mo(',\u2003'), mi('Z'), mo('='), mi('V'), mi('A')),
      h('div', { class: 'row no-print' }, e.print, e.reset),
      e.message, e.inputs, e.results);
    e.print.addEventListener('click', () => this.printBlank());
    e.reset.addEventListener('click', () => {
      for (const k of Object.keys(this.values)) this.values[k] = HAND_DEFAULT[k].map((r) => r.map(String));
      this.#buildInputs();
      this.render();
    });
    this.#buildInputs();
    this.render();
  }

  #buildInputs() {
    const onChange = () => this.render();
    const dims = ['f1', 'f2', 'f3', 'f4', 'f5', 'f6'];
    this.els.inputs.replaceChildren(
      h('div', { class: 'editor' }, editTable(this.values.X, { caption: 'X (6 features × 4 tokens)', name: 'X', rowLabels: dims, colLabels: TOKENS, onChange })),
      ...[['Wq', 'W_Q'], ['Wk', 'W_K'], ['Wv', 'W_V']].map(([k, name]) => h('div', { class: 'editor' },
        editTable(this.values[k], { caption: `${name} (3×6)`, name, colLabels: dims, onChange }))));
  }

  render() {
    const bad = badCells({ X: this.values.X, W_Q: this.values.Wq, W_K: this.values.Wk, W_V: this.values.Wv });
    const e = this.els;
    if (bad.length) {
      e.message.textContent = `${bad.slice(0, 3).join(', ')}${bad.length > 3 ? ` and ${bad.length - 3} more` : ''} ${bad.length > 1 ? 'are' : 'is'} not a number: the results below are from the last good numbers.`;
      e.message.hidden = false;
      return;
    }
    let hand, exact;
    try {
      const X = numeric(this.values.X);
      const W = { Wq: numeric(this.values.Wq), Wk: numeric(this.values.Wk), Wv: numeric(this.values.Wv) };
      hand = this.core.attentionByColumns(X, W, { handShortcuts: true });
      exact = this.core.attentionByColumns(X, W, {});
    } catch (err) {
      e.message.textContent = `${err.message} — the results below are from the last good numbers.`;
      e.message.hidden = false;
      return;
    }
    e.message.hidden = true;
    this.last = { hand, exact };
    const t = (mat, caption, name, o = {}) => matrixTable(mat, { caption, name, colLabels: TOKENS, ...o });
    const qk = ['d1', 'd2', 'd3'];
    e.results.replaceChildren(
      h('div', { class: 'matrix-row' },
        t(exact.Q, 'Q = W_Q·X', 'hand-Q', { rowLabels: qk }),
        t(exact.K, 'K = W_K·X', 'hand-K', { rowLabels: qk }),
        t(exact.V, 'V = W_V·X', 'hand-V', { rowLabels: qk })),
      t(exact.scores, 'KᵀQ (scores: key rows, query columns)', 'hand-scores', { rowLabels: TOKENS }),
      h('div', { class: 'hand-compare' },
        h('div', { class: 'hand-col' }, h('h4', {}, 'By hand'),
          t(hand.scaled, 'floor(KᵀQ / 2)', 'hand-scaled', { rowLabels: TOKENS }),
          t(hand.weights, 'A: 3^x, each column ÷ its sum', 'hand-weights', { rowLabels: TOKENS, heat: true, max: 1 }),
          t(hand.output, 'Z = V·A', 'hand-output', { rowLabels: qk })),
        h('div', { class: 'hand-col' }, h('h4', {}, 'Exact'),
          t(exact.scaled, 'KᵀQ / √3', 'exact-scaled', { rowLabels: TOKENS }),
          t(exact.weights, 'A: softmax (e^x) down each column', 'exact-weights', { rowLabels: TOKENS, heat: true, max: 1 }),
          t(exact.output, 'Z = V·A', 'exact-output', { rowLabels: qk }))),
      legend());
  }

  /** Prints the worksheet layout with every cell empty (print CSS: body.print-blank, one page). */
  printBlank() {
    document.body.classList.add('print-blank');
    const done = () => {
      document.body.classList.remove('print-blank');
      window.removeEventListener('afterprint', done);
    };
    window.addEventListener('afterprint', done);
    window.print();
  }
}

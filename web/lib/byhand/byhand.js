// The by-hand sheet (page only), after the "Self-attention by hand" sheets (seeds 001/004): the column
// convention, 4 tokens as columns of a 6×4 X, 3×6 weights, Q = W_Q·X, K = W_K·X, V = W_V·X, scores KᵀQ,
// softmax down each column, Z = V·A; the sheet's shortcuts (floor(x/2) for ÷√3, 3^x for e^x, with the
// powers and column sums written out) beside the exact values. Its numbers live in the page's store
// (store.sources.hand, edited here through store.setHand), the store computes its result with the rest
// (store.handResult, and store.handGood under a bad cell), and "Print the worksheet" prints them as a
// worksheet with an answer key (worksheet.js). Below it, practice (practice.js: fresh exercises whose
// cells the core checks) and a class set to print (classset.js), from the larger wasm module on demand.
import { h } from '../dom.js';
import { loadLargerCore } from '../loader.js';
import { Practice } from './practice.js';
import { classSetControls, classSheets } from './classset.js';
import { Predict } from '../predict/predict.js';
import { drawLegend } from '../heatmap/legend.js';
import { HAND_DEFAULT } from '../compute.js';
import { withCell } from '../cells.js';
import { formula, frac, mi, mo, mrow, sqrt, sub, sup } from '../math.js';
import { editTable, matrixTable } from '../tables.js';
import { FEATURES, QK_ROWS, TOKENS, Worksheet } from './worksheet.js';

export class ByHand {
  constructor(root, { store }) {
    this.store = store;
    const e = (this.els = {});
    e.message = h('p', { class: 'x-message', role: 'alert', hidden: true });
    e.inputs = h('div', { class: 'editor-row hand-inputs' });
    // A and Z stay covered until the learner has guessed a column of A (or skipped the guess): predict first.
    e.results = h('div', { class: 'hand-results veiled' });
    e.print = h('button', { type: 'button', id: 'print-worksheet' }, 'Print the worksheet (with an answer key)');
    e.reset = h('button', { type: 'button', id: 'hand-reset' }, 'Back to the example numbers');
    this.worksheet = new Worksheet(document.getElementById('worksheet'));
    // Before reading A below: guess a query column of it (the core's A with the sheet's shortcuts).
    e.predict = h('div', { class: 'predict no-print', id: 'predict' });
    new Predict(e.predict, {
      labels: TOKENS,
      queries: TOKENS,
      title: 'Each column of A is one token’s attention over the tokens; A and Z below stay covered until you reveal.',
      onReveal: () => {
        e.results.classList.remove('veiled');
        this.#veil();
      },
      weightsOf: (j) => {
        const A = this.store.handGood?.hand.weights;
        return A ? Array.from({ length: A.rows }, (_, i) => A.data[i * A.cols + j]) : null;
      },
    });
    root.append(
      h(
        'p',
        {},
        'Tokens are columns here, as on the hand-exercise sheets. Each column of the weight matrix A sums to 1. ',
        'The “by hand” column uses the sheets’ shortcuts: floor(x/2) instead of ÷√3 (≈ 1.73), and 3',
        h('sup', {}, 'x'),
        ' instead of e',
        h('sup', {}, 'x'),
        '.',
      ),
      formula(
        'Q equals W Q X, K equals W K X, V equals W V X; A equals softmax down the columns of K transpose Q over root d k; Z equals V A',
        mi('Q'),
        mo('='),
        sub('W', 'Q'),
        mi('X'),
        mo(',\u2003'),
        mi('A'),
        mo('='),
        mrow(mi('softmax'), sub(mo('↓'), mi('col'))),
        mo('('),
        frac(mrow(sup('K', 'T'), mi('Q')), sqrt(sub('d', 'k'))),
        mo(')'),
        mo(',\u2003'),
        mi('Z'),
        mo('='),
        mi('V'),
        mi('A'),
      ),
      h('div', { class: 'row no-print' }, e.print, e.reset),
      e.message,
      e.inputs,
      e.predict,
      e.results,
    );
    const practice = h('div', { class: 'practice', id: 'practice' });
    e.classMessage = h('p', { class: 'x-message', role: 'alert', hidden: true });
    root.append(practice);
    this.practice = new Practice(practice, { loadCore: loadLargerCore, onPrint: (seed) => this.printClassSet({ start: seed, count: 1 }) });
    root.append(
      classSetControls({
        startSeed: () => this.practice.seed ?? crypto.getRandomValues(new Uint32Array(1))[0],
        onPrint: (set) => this.printClassSet(set),
      }),
      e.classMessage,
    );
    e.print.addEventListener('click', () => this.print());
    e.reset.addEventListener('click', () => store.setHand(HAND_DEFAULT));
    store.subscribe(() => this.render());
    this.render();
  }

  /**
   * The cells, holding the store's numbers `values`. A typed cell sends the numbers with that cell
   * replaced to the store (which recomputes once, and every view redraws); the cells are rebuilt only
   * when the numbers come from elsewhere (the reset), never under the reader's typing.
   */
  #buildInputs(values) {
    this.inCells = values; // the numbers the cells show
    const v = values,
      changer = (name) => (r, c, text) => {
        this.inCells = withCell(this.store.sources.hand, name, r, c, text);
        this.store.setHand(this.inCells);
      };
    this.els.inputs.replaceChildren(
      h(
        'div',
        { class: 'editor' },
        editTable(v.X, { caption: 'X (6 features × 4 tokens)', name: 'X', rowLabels: FEATURES, colLabels: TOKENS, onChange: changer('X') }),
      ),
      ...[
        ['Wq', 'W_Q'],
        ['Wk', 'W_K'],
        ['Wv', 'W_V'],
      ].map(([k, name]) =>
        h('div', { class: 'editor' }, editTable(v[k], { caption: `${name} (3×6)`, name, colLabels: FEATURES, onChange: changer(k) })),
      ),
    );
  }

  /** Draws the store's by-hand numbers and result (the last good one under a bad cell, which the message names). */
  render() {
    const { sources, handResult: r, handGood: good } = this.store,
      e = this.els;
    if (sources.hand !== this.inCells) this.#buildInputs(sources.hand);
    e.message.hidden = !r || r.ok;
    if (r && !r.ok) e.message.textContent = r.message;
    if (!good || good === this.drawn) return;
    this.drawn = good;
    const { hand, exact, powers, sums } = good;
    const t = (mat, caption, name, o = {}) => matrixTable(mat, { caption, name, colLabels: TOKENS, ...o });
    const legend = h('div', { class: 'legend-wrap no-print' });
    drawLegend(legend, 1, { what: 'a weight of 1' });
    e.results.replaceChildren(
      h(
        'div',
        { class: 'matrix-row' },
        t(exact.Q, 'Q = W_Q·X', 'hand-Q', { rowLabels: QK_ROWS }),
        t(exact.K, 'K = W_K·X', 'hand-K', { rowLabels: QK_ROWS }),
        t(exact.V, 'V = W_V·X', 'hand-V', { rowLabels: QK_ROWS }),
      ),
      t(exact.scores, 'KᵀQ (scores: key rows, query columns)', 'hand-scores', { rowLabels: TOKENS }),
      h(
        'div',
        { class: 'hand-compare' },
        h(
          'div',
          { class: 'hand-col' },
          h('h4', {}, 'By hand'),
          t(hand.scaled, 'floor(KᵀQ / 2)', 'hand-scaled', { rowLabels: TOKENS }),
          t(powers, '3^x, then each column’s sum Σ', 'hand-powers', { rowLabels: TOKENS }),
          t({ rows: 1, cols: 4, data: sums }, 'Σ (column sums)', 'hand-sums', { rowLabels: ['Σ'] }),
          t(hand.weights, 'A: 3^x, each column ÷ its sum', 'hand-weights', { rowLabels: TOKENS, heat: true, max: 1 }),
          t(hand.output, 'Z = V·A', 'hand-output', { rowLabels: QK_ROWS }),
        ),
        h(
          'div',
          { class: 'hand-col' },
          h('h4', {}, 'Exact'),
          t(exact.scaled, 'KᵀQ / √3', 'exact-scaled', { rowLabels: TOKENS }),
          t(exact.weights, 'A: softmax (e^x) down each column', 'exact-weights', { rowLabels: TOKENS, heat: true, max: 1 }),
          t(exact.output, 'Z = V·A', 'exact-output', { rowLabels: QK_ROWS }),
        ),
      ),
      legend,
    );
    this.#veil();
  }

  /** While veiled, A and Z are out of reach too (inert), not only blurred: a screen reader would read them out. */
  #veil() {
    const veiled = this.els.results.classList.contains('veiled');
    for (const name of ['hand-weights', 'hand-output', 'exact-weights', 'exact-output']) {
      const box = this.els.results.querySelector(`table[data-name="${name}"]`)?.closest('.matrix-wrap');
      if (box) box.inert = veiled;
    }
  }

  /** Prints the worksheet: givens filled, blank cells per step, then the answer key on a second page. */
  print() {
    const good = this.store.handGood;
    if (!good) return;
    this.worksheet.fill(good);
    this.worksheet.root.dataset.sheets = '1';
    this.#printWorksheet();
  }

  /** Prints a class set ({ start, count }: seeds start … start+count−1), each sheet followed by its key. */
  async printClassSet(set) {
    const e = this.els;
    try {
      this.worksheet.fillAll(classSheets(await loadLargerCore(), set));
    } catch (err) {
      e.classMessage.hidden = false;
      e.classMessage.textContent = `The class set could not be made: ${err.message}`;
      return;
    }
    e.classMessage.hidden = true;
    this.worksheet.root.dataset.sheets = String(set.count);
    this.#printWorksheet();
  }

  /** The browser's print of #worksheet alone (style.css's print-worksheet rules), then the page as it was. */
  #printWorksheet() {
    document.body.classList.add('print-worksheet');
    const done = () => {
      document.body.classList.remove('print-worksheet');
      removeEventListener('afterprint', done);
    };
    addEventListener('afterprint', done);
    print();
  }
}

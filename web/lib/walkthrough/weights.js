// Step 2, "Initialise the weights": none (parameter-free), or W_Q, W_K, W_V (and biases) as editable
// tables: identity, seeded random, seed 003's own or the reader's edits. Editing a cell makes the
// weights "edited" for the whole page (the figure follows): each edit sends the store a new set of
// weights (store.setEdits), the one it replaces left as it was. With the trained model: its learnt weights
// of the layer and head shown, read-only. Rows are named d1…d_d: they meet X's columns of those names.
import { h, morph } from '../dom.js';
import { num } from '../format.js';
import { formula, mi, mn, mo, mrow, sub } from '../math.js';
import { editTable } from '../tables.js';
import { withCell } from '../cells.js';
import { asRow, dimLabels, stepSection } from './kit.js';

const toStrings = (mat) =>
  Array.from({ length: mat.rows }, (_, r) =>
    Array.from(mat.data.subarray(r * mat.cols, (r + 1) * mat.cols), (v) => num(v, Number.isInteger(v) ? 0 : 4)),
  );
const zeros = (n) => [Array(n).fill('0')];

export class WeightsStep {
  /** store: the page's store (edited weights live there); edit(next): the reader's new weights, for the store. */
  constructor(store, edit) {
    this.store = store;
    this.edit = edit;
    ({ el: this.el, body: this.body } = stepSection(2, 'step-weights', 'Initialise the weights'));
    this.body.classList.add('editors');
  }

  draw(state, r, ctx) {
    if (r.kind === 'model') return this.#learnt(r, ctx);
    if (r.projection.mode === 'free') {
      this.key = 'free';
      morph(this.body, [
        h(
          'p',
          {},
          'No weights: parameter-free self-attention (seed 000, equation I) uses the word vectors themselves as queries, keys and values.',
        ),
        formula('Q equals K equals V equals X', mi('Q'), mo('='), mi('K'), mo('='), mi('V'), mo('='), mi('X')),
        h(
          'p',
          { class: 'muted' },
          'Pick “identity” or “random” weights above, then edit any cell, to give the attention weights of its own.',
        ),
      ]);
      return;
    }
    // The editors are rebuilt only when their shape or source changes, never while the reader types.
    const d = r.d,
      dk = r.projection.dk,
      mode = r.projection.mode;
    const key = `${mode}/${d}/${dk}/${state.bias}/${mode === 'random' ? state.seed : ''}/${mode === 'edited' ? '' : r.key}`;
    if (key === this.key) return;
    this.key = key;
    const W =
      mode === 'edited'
        ? this.store.sources.edits
        : {
            Wq: toStrings(r.projection.W.Wq),
            Wk: toStrings(r.projection.W.Wk),
            Wv: toStrings(r.projection.W.Wv),
            bq: zeros(dk),
            bk: zeros(dk),
            bv: zeros(dk),
          };
    // The first edit starts from the weights shown (the key then says "edited", so the cells stay as
    // they are); every later one from the store's latest edits.
    const changer = (name) => (row, col, text) => {
      const from = this.store.state.weights === 'edited' ? this.store.sources.edits : W;
      this.key = `edited/${d}/${dk}/${state.bias}//`;
      this.edit(withCell(from, name, row, col, text));
    };
    const rowLabels = r.kind === 'seed003' ? null : dimLabels(d);
    const block = (name, label, k, b) =>
      h(
        'div',
        { class: 'editor' },
        state.bias
          ? editTable(W[b], { caption: `b_${label} (1×${dk})`, name: `b_${label}`, rowLabels: ['b'], onChange: changer(b) })
          : null,
        editTable(W[k], { caption: `W_${label} (d_model × d_k = ${d}×${dk})`, name, rowLabels, onChange: changer(k) }),
      );
    const b = (l) => (state.bias ? [mo('+'), sub('b', l)] : []);
    this.body.replaceChildren(
      formula(
        'Q equals X W Q, K equals X W K, V equals X W V, each plus its bias if any',
        mi('Q'),
        mo('='),
        mi('X'),
        sub('W', 'Q'),
        ...b('Q'),
        mo(',\u2003'),
        mi('K'),
        mo('='),
        mi('X'),
        sub('W', 'K'),
        ...b('K'),
        mo(',\u2003'),
        mi('V'),
        mo('='),
        mi('X'),
        sub('W', 'V'),
        ...b('V'),
      ),
      h(
        'p',
        { class: 'muted' },
        `Every cell is editable (Tab and the arrow keys move between cells); the figure above follows. Row dj of each W meets column dj of X. A cell that is not a number is flagged and the last good result stays on screen.`,
      ),
      h('div', { class: 'editor-row' }, block('W_Q', 'Q', 'Wq', 'bq'), block('W_K', 'K', 'Wk', 'bk'), block('W_V', 'V', 'Wv', 'bv')),
    );
  }

  /** The trained model's learnt W_Q, W_K, W_V and biases of the head shown (read-only). */
  #learnt(r, { kit, limit }) {
    this.key = 'model';
    const { layer, head } = r.model,
      L = layer + 1,
      H = head + 1;
    const w = r.model.learnt(layer).heads[head],
      rowLabels = dimLabels(r.d);
    const ln = () => mrow(sub('LN', mn('1')), mo('('), mi('x'), mo(')'));
    const block = (name, label, W, bias) =>
      h(
        'div',
        { class: 'editor' },
        kit.table(asRow(bias), { limit, caption: `b_${label} (1×${bias.length})`, name: `b_${label}`, rowLabels: ['b'] }),
        kit.table(W, { limit, caption: `W_${label} (d_model × d_k = ${W.rows}×${W.cols})`, name, rowLabels }),
      );
    morph(this.body, [
      h(
        'p',
        {},
        `Learnt weights of layer ${L}, head ${H}: found by training the ${r.model.kind} on WordNet and GCIDE (${r.model.kind === 'encoder' ? 'data/encoder.bin' : 'data/model.bin'}), so fixed, not editable. ` +
          `Each of the layer’s ${r.model.heads} heads has its own W_Q, W_K, W_V (d_model × d_k = ${r.d}×${r.projection.dk}; row dj meets column dj of LN₁(x)) and biases b_Q, b_K, b_V.`,
      ),
      formula(
        'Q equals LN 1 of x times W Q plus b Q, and likewise K and V',
        mi('Q'),
        mo('='),
        ln(),
        sub('W', 'Q'),
        mo('+'),
        sub('b', 'Q'),
        mo(',\u2003'),
        mi('K'),
        mo('='),
        ln(),
        sub('W', 'K'),
        mo('+'),
        sub('b', 'K'),
        mo(',\u2003'),
        mi('V'),
        mo('='),
        ln(),
        sub('W', 'V'),
        mo('+'),
        sub('b', 'V'),
      ),
      h('p', { class: 'muted' }, 'Choose “word vectors” as the figure’s source to give the walkthrough weights of your own.'),
      h('div', { class: 'editor-row' }, block('W_Q', 'Q', w.Wq, w.bq), block('W_K', 'K', w.Wk, w.bk), block('W_V', 'V', w.Wv, w.bv)),
      // Why b_K is all but zero: it adds q_i·b_K to every score of query i alike, which the softmax cancels.
      h(
        'p',
        { class: 'muted' },
        'b_K stays close to 0, where training started it: it adds the same q_i · b_K to all of query i’s scores, which the softmax cancels, so its gradient is zero (up to rounding).',
      ),
    ]);
  }
}

// "Query and key vectors" (BertViz's neuron view): q_i and every k_j as small bars, q∘k entry by entry
// (core.queryTerms: they add up to the score), the score, scaled score and weight. Its nodes stay between
// redraws (one row per key in the window); a redraw rewrites bars, numbers and labels. On a narrow
// screen the stylesheet lays each key out on three lines (table.neuron in style.css); it stays a table.
import { h, setAttrs } from '../dom.js';
import { num } from '../format.js';
import { keysAround, keysNote, stepSection, vectorBars, weightBar } from './kit.js';
import { scrollBox } from '../tables.js';
import { scoreWords } from '../scores.js';

export class VectorsView {
  constructor() {
    ({ el: this.el, body: this.body } = stepSection(null, 'vectors', 'Query and key vectors'));
    const ui = (this.ui = {
      intro: h('p'),
      qName: h('strong'),
      q: vectorBars(),
      caption: h('caption'),
      kHead: h('th', { scope: 'col', role: 'columnheader' }),
      body: h('tbody', { role: 'rowgroup' }),
      rows: [],
    });
    // The roles repeat the elements' own, for browsers that drop a table's semantics when its display changes.
    this.body.append(
      ui.intro,
      h('div', { class: 'qrow' }, ui.qName, ui.q),
      h(
        'div',
        scrollBox('Keys for the query, entry by entry', 'matrix-wrap neuron-wrap'),
        h(
          'table',
          { class: 'matrix neuron', 'data-name': 'neuron', role: 'table' },
          ui.caption,
          h(
            'thead',
            { role: 'rowgroup' },
            h(
              'tr',
              { role: 'row' },
              h('th', { scope: 'col', role: 'columnheader' }, 'key'),
              ui.kHead,
              ...['q∘k', 'score', 'scaled', 'weight'].map((t) => h('th', { scope: 'col', role: 'columnheader' }, t)),
            ),
          ),
          ui.body,
        ),
      ),
    );
  }

  draw(state, r, { word: i, full }) {
    const { steps, labels, T } = r,
      ui = this.ui,
      dk = steps.Q.cols;
    let maxAbs = 0;
    for (const v of steps.Q.data) maxAbs = Math.max(maxAbs, Math.abs(v));
    for (const v of steps.K.data) maxAbs = Math.max(maxAbs, Math.abs(v));
    const wMax = Math.max(1e-9, ...r.weights.data.subarray(i * T, (i + 1) * T));
    const { products } = r.terms(i); // row j: q_i ∘ k_j, entry by entry
    let productMax = 1e-9;
    for (const v of products.data) productMax = Math.max(productMax, Math.abs(v));
    const keys = keysAround(T, i, full);
    const whose =
      r.kind === 'model'
        ? ` (layer ${r.model.layer + 1}, head ${r.model.head + 1} of the trained model: its learnt projections of the word)`
        : '';
    const sumsTo = scoreWords(r.score).byLengths
      ? 'the dot product q·k, which divided by both lengths is the cosine score'
      : 'the dot product q·k, the score';
    ui.intro.textContent = `The query vector of “${labels[i]}”${whose} and each key vector, one bar per dimension (blue above zero, orange below, both to the same scale). q∘k multiplies them entry by entry (its own scale); those products add up to ${sumsTo}, which scaled and softmaxed is the weight.${keysNote(T, keys)}`;
    ui.qName.textContent = `q (${labels[i]})`;
    vectorBars(ui.q, steps.Q.data.subarray(i * dk, (i + 1) * dk), maxAbs, `q of ${labels[i]}`);
    ui.caption.textContent = `Keys for the query “${labels[i]}”`;
    ui.kHead.textContent = `k (${dk} numbers)`;
    while (ui.rows.length < keys.length) {
      const cell = (cls, ...kids) => h('td', { class: cls, role: 'cell' }, ...kids);
      const row = {
        th: h('th', { scope: 'row', role: 'rowheader' }),
        k: vectorBars(),
        p: vectorBars(),
        score: cell('num'),
        scaled: cell('num'),
        wText: h('span'),
        bar: weightBar(),
      };
      row.weight = cell('num weight', h('span', { class: 'wcell' }, row.wText, row.bar));
      row.tr = h('tr', { role: 'row' }, row.th, cell('spark k', row.k), cell('spark qk', row.p), row.score, row.scaled, row.weight);
      ui.body.append(row.tr);
      ui.rows.push(row);
    }
    while (ui.rows.length > keys.length) ui.rows.pop().tr.remove();
    const number = (td, v, text = td) => {
      setAttrs(td, { 'data-value': v });
      setAttrs(text, {}, num(v, 4));
    };
    keys.forEach((j, n) => {
      const row = ui.rows[n],
        l = labels[j];
      setAttrs(row.th, {}, l);
      vectorBars(row.k, steps.K.data.subarray(j * dk, (j + 1) * dk), maxAbs, `k of ${l}`);
      vectorBars(row.p, products.data.subarray(j * dk, (j + 1) * dk), productMax, `q∘k of ${labels[i]} and ${l}`);
      number(row.score, steps.scores.data[i * T + j]);
      number(row.scaled, steps.scaled.data[i * T + j]);
      number(row.weight, r.weights.data[i * T + j], row.wText);
      weightBar(row.bar, r.weights.data[i * T + j] / wMax);
    });
  }
}

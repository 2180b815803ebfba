// Step 6, "Multiply the weights with the values" (α_ij · v_j for every key, from core.queryTerms),
// step 7, "Sum the weighted values" (the weighted sum written out, seed 000's A(i) = Σ α_ij x_j, and the
// output row; for seed 003 also the article's rounded weights and outputs), and step 8, "Repeat for
// every query" (the whole weights and output matrices).
import { h, morph } from '../dom.js';
import { num } from '../format.js';
import { fn, formula, frac, m, mi, mn, mo, mrow, sqrt, sub, sum, sup } from '../math.js';
import { maxOf, offDiagonalMax } from '../heatmap/heatmap.js';
import { keysAround, keysNote, legendBox, rowOf, stepSection } from './kit.js';
import { scrollBox } from '../tables.js';
import { scoreWords } from '../scores.js';

const TERMS = 16; // terms of the weighted sum written out before "…"
const vName = (r) => (r.projection.mode === 'free' ? 'x' : 'v');

export class WeightedStep {
  constructor() {
    ({ el: this.el, body: this.body } = stepSection(6, 'step-weighted', 'Multiply the weights with the values'));
  }

  draw(state, r, { word: i, full }) {
    const weighted = r.terms(i).weighted; // T × d_v: row j = α(i, j)·v_j
    const dv = r.projection.dv,
      shownV = Math.min(dv, full ? dv : 8);
    const keys = keysAround(r.T, i, full),
      v = vName(r);
    const table = h(
      'table',
      { class: 'matrix weighted', 'data-name': 'weighted' },
      h('caption', {}, `Each value vector ${v}_j is scaled by its weight α(${i + 1}, j)`),
      h(
        'thead',
        {},
        h(
          'tr',
          {},
          h('th', { scope: 'col' }, 'key j'),
          h('th', { scope: 'col' }, 'α'),
          h('th', { scope: 'col', colspan: shownV }, `α · ${v}_j (${dv} numbers${shownV < dv ? `, first ${shownV} shown` : ''})`),
        ),
      ),
      h(
        'tbody',
        {},
        ...keys.map((j) =>
          h(
            'tr',
            {},
            h('th', { scope: 'row' }, r.labels[j]),
            h('td', { 'data-value': String(r.weights.data[i * r.T + j]) }, num(r.weights.data[i * r.T + j], 4)),
            ...Array.from({ length: shownV }, (_, c) =>
              h('td', { class: 'v', 'data-value': String(weighted.data[j * dv + c]) }, num(weighted.data[j * dv + c], 4)),
            ),
          ),
        ),
      ),
    );
    morph(this.body, [
      h(
        'p',
        {},
        'Each value row is multiplied by the weight its key got: heavy weights keep their value, light ones nearly vanish. The rows of this table add up to the output in step 7.',
        keysNote(r.T, keys),
      ),
      h('div', scrollBox('Each value vector scaled by its weight'), table),
    ]);
  }
}

export class SumStep {
  constructor() {
    ({ el: this.el, body: this.body } = stepSection(7, 'expansion', 'Sum the weighted values'));
  }

  draw(state, r, { word: i, full, limit, kit }) {
    const w = r.weights.data,
      T = r.T,
      v = vName(r);
    const order = Array.from({ length: T }, (_, j) => j).sort((a, b) => w[i * T + b] - w[i * T + a]);
    const shown = full ? order : order.slice(0, TERMS);
    const terms = shown.map((j, k) => [k ? mo('+') : null, mn(num(w[i * T + j], 4)), mo('·'), sub(v, mi(r.labels[j]))].filter(Boolean));
    if (shown.length < order.length) terms.push([mo('+'), mo('…'), m('mtext', ` (${order.length - shown.length} smaller terms)`)]);
    // One formula per term, so a long sum wraps onto more lines (MathML rows do not break).
    const pieces = [
      formula(
        `A of ${r.labels[i]} equals the weighted sum`,
        mi('A'),
        mo('('),
        mi(r.labels[i]),
        mo(')'),
        mo('='),
        sum('j'),
        sub('α', mrow(mn(String(i + 1)), mi('j'))),
        sub(v, 'j'),
        mo('='),
      ),
    ];
    for (const term of terms) pieces.push(formula(term.map((n) => n.textContent).join(' '), ...term));
    for (const p of pieces) p.classList.add('expansion');
    const kids = [
      h(
        'p',
        {},
        `Add the weighted values up: the output for “${r.labels[i]}” is a blend of every word’s ${v === 'x' ? 'vector' : 'value'}, mostly of the heaviest. Written out with the live weights, largest first:`,
      ),
      h('div', { class: 'expansion-box' }, ...pieces),
      kit.table(rowOf(r.output, i), {
        limit,
        caption: `output for “${r.labels[i]}” (row ${i + 1} of the output, 1×${r.output.cols})`,
        name: 'output-row',
        rowLabels: [r.labels[i]],
      }),
    ];
    if (r.rounding) kids.push(...this.#rounding(r, kit));
    morph(this.body, kids);
  }

  /** Seed 003: the article rounds the weights before it sums; its printed outputs beside the exact ones. */
  #rounding(r, kit) {
    const { rounded, output } = r.rounding();
    return [
      h(
        'p',
        { class: 'rounding-note' },
        'The article prints Output 1 = [2.0, 7.0, 1.5]: it rounds the weights to one decimal (0.0634, 0.4683, 0.4683 become 0.0, 0.5, 0.5) before multiplying. The same sum with its rounded weights, beside the exact one:',
      ),
      kit.row('rounding', [
        kit.table(rounded, {
          caption: 'the article’s rounded weights',
          name: 'rounded-weights',
          rowLabels: r.labels,
          colLabels: r.labels,
          digits: 1,
        }),
        kit.table(output, { caption: 'its outputs = rounded weights · V', name: 'rounded-output', rowLabels: r.labels, digits: 1 }),
        kit.table(r.output, { caption: 'exact outputs = weights · V', name: 'exact-output', rowLabels: r.labels, digits: 4 }),
      ]),
    ];
  }
}

export class AllStep {
  constructor() {
    ({ el: this.el, body: this.body } = stepSection(8, 'step-repeat', 'Repeat for every query'));
  }

  draw(state, r, { word: i, limit, kit }) {
    const apart = state.diagonal === 'apart';
    const max = apart ? offDiagonalMax(r.weights.data, r.T) : maxOf(r.weights.data);
    const free = r.projection.mode === 'free';
    const scores = scoreWords(r.score).byLengths ? fn('cos', mi('Q'), mo(','), mi('K')) : mrow(mi('Q'), sup('K', 'T'));
    morph(this.body, [
      formula(
        'Attention of Q K V equals softmax of the scores, times V',
        fn('Attention', mi('Q'), mo(','), mi('K'), mo(','), mi('V')),
        mo('='),
        fn(
          r.norm === 'columns' ? 'softmax↓' : 'softmax',
          r.scaleDivisor !== 1 ? frac(scores, sqrt(free ? mi('d') : sub('d', 'k'))) : scores,
        ),
        mi('V'),
      ),
      h(
        'p',
        {},
        `Steps 4–7 for every query at once are two matrix products and a ${r.norm === 'columns' ? 'column' : 'row'}-wise softmax.`,
      ),
      kit.row('all', [
        kit.table(r.weights, {
          limit,
          caption: `weights (${r.norm === 'columns' ? 'columns' : 'rows'} sum to 1)`,
          name: 'weights',
          rowLabels: r.labels,
          colLabels: r.labels,
          heat: true,
          max,
          highlightRow: i,
        }),
        kit.table(r.output, { limit, caption: 'output = weights · V', name: 'output', rowLabels: r.labels, highlightRow: i }),
      ]),
      legendBox(max, {
        what: apart
          ? 'the largest weight between two different words (a word’s weight on itself may be brighter than the scale)'
          : 'the largest weight',
      }),
    ]);
  }
}

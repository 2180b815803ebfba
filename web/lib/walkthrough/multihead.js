// "Multi-head: concatenate, then W_O": the same heads as the figure's heads view (its Heads setting and
// seed, or the trained model's heads of the layer shown), each as a small map (choose one to focus it),
// their outputs side by side, W_O and the output; with the model, its learnt W_O, b_O and the stream
// after the layer's attention.
import { h, morph } from '../dom.js';
import { Heatmap, maxOf, offDiagonalMax } from '../heatmap/heatmap.js';
import { drawLegend } from '../heatmap/legend.js';
import { HEAD_SHARPNESS } from '../compute.js';
import { fn, formula, mi, mn, mo, sub } from '../math.js';
import { asRow, stepSection } from './kit.js';

export class MultiHeadStep {
  /** set(changes): a state change (the focused head is state.head); showHeadsControl(): take the reader to the page's Heads control. */
  constructor(set, showHeadsControl) {
    this.set = set;
    ({ el: this.el, body: this.body } = stepSection(null, 'multihead', 'Multi-head: concatenate, then W', h('sub', {}, 'O')));
    const ui = (this.ui = {
      intro: h('p'),
      count: h('button', { type: 'button', class: 'heads-link' }, 'Change the number of heads'),
      grid: h('div', { class: 'heads-grid', role: 'group', 'aria-label': 'Heads: choose one to focus it' }),
      legend: h('div', { class: 'legend-wrap' }),
      focusTitle: h('p', { class: 'head-focus-title' }),
      focus: h('div', { class: 'head-focus' }),
      tables: h('div', { class: 'matrix-row' }),
      focusMap: new Heatmap({ className: 'heatmap head-map focused', table: true }),
    });
    ui.count.addEventListener('click', () => showHeadsControl?.());
    ui.focus.append(ui.focusMap.el);
    // Its width, kept from the observer's reports (reading it while drawing would force a layout).
    new ResizeObserver((entries) => {
      const w = Math.round(entries.at(-1).contentRect.width);
      if (w && w !== ui.width) ui.width = w;
    }).observe(ui.focus);
    const formulaBox = h(
      'div',
      {},
      formula(
        'MultiHead equals Concat of head 1 to head h, times W O',
        mi('MultiHead'),
        mo('='),
        fn('Concat', sub('head', mn('1')), mo(','), mo('…'), mo(','), sub('head', 'h')),
        sub('W', 'O'),
      ),
    );
    const theme = document.documentElement.dataset.theme;
    this.body.append(
      ui.intro,
      h('div', { class: 'row' }, ui.count),
      formulaBox,
      h(
        'div',
        { class: `af theme-${['light', 'dark'].includes(theme) ? theme : 'auto'} heads-area` },
        ui.grid,
        ui.legend,
        ui.focusTitle,
        ui.focus,
      ),
      ui.tables,
    );
    matchMedia('(prefers-color-scheme: dark)').addEventListener?.('change', () => {
      ui.focusMap.restyle();
      for (const box of ui.grid.children) box.map?.restyle();
    });
  }

  draw(state, r, { limit, kit }) {
    const ui = this.ui,
      heads = r.heads(state.heads, state.seed),
      n = heads.maps.length;
    const focused = Math.min(state.head, n - 1),
      apart = state.diagonal === 'apart';
    const max = Math.max(...heads.maps.map((m) => (apart ? offDiagonalMax(m.weights.data, m.weights.rows) : maxOf(m.weights.data))));
    const model = r.kind === 'model';
    ui.count.hidden = model;
    ui.intro.textContent = model
      ? `The ${n} heads of the trained model’s layer ${r.model.layer + 1}, each with its own learnt W_Q, W_K, W_V (d_model × d_k = ${r.d}×${r.projection.dk}), attend in parallel; under each, what it does on held-out text. Their outputs are concatenated side by side and mixed by the learnt W_O.`
      : `${n} head${n > 1 ? 's' : ''} (the figure’s Heads setting, seed ${state.seed}), each with its own random W_Q, W_K, W_V (d_model × d_k = ${r.d}×${heads.dk}; W_Q and W_K at ${HEAD_SHARPNESS}× the Xavier scale so the heads differ), attend in parallel; their outputs are concatenated side by side and mixed by W_O.`;
    if (ui.grid.children.length !== n) {
      ui.grid.replaceChildren(
        ...Array.from({ length: n }, (_, k) => {
          // Named by its own (visually hidden) text, not an aria-label: the map's drawn words are visible text
          // that an aria-label would have to contain (WCAG 2.5.3, label in name).
          const box = h(
            'button',
            { type: 'button', class: 'head-box', 'data-head': k },
            h('span', { class: 'sr-only' }, `Focus head ${k + 1}`),
          );
          box.addEventListener('click', () => {
            this.set({ head: k });
            box.focus();
          });
          return box;
        }),
      );
    }
    const captions = model ? r.model.run.captions[r.model.layer] : null;
    [...ui.grid.children].forEach((box, k) => {
      box.classList.toggle('on', k === focused);
      box.setAttribute('aria-pressed', String(k === focused));
      // A picture inside the button (the button is the keyboard stop): not a grid of its own.
      box.map ??= new Heatmap({ compact: true, interactive: false, title: `head ${k + 1}`, head: k, className: 'head-map' });
      if (box.map.el.parentNode !== box) box.append(box.map.el);
      box.map.draw({ tokens: r.tokens, weights: heads.steps[k].weights, max, diagonalApart: apart, caption: captions?.[k] ?? '' });
    });
    drawLegend(ui.legend, max, { diagonalApart: apart });
    ui.focusTitle.textContent = `Head ${focused + 1} (focused): hover, tap or use the arrow keys to read a weight.`;
    ui.width ??= ui.focus.clientWidth;
    ui.focusMap.draw({ tokens: r.tokens, weights: heads.steps[focused].weights, max, diagonalApart: apart, width: ui.width || 640 });
    const labels = r.labels;
    if (model) {
      const w = r.model.learnt(heads.layer),
        L = heads.layer + 1;
      morph(ui.tables, [
        h(
          'p',
          {},
          `The heads’ outputs side by side (concat), mixed by layer ${L}’s learnt W_O and shifted by its b_O; the residual connection then adds the result to the stream x.`,
        ),
        kit.table(heads.concat, {
          limit,
          caption: `concat (T × h·d_k = ${heads.concat.rows}×${heads.concat.cols})`,
          name: 'concat',
          rowLabels: labels,
        }),
        kit.table(w.Wo, { limit, caption: `W_O (h·d_k × d_model = ${w.Wo.rows}×${w.Wo.cols}, learnt)`, name: 'Wo' }),
        kit.table(asRow(w.bo), { limit, caption: `b_O (1×${w.bo.length})`, name: 'b_O', rowLabels: ['b'] }),
        kit.table(heads.output, {
          limit,
          caption: `output = concat · W_O + b_O (${heads.output.rows}×${heads.output.cols})`,
          name: 'mh-output',
          rowLabels: labels,
        }),
        kit.table(heads.afterAttention, {
          limit,
          caption: `x + output: the stream after layer ${L}’s attention (${heads.afterAttention.rows}×${heads.afterAttention.cols})`,
          name: 'after-attention',
          rowLabels: labels,
        }),
      ]);
      return;
    }
    morph(ui.tables, [
      kit.table(heads.concat, {
        limit,
        caption: `concat (T × h·d_k = ${heads.concat.rows}×${heads.concat.cols})`,
        name: 'concat',
        rowLabels: labels,
      }),
      kit.table(heads.Wo, { limit, caption: `W_O (h·d_k × d_model = ${heads.Wo.rows}×${heads.Wo.cols})`, name: 'Wo' }),
      kit.table(heads.output, {
        limit,
        caption: `output = concat · W_O (${heads.output.rows}×${heads.output.cols})`,
        name: 'mh-output',
        rowLabels: labels,
      }),
    ]);
  }
}

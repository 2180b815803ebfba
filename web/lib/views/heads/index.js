// The heads view: every head as a small heatmap (the random heads over word vectors, the trained
// model's heads of the chosen layer, or of every layer beside the rollout, or imported heads), on one
// colour scale, each captioned with what it does where that was measured. A trained model's heads each
// carry a switch that turns the head off (the figure reruns the model without it: switches.js).
import { Heatmap, maxOf, offDiagonalMax } from '../../heatmap/heatmap.js';
import { drawLegend } from '../../heatmap/legend.js';
import { HEAD_SHARPNESS, wordOf } from '../../compute.js';
import { matrixRows } from '../../export-json.js';
import { named, strongest, weight } from '../../words.js';
import { wordRowsHeight } from '../embed-height.js';
import { headIsOff } from '../../switches.js';
import { PartSwitch } from '../switch.js';

class HeadsView {
  constructor(hooks) {
    this.hooks = hooks;
    this.maps = [];
    this.switches = []; // one per map, inside it, shown for a trained model's heads
    this.nodes = [];
  }

  #views(n) {
    const maps = this.maps;
    while (maps.length > n) maps.pop();
    this.switches.length = maps.length;
    while (maps.length < n) {
      const k = maps.length;
      const part = new PartSwitch(this.hooks.toggle);
      this.switches.push(part);
      maps.push(
        new Heatmap({
          compact: true,
          title: `head ${k + 1}`,
          head: k,
          table: true,
          onCell: this.hooks.cell,
          onWindow: (origin) => maps.forEach((v, other) => other !== k && v.scrollTo(origin)),
        }),
      );
      maps[k].el.prepend(part.el);
    }
    this.nodes = maps.map((m) => m.el);
    return maps;
  }

  draw(state, result, { width, word, legend }) {
    const { maps: list } = result.heads(state.heads, state.seed);
    const apart = state.diagonal === 'apart';
    const max = Math.max(...list.map((m) => (apart ? offDiagonalMax(m.weights.data, m.weights.rows) : maxOf(m.weights.data))));
    const views = this.#views(list.length);
    list.forEach((m, k) => {
      const view = views[k];
      // Which head of which layer each map is (with the rollout chosen, every layer's heads are shown).
      view.el.dataset.head = String(m.head);
      if (m.layer === undefined) delete view.el.dataset.layer;
      else view.el.dataset.layer = String(m.layer);
      const part = this.switches[k],
        trained = result.kind === 'model' && m.layer !== undefined;
      const off = trained && headIsOff(result.model.off, m.layer, m.head);
      part.el.hidden = !trained;
      view.el.classList.toggle('off', off);
      if (trained) part.draw({ item: `${m.layer + 1}.${m.head + 1}`, name: m.title, off, mode: result.model.offMode });
      view.draw({
        tokens: result.tokens,
        weights: m.weights,
        max,
        diagonalApart: apart,
        selectedRow: word,
        width,
        title: m.title,
        caption: off ? `switched off (${result.model.offMode}) · ${m.caption ?? ''}` : (m.caption ?? ''),
      });
    });
    drawLegend(legend, max, {
      what: apart ? 'the largest weight between two different words, over all heads' : 'the largest weight over all heads',
      diagonalApart: apart,
    });
    return '';
  }

  restyle() {
    for (const m of this.maps) m.restyle();
  }
}

/** The heads it draws: the random heads of the Heads setting, or a trained model's or an import's. */
const drawnHeads = (state, result) => result.heads(state.heads, state.seed);

export default {
  name: 'heads',
  label: 'Heads',
  hint: 'Each head attends with its own projections. Hover or tap a cell to read it.',
  View: HeadsView,
  // A trained model's maps each carry a switch: a line more per row of maps (two rows at an article's width).
  embedHeight: (state, shown) => wordRowsHeight(1020, 0)(state, shown) + (shown?.kind === 'model' ? 60 : 0),
  grid: true,
  drawsHeads: true,
  // The heads use the row softmax and draw every head: the Heads setting picks how many.
  settings: (applies, state, { vectors }) => ({ ...applies, norm: false, heads: vectors, head: false }),
  drawnHeads,
  title: (state, result) => `${drawnHeads(state, result).maps.length} attention heads`,
  /** Where the selected word looks most in each head (its weight on itself set apart). */
  story(state, result) {
    const i = wordOf(state, result),
      t = result.tokens,
      maps = drawnHeads(state, result).maps.slice(0, 8);
    if (result.T === 1) return '';
    const each = maps.map((m) => {
      const { k, w } = strongest(m.weights, i, false);
      return `${m.title} → ${k < 0 || w <= 0 ? 'itself' : `${named(t, k)} (${weight(w)})`}`;
    });
    return `Where ${named(t, i)} looks most, head by head: ${each.join('; ')}.`;
  },
  notes(state, result) {
    if (result.kind !== 'vectors' && result.kind !== 'seed003') return [];
    return [
      `Random heads (seed ${state.seed}): each head projects the vectors with its own W_Q, W_K, W_V, drawn at random with W_Q and W_K at ${HEAD_SHARPNESS}× the Xavier scale, so that each head’s scores spread enough to differ. At the usual scale untrained heads are almost uniform. The trained encoder’s and decoder’s heads are learnt: choose one as the source.`,
    ];
  },
  /** Over word vectors: every random head's weights and how they were drawn (a trained model's or an import's JSON as the base). */
  json(base, result, state) {
    if (result.kind !== 'vectors' && result.kind !== 'seed003') return base;
    const heads = drawnHeads(state, result);
    return {
      ...base,
      attentions: [heads.maps.map((m) => matrixRows(m.weights))],
      source:
        `multi-head attention over word vectors: ${heads.maps.length} heads, d_k = ${heads.dk}, ` +
        `seeded Xavier-uniform W_Q, W_K (× ${heads.sharpness}), W_V, W_O (seed ${state.seed})`,
      settings: { ...base.settings, heads: state.heads, seed: state.seed },
    };
  },
};

// The heads view: every head as a small heatmap (the random heads over word vectors, the trained
// model's heads of the chosen layer, or of every layer beside the rollout, or imported heads), on one
// colour scale, each captioned with what it does where that was measured.
import { Heatmap, maxOf, offDiagonalMax } from '../heatmap/heatmap.js';
import { drawLegend } from '../heatmap/legend.js';

export class HeadsView {
  constructor(hooks) {
    this.hooks = hooks;
    this.maps = [];
    this.nodes = [];
  }

  #views(n) {
    const maps = this.maps;
    while (maps.length > n) maps.pop();
    while (maps.length < n) {
      const k = maps.length;
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
    }
    this.nodes = maps.map((m) => m.el);
    return maps;
  }

  update(state, result, { width, word, legend }) {
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
      view.update({
        tokens: result.tokens,
        weights: m.weights,
        max,
        diagonalApart: apart,
        selectedRow: word,
        width,
        title: m.title,
        caption: m.caption ?? '',
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

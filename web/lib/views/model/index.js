// The "every layer" view of a trained model (BertViz's model view): one row per layer with each of its
// heads as a small heatmap, the attention rollout over all layers as a last row, every map on one
// colour scale and captioned with what that head was measured to do. A map's button opens it in the
// main heatmap (layer and head go into the state). Each head, and each layer's attention, has a switch
// that turns it off (the figure reruns the model without it: switches.js). On a phone each row scrolls
// sideways on its own.
import { h } from '../../dom.js';
import { Heatmap, maxOf, offDiagonalMax } from '../../heatmap/heatmap.js';
import { drawLegend } from '../../heatmap/legend.js';
import { ROLLOUT, isTrained } from '../../sources.js';
import { headIsOff, layerIsOff } from '../../switches.js';
import { PartSwitch } from '../switch.js';

class ModelView {
  /**
   * hooks: { cell(info) on hover and focus, open({ layer, head }) when the reader opens a map,
   * toggle(item) when the reader switches a head ('L.H') or a layer's attention ('L') off or on }
   */
  constructor(hooks) {
    this.hooks = hooks;
    this.rows = []; // per layer (then the rollout): { el, heading, maps: [{ map, open, box }] }
    this.el = h('div', { class: 'model-view' });
    this.nodes = [this.el];
  }

  /** Keeps one row per layer (and one for the rollout), each with `heads` maps. */
  #layout(layers, heads) {
    const shape = `${layers}×${heads}`;
    if (this.shape === shape) return;
    this.shape = shape;
    const row = (label, count, layer) => {
      const heading = h('h3', { class: 'model-row-title' }, label);
      const maps = Array.from({ length: count }, (_, k) => {
        const head = layer === ROLLOUT ? 0 : k;
        const map = new Heatmap({ compact: true, fitWidth: true, head, table: false, interactive: false, onCell: this.hooks.cell });
        const open = h('button', { type: 'button', class: 'open-map' });
        open.addEventListener('click', () => this.hooks.open({ layer, head }));
        const part = layer === ROLLOUT ? null : new PartSwitch(this.hooks.toggle);
        const box = h('figure', { class: 'model-map' }, h('div', { class: 'map-buttons' }, open, part?.el ?? ''), map.el);
        box.dataset.layer = String(layer);
        box.dataset.head = String(head);
        return { map, open, part, box };
      });
      const part = layer === ROLLOUT ? null : new PartSwitch(this.hooks.toggle);
      const el = h(
        'section',
        { class: 'model-row' },
        h('div', { class: 'model-row-head' }, heading, part?.el ?? ''),
        h('div', { class: 'model-maps' }, ...maps.map((m) => m.box)),
      );
      return { el, heading, part, maps };
    };
    this.rows = [...Array.from({ length: layers }, (_, l) => row(`Layer ${l + 1}`, heads, l)), row('Rollout (all layers)', 1, ROLLOUT)];
    this.el.replaceChildren(...this.rows.map((r) => r.el));
  }

  draw(state, result, { width, word, legend }) {
    if (result.kind !== 'model') return 'Every layer and head: choose a trained model as the source (More options).';
    const { run, layers, heads } = result.model;
    this.#layout(layers, heads);
    const apart = state.diagonal === 'apart';
    const all = [...run.layers.flatMap((l) => l.heads.map((s) => s.weights)), run.rollout];
    const T = result.T;
    const max = Math.max(...all.map((m) => (apart ? offDiagonalMax(m.data, T) : maxOf(m.data))));
    // A layer's maps fit beside each other on a desktop; on a phone, rather than shrink them past
    // readable labels, its row keeps them at full size and scrolls sideways.
    const share = Math.floor((width - 16 * (heads - 1)) / heads);
    const mapWidth = share >= 200 ? share : Infinity;
    const opened = state.layer === ROLLOUT ? { layer: ROLLOUT, head: 0 } : { layer: result.model.layer, head: result.model.head };
    const { off, offMode } = result.model;
    this.rows.forEach((row, l) => {
      const rollout = l === layers;
      const layerOff = !rollout && layerIsOff(off, l);
      row.part?.draw({ item: `${l + 1}`, name: `layer ${l + 1}’s attention`, off: layerOff, mode: null });
      row.el.classList.toggle('off', layerOff);
      row.maps.forEach(({ map, open, part, box }, k) => {
        const caption = rollout ? 'attention rollout' : (run.captions[l]?.[k] ?? '');
        const title = rollout ? 'Rollout' : `Layer ${l + 1} · head ${k + 1}`;
        const headOff = !rollout && headIsOff(off, l, k);
        part?.draw({ item: `${l + 1}.${k + 1}`, name: title.toLowerCase(), off: headOff, mode: offMode });
        box.classList.toggle('off', headOff || layerOff);
        open.textContent = title;
        open.setAttribute('aria-label', `Open ${title} in the heatmap${caption ? `: ${caption}` : ''}`);
        box.classList.toggle('opened', (rollout ? ROLLOUT : l) === opened.layer && (rollout || k === opened.head));
        map.draw({
          tokens: result.tokens,
          weights: rollout ? run.rollout : run.layers[l].heads[k].weights,
          max,
          diagonalApart: apart,
          selectedRow: word,
          width: mapWidth,
          title: '',
          caption: headOff ? `switched off (${offMode}) · ${caption}` : layerOff ? `layer switched off · ${caption}` : caption,
        });
      });
    });
    drawLegend(legend, max, {
      what: apart ? 'the largest weight between two different words, over every map' : 'the largest weight over every map',
      diagonalApart: apart,
    });
    return '';
  }

  restyle() {
    for (const row of this.rows) for (const { map } of row.maps) map.restyle();
  }
}

export default {
  name: 'model',
  label: 'Every layer',
  hint: 'Every layer’s heads, then the rollout. Open a map to see it large, with its steps.',
  View: ModelView,
  // A row of maps per layer and one for the rollout, about 400 px each with their measured captions, below the controls (a pieces model adds its units).
  embedHeight: (state, shown) => 420 + 400 * ((shown?.model?.layers ?? 2) + 1),
  drawsHeads: true,
  // Every layer × head is a trained model's view: without one it cannot be chosen.
  available: (state, { imported } = {}) => isTrained(state.source) && !imported,
  hideUnavailable: true,
  settings: (applies) => ({ ...applies, layer: false, head: false }),
};

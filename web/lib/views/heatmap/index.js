// The heatmap view: the drawn weights (Result.shown) as one large heatmap, the selected word's row
// labelled bold, a word's cell with itself hatched and out of the colour scale unless the reader puts
// it back, and the colour legend.
import { Heatmap, maxOf, offDiagonalMax } from '../../heatmap/heatmap.js';
import { drawLegend } from '../../heatmap/legend.js';
import { wordRowsHeight } from '../embed-height.js';

class HeatmapView {
  /** hooks: { select(row, col): the reader chose a cell, cell(info | null): hovered or focused cell } */
  constructor(hooks) {
    this.map = new Heatmap({ table: true, onCell: hooks.cell, onSelect: hooks.select });
    this.nodes = [this.map.el];
  }

  /** ctx: { width, word (the selected query), legend (element) } */
  draw(state, result, { width, word, legend }) {
    const apart = state.diagonal === 'apart';
    const weights = result.shown;
    this.map.draw({ tokens: result.tokens, weights, diagonalApart: apart, selectedRow: word, width });
    const max = apart ? offDiagonalMax(weights.data, weights.rows) : maxOf(weights.data);
    drawLegend(legend, max, {
      what: apart ? 'the largest weight between two different words' : 'the largest weight shown',
      diagonalApart: apart,
    });
    return '';
  }

  restyle() {
    this.map.restyle();
  }
}

export default {
  name: 'heatmap',
  label: 'Heatmap',
  hint: 'Hover over a cell, tap it, or Tab into the grid and use the arrow keys, to read its exact weight.',
  View: HeatmapView,
  embedHeight: wordRowsHeight(880, 0),
};

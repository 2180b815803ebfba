// The lines view (after BertViz's head view): query words left, keys right, a line per pair as thick
// and opaque as its weight (Result.shown); the selected word's lines drawn alone; a word's line to
// itself dashed and grey, out of the thickness scale, unless the reader puts the diagonal back.
import { Lines } from './lines.js';
import { format4 } from '../../format.js';
import { ALL_ROWS } from '../../windowing.js';
import { wordRowsHeight } from '../embed-height.js';

class LinesView {
  constructor(hooks) {
    this.lines = new Lines({
      onSelect: (i) => hooks.select(i, null),
      onFocusWord: (info) => hooks.text(info ? describeLinks(info) : null),
    });
    this.nodes = [this.lines.el];
  }

  draw(state, result, { width, word, legend }) {
    this.lines.draw({ tokens: result.tokens, weights: result.shown, selected: word, width, diagonalApart: state.diagonal === 'apart' });
    legend.replaceChildren();
    return '';
  }

  restyle() {
    this.lines.restyle();
  }
}
/**
 * One line of text for the readout: "train → station 0.3120, the 0.2210, …" (strongest three). In a
 * long input words repeat, so each also gets its position: "time (151) → time (133) 0.0069, …".
 */
export function describeLinks(info) {
  const arrow = info.side === 'query' ? '→' : '←';
  const at = (index) => (info.links.length > ALL_ROWS ? ` (${index + 1})` : '');
  const top = info.links
    .slice(0, 3)
    .map((l) => `${l.token.text}${at(l.index)} ${format4(l.weight)}`)
    .join(', ');
  return `${info.token.text}${at(info.index)} ${arrow} ${top}`;
}

export default {
  name: 'lines',
  label: 'Lines',
  hint: 'Hover over a word, tap it, or Tab in and use the arrow keys, to keep only its lines.',
  View: LinesView,
  embedHeight: wordRowsHeight(580, 26),
  title: () => 'Self-attention weights, as lines',
};

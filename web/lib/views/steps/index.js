// The steps view: for the selected word, the core's raw scores, scaled scores, softmax weights (as the
// figure draws them: down the columns when that is chosen) and the output row.
import { h } from '../../dom.js';
import { scoreWords } from '../../scores.js';
import { Steps } from './steps.js';
import { matrixRows as rows } from '../../export-json.js';
import { wordRowsHeight } from '../embed-height.js';

class StepsView {
  constructor() {
    this.steps = new Steps();
    this.message = h('p', { class: 'view-message' });
    this.nodes = [this.steps.el];
  }

  /** Returns a message instead of drawing when there are no steps (imported attention, the rollout). */
  draw(state, result, { width, word, legend }) {
    legend.replaceChildren();
    if (result.kind === 'imported')
      return 'The steps view needs the scores before the softmax; imported attention holds only the weights. Choose heatmap, lines or heads.';
    if (result.kind === 'model' && result.model.rollout)
      return 'The rollout has no scores of its own: it multiplies the layers’ weights. Choose a layer to see one head’s steps.';
    const score = scoreWords(result.score).symbol;
    const divide = result.scaleDivisor !== 1 ? `÷ ${result.divisor} ` : '';
    const where = result.kind === 'model' ? ` (layer ${result.model.layer + 1}, head ${result.model.head + 1})` : '';
    // The trained model has no temperature of its own to divide by: only what applies is written.
    const scaleText =
      `scaled = ${score} ${divide}${result.kind === 'model' ? '' : `÷ temperature ${result.temperature.toFixed(2)}`}`.trim() +
      `${where}${result.causal ? '; causal: later words masked (−∞)' : ''}`;
    const { scores, scaled } = result.steps;
    this.steps.draw({
      tokens: result.tokens,
      steps: { scores, scaled, weights: result.weights, output: result.output },
      query: word,
      scaleText,
      width,
      headers: [`1 ${score}`, '2 scaled', result.norm === 'columns' ? '3 softmax ↓ column' : '3 softmax'],
      diagonalApart: state.diagonal === 'apart',
    });
    return '';
  }
}

export default {
  name: 'steps',
  label: 'Steps',
  hint: 'The numbers the core computed for the selected word, stage by stage.',
  View: StepsView,
  draws: ['scores', 'scaled', 'weights', 'output'],
  units: 'pieces',
  embedHeight: wordRowsHeight(580, 22),
  // Imported attention holds only the weights: there are no scores to show.
  available: (state, { imported }) => !imported,
  settings: (applies) => ({ ...applies, diagonal: false }),
  title: (state, result, named) => `Self-attention step by step: ${named}`,
  /** The weights, and the selected head's scores, scaled scores and output (−∞ as null). */
  json(base, result) {
    if (!result.steps || result.kind === 'model') return base;
    return {
      ...base,
      steps: {
        scores: rows(result.steps.scores),
        scaled: rows(result.steps.scaled).map((r) => r.map((v) => (v === -Infinity ? null : v))),
        output: rows(result.output),
      },
    };
  },
};

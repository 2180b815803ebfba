// Step 1, "Prepare the inputs": X, one row per word (its word vector, seed 003's input, or the trained
// model's stream entering the layer together with LN₁(x), what its heads read).
import { h, morph } from '../dom.js';
import { dimLabels, stepSection } from './kit.js';

export class InputsStep {
  constructor() {
    ({ el: this.el, body: this.body } = stepSection(1, 'step-inputs', 'Prepare the inputs'));
  }

  draw(state, r, { word: i, limit, kit }) {
    const colLabels = dimLabels(r.d);
    if (r.kind === 'model') {
      const L = r.model.layer + 1,
        input = r.model.run.layers[r.model.layer].attentionInput;
      morph(this.body, [
        h(
          'p',
          {},
          `One row per word: the model’s ${r.d}-dimensional stream x entering layer ${L} (${r.model.layer === 0 ? '√d_model · its embedding + its position’s sinusoid' : `layer ${r.model.layer}’s output`}), T × d_model = ${r.T}×${r.d}. ` +
            `The heads read its LayerNorm, LN₁(x): each row shifted to mean 0 and scaled to variance 1, then multiplied by the learnt γ and shifted by the learnt β of layer ${L}’s first LayerNorm.`,
        ),
        kit.row('inputs', [
          kit.table(r.X, { limit, caption: `x (entering layer ${L})`, name: 'X', rowLabels: r.labels, colLabels, highlightRow: i }),
          kit.table(input, {
            limit,
            caption: `LN₁(x): what the heads read (${input.rows}×${input.cols})`,
            name: 'LN-x',
            rowLabels: r.labels,
            colLabels,
            highlightRow: i,
          }),
        ]),
      ]);
      return;
    }
    morph(this.body, [
      h(
        'p',
        {},
        r.kind === 'seed003'
          ? 'Seed 003’s three inputs of dimension 4, one per row.'
          : `One row per word: its ${r.d}-dimensional word vector (fastText, trained on WordNet). X is T × d_model = ${r.T}×${r.d}; its columns are the features d1…d${r.d}.`,
      ),
      kit.table(r.X, { limit, caption: 'X (inputs)', name: 'X', rowLabels: r.labels, colLabels, highlightRow: i }),
    ]);
  }
}

// The formula under the page's figure, written for what the figure shows now: parameter-free
// softmax(X·Xᵀ/√d), its dot or cosine variants, learnt or hand-set projections, the temperature, the
// causal mask, the column softmax, the trained model's head or rollout, or imported weights.
import { h } from '../dom.js';
import { fn, formula, frac, mi, mn, mo, mrow, sqrt, sub, sup, text } from '../math.js';
import { ROLLOUT } from '../state.js';
import { scoreWords } from '../scores.js';

export class FormulaLine {
  constructor(root, store) {
    this.root = root;
    this.box = h('div', { class: 'formula-line' });
    this.words = h('p', { class: 'formula-words' });
    root.replaceChildren(this.box, this.words);
    store.subscribe((state) => this.render(state, store.shown, Boolean(store.sources.imported)));
  }

  render(state, result, imported) {
    if (!result) return;
    const key = JSON.stringify([
      result.kind,
      result.projection?.mode,
      result.score,
      result.norm,
      result.causal,
      result.temperature,
      state.layer,
      state.head,
      result.d,
      result.model?.kind,
    ]);
    if (key === this.key) return;
    this.key = key;
    const [math, words] = this.#parts(state, result, imported);
    this.box.replaceChildren(...[math].flat()); // one formula, or several that wrap on a narrow screen
    this.words.textContent = words;
  }

  #parts(state, r, imported) {
    const softmax = (arg) => (r.norm === 'columns' ? mrow(sub('softmax', mo('↓')), mo('('), arg, mo(')')) : fn('softmax', arg));
    if (imported) {
      return [
        formula(
          'weights imported from a file',
          mi('weights'),
          mo('='),
          text(` imported, layer ${r.imported.layer + 1}, head ${r.imported.head + 1}`),
        ),
        'The weights of a real model, read from your file: nothing here computed them.',
      ];
    }
    if (r.kind === 'model' && state.layer === ROLLOUT) {
      return [
        formula(
          'R equals A tilde L times ... times A tilde 1',
          mi('R'),
          mo('='),
          sub('Ã', 'L'),
          mo('⋯'),
          sub('Ã', mn('1')),
          mo(','),
          mo('\u2003'),
          mi('Ã'),
          mo('='),
          fn('rownorm', mn('0.5'), mo('·'), sub('mean', 'h'), mi('A'), mo('+'), mn('0.5'), mi('I')),
        ),
        'Attention rollout: each layer’s heads averaged with its residual connection, the layers multiplied.',
      ];
    }
    const dk = r.projection.mode === 'free' ? mi('d') : sub('d', 'k');
    const q = r.projection.mode === 'free' ? mi('X') : mi('Q'),
      k = r.projection.mode === 'free' ? sup('X', 'T') : sup('K', 'T');
    const scoring = scoreWords(r.score);
    let score = scoring.byLengths ? fn('cos', q, mo(','), r.projection.mode === 'free' ? mi('X') : mi('K')) : mrow(q, mo('·'), k);
    // The core chose the divisor: √d (or √d_k) for the scaled score, 1 for the others.
    if (r.scaleDivisor !== 1) score = frac(score, sqrt(dk));
    const tau = r.temperature !== 1 ? [mo('/'), mi('τ')] : [];
    const mask = r.causal ? [mo('+'), mi('M')] : [];
    const arg = mrow(score, ...tau, ...mask);
    const parts = [mi('weights'), mo('='), softmax(arg)];
    if (r.kind === 'model') {
      return [
        [
          formula(`weights equals softmax of Q K transpose over root d k${r.causal ? ' plus the causal mask' : ''}`, ...parts),
          formula('Q equals LN 1 of x times W Q plus b Q', mi('Q'), mo('='), fn('LN₁', mi('x')), sub('W', 'Q'), mo('+'), sub('b', 'Q')),
        ],
        `Layer ${r.model.layer + 1}, head ${r.model.head + 1} of the trained ${r.model.kind}: learnt W_Q, W_K, W_V${r.causal ? '; M hides later words (−∞).' : '; no mask: every word sees the whole sentence.'}`,
      ];
    }
    if (r.projection.mode !== 'free')
      parts.push(mo(',\u2003'), mi('Q'), mo('='), mi('X'), sub('W', 'Q'), mo(','), mo(' '), mi('K'), mo('='), mi('X'), sub('W', 'K'));
    const words = [
      r.projection.mode === 'free'
        ? `No learned weights: Q = K = V = X, one row per ${r.kind === 'seed003' ? 'input' : 'word vector'} (d = ${r.d}).`
        : `W_Q, W_K: ${r.projection.mode} weights, d_k = ${r.projection.dk}.`,
      scoring.formulaNote,
      r.temperature !== 1 ? `τ = ${r.temperature.toFixed(2)}.` : '',
      r.causal ? 'M hides later words (−∞).' : '',
      r.norm === 'columns' ? 'softmax↓ normalises each column.' : '',
    ]
      .filter(Boolean)
      .join(' ');
    return [formula('weights equals softmax of the scores', ...parts), words];
  }
}

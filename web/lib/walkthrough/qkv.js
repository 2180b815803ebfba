// Step 3, "Derive queries, keys and values" (Q, K, V from the core), and the shapes table: what each
// matrix holds, its shape in symbols, here, and in "Attention is all you need".
import { h, morph } from '../dom.js';
import { stepSection } from './kit.js';
import { scrollBox } from '../tables.js';

export class QKVStep {
  constructor() {
    ({ el: this.el, body: this.body } = stepSection(3, 'step-qkv', 'Derive queries, keys and values'));
  }

  draw(state, r, { word: i, limit, kit }) {
    const s = r.steps,
      b = state.bias ? ' + b' : '';
    const how =
      r.kind === 'model'
        ? `Layer ${r.model.layer + 1}, head ${r.model.head + 1} of the trained model: Q = LN₁(x)W_Q + b_Q, K = LN₁(x)W_K + b_K, V = LN₁(x)W_V + b_V, with LN₁(x) from step 1 and the learnt weights of step 2 (d_k = ${r.projection.dk})`
        : r.projection.mode === 'free'
          ? 'Q = K = V = X (parameter-free)'
          : `Q = XW_Q${b && `${b}_Q`}, K = XW_K${b && `${b}_K`}, V = XW_V${b && `${b}_V`}`;
    morph(this.body, [
      h('p', {}, `${how}. Each is computed independently (in parallel) from the same inputs.`),
      kit.row('qkv', [
        kit.table(s.Q, { limit, caption: 'Q (queries)', name: 'Q', rowLabels: r.labels, highlightRow: i }),
        kit.table(s.K, { limit, caption: 'K (keys)', name: 'K', rowLabels: r.labels }),
        kit.table(s.V, { limit, caption: 'V (values)', name: 'V', rowLabels: r.labels }),
      ]),
    ]);
  }
}

export class ShapesTable {
  constructor() {
    ({ el: this.el, body: this.body } = stepSection(null, 'shapes', 'Shapes'));
  }

  draw(state, r) {
    const s = r.steps,
      free = r.projection.mode === 'free',
      learnt = r.kind === 'model' ? ' per head (learnt)' : '';
    const shapes = [
      ['X (inputs)', 'T × d_model', `${r.T}×${r.d}`, 'n × 512'],
      ['W_Q, W_K', 'd_model × d_k', free ? '— (none)' : `${r.d}×${r.projection.dk}${learnt}`, '512 × 64'],
      ['W_V', 'd_model × d_v', free ? '— (none)' : `${r.d}×${r.projection.dv}${learnt}`, '512 × 64'],
      ['Q, K', 'T × d_k', `${s.Q.rows}×${s.Q.cols}`, 'n × 64'],
      ['V', 'T × d_v', `${s.V.rows}×${s.V.cols}`, 'n × 64'],
      ['QKᵀ (scores), weights', 'T × T', `${s.scores.rows}×${s.scores.cols}`, 'n × n'],
      ['output', 'T × d_v', `${s.output.rows}×${s.output.cols}`, 'n × 64'],
      ['with a batch of N', 'N × T × d_v', `1×${s.output.rows}×${s.output.cols}`, 'N × n × 64'],
    ];
    morph(this.body, [
      h(
        'div',
        scrollBox('What each matrix holds'),
        h(
          'table',
          { class: 'shapes' },
          h('caption', {}, 'What each matrix holds: the shape in symbols, here, and in “Attention is all you need”.'),
          h(
            'thead',
            {},
            h('tr', {}, ...['matrix', 'shape', 'here', 'the paper (d_model 512, d_k = d_v = 64)'].map((t) => h('th', { scope: 'col' }, t))),
          ),
          h(
            'tbody',
            {},
            ...shapes.map(([a, b, c, d]) =>
              h('tr', {}, h('th', { scope: 'row' }, a), h('td', {}, b), h('td', { 'data-shape': a }, c), h('td', {}, d)),
            ),
          ),
        ),
      ),
    ]);
  }
}

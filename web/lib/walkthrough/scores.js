// Step 4, "Scores for one query" (row i of QKᵀ, or of the cosines), and step 5, "Softmax": the query's
// raw score, scaled score and weight against each key, as the core computed them (down the columns
// when the figure's softmax runs that way).
import { h, morph } from '../dom.js';
import { decimalsFor, num } from '../format.js';
import { dfrac, fn, formula, frac, mi, mn, mo, mrow, sqrt, sub, sum, sup } from '../math.js';
import { keysAround, keysNote, stepSection } from './kit.js';
import { scrollBox } from '../tables.js';
import { scoreWords } from '../scores.js';

export class ScoresStep {
  constructor() {
    ({ el: this.el, body: this.body } = stepSection(4, 'step-scores', 'Scores for one query'));
  }

  draw(state, r, { word: i, limit, kit }) {
    const free = r.projection.mode === 'free',
      cosine = scoreWords(r.score).byLengths;
    const qi = sub('q', mn(String(i + 1)));
    const rhs = cosine
      ? [
          fn('cos', qi, mo(','), sub('k', 'j')),
          mo('='),
          frac(
            mrow(sub('q', mn(String(i + 1))), mo('·'), sub('k', 'j')),
            mrow(mo('|'), sub('q', mn(String(i + 1))), mo('|'), mo('|'), sub('k', 'j'), mo('|')),
          ),
        ]
      : [qi, mo('·'), sub('k', 'j'), mo('='), sub(mrow(mo('('), mi('Q'), sup('K', mi('T')), mo(')')), mrow(mn(String(i + 1)), mi('j')))];
    morph(this.body, [
      formula(
        cosine ? 'score i j equals the cosine of q i and k j' : 'score i j equals q i dot k j',
        sub('s', mrow(mn(String(i + 1)), mi('j'))),
        mo('='),
        ...rhs,
      ),
      h(
        'p',
        {},
        cosine
          ? `The query of “${r.labels[i]}” meets every key: one cosine per word, the dot product divided by both lengths, so between −1 and 1 (a word with itself scores exactly 1). T² = ${r.T * r.T} scores in all.`
          : `The query of “${r.labels[i]}” meets every key: one dot product per word (row ${i + 1} of QKᵀ${free ? ' = XXᵀ' : ''}). T² = ${r.T * r.T} scores in all.`,
      ),
      kit.table(r.steps.scores, {
        limit,
        caption: cosine ? 'cos(Q, K) (raw scores)' : 'QKᵀ (raw scores)',
        name: 'scores',
        rowLabels: r.labels,
        colLabels: r.labels,
        highlightRow: i,
      }),
    ]);
  }
}

export class SoftmaxStep {
  constructor() {
    ({ el: this.el, body: this.body } = stepSection(5, 'step-softmax', 'Softmax'));
  }

  draw(state, r, { word: i, full }) {
    const free = r.projection.mode === 'free',
      tau = r.temperature !== 1,
      columns = r.norm === 'columns';
    const dk = () => (free ? mi('d') : sub('d', 'k'));
    const scaled = r.scaleDivisor !== 1; // the core's choice: √d for the scaled score
    const scaleMath = () => (scaled ? mrow(sqrt(dk()), ...(tau ? [mo('·'), mi('τ')] : [])) : tau ? mi('τ') : null);
    const s = (j) => sub('s', columns ? mrow(mi(j), mn(String(i + 1))) : mrow(mn(String(i + 1)), mi(j)));
    const arg = (j) => (scaleMath() ? frac(s(j), scaleMath()) : s(j));
    const divisor = [scaled ? `${free ? '√d' : '√d_k'} = ${r.divisor}` : null, tau ? `τ = ${num(r.temperature, 2)}` : null].filter(Boolean);
    // Why divide: √d_k keeps the scores' spread near 1 so the softmax does not saturate; τ < 1 sharpens, τ > 1 flattens.
    const why = [
      scaled ? `dividing by ${free ? '√d' : '√d_k'} keeps the scores in a range where the softmax does not saturate` : null,
      tau ? (r.temperature < 1 ? `τ below 1 sharpens the weights` : `τ above 1 evens them out`) : null,
    ].filter(Boolean);
    const keys = keysAround(r.T, i, full);
    const stages = [
      ['raw score', r.steps.scores],
      ['scaled', r.steps.scaled],
      [columns ? 'weight α (column)' : 'weight α', r.weights],
    ];
    const intro = divisor.length
      ? `Divide by ${divisor.join(' and by ')} (${why.join('; ')}), then softmax:`
      : 'No scaling (plain dot-product attention), then softmax:';
    const into = columns
      ? ` down each column, so every key’s weights over the queries sum to 1 (the row of “${r.labels[i]}” no longer does).`
      : ' positive weights that sum to 1.';
    morph(this.body, [
      formula(
        'alpha equals exp of the scaled score over the sum of exps',
        sub('α', columns ? mrow(mi('j'), mn(String(i + 1))) : mrow(mn(String(i + 1)), mi('j'))),
        mo('='),
        dfrac(mrow(mi('exp'), mo('('), arg('j'), mo(')')), mrow(sum('l'), mi('exp'), mo('('), arg('l'), mo(')'))),
      ),
      h(
        'p',
        {},
        intro + into,
        r.causal
          ? ` Causal mask: later words get −∞, weight 0${r.kind === 'model' ? ' (the decoder was trained to predict the next word, so it may not look ahead)' : ''}.`
          : '',
        keysNote(r.T, keys),
      ),
      stageTable(stages, i, r.labels, keys, columns),
    ]);
  }
}

/** Rows of stages (raw, scaled, weight) for query i across the keys: cells carry the core's values, one count of decimals per row. */
function stageTable(stages, i, labels, keys, columns) {
  const T = labels.length;
  return h(
    'div',
    scrollBox(`Query “${labels[i]}”: score, scaled, softmax`),
    h(
      'table',
      { class: 'matrix stages', 'data-name': 'softmax' },
      h('caption', {}, `Query “${labels[i]}”: score → scaled → softmax${columns ? ' (down the columns)' : ''}`),
      h('thead', {}, h('tr', {}, h('td', { class: 'corner' }), ...keys.map((j) => h('th', { scope: 'col' }, labels[j])))),
      h(
        'tbody',
        {},
        ...stages.map(([title, mat]) => {
          const values = keys.map((j) => mat.data[i * T + j]);
          const digits = decimalsFor(values, 4);
          return h(
            'tr',
            { 'data-stage': title.startsWith('weight') ? 'weight α' : title },
            h('th', { scope: 'row' }, title),
            ...keys.map((j, k) => h('td', { 'data-key': j, 'data-value': String(values[k]) }, num(values[k], digits))),
          );
        }),
      ),
    ),
  );
}

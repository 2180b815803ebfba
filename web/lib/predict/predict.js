// Predict, then reveal (page only): before a column of attention weights is shown, the learner may guess
// which word it weighs most, or give weights of their own that sum to 1; the reveal shows the real column
// (the core's numbers, passed in) and one line scoring the guess against it. Kept apart from the views:
// it takes labels and a function that returns the real weights, and draws nothing else.
import { h } from '../dom.js';
import { num } from '../format.js';

/**
 * How a guess fares against the real weights (an array summing to 1). guess: { pick: index } or
 * { weights: numbers summing to 1 }. → { top (index of the largest real weight), onPick (the real
 * weight where the learner pointed, for a pick), overlap (Σ min(guess, real): the share of the weight
 * that landed where the learner put it, for weights), right (the pick, or the guess's largest, is the top) }.
 */
export function scoreGuess(guess, real) {
  const top = real.reduce((best, w, i) => (w > real[best] ? i : best), 0);
  if (guess.pick !== undefined) return { top, onPick: real[guess.pick], right: real[guess.pick] === real[top] };
  const overlap = real.reduce((sum, w, i) => sum + Math.min(w, guess.weights[i]), 0);
  const theirs = guess.weights.reduce((best, w, i) => (w > guess.weights[best] ? i : best), 0);
  return { top, overlap, right: real[theirs] === real[top] };
}

/** One line of words for a scored guess. */
export function guessLine(guess, score, real, labels, whose) {
  const most = `the most goes to ${labels[score.top]} (${num(real[score.top], 2)})`;
  if (guess.pick !== undefined) {
    return score.right
      ? `Right: ${labels[guess.pick]} gets ${num(score.onPick, 2)} of ${whose}’s attention, the most.`
      : `You picked ${labels[guess.pick]}, which gets ${num(score.onPick, 2)} of ${whose}’s attention; ${most}.`;
  }
  return `${num(score.overlap * 100, 0)} % of the weight landed where you put it; ${most}${score.right ? ', where you put yours' : ''}.`;
}

export class Predict {
  /**
   * root: where to draw. labels: the words (or tokens) of the column; queries: the labels one may ask
   * about; weightsOf(query): the real weights of that query's column, from the core (null while there is
   * none). title: what is predicted. onReveal(): after a reveal, or when the learner skips the guess
   * ("Just show me"), so the caller can uncover what it kept hidden until then. id: the prefix of its
   * elements' ids (two on one page need two); line: what is guessed, 'column' (by hand) or 'row' (heatmap).
   */
  constructor(root, { labels, queries, weightsOf, title, onReveal, id = 'predict', line = 'column' }) {
    this.labels = labels;
    this.weightsOf = weightsOf;
    this.onReveal = onReveal;
    const e = (this.els = {});
    e.query = h(
      'select',
      { id: `${id}-query`, 'aria-label': `The token whose ${line} you guess` },
      ...queries.map((q, i) => h('option', { value: i }, q)),
    );
    e.mode = h(
      'select',
      { id: `${id}-mode`, 'aria-label': 'What you guess' },
      h('option', { value: 'pick' }, 'the word it looks at most'),
      h('option', { value: 'weights' }, 'weights that sum to 1'),
    );
    e.pick = h(
      'div',
      { class: 'predict-pick', role: 'radiogroup', 'aria-label': 'Your guess' },
      ...labels.map((l, i) =>
        h('label', {}, h('input', { type: 'radio', name: `${id}-pick`, value: i, id: `${id}-pick-${i}`, checked: i === 0 }), ` ${l}`),
      ),
    );
    e.weights = h(
      'div',
      { class: 'predict-weights', hidden: true },
      ...labels.map((l, i) =>
        h(
          'label',
          {},
          `${l} `,
          h('input', { type: 'number', id: `${id}-w-${i}`, min: 0, max: 1, step: 0.05, value: num(1 / labels.length, 2) }),
        ),
      ),
    );
    e.reveal = h('button', { type: 'button', id: `${id}-reveal` }, 'Reveal');
    e.skip = h('button', { type: 'button', id: `${id}-skip` }, 'Just show me');
    e.result = h('p', { class: 'predict-result', id: `${id}-result`, role: 'status', 'aria-live': 'polite' });
    e.real = h('div', { class: 'predict-real' });
    root.append(
      h('h4', {}, 'Predict, then reveal'),
      h('p', {}, title, ' Which way does ', e.query, ' lean? Guess ', e.mode, ', then reveal.'),
      e.pick,
      e.weights,
      h('div', { class: 'row' }, e.reveal, e.skip),
      e.result,
      e.real,
    );
    const reset = () => {
      e.result.textContent = '';
      e.real.replaceChildren();
      delete root.dataset.revealed;
    };
    e.mode.addEventListener('change', () => {
      e.pick.hidden = e.mode.value !== 'pick';
      e.weights.hidden = e.mode.value !== 'weights';
      reset();
    });
    e.query.addEventListener('change', reset);
    e.reveal.addEventListener('click', () => this.reveal());
    e.skip.addEventListener('click', () => this.onReveal?.());
    this.root = root;
  }

  /** Scores the guess against the real column and shows both. */
  reveal() {
    const e = this.els;
    const query = Number(e.query.value);
    const real = this.weightsOf(query);
    if (!real) return;
    let guess;
    if (e.mode.value === 'pick') {
      guess = { pick: Number(e.pick.querySelector('input:checked')?.value ?? 0) };
    } else {
      const weights = [...e.weights.querySelectorAll('input')].map((input) => Number(input.value));
      const total = weights.reduce((a, b) => a + b, 0);
      if (weights.some((w) => !Number.isFinite(w) || w < 0) || Math.abs(total - 1) > 0.011) {
        e.result.textContent = `Your weights must be 0 or more and sum to 1 (they sum to ${num(total, 2)}).`;
        return;
      }
      guess = { weights };
    }
    const score = scoreGuess(guess, real);
    e.result.textContent = guessLine(guess, score, real, this.labels, e.query.selectedOptions[0].textContent);
    e.real.replaceChildren(
      h(
        'ul',
        { class: 'predict-bars', 'aria-label': 'The real weights' },
        ...real.map((w, i) => {
          const bar = h('span', { class: 'predict-bar' });
          bar.style.width = `${(w * 100).toFixed(1)}%`; // CSSOM, which a strict style-src allows
          return h('li', {}, h('span', { class: 'predict-label' }, this.labels[i]), bar, h('span', { class: 'predict-value' }, num(w, 2)));
        }),
      ),
    );
    this.root.dataset.revealed = String(query);
    this.onReveal?.();
  }
}

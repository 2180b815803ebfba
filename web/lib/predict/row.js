// Predict, then reveal, on the page's figure: "Guess a row first" covers the figure's view, asks where a word
// of the reader's own sentence looks most (or for a row of weights summing to 1), and the reveal scores
// the guess against the row the figure draws (the core's numbers, read from the store's result), then
// uncovers the view. The card is rebuilt when the sentence's words change.
import { h } from '../dom.js';
import { wordOf } from '../compute.js';
import { Predict } from './predict.js';

export class RowPredict {
  /** root: the card's element (holding its start button); store: the page's; view: the element to cover. */
  constructor(root, { store, view }) {
    this.root = root;
    this.store = store;
    this.view = view;
    this.start =
      root.querySelector('button') ??
      root.appendChild(h('button', { type: 'button' }, 'Guess a row first (covers the figure until you reveal)'));
    this.card = h('div', { class: 'predict', id: 'predict-row-card', hidden: true });
    root.append(this.card);
    this.start.addEventListener('click', () => this.open());
    store.subscribe(() => this.#follow(this.store.drawn));
  }

  /** Covers the view and shows the card for the shown sentence (a trained model's or the word vectors'). */
  open() {
    // The rows the figure draws (a pieces model's words with units=words).
    const result = this.store.drawn;
    if (!result?.ok || result.norm !== 'rows') return;
    this.view.classList.add('predicting');
    this.view.inert = true;
    this.card.hidden = false;
    this.start.hidden = true;
    this.#build(result);
  }

  #close() {
    this.view.classList.remove('predicting');
    this.view.inert = false;
    this.start.hidden = false;
  }

  /** A new sentence while the card is open: a card of its words (a reveal shows the new row). */
  #follow(result) {
    if (this.card.hidden || !result?.ok) return;
    const key = result.tokens.map((t) => t.text).join('\u0001');
    if (key !== this.key) this.#build(result);
  }

  #build(result) {
    this.key = result.tokens.map((t) => t.text).join('\u0001');
    const labels = result.tokens.map((t, i) => `${t.text} (${i + 1})`);
    this.card.replaceChildren();
    const predict = new Predict(this.card, {
      labels,
      queries: labels,
      title: `Rows are queries: each row of the figure shares one unit of attention among the ${result.T} words.`,
      // The row the figure draws for that query: the store's result, never recomputed here.
      weightsOf: (i) => {
        const r = this.store.drawn;
        return r?.ok && i < r.T ? Array.from(r.shown.data.subarray(i * r.T, (i + 1) * r.T)) : null;
      },
      onReveal: () => this.#close(),
      id: 'predict-row',
      line: 'row',
    });
    predict.els.query.value = String(wordOf(this.store.state, result));
  }
}

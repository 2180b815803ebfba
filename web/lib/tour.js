// The guided tour ("Start here"): seven stops over the default sentence, each a state (set through the
// store, so the URL follows and every view shows it) and a part of the page it points at. Its words
// are computed from the numbers on screen. A small non-modal panel: Back, Next, Leave (or Escape);
// leaving keeps whatever the last stop set. Opening a link with &tour=k resumes at stop k.
import { h } from './dom.js';
import { num } from './format.js';
import { DEFAULTS } from './state.js';
import { wordOf } from './compute.js';
import { storyOf } from './figure/notes.js';
import { movedLine } from './figure/guesses.js';

const BASE = {
  sentence: DEFAULTS.sentence,
  input: 'sentence',
  source: 'vectors',
  weights: 'free',
  score: 'scaled',
  temperature: 1,
  mask: 'none',
  norm: 'rows',
  diagonal: 'apart',
  blank: null,
  off: '',
  offMode: 'zero',
};
const row = (r, i) => Array.from(r.shown.data.subarray(i * r.T, (i + 1) * r.T));

/** The stops: state to set, the element to point at, a title, and text from (state, result). */
export const STOPS = [
  {
    title: 'The words and their vectors',
    target: 'step-inputs',
    state: { ...BASE, view: 'heatmap', word: null },
    text: (s, r) =>
      `Each word is a row of X: ${r.d} numbers, its word vector, learnt from WordNet’s definitions so that words used alike get alike vectors. Self-attention only ever compares these rows.`,
  },
  {
    title: 'One row of the heatmap',
    target: 'figure',
    state: { ...BASE, view: 'heatmap' },
    text: (s, r) => {
      const i = wordOf(s, r),
        w = row(r, i),
        total = w.reduce((a, b) => a + b, 0);
      return `The bold row is “${r.tokens[i].text}”: how it shares one unit of attention among all ${r.T} words (its cells add up to ${num(total, 2)}). Brighter cells get more. Its cell with itself is hatched and kept out of the colours.`;
    },
  },
  {
    title: 'Train and station',
    target: 'story',
    state: { ...BASE, view: 'lines' },
    text: (s, r) =>
      `${storyOf(s, r)} With no learnt weights at all, two words attend to each other because their vectors point the same way: the dot product x_i·x_j is large.`,
  },
  {
    title: 'The weighted sum',
    target: 'expansion',
    state: { ...BASE, view: 'heatmap' },
    text: (s, r) => {
      const i = wordOf(s, r);
      return `Attention makes a new vector for “${r.tokens[i].text}”: every word’s vector times its weight, added up. The heaviest words count most, so “${r.tokens[i].text}” now carries some of its neighbours’ meaning.`;
    },
  },
  {
    title: 'Queries, keys and values',
    target: 'vectors',
    state: { ...BASE, view: 'steps' },
    text: (s, r) =>
      `Here the query q, the key k and the value v of a word are its vector itself. A real layer first multiplies X by learnt matrices, Q = XW_Q, K = XW_K, V = XW_V, so what a word looks for (q) and what it offers (k) can differ. The bars show q, each k, and their product entry by entry.`,
  },
  {
    title: 'Heads and the trained model',
    target: 'figure',
    state: { ...BASE, source: 'encoder', view: 'model', layer: 0, head: 0 },
    text: (s, r) =>
      r.kind === 'model'
        ? `A trained encoder: ${r.model.layers} layers × ${r.model.heads} heads that learnt their W_Q, W_K, W_V by filling in hidden words of dictionary sentences (WordNet’s and GCIDE’s), read as pieces of words. Each head attends in its own way; under each map, what it does on held-out text; the last row rolls every layer up. Open a map to see it large. The decoder (More options, Source) sees only the past.`
        : 'Loading the trained encoder…',
  },
  {
    title: 'Switch a head off',
    target: 'predictions',
    // "station" hidden (word 4, one piece: row 4), and layer 1's head 3 switched off: measured on held-out
    // text, it looks at the previous word (model/encoder-head-stats.json; its caption is read from the model).
    state: { ...BASE, source: 'encoder', view: 'model', layer: 0, head: 2, blank: 4, word: 4, off: '1.3' },
    text: (s, r) =>
      r.kind === 'model' && r.model.off && r.model.blank
        ? `“${r.model.blank.word}” is hidden and layer 1’s head 3 is switched off (on held-out text: ${r.model.run.captions[0]?.[2] || 'no caption'}): it adds nothing now. ${movedLine(r.model, r.model.blank.word.toLowerCase())} Switch other heads off (or this one back on) and watch the guesses move; “Which heads matter here?” tries each in turn.`
        : 'Loading the trained encoder…',
  },
];

export class Tour {
  /** start: the "Start here" button; store; onStop(): after a stop set the state (the page writes the URL). */
  constructor(start, { store, onStop }) {
    this.store = store;
    this.onStop = onStop;
    const e = (this.els = {});
    e.title = h('h2', { id: 'tour-title', tabindex: -1 });
    e.count = h('p', { class: 'tour-count' });
    e.text = h('p', { class: 'tour-text', 'aria-live': 'polite' });
    e.back = h('button', { type: 'button', class: 'tour-back' }, 'Back');
    e.next = h('button', { type: 'button', class: 'tour-next' }, 'Next');
    e.leave = h('button', { type: 'button', class: 'tour-leave' }, 'Leave the tour');
    e.panel = h(
      'div',
      { class: 'tour', role: 'dialog', 'aria-modal': 'false', 'aria-labelledby': 'tour-title', hidden: true },
      e.count,
      e.title,
      e.text,
      h('div', { class: 'row' }, e.back, e.next, e.leave),
    );
    document.body.append(e.panel);
    start?.addEventListener('click', () => this.go(0));
    e.back.addEventListener('click', () => this.go(store.state.tour - 1));
    e.next.addEventListener('click', () => (store.state.tour < STOPS.length - 1 ? this.go(store.state.tour + 1) : this.leave()));
    e.leave.addEventListener('click', () => this.leave());
    e.panel.addEventListener('keydown', (ev) => ev.key === 'Escape' && this.leave());
    store.subscribe(() => this.render());
    if (store.state.tour !== null) this.go(Math.min(store.state.tour, STOPS.length - 1));
  }

  /** Goes to stop k: sets its state, points at its part of the page, moves focus to the panel. */
  go(k) {
    if (k < 0 || k >= STOPS.length) return;
    const stop = STOPS[k];
    this.store.set({ ...stop.state, tour: k });
    this.onStop?.();
    this.render();
    for (const old of document.querySelectorAll('.tour-target')) old.classList.remove('tour-target');
    // A stop's part may not be drawn yet (the trained model still loading, as on a link straight to the
    // stop): render() points at it when it first appears.
    this.pending = stop.target;
    this.pointAtTarget();
    this.els.title.focus({ preventScroll: true });
  }

  /** Highlights the pending stop's part of the page and scrolls it into view, once it exists. */
  pointAtTarget() {
    const target = this.pending && document.getElementById(this.pending);
    if (!target || !target.getClientRects().length) return; // not there yet, or not shown yet
    this.pending = null;
    target.classList.add('tour-target');
    target.scrollIntoView({ block: 'start', behavior: 'instant' });
  }

  leave() {
    for (const old of document.querySelectorAll('.tour-target')) old.classList.remove('tour-target');
    this.pending = null;
    this.store.set({ tour: null });
    this.onStop?.();
    this.els.panel.hidden = true;
    document.getElementById('tour-start')?.focus({ preventScroll: true });
  }

  render() {
    const k = this.store.state.tour,
      e = this.els;
    e.panel.hidden = k === null;
    if (k === null) return;
    const stop = STOPS[k],
      r = this.store.shown;
    e.count.textContent = `Stop ${k + 1} of ${STOPS.length}`;
    e.title.textContent = stop.title;
    const text = r ? stop.text(this.store.state, r) : 'Loading…';
    if (e.text.textContent !== text) e.text.textContent = text;
    e.back.disabled = k === 0;
    e.next.textContent = k === STOPS.length - 1 ? 'Finish' : 'Next';
    e.panel.dataset.stop = String(k);
    this.pointAtTarget();
  }
}

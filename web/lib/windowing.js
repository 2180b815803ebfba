// Windows onto long inputs, shared by the views: up to ALL_ROWS tokens a view shows every row; a
// longer input is shown WINDOW rows at a time, around the chosen word, and the reader pages through it.
import { h } from './dom.js';
import { count as number } from './format.js';

/** Up to this many tokens a view shows every row; a longer input is shown through a window. */
export const ALL_ROWS = 64;
/** Rows (and at most columns) of that window. */
export const WINDOW = 48;

export const clamp = (v, lo, hi) => Math.min(hi, Math.max(lo, v));
/** The start of an n-long window of 0…T-1 that shows i, moved as little as possible from `start`. */
export const follow = (start, n, T, i) => clamp(i < start ? i : i >= start + n ? i - n + 1 : start, 0, Math.max(0, T - n));
/** The start of an n-long window of 0…T-1 centred on i. */
export const centre = (n, T, i) => clamp(i - Math.floor(n / 2), 0, Math.max(0, T - n));

/**
 * "Showing words 101–148 of 1,000." and ↑ / ↓ buttons for a view that shows a window of rows.
 * noun: what the rows are ("words", "keys"); hint: a sentence after it; onPage(±1) pages.
 */
export class Pager {
  constructor(noun, hint, onPage) {
    this.noun = noun;
    this.text = h('span', { 'aria-live': 'polite' });
    this.earlier = h('button', { type: 'button', class: 'earlier' }, `↑ earlier ${noun}`);
    this.later = h('button', { type: 'button', class: 'later' }, `later ${noun} ↓`);
    this.el = h(
      'div',
      { class: 'pager', hidden: true },
      h('p', { class: 'hm-window' }, this.text, hint ? h('span', { class: 'muted' }, ` ${hint}`) : null),
      h('div', { class: 'row' }, this.earlier, this.later),
    );
    this.earlier.addEventListener('click', () => onPage(-1));
    this.later.addEventListener('click', () => onPage(1));
  }

  /** Shows rows start … start + n - 1 of T (hidden when that is all of them); more: said after it. */
  show(start, n, T, more = '') {
    this.el.hidden = n >= T;
    if (n >= T) return;
    this.text.textContent = `Showing ${this.noun} ${number(start + 1)}–${number(start + n)} of ${number(T)}${more}.`;
    this.earlier.disabled = start === 0;
    this.later.disabled = start + n >= T;
  }
}

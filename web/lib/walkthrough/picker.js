// The walkthrough's query-word bar, sticky at the top of the screen while the steps scroll under it:
// one button per word on a single line (it scrolls sideways rather than grow taller), or a menu past
// WORDS words. Its words are always the result's labels, so it can never show another sentence's.
import { h } from '../dom.js';
import { WORDS } from './kit.js';

export class Picker {
  /** onPick(i): the reader chose query word i. */
  constructor(onPick) {
    this.onPick = onPick;
    this.buttons = h('div', { class: 'picker', role: 'group', 'aria-label': 'Query word' });
    this.menu = h('select', { class: 'picker-menu', 'aria-label': 'Query word' });
    this.menu.addEventListener('change', () => onPick(Number(this.menu.value)));
    this.el = h('div', { class: 'pick-row' }, h('span', { class: 'pick-label' }, 'Query word:'), this.buttons, this.menu);
  }

  /** labels: the words (as the views print them); i: the selected one. */
  draw(labels, i) {
    const asMenu = labels.length > WORDS;
    this.buttons.hidden = asMenu;
    this.menu.hidden = !asMenu;
    if (asMenu) {
      const options = this.menu.options;
      if (options.length !== labels.length) this.menu.replaceChildren(...labels.map((_, k) => h('option', { value: k })));
      labels.forEach((l, k) => {
        const text = `${k + 1}: ${l}`;
        if (options[k].textContent !== text) options[k].textContent = text;
      });
      this.menu.value = String(i);
      return;
    }
    const kids = this.buttons.children;
    while (kids.length > labels.length) this.buttons.lastChild.remove();
    while (kids.length < labels.length) {
      const k = kids.length;
      const b = h('button', { type: 'button', 'data-index': k });
      b.addEventListener('click', () => {
        this.onPick(k);
        b.focus();
      });
      this.buttons.append(b);
    }
    [...kids].forEach((b, k) => {
      if (b.textContent !== labels[k]) b.textContent = labels[k];
      b.classList.toggle('on', k === i);
      b.setAttribute('aria-pressed', String(k === i));
    });
    // The chosen word stays in sight on the bar's own line (never scrolling the page to it).
    const b = kids[i],
      bar = this.buttons;
    if (b && bar.scrollWidth > bar.clientWidth) {
      if (b.offsetLeft < bar.scrollLeft) bar.scrollLeft = b.offsetLeft;
      else if (b.offsetLeft + b.offsetWidth > bar.scrollLeft + bar.clientWidth)
        bar.scrollLeft = b.offsetLeft + b.offsetWidth - bar.clientWidth;
    }
  }
}

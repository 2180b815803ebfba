// The switch a trained model's head (or a layer's attention) carries in the views that draw many maps
// (heads, every layer): a toggle button whose pressed state means "switched off", with words that say
// so, so the off state never rests on colour alone. Pressing it asks the figure to switch the part
// (hooks.toggle with the state's spelling: 'L.H' or 'L').
import { h } from '../dom.js';

export class PartSwitch {
  /** toggle(item): the figure's hook. */
  constructor(toggle) {
    // The visible words, then (for a screen reader, which hears no map title beside it) what it switches.
    this.text = h('span', {});
    this.name = h('span', { class: 'sr-only' });
    this.el = h('button', { type: 'button', class: 'part-switch', 'aria-pressed': 'false' }, this.text, this.name);
    this.el.addEventListener('click', () => toggle(this.item));
  }

  /**
   * item: 'L.H' or 'L' (1-based, as the state spells it); name: what it switches ("layer 1 · head 2");
   * off: whether it is switched off now; mode: how a head is replaced (zero | mean | uniform), or null.
   */
  draw({ item, name, off, mode }) {
    this.item = item;
    this.el.dataset.item = item;
    this.el.setAttribute('aria-pressed', String(off));
    this.text.textContent = off ? `Switched off${mode ? ` (${mode})` : ''}` : 'Switch off';
    this.name.textContent = `: ${name}`;
  }
}

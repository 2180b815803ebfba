// The trained model's switchboard above the view: what is switched off now, how a switched-off head is
// replaced (zero, mean or uniform), the positions' switch, "switch everything back on", and two
// sentences on what each way means. The heads' and layers' own switches are in the heads and every-layer
// views (views/switch.js); all of them change the one state's `off` and `offMode`.
import { h } from '../dom.js';
import { MODES_DIFFER, MODE_NOTES, OFF_MODES, describeOff, headIsOff, layerIsOff, offParts, toggled } from '../switches.js';

/** How much taller the switchboard makes a figure of a trained model, for an embed's height (exports.js). */
export const SWITCHBAR_HEIGHT = 160;

export class SwitchBar {
  /** change(changes): the figure's change (to the store). */
  constructor(change) {
    this.change = change;
    this.summary = h('span', { class: 'switch-summary', 'aria-live': 'polite' });
    this.mode = h('select', { id: 'off-mode', 'aria-describedby': 'off-mode-note' }, ...OFF_MODES.map((m) => h('option', { value: m }, m)));
    this.mode.addEventListener('change', () => this.change({ offMode: this.mode.value }));
    this.positions = h('button', {
      type: 'button',
      class: 'part-switch',
      'aria-pressed': 'false',
      'aria-label': 'Switch off the positions',
    });
    this.positions.addEventListener('click', () => this.change({ off: toggled(this.off, 'positions') }));
    this.reset = h('button', { type: 'button', class: 'switch-reset' }, 'Switch everything back on');
    this.reset.addEventListener('click', () => this.change({ off: '' }));
    this.modeNote = h('span', { id: 'off-mode-note' });
    this.el = h(
      'div',
      { class: 'switchbar', role: 'group', 'aria-label': 'Switch parts of the model off' },
      h('p', { class: 'switch-line' }, h('strong', {}, 'Switched off: '), this.summary, ' ', this.reset),
      h(
        'div',
        { class: 'row' },
        h('label', { class: 'field' }, h('span', {}, 'A head off is'), this.mode),
        h('span', { class: 'field' }, h('span', {}, 'Positions'), this.positions),
      ),
      h('details', { class: 'switch-notes' }, h('summary', {}, 'What switching off means'), h('p', {}, this.modeNote, ' ', MODES_DIFFER)),
    );
  }

  /** Shown for a trained model's result; the switches follow the state. */
  draw(state, result) {
    this.el.hidden = result?.kind !== 'model';
    if (this.el.hidden) return;
    // What is in force is the result's: a link may name parts this model does not have (they are named, not used).
    const parts = result.model.off,
      asked = offParts(state.off),
      missing = [
        ...asked.heads.filter(([l, h]) => !headIsOff(parts, l, h)).map(([l, h]) => `head ${l + 1}.${h + 1}`),
        ...asked.layers.filter((l) => !layerIsOff(parts, l)).map((l) => `layer ${l + 1}`),
      ];
    const { layers, heads } = result.model;
    this.summary.textContent =
      (parts
        ? `${describeOff(parts)}${parts.heads.length ? ` (a head off is ${state.offMode})` : ''}.`
        : 'nothing. Switch a head or a layer off in the Heads or Every layer view.') +
      (missing.length ? ` This ${layers}-layer, ${heads}-head model has no ${missing.join(' or ')}.` : '');
    this.reset.hidden = !state.off;
    if (this.mode.value !== state.offMode) this.mode.value = state.offMode;
    this.modeNote.textContent = MODE_NOTES[state.offMode];
    this.positions.setAttribute('aria-pressed', String(asked.positions));
    this.positions.replaceChildren(
      asked.positions ? 'Switched off: a bag of words' : 'Switch off',
      h('span', { class: 'sr-only' }, ': the positional encoding'),
    );
    this.off = state.off;
  }
}

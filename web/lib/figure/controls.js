// The figure's controls, rendered from the state: the sentence (a text area that grows with a
// paragraph), the view and the word up front; everything else (source, score, temperature, mask,
// softmax direction, the diagonal, heads, layer and head) in a "More options" panel on the page, or
// inline in the widget. A control the current view and source do not use is hidden, not greyed
// (state.settingsFor says which apply). User changes go to onChange(changes, { defer, typing }): typing
// when a keystroke (not a paste or a drop) changed the sentence.
import { h } from '../dom.js';
import { count } from '../format.js';
import { ROLLOUT, SOURCES, SOURCE_NAMES, settingsFor } from '../state.js';
import { PAGE_SCORES } from '../scores.js';
import { VIEWS, isAvailable, viewNamed } from '../views/registry.js';
import { wordOf } from '../compute.js';
import { pickerLabels, wordLabels } from '../words.js';

/** The words that name each control in the widget's `controls` attribute, per element. */
const NAMED_BY = {
  source: 'source',
  score: 'options',
  temperature: 'temperature',
  mask: 'mask',
  norm: 'options',
  diagonal: 'options',
  heads: 'heads',
};
const ROLLOUT_TEXT =
  'Attention rollout (Abnar & Zuidema 2020): how much each position draws on each input token through all layers: ' +
  'each layer’s heads averaged, its residual connection counted as 0.5·I, rows renormalised, the layers multiplied.';

const select = (id, values, names) => h('select', { id }, ...values.map((v) => h('option', { value: v }, names[v] ?? v)));

// The input events of keystrokes: the sentence's last word may be unfinished (store.js waits for a pause
// before fetching its vector). A paste, a drop or an autocorrection brings whole words.
const TYPING = new Set(['insertText', 'insertCompositionText', 'deleteContentBackward', 'deleteContentForward']);

export class Controls {
  /** options: { disclose (the "More options" panel; else inline), onChange(changes, { defer, typing }), onClearImport() } */
  constructor({ disclose = false, onChange, onClearImport }) {
    const e = (this.els = {});
    this.onChange = onChange;
    e.sentence = h('textarea', {
      id: 'sentence',
      rows: 1,
      autocomplete: 'off',
      autocapitalize: 'off',
      spellcheck: 'false',
      'aria-describedby': 'status message',
    });
    e.sentence2 = h('textarea', { id: 'sentence2', rows: 1, autocomplete: 'off', autocapitalize: 'off', spellcheck: 'false' });
    e.view = h('select', { id: 'view' }, ...VIEWS.map((v) => h('option', { value: v.name }, v.label)));
    e.word = h('select', { id: 'word' });
    e.source = select('source', SOURCES, SOURCE_NAMES);
    e.score = h('select', { id: 'score' }, ...PAGE_SCORES.map((s) => h('option', { value: s.name }, s.label)));
    e.temperature = h('input', { id: 'temperature', type: 'range', min: 0.1, max: 3, step: 0.05, 'aria-describedby': 'temperature-help' });
    e.temperatureValue = h('output', { id: 'temperature-value', for: 'temperature' });
    e.mask = select('mask', ['none', 'causal'], { none: 'none', causal: 'causal (only earlier words)' });
    e.norm = select('norm', ['rows', 'columns'], { rows: 'rows', columns: 'columns' });
    e.norm.title = 'rows: each word’s weights sum to 1; columns: each key’s weights over the words sum to 1';
    e.diagonal = h('input', { id: 'diagonal', type: 'checkbox' });
    e.heads = h('input', { id: 'heads', type: 'number', min: 1, max: 8, step: 1 });
    e.layer = h('select', { id: 'layer' });
    e.head = h('select', { id: 'head' });
    // A pieces model's rows: its pieces, or its words (each map merged by the core); offered only for one.
    e.units = select('units', ['pieces', 'words'], { pieces: 'pieces', words: 'words' });
    e.caption = h('p', { id: 'head-caption', class: 'head-caption', 'aria-live': 'polite' });
    e.importedInfo = h('span', { class: 'imported' });
    e.clearImport = h('button', { type: 'button', class: 'clear-import' }, 'Back to word vectors');
    const field = (name, label, control, extra) =>
      (e[`${name}Field`] = h('label', { class: 'field', for: control.id }, h('span', {}, label), control, extra));

    e.sentenceField = h('div', { class: 'sentence-field' }, h('label', { for: 'sentence' }, 'Sentence'), e.sentence);
    e.sentence2Field = h(
      'div',
      { class: 'sentence-field', hidden: true },
      h('label', { for: 'sentence2' }, 'Second sentence (the same word in another context)'),
      e.sentence2,
    );
    e.more = h(
      'button',
      { type: 'button', id: 'more', class: 'more', 'aria-expanded': 'false', 'aria-controls': 'options-panel' },
      'More options',
    );
    e.main = h(
      'div',
      { class: 'row main-controls' },
      field('view', 'View', e.view),
      field('word', 'Word', e.word),
      disclose ? e.more : null,
    );
    e.temperatureField = h(
      'div',
      { class: 'field slider' },
      h('label', { for: 'temperature' }, 'Temperature'),
      e.temperature,
      e.temperatureValue,
      h('span', { id: 'temperature-help', class: 'muted' }, 'lower: sharper'),
    );
    e.diagonalField = h(
      'label',
      { class: 'field', for: 'diagonal' },
      e.diagonal,
      h('span', {}, 'a word’s weight on itself in the colour scale'),
    );
    e.layerRow = h(
      'div',
      { class: 'row layers', hidden: true },
      field('layer', 'Layer', e.layer),
      field('head', 'Head', e.head),
      field('units', 'Units', e.units),
      e.importedInfo,
      e.clearImport,
      e.caption,
    );
    e.status = h('p', { id: 'status', class: 'status', role: 'status' }, 'Loading…');
    e.panel = h(
      'div',
      { id: 'options-panel', class: `options${disclose ? ' panel' : ''}`, hidden: disclose },
      h(
        'div',
        { class: 'row' },
        field('source', 'Source', e.source),
        field('score', 'Score', e.score),
        field('mask', 'Mask', e.mask),
        field('heads', 'Heads', e.heads),
      ),
      h('div', { class: 'row' }, e.temperatureField, field('norm', 'Softmax along', e.norm), e.diagonalField),
      e.status,
    );
    e.root = h(
      'section',
      { class: 'controls', 'aria-label': 'Sentence and settings' },
      e.sentenceField,
      e.sentence2Field,
      e.main,
      e.layerRow,
      e.panel,
    );
    this.el = e.root;
    this.disclose = disclose;
    this.#wire(onClearImport);
  }

  #wire(onClearImport) {
    const e = this.els,
      go = (changes, defer = false, typing = false) => this.onChange(changes, { defer, typing });
    e.sentence.addEventListener('input', (event) => {
      this.#grow(e.sentence);
      go({ sentence: e.sentence.value }, true, TYPING.has(event.inputType));
    });
    e.sentence2.addEventListener('input', () => {
      this.#grow(e.sentence2);
      go({ sentence2: e.sentence2.value }, true);
    });
    e.view.addEventListener('change', () => go({ view: e.view.value }));
    e.word.addEventListener('change', () => go({ word: Number(e.word.value) }));
    for (const type of ['focus', 'pointerdown']) e.word.addEventListener(type, () => this.#fullWordList());
    e.source.addEventListener('change', () => go({ source: e.source.value }));
    e.score.addEventListener('change', () => go({ score: e.score.value }));
    e.temperature.addEventListener('input', () => go({ temperature: Number(e.temperature.value) }, true));
    e.mask.addEventListener('change', () => go({ mask: e.mask.value }));
    e.norm.addEventListener('change', () => go({ norm: e.norm.value }));
    e.diagonal.addEventListener('change', () => go({ diagonal: e.diagonal.checked ? 'scale' : 'apart' }));
    e.heads.addEventListener('change', () => {
      const n = Math.round(Number(e.heads.value));
      if (n >= 1 && n <= 8) go({ heads: n });
      else e.heads.value = String(this.state.heads);
    });
    e.layer.addEventListener('change', () => go({ layer: e.layer.value === ROLLOUT ? ROLLOUT : Number(e.layer.value) }));
    e.head.addEventListener('change', () => go({ head: Number(e.head.value) }));
    e.units.addEventListener('change', () => go({ units: e.units.value }));
    e.clearImport.addEventListener('click', () => onClearImport?.());
    e.more.addEventListener('click', () => this.open(e.panel.hidden));
  }

  /** Opens or closes the "More options" panel. */
  open(on) {
    this.els.panel.hidden = !on;
    this.els.more.setAttribute('aria-expanded', String(on));
  }

  /** A text area follows its text: one line for a sentence, up to ten for a paragraph (then it scrolls). */
  #grow(t = this.els.sentence) {
    if (!t.isConnected) return;
    t.style.height = 'auto';
    const line = parseFloat(getComputedStyle(t).lineHeight) || 24;
    t.style.height = `${Math.min(t.scrollHeight + 2, line * 10 + 20)}px`;
  }

  /** Shows the controls named in `set` (state.CONTROLS words) that also apply to what is shown. */
  draw(state, result, { allowed, imported, status }) {
    const e = this.els;
    this.state = state;
    if (e.sentence.value !== state.sentence && document.activeElement !== e.sentence) {
      e.sentence.value = state.sentence;
      requestAnimationFrame(() => this.#grow());
    } else if (e.sentence.value !== state.sentence) e.sentence.value = state.sentence;
    if (e.sentence2.value !== state.sentence2) e.sentence2.value = state.sentence2;
    const applies = settingsFor(state, imported);
    e.sentence2Field.hidden = !applies.sentence2 || !allowed.has('sentence');
    e.view.value = state.view;
    e.source.value = state.source;
    e.score.value = state.score;
    e.temperature.value = String(state.temperature);
    e.temperatureValue.textContent = state.temperature.toFixed(2);
    e.mask.value = state.mask;
    e.norm.value = state.norm;
    e.diagonal.checked = state.diagonal === 'scale';
    e.heads.value = String(state.heads);
    e.sentence.disabled = Boolean(imported);
    // A view that cannot show this source (the steps of imported attention, every layer without a trained model) cannot be chosen.
    VIEWS.forEach((v, k) => {
      const option = e.view.options[k];
      option.disabled = !isAvailable(v, state, { imported });
      option.hidden = option.disabled && Boolean(v.hideUnavailable);
    });
    for (const [name, word] of Object.entries(NAMED_BY)) e[`${name}Field`].hidden = !(allowed.has(word) && applies[name]);
    e.sentenceField.hidden = !allowed.has('sentence');
    e.viewField.hidden = !allowed.has('view');
    e.wordField.hidden = !allowed.has('word') || !result?.ok;
    e.more.hidden = !this.disclose || ![...Object.values(NAMED_BY)].some((w) => allowed.has(w));
    e.status.textContent = status;
    // The page keeps its status line (in More options); the widget shows it only until its source is in.
    e.status.hidden = !this.showStatus && Boolean(result?.ok);
    this.#words(state, result);
    this.#layers(state, result, imported, applies);
    const anyInPanel = [...e.panel.querySelectorAll('.field')].some((f) => !f.hidden) || Boolean(status && this.showStatus);
    if (!this.disclose) e.panel.hidden = !anyInPanel;
    e.main.hidden = e.viewField.hidden && e.wordField.hidden && e.more.hidden;
    e.root.hidden = e.sentenceField.hidden && e.main.hidden && e.layerRow.hidden && (this.disclose ? e.panel.hidden : !anyInPanel);
  }

  /**
   * The Word menu: one option per token. For a long input the full list (up to 1,024 options) is only
   * built when the reader reaches for the menu; until then it holds the chosen word alone, so typing
   * does not rebuild a thousand options per key.
   */
  #words(state, result) {
    const sel = this.els.word;
    if (!result?.ok) return;
    const word = wordOf(state, result);
    // A pieces model's pieces also name their word ("20: g (gtk)").
    this.wordList = { labels: pickerLabels(result.tokens, wordLabels(result)), word };
    if (result.T > 64 && document.activeElement !== sel) {
      sel.replaceChildren(h('option', { value: word }, `${word + 1}: ${this.wordList.labels[word]}`));
      sel.dataset.full = '';
      sel.value = String(word);
      return;
    }
    this.#fullWordList();
  }

  #fullWordList() {
    const sel = this.els.word,
      { labels, word } = this.wordList ?? {};
    if (!labels) return;
    if (sel.options.length !== labels.length) sel.replaceChildren(...labels.map((_, i) => h('option', { value: i })));
    labels.forEach((text, i) => {
      const label = `${i + 1}: ${text}`;
      if (sel.options[i].textContent !== label) sel.options[i].textContent = label;
    });
    sel.dataset.full = 'true';
    sel.value = String(word);
  }

  /** The layer and head menus: imported attention's, or the trained model's (with the rollout and captions). */
  #layers(state, result, imported, applies) {
    const e = this.els;
    const dims = imported
      ? { layers: imported.layers, heads: imported.heads, rollout: false }
      : result?.kind === 'model'
        ? { layers: result.model.layers, heads: result.model.heads, rollout: true }
        : null;
    e.layerRow.hidden = !dims;
    // A view that stays on pieces (the steps, the compare view: registry.js `units`) has no choice to offer.
    e.unitsField.hidden = Boolean(imported) || result?.vocabulary !== 'pieces' || viewNamed(state.view).units === 'pieces';
    e.units.value = state.units;
    e.importedInfo.hidden = !imported;
    e.clearImport.hidden = !imported || !this.allowImport;
    e.caption.hidden = !dims || Boolean(imported);
    if (!dims) return;
    e.importedInfo.textContent = imported
      ? `Imported: ${imported.layers} layer${imported.layers > 1 ? 's' : ''} × ${imported.heads} head${imported.heads > 1 ? 's' : ''}, ${count(imported.tokens.length)} tokens`
      : '';
    const key = `${dims.layers}/${dims.heads}/${dims.rollout}`;
    if (e.layer.dataset.shape !== key) {
      e.layer.dataset.shape = key;
      e.layer.replaceChildren(
        ...Array.from({ length: dims.layers }, (_, l) => h('option', { value: l }, String(l + 1))),
        ...(dims.rollout ? [h('option', { value: ROLLOUT }, 'all: rollout')] : []),
      );
      e.head.replaceChildren(...Array.from({ length: dims.heads }, (_, k) => h('option', { value: k }, String(k + 1))));
    }
    const layer = state.layer === ROLLOUT && dims.rollout ? ROLLOUT : Math.min(state.layer === ROLLOUT ? 0 : state.layer, dims.layers - 1);
    const head = Math.min(state.head, dims.heads - 1);
    e.layer.value = String(layer);
    e.head.value = String(head);
    // A view of every head of the layer, or of every layer, has none to pick; nor has the rollout.
    e.headField.hidden = !applies.head || layer === ROLLOUT;
    e.layerField.hidden = !applies.layer;
    if (!imported) {
      const captions = result.model.run.captions;
      e.caption.textContent =
        layer === ROLLOUT
          ? ROLLOUT_TEXT
          : applies.layer && !applies.head
            ? `Layer ${layer + 1}: each head is captioned under its map.`
            : `Layer ${layer + 1}, head ${head + 1}, measured on held-out text: ${captions[layer]?.[head] ?? 'no caption'}.`;
    }
  }
}

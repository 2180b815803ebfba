// One interactive attention figure: controls, the selected view, readout, legend, notes, and the
// share / export / import tools. The page (light DOM) and the <attention-figure> widget (shadow DOM)
// both build theirs with this class. All maths comes from the wasm core (./core.js); imported
// weights are checked (./importer.js) and drawn as they are. Each view is one object kept across
// redraws (heatmap.js, lines.js, steps.js), so a new sentence or slider value repaints in place.
import { AttentionError, MAX_TOKENS, computeSentence, loadCore, loadVectors, tokenCount } from './core.js';
import { activeIn, count as number, h } from './dom.js';
import { download, toJSON, toPNG, toSVG } from './exporter.js';
import { Heatmap, drawLegend, format4, maxOf } from './heatmap.js';
import { ImportError, parseAttention } from './importer.js';
import { Lines, describeLinks } from './lines.js';
import { DEFAULTS, VIEWS, VIEW_NAMES, toParams } from './state.js';
import { Steps } from './steps.js';
import { ALL_ROWS } from './windowing.js';

const HINTS = {
  heatmap: 'Hover over a cell, tap it, or Tab into the grid and use the arrow keys, to read its exact weight.',
  lines: 'Hover over a word, tap it, or Tab in and use the arrow keys, to keep only its lines.',
  steps: 'The numbers the core computed for the selected word, stage by stage.',
  heads: 'Each head projects the word vectors with its own random (seeded) weights, then attends. Hover or tap a cell to read it.',
};
// A user's change redraws at once, unless the figure shows more tokens than this: then redraws wait
// for the next animation frame, so fast typing or a dragged slider on a long input (a redraw of
// tens of ms) coalesces into one redraw per frame instead of queueing up.
const DEFER_TOKENS = 128;
const nextPaint = () => new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve, 0)));

export class Figure {
  /**
   * root: an element (page) or shadow root (widget) to build into.
   * options: { controls: Set of control names, framed, showVocabulary, shareBase: () => URL string,
   *            onState(state) after user changes, theme }
   */
  constructor(root, options = {}) {
    this.root = root;
    this.options = options;
    this.state = { ...DEFAULTS };
    this.imported = null;
    this.model = null;
    this.core = null;
    this.vectors = null;
    this.loadError = null;
    this.focus = null; // { row, col } of the heatmap's active cell
    this.views = { heatmap: null, lines: null, steps: null, heads: [] };
    this.frame = 0;
    this.#build();
    this.setControls(options.controls);
    this.setTheme(options.theme ?? 'auto');
  }

  // ---- DOM -----------------------------------------------------------------------------------------
  #build() {
    const e = (this.els = {});
    e.sentence = h('input', { id: 'sentence', type: 'text', autocomplete: 'off', autocapitalize: 'off', spellcheck: 'false', 'aria-describedby': 'status message' });
    e.view = h('select', { id: 'view' }, ...VIEWS.map((v) => h('option', { value: v }, VIEW_NAMES[v])));
    e.heads = h('input', { id: 'heads', type: 'number', min: 1, max: 8, step: 1 });
    e.mask = h('select', { id: 'mask' }, h('option', { value: 'none' }, 'none'), h('option', { value: 'causal' }, 'causal'));
    e.word = h('select', { id: 'word' });
    e.layer = h('select', { id: 'layer' });
    e.head = h('select', { id: 'head' });
    e.temperature = h('input', { id: 'temperature', type: 'range', min: 0.1, max: 3, step: 0.05, 'aria-describedby': 'temperature-help' });
    e.temperatureValue = h('output', { id: 'temperature-value', for: 'temperature' });
    e.scale = h('input', { id: 'scale', type: 'checkbox' });
    e.norm = h('select', { id: 'norm' }, h('option', { value: 'rows' }, 'rows'), h('option', { value: 'columns' }, 'columns'));
    e.diagonal = h('input', { id: 'diagonal', type: 'checkbox' });
    e.status = h('p', { id: 'status', class: 'status', role: 'status' }, 'Loading…');
    e.message = h('p', { id: 'message', class: 'message', role: 'alert', hidden: true });
    e.importedInfo = h('span');
    e.clearImport = h('button', { type: 'button', class: 'clear-import' }, 'Back to word vectors');
    const field = (name, label, control) => (e[`${name}Field`] = h('label', { class: 'field', for: control.id }, h('span', {}, label), control));

    e.sentenceLabel = h('label', { for: 'sentence' }, 'Sentence');
    e.settings = h('div', { class: 'row' }, field('view', 'View', e.view), field('heads', 'Heads', e.heads), field('mask', 'Mask', e.mask), field('word', 'Word', e.word));
    e.importedRow = h('div', { class: 'row imported', hidden: true }, field('layer', 'Layer', e.layer), field('head', 'Head', e.head), e.importedInfo, e.clearImport);
    e.slider = h('div', { class: 'slider' },
      h('label', { for: 'temperature' }, 'Temperature'), e.temperature, e.temperatureValue,
      h('span', { id: 'temperature-help', class: 'muted' }, 'lower: sharper, higher: more even'));
    e.options = h('div', { class: 'row options' },
      h('label', { class: 'field', for: 'scale' }, e.scale, h('span', {}, 'divide by √d')),
      h('label', { class: 'field', for: 'diagonal' }, e.diagonal, h('span', {}, 'hide the diagonal')),
      field('norm', 'Softmax along', e.norm), h('span', { class: 'muted' }, 'rows: each query’s weights sum to 1; columns: each key’s'));
    e.controls = h('section', { class: 'controls', 'aria-label': 'Sentence and settings' },
      e.sentenceLabel, e.sentence, e.settings, e.importedRow, e.slider, e.options, e.status);

    e.viewBox = h('div', { id: 'heatmap', class: 'view' });
    e.readout = h('p', { id: 'readout', class: 'readout', 'aria-live': 'polite' });
    e.legend = h('div', { id: 'legend', class: 'legend-wrap' });
    e.notes = h('ul', { id: 'notes', class: 'notes' });
    e.optionNote = h('p', { id: 'option-note', class: 'option-note' });
    e.plot = h('div', { id: 'plot', class: 'plot', hidden: true }, e.viewBox, e.readout, e.legend, e.optionNote, e.notes);

    const button = (name, text, title) => (e[name] = h('button', { type: 'button', class: name, title }, text));
    e.toolbar = h('div', { class: 'toolbar', role: 'toolbar', 'aria-label': 'Share and export' },
      button('shareButton', 'Share / embed', 'A link and an iframe snippet that reproduce this figure'),
      button('svgButton', 'SVG', 'Download the figure as SVG'),
      button('pngButton', 'PNG', 'Download the figure as PNG'),
      button('jsonButton', 'JSON', 'Download the numbers as JSON'),
      button('importButton', 'Import attention…', 'Draw attention weights from a real model'));

    e.shareURL = h('input', { type: 'text', readonly: true, class: 'share-url', 'aria-label': 'Link to this figure' });
    e.shareSnippet = h('textarea', { readonly: true, rows: 4, class: 'share-snippet', 'aria-label': 'Iframe snippet' });
    e.shareNote = h('p', { class: 'muted', 'aria-live': 'polite' });
    e.copyURL = h('button', { type: 'button', class: 'copy-url' }, 'Copy link');
    e.copySnippet = h('button', { type: 'button', class: 'copy-snippet' }, 'Copy iframe');
    e.sharePanel = h('div', { class: 'panel share', hidden: true },
      h('p', {}, h('strong', {}, 'Link'), ' — opens the full page in this exact state'), e.shareURL,
      h('p', {}, h('strong', {}, 'Embed'), ' — paste into your article'), e.shareSnippet,
      h('div', { class: 'row' }, e.copyURL, e.copySnippet), e.shareNote);

    e.importText = h('textarea', { rows: 5, class: 'import-text', 'aria-label': 'Attention JSON',
      placeholder: '{"tokens": ["[CLS]", "the", …], "attentions": [[[[…T weights…], …T rows], …heads], …layers]}' });
    e.importFile = h('input', { type: 'file', accept: '.json,application/json', class: 'import-file', 'aria-label': 'Load a JSON file' });
    e.importGo = h('button', { type: 'button', class: 'import-go' }, 'Draw it');
    e.importMessage = h('p', { class: 'import-message', role: 'alert' });
    e.importPanel = h('div', { class: 'panel import', hidden: true },
      h('p', {}, 'Paste or load the attention of a real model: ', h('code', {}, '{"tokens": [...], "attentions": layers × heads × T × T}'),
        ' — what Hugging Face transformers returns with ', h('code', {}, 'output_attentions=True'), ' (as nested lists).'),
      e.importText, h('div', { class: 'row' }, e.importFile, e.importGo), e.importMessage);

    e.figure = h('div', { class: 'af', part: 'figure' }, e.controls, e.message, e.plot, e.toolbar, e.sharePanel, e.importPanel);
    if (this.options.framed) e.figure.classList.add('framed');
    this.root.append(e.figure);
    this.#wire();
    this.#syncControls();
    // Layout follows the width available (cell size, columns in the window, the lines' gap): redraw
    // when it changes, and repaint canvases when the reader's colour scheme flips.
    // The width is kept from the observer's reports, so a redraw never has to force a layout to read it.
    this.viewWidth = 0;
    new ResizeObserver((entries) => {
      const w = Math.round(entries.at(-1).contentRect.width);
      if (!w || w === this.viewWidth) return;
      const redraw = this.model && this.viewWidth !== 0;
      this.viewWidth = w;
      if (redraw) this.#schedule(() => this.#draw());
    }).observe(e.viewBox);
    matchMedia('(prefers-color-scheme: dark)').addEventListener?.('change', () => this.#restyle());
  }

  /** Canvases read the theme's colours once; after a theme change they read them again and repaint. */
  #restyle() {
    const v = this.views;
    for (const view of [v.heatmap, v.lines, ...v.heads]) view?.restyle();
  }

  #wire() {
    const e = this.els;
    e.sentence.addEventListener('input', () => this.#user({ sentence: e.sentence.value }));
    e.view.addEventListener('change', () => this.#user({ view: e.view.value }));
    e.heads.addEventListener('change', () => {
      const n = Math.round(Number(e.heads.value));
      if (n >= 1 && n <= 8) this.#user({ heads: n });
      else e.heads.value = String(this.state.heads);
    });
    e.mask.addEventListener('change', () => this.#user({ mask: e.mask.value }));
    e.word.addEventListener('change', () => this.#user({ word: e.word.value === '' ? null : Number(e.word.value) }));
    for (const type of ['focus', 'pointerdown']) e.word.addEventListener(type, () => e.word.dataset.full !== 'true' && this.#fullWordList());
    e.layer.addEventListener('change', () => this.#user({ layer: Number(e.layer.value) }));
    e.head.addEventListener('change', () => this.#user({ head: Number(e.head.value) }));
    e.temperature.addEventListener('input', () => this.#user({ temperature: Number(e.temperature.value) }));
    e.scale.addEventListener('change', () => this.#user({ scale: e.scale.checked ? 'sqrt' : 'none' }));
    e.diagonal.addEventListener('change', () => this.#user({ diagonal: e.diagonal.checked ? 'hide' : 'show' }));
    e.norm.addEventListener('change', () => this.#user({ norm: e.norm.value }));
    e.clearImport.addEventListener('click', () => this.clearImport());
    e.shareButton.addEventListener('click', () => this.#toggle(e.sharePanel, e.shareButton, () => this.#fillShare()));
    e.importButton.addEventListener('click', () => this.#toggle(e.importPanel, e.importButton));
    e.copyURL.addEventListener('click', () => this.#copy(e.shareURL, 'Link copied.'));
    e.copySnippet.addEventListener('click', () => this.#copy(e.shareSnippet, 'Iframe snippet copied.'));
    e.svgButton.addEventListener('click', () => this.#run(() => download(e.figure, new Blob([this.exportSVG()], { type: 'image/svg+xml' }), `${this.#fileStem()}.svg`)));
    e.pngButton.addEventListener('click', () => this.#run(async () => download(e.figure, await this.exportPNG(), `${this.#fileStem()}.png`)));
    e.jsonButton.addEventListener('click', () => this.#run(() => download(e.figure, new Blob([JSON.stringify(this.exportJSON())], { type: 'application/json' }), `${this.#fileStem()}.json`)));
    e.importGo.addEventListener('click', () => this.importAttention(e.importText.value));
    e.importFile.addEventListener('change', async () => {
      const file = e.importFile.files?.[0];
      if (!file) return;
      const text = await file.text();
      e.importText.value = text.length > 20000 ? '' : text;
      this.importAttention(text);
    });
  }

  #toggle(panel, button, fill) {
    panel.hidden = !panel.hidden;
    button.setAttribute('aria-expanded', String(!panel.hidden));
    if (!panel.hidden) fill?.();
  }

  async #copy(field, done) {
    field.select();
    try {
      await navigator.clipboard.writeText(field.value);
      this.els.shareNote.textContent = done;
    } catch {
      this.els.shareNote.textContent = 'Selected: press Ctrl+C (⌘C) to copy.';
    }
  }

  async #run(action) {
    try {
      await action();
    } catch (err) {
      this.#showMessage(`Export failed: ${err.message}`);
    }
  }

  #fileStem() {
    const words = this.model ? this.model.tokens.slice(0, 4).map((t) => t.text.replace(/[^\p{L}\p{N}]+/gu, '')).filter(Boolean) : [];
    return ['attention', this.state.view, ...words].join('-').slice(0, 60);
  }

  /** Shows or hides controls: a Set of names from state.CONTROLS. */
  setControls(set) {
    const c = set ?? new Set();
    const e = this.els;
    const show = (node, on) => (node.hidden = !on);
    show(e.sentenceLabel, c.has('sentence'));
    show(e.sentence, c.has('sentence'));
    for (const name of ['view', 'heads', 'mask', 'word']) show(e[`${name}Field`], c.has(name));
    show(e.settings, ['view', 'heads', 'mask', 'word'].some((n) => c.has(n)));
    show(e.slider, c.has('temperature'));
    show(e.options, c.has('options'));
    show(e.shareButton, c.has('share'));
    for (const b of ['svgButton', 'pngButton', 'jsonButton']) show(e[b], c.has('export'));
    show(e.importButton, c.has('import'));
    show(e.toolbar, c.has('share') || c.has('export') || c.has('import'));
    if (!c.has('share')) e.sharePanel.hidden = true;
    if (!c.has('import')) e.importPanel.hidden = true;
    this.controls = c;
    this.#updateStatusVisibility();
  }

  setTheme(theme) {
    const f = this.els.figure;
    f.classList.remove('theme-auto', 'theme-light', 'theme-dark');
    f.classList.add(`theme-${['light', 'dark'].includes(theme) ? theme : 'auto'}`);
    this.#restyle(); // canvases take the new background and line colours
  }

  #updateStatusVisibility() {
    const c = this.controls;
    const anyControl = ['sentence', 'view', 'heads', 'mask', 'word', 'temperature', 'options'].some((n) => c.has(n));
    // The status line says what is loading, or the vocabulary size (the page); the widget hides it once loaded.
    this.els.status.hidden = !this.options.showVocabulary && (this.vectors || this.imported || !anyControl) && !this.loadError;
    this.els.controls.hidden = !anyControl && this.els.status.hidden && this.els.importedRow.hidden;
  }

  #syncControls() {
    const e = this.els, s = this.state;
    if (e.sentence.value !== s.sentence) e.sentence.value = s.sentence;
    e.view.value = s.view;
    e.heads.value = String(s.heads);
    e.mask.value = s.mask;
    e.temperature.value = String(s.temperature);
    e.temperatureValue.textContent = s.temperature.toFixed(2);
    e.scale.checked = s.scale !== 'none';
    e.diagonal.checked = s.diagonal === 'hide';
    e.norm.value = s.norm;
    const vectorsOnly = Boolean(this.imported);
    for (const n of ['sentence', 'heads', 'mask', 'temperature', 'scale', 'norm']) e[n].disabled = vectorsOnly;
    e.view.querySelector('option[value=steps]').disabled = vectorsOnly;
  }

  // ---- state ---------------------------------------------------------------------------------------
  /** Applies state changes coming from outside (attributes, URL) and redraws. */
  set(changes) {
    this.#apply(changes);
    this.render();
  }

  #apply(changes) {
    const before = this.state;
    this.state = { ...before, ...changes };
    if (changes.sentence !== undefined && changes.sentence !== before.sentence && changes.word === undefined) this.state.word = null;
    if (changes.word !== undefined && changes.word !== this.focus?.row) this.focus = null;
    this.#syncControls();
  }

  #user(changes) {
    if ((this.model?.tokens.length ?? 0) <= DEFER_TOKENS) {
      this.set(changes);
    } else {
      this.#apply(changes);
      this.#schedule(() => this.render());
    }
    this.options.onState?.(this.state);
  }

  /** Runs `redraw` at the next animation frame (once, however often it is asked for before then). */
  #schedule(redraw) {
    this.pending = redraw;
    this.frame ||= requestAnimationFrame(() => {
      this.frame = 0;
      const run = this.pending;
      this.pending = null;
      run?.();
    });
  }

  #selectWord(row, col) {
    this.focus = { row, col };
    if (this.state.word === row) return;
    this.state = { ...this.state, word: row };
    if (this.els.word.value !== String(row)) this.els.word.value = String(row);
    this.options.onState?.(this.state);
  }

  // ---- loading -------------------------------------------------------------------------------------
  /** Loads the shared core now, and the shared word vectors after the first paint (unless imported only). */
  async start() {
    this.els.status.textContent = 'Loading the attention core…';
    this.render();
    try {
      this.core = await loadCore();
      if (this.imported && !this.options.showVocabulary) return this.#updateStatusVisibility();
      await nextPaint();
      this.els.status.textContent = 'Loading the word vectors…';
      this.vectors = await loadVectors();
    } catch (err) {
      this.loadError = err;
      this.els.status.textContent = 'Not loaded.';
      this.#updateStatusVisibility();
      if (!this.imported) this.#clearFigure();
      this.#showMessage(`Could not load the attention core or the word vectors (${err.message}). Reload the page to try again.`);
      return;
    }
    this.els.status.textContent = `Vocabulary: ${number(this.vectors.size)} words, ${this.vectors.dim} dimensions each.`;
    this.#updateStatusVisibility();
    this.options.onLoaded?.(this.vectors);
    this.render();
  }

  // ---- imported attention --------------------------------------------------------------------------
  /** Checks and draws attention weights from a model (JSON text or a parsed object). Returns true if drawn. */
  importAttention(input, tokens) {
    let model;
    try {
      model = parseAttention(input, tokens);
    } catch (err) {
      if (!(err instanceof ImportError)) throw err;
      this.els.importMessage.textContent = err.message;
      this.els.importPanel.hidden = !this.controls.has('import');
      this.#showMessage(`Could not draw the imported attention: ${err.message}`);
      return false;
    }
    this.imported = { source: 'imported', ...model };
    this.els.importMessage.textContent = '';
    const e = this.els;
    e.layer.replaceChildren(...model.attentions.map((_, l) => h('option', { value: l }, String(l + 1))));
    e.head.replaceChildren(...model.attentions[0].map((_, k) => h('option', { value: k }, String(k + 1))));
    e.importedInfo.textContent = `Imported: ${model.layers} layer${model.layers > 1 ? 's' : ''} × ${model.heads} head${model.heads > 1 ? 's' : ''}, ${model.tokens.length} tokens`;
    e.importedRow.hidden = false;
    e.clearImport.hidden = !this.controls.has('import');
    const layer = Math.min(this.state.layer, model.layers - 1), head = Math.min(this.state.head, model.heads - 1);
    this.state = { ...this.state, layer, head, view: this.state.view === 'steps' ? 'heatmap' : this.state.view, word: null };
    e.layer.value = String(layer);
    e.head.value = String(head);
    this.#syncControls();
    this.#updateStatusVisibility();
    this.render();
    return true;
  }

  clearImport() {
    this.imported = null;
    this.els.importedRow.hidden = true;
    this.#syncControls();
    this.#updateStatusVisibility();
    this.render();
    if (!this.core && !this.loadError) this.start();
  }

  // ---- drawing -------------------------------------------------------------------------------------
  #showMessage(text, kind = 'error') {
    const m = this.els.message;
    m.textContent = text;
    m.className = `message ${kind}`;
    m.hidden = !text;
  }

  /** Shows a problem in the figure's message line, in place of the figure. */
  showError(text) {
    this.#clearFigure();
    this.#showMessage(text);
  }

  #clearFigure() {
    const e = this.els;
    e.plot.hidden = true;
    e.viewBox.replaceChildren();
    e.viewBox.dataset.view = '';
    e.legend.replaceChildren();
    e.notes.replaceChildren();
    this.model = null;
  }

  #tokenError(text, err) {
    const count = tokenCount(this.core, text);
    if (count === 0) return 'Type a sentence: there are no words to compare yet.';
    return err.message;
  }

  /** Recomputes (in the core) and redraws from the current state (no-op until the vectors are loaded, unless imported). */
  render() {
    if (this.frame) {
      cancelAnimationFrame(this.frame);
      this.frame = 0;
      this.pending = null;
    }
    const started = performance.now();
    const s = this.state;
    let model;
    if (this.imported) {
      model = this.imported;
    } else {
      if (!this.vectors) return;
      if (!s.sentence.trim()) {
        this.#clearFigure();
        this.#showMessage('Type a sentence… its words will appear as the rows and columns of the heatmap.', 'hint');
        return;
      }
      try {
        model = computeSentence(this.core, this.vectors, s);
      } catch (err) {
        this.#clearFigure();
        this.#showMessage(err instanceof AttentionError ? this.#tokenError(s.sentence, err) : `Something went wrong: ${err.message}`);
        if (!(err instanceof AttentionError)) console.error(err);
        return;
      }
    }
    this.model = model;
    const computed = performance.now();
    this.#draw();
    const done = performance.now();
    // For scripts/measure-redraw.mjs: the core's share of the last redraw and the drawing's (ms).
    this.timing = { compute: computed - started, draw: done - computed };
  }

  /** The view of this.model for the current state, drawn by the view objects kept across redraws. */
  #draw() {
    const model = this.model, s = this.state, e = this.els;
    if (!model) return;
    const T = model.tokens.length;
    const word = s.word !== null && s.word < T ? s.word : null;
    this.#fillWords(model.tokens, word);
    if (model.tokenTotal) {
      this.#showMessage(`That is ${number(model.tokenTotal)} tokens; the figure shows the first ${number(MAX_TOKENS)}.`, 'note');
    } else this.#showMessage('');
    const columns = model.source !== 'imported' && model.columns && s.view === 'heatmap';
    const weights = model.source === 'imported' ? model.attentions[s.layer][s.head] : columns ? model.columns : model.single.weights;
    e.plot.hidden = false;
    this.viewWidth ||= e.viewBox.clientWidth; // before the first observer report
    const width = this.viewWidth || 640;
    const show = (...nodes) => {
      if (e.viewBox.dataset.view !== s.view || nodes.some((n, k) => e.viewBox.children[k] !== n) || e.viewBox.children.length !== nodes.length) {
        e.viewBox.replaceChildren(...nodes);
        e.viewBox.dataset.view = s.view;
      }
    };
    this.#readout(null); // the view reports its hovered or focused cell again as it redraws
    e.viewBox.className = s.view === 'heads' ? 'view grid' : 'view';

    if (s.view === 'heatmap') {
      const view = (this.views.heatmap ??= new Heatmap({
        table: true,
        onCell: (cell) => this.#readoutCell(cell),
        onSelect: (r, c) => this.#selectWord(r, c),
      }));
      show(view.el);
      const hideDiagonal = s.diagonal === 'hide';
      view.update({ tokens: model.tokens, weights, hideDiagonal, selectedRow: word, focus: this.focus, width });
      drawLegend(e.legend, view.p.max, hideDiagonal ? 'the largest weight off the diagonal' : undefined);
    } else if (s.view === 'lines') {
      const view = (this.views.lines ??= new Lines({
        onSelect: (i) => this.#selectWord(i, 0),
        onFocusWord: (info) => this.#readout(info ? describeLinks(info) : null),
      }));
      show(view.el);
      view.update({ tokens: model.tokens, weights, selected: word, width });
      e.legend.replaceChildren();
    } else if (s.view === 'steps') {
      if (model.source === 'imported') {
        show();
        this.#showMessage('The steps view needs the scores before the softmax; imported attention holds only the weights. Choose heatmap, lines or heads.', 'hint');
      } else {
        const view = (this.views.steps ??= new Steps());
        show(view.el);
        const scaleText = `scaled = q·k ${s.scale === 'none' ? '' : `÷ √${model.dim} `}÷ temperature ${s.temperature.toFixed(2)}${s.mask === 'causal' ? '; later words masked (−∞)' : ''}`;
        view.update({ tokens: model.tokens, steps: model.single, query: word ?? 0, scaleText });
      }
      e.legend.replaceChildren();
    } else {
      const list = model.source === 'imported' ? model.attentions[s.layer] : model.heads.map((hd) => hd.weights);
      const max = Math.max(...list.map((w) => maxOf(w.data)));
      const views = this.#headViews(list.length);
      show(...views.map((v) => v.el));
      list.forEach((w, k) => views[k].update({ tokens: model.tokens, weights: w, max, selectedRow: word, width }));
      drawLegend(e.legend, max);
    }
    this.#writeNotes(model.tokens);
    this.#writeOptionNote(model, s.view === 'heatmap');
    // The first figure with numbers on it: a User Timing mark that bench/browser.mjs waits for.
    if (!this.drawnOnce) {
      this.drawnOnce = true;
      performance.mark('attention-figure:first-draw');
    }
  }

  /** n compact heatmaps for the heads view; moving one's window moves them all. */
  #headViews(n) {
    const views = this.views.heads;
    while (views.length > n) views.pop();
    while (views.length < n) {
      const k = views.length;
      views.push(new Heatmap({
        compact: true, title: `head ${k + 1}`, head: k, table: true,
        onCell: (cell) => this.#readoutCell(cell),
        onWindow: (origin) => views.forEach((v, other) => other !== k && v.scrollTo(origin)),
      }));
    }
    return views;
  }

  /** One line per heatmap option in force, saying what the picture now shows. */
  #writeOptionNote(model, heatmap) {
    const s = this.state, lines = [];
    if (model.source !== 'imported') {
      if (s.scale === 'none') lines.push('Scores are not divided by √d: the softmax sees the raw dot products, so it is much sharper.');
      if (heatmap && model.columns) lines.push('Softmax down each column: read a column to see how one key word’s attention is shared out among the queries; rows no longer sum to 1.');
    }
    if (heatmap && s.diagonal === 'hide') {
      lines.push(model.source === 'imported'
        ? 'Diagonal hidden (grey): colours are scaled to the largest weight between two different positions.'
        : 'Diagonal hidden (grey). Without learned weights a word’s score with itself is x·x = |x|², and x·y ≤ |x||y|, so unless another word’s vector is longer, every word matches itself most. The colours now span the other words only.');
    }
    this.els.optionNote.replaceChildren(...lines.map((t) => h('span', {}, t)));
  }

  /**
   * The Word menu: one option per token. For a long input the full list (up to MAX_TOKENS options)
   * is only built when the reader reaches for the menu; until then it holds the chosen word alone,
   * so typing does not rebuild a thousand options per key.
   */
  #fillWords(tokens, word) {
    const sel = this.els.word;
    this.wordList = { tokens, word };
    if (tokens.length > ALL_ROWS && activeIn(sel) !== sel) {
      const only = word === null ? [] : [h('option', { value: word }, `${word + 1}: ${tokens[word].text}`)];
      sel.replaceChildren(h('option', { value: '' }, '—'), ...only);
      sel.dataset.full = '';
      sel.value = word === null ? '' : String(word);
      return;
    }
    this.#fullWordList();
  }

  #fullWordList() {
    const sel = this.els.word, { tokens, word } = this.wordList ?? {};
    if (!tokens) return;
    const options = sel.options;
    if (options.length !== tokens.length + 1) {
      sel.replaceChildren(h('option', { value: '' }, '—'), ...tokens.map((_, i) => h('option', { value: i })));
    }
    // Only the options whose word changed are rewritten.
    tokens.forEach((t, i) => {
      const text = `${i + 1}: ${t.text}`;
      if (options[i + 1].textContent !== text) options[i + 1].textContent = text;
    });
    sel.dataset.full = 'true';
    sel.value = word === null ? '' : String(word);
  }

  #readout(text) {
    this.els.readout.textContent = text ?? HINTS[this.state.view];
  }

  #readoutCell(cell) {
    const r = this.els.readout;
    if (!cell) return this.#readout(null);
    r.replaceChildren();
    const strong = h('strong', {}, `${cell.head !== undefined ? `head ${cell.head + 1}: ` : ''}${cell.query.text} → ${cell.key.text}: ${format4(cell.weight)}`);
    r.append(strong, h('span', { class: 'muted' }, ` (query word ${cell.row + 1}, key word ${cell.col + 1})`));
  }

  #writeNotes(tokens) {
    const seen = new Set();
    const items = [];
    for (const t of tokens) {
      if (t.lookup === 'known' || seen.has(t.text)) continue;
      seen.add(t.text);
      items.push(h('li', {}, h('span', { class: `token ${t.lookup}` }, `‘${t.text}’`),
        t.lookup === 'unknown'
          ? ' is not in the vocabulary: it uses a zero vector, so it attends evenly to every word.'
          : ` is not in the vocabulary: it uses the vector of ‘${t.matched}’.`));
    }
    this.els.notes.replaceChildren(...items);
  }

  // ---- share and export ----------------------------------------------------------------------------
  /** The full page's URL reproducing this state. */
  shareURL({ embed = false } = {}) {
    const url = new URL(this.options.shareBase?.() ?? location.href);
    const params = toParams(this.state);
    const theme = [...this.els.figure.classList].find((c) => c.startsWith('theme-'))?.slice(6);
    if (theme && theme !== 'auto') params.set('theme', theme);
    if (embed) params.set('embed', '1');
    url.search = params.toString();
    url.hash = '';
    return url.href;
  }

  /** An iframe snippet for the embed URL. */
  embedSnippet() {
    const height = { heatmap: 620, lines: 560, steps: 620, heads: 640 }[this.state.view];
    const src = this.shareURL({ embed: true }).replaceAll('&', '&amp;').replaceAll('"', '&quot;');
    return `<iframe src="${src}" title="Self-attention figure" width="100%" height="${height}" style="border:0" loading="lazy"></iframe>`;
  }

  #fillShare() {
    const e = this.els;
    e.shareURL.value = this.shareURL();
    e.shareSnippet.value = this.embedSnippet();
    e.shareNote.textContent = this.imported ? 'Imported weights are not part of the link: it shows the word-vector figure with these settings.' : '';
  }

  #svgs() {
    const svgs = [...this.els.plot.querySelectorAll('svg')].filter((s) => s.getBoundingClientRect().width > 0);
    if (!svgs.length) throw new Error('there is no figure to export');
    return svgs;
  }

  #background() {
    return getComputedStyle(this.els.figure).getPropertyValue('--af-bg').trim() || '#ffffff';
  }

  /** The figure as standalone SVG text. */
  exportSVG() {
    return toSVG(this.#svgs(), this.#background());
  }

  /** The figure as a PNG Blob (2× pixels). */
  exportPNG(scale = 2) {
    return toPNG(this.#svgs(), this.#background(), scale);
  }

  /** The numbers: { tokens, attentions: layers × heads × T × T, source, settings } (importable again). */
  exportJSON() {
    if (!this.model) throw new Error('there is no figure to export');
    return toJSON(this.model, this.state);
  }
}

// One interactive attention figure: controls, the selected view, readout, legend, notes, and the
// share / export / import tools. The page (light DOM) and the <attention-figure> widget (shadow DOM)
// both build theirs with this class. Its source is either the word vectors (parameter-free
// attention, seeded random heads) or the trained language model (data/model.bin: every layer and
// head, the rollout, the next-word guesses). All maths comes from the wasm core (./core.js);
// imported weights are checked (./importer.js) and drawn as they are. Each view is one object kept
// across redraws (heatmap.js, lines.js, steps.js), so a new sentence or slider value repaints in place.
import { AttentionError, MAX_TOKENS, computeModel, computeSentence, loadCore, loadModel, loadVectors, tokenCount } from './core.js';
import { activeIn, count as number, h, setAttrs, svgEl } from './dom.js';
import { download, toJSON, toPNG, toSVG } from './exporter.js';
import { Heatmap, drawLegend, format4, maxOf } from './heatmap.js';
import { ImportError, parseAttention } from './importer.js';
import { Lines, describeLinks } from './lines.js';
import { DEFAULTS, ROLLOUT, SOURCES, SOURCE_NAMES, VIEWS, VIEW_NAMES, toParams } from './state.js';
import { Steps } from './steps.js';
import { ALL_ROWS } from './windowing.js';

const HINTS = {
  heatmap: 'Hover over a cell, tap it, or Tab into the grid and use the arrow keys, to read its exact weight.',
  lines: 'Hover over a word, tap it, or Tab in and use the arrow keys, to keep only its lines.',
  steps: 'The numbers the core computed for the selected word, stage by stage.',
  heads: 'Each head projects the word vectors with its own random (seeded) weights, then attends. Hover or tap a cell to read it.',
  modelHeads: 'Each head of the trained model, with what it does on held-out text. Hover or tap a cell to read it.',
};
/** One sentence on the rollout, shown beside the layer choice when it is picked. */
const ROLLOUT_TEXT = 'Attention rollout (Abnar & Zuidema 2020): how much each position draws on each input token through all layers — ' +
  'each layer’s heads averaged, its residual connection counted as 0.5·I, rows renormalised, the layers multiplied.';
// A user's change redraws at once, unless the figure shows more tokens than this: then redraws wait
// for the next animation frame, so fast typing or a dragged slider on a long input (a redraw of
// tens of ms) coalesces into one redraw per frame instead of queueing up.
const DEFER_TOKENS = 128;

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
    this.lm = null;          // { core, model, timing } once the trained model is loaded
    this.modelError = null;
    this.started = false;    // start() was called: loads may begin
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
    e.source = h('select', { id: 'source' }, ...SOURCES.map((v) => h('option', { value: v }, SOURCE_NAMES[v])));
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
    e.importedInfo = h('span', { class: 'imported' });
    e.caption = h('p', { id: 'head-caption', class: 'head-caption', 'aria-live': 'polite' });
    e.clearImport = h('button', { type: 'button', class: 'clear-import' }, 'Back to word vectors');
    const field = (name, label, control) => (e[`${name}Field`] = h('label', { class: 'field', for: control.id }, h('span', {}, label), control));

    e.sentenceLabel = h('label', { for: 'sentence' }, 'Sentence');
    e.settings = h('div', { class: 'row' }, field('source', 'Source', e.source), field('view', 'View', e.view), field('heads', 'Heads', e.heads), field('mask', 'Mask', e.mask), field('word', 'Word', e.word));
    // Layer and head: of imported attention, or of the trained model (with its captions).
    e.layerRow = h('div', { class: 'row layers', hidden: true }, field('layer', 'Layer', e.layer), field('head', 'Head', e.head), e.importedInfo, e.clearImport, e.caption);
    e.slider = h('div', { class: 'slider' },
      h('label', { for: 'temperature' }, 'Temperature'), e.temperature, e.temperatureValue,
      h('span', { id: 'temperature-help', class: 'muted' }, 'lower: sharper, higher: more even'));
    e.options = h('div', { class: 'row options' },
      h('label', { class: 'field', for: 'scale' }, e.scale, h('span', {}, 'divide by √d')),
      h('label', { class: 'field', for: 'diagonal' }, e.diagonal, h('span', {}, 'hide the diagonal')),
      field('norm', 'Softmax along', e.norm), h('span', { class: 'muted' }, 'rows: each query’s weights sum to 1; columns: each key’s'));
    e.controls = h('section', { class: 'controls', 'aria-label': 'Sentence and settings' },
      e.sentenceLabel, e.sentence, e.settings, e.layerRow, e.slider, e.options, e.status);

    e.viewBox = h('div', { id: 'heatmap', class: 'view' });
    e.readout = h('p', { id: 'readout', class: 'readout', 'aria-live': 'polite' });
    e.legend = h('div', { id: 'legend', class: 'legend-wrap' });
    e.notes = h('ul', { id: 'notes', class: 'notes' });
    e.optionNote = h('p', { id: 'option-note', class: 'option-note' });
    e.predictionsTitle = h('p', { class: 'predictions-title' });
    e.predictionList = h('ol', { class: 'prediction-list' });
    e.predictions = h('div', { id: 'predictions', class: 'predictions', hidden: true }, e.predictionsTitle, e.predictionList);
    e.plot = h('div', { id: 'plot', class: 'plot', hidden: true }, e.viewBox, e.readout, e.legend, e.optionNote, e.predictions, e.notes);

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
    e.source.addEventListener('change', () => this.#user({ source: e.source.value }));
    e.view.addEventListener('change', () => this.#user({ view: e.view.value }));
    e.heads.addEventListener('change', () => {
      const n = Math.round(Number(e.heads.value));
      if (n >= 1 && n <= 8) this.#user({ heads: n });
      else e.heads.value = String(this.state.heads);
    });
    e.mask.addEventListener('change', () => this.#user({ mask: e.mask.value }));
    e.word.addEventListener('change', () => this.#user({ word: e.word.value === '' ? null : Number(e.word.value) }));
    for (const type of ['focus', 'pointerdown']) e.word.addEventListener(type, () => e.word.dataset.full !== 'true' && this.#fullWordList());
    e.layer.addEventListener('change', () => this.#user({ layer: e.layer.value === ROLLOUT ? ROLLOUT : Number(e.layer.value) }));
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
    for (const name of ['source', 'view', 'heads', 'mask', 'word']) show(e[`${name}Field`], c.has(name));
    show(e.settings, ['source', 'view', 'heads', 'mask', 'word'].some((n) => c.has(n)));
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
    const anyControl = ['sentence', 'source', 'view', 'heads', 'mask', 'word', 'temperature', 'options'].some((n) => c.has(n));
    const model = this.state.source === 'model';
    const loaded = model ? this.lm : this.vectors, failed = model ? this.modelError : this.loadError;
    // The status line says what is loading, or what the source is (the page); the widget hides it once loaded.
    this.els.status.hidden = !this.options.showVocabulary && (loaded || this.imported || !anyControl) && !failed;
    this.els.controls.hidden = !anyControl && this.els.status.hidden && this.els.layerRow.hidden;
  }

  /** The status line for the current source: loading, failed, or what it holds. */
  #writeStatus() {
    const status = this.els.status;
    if (this.state.source === 'model' && !this.imported) {
      const lm = this.lm?.model;
      status.textContent = lm
        ? `Trained model: ${number(lm.vocabularySize)}-word vocabulary, ${lm.layers} layers × ${lm.heads} heads, d_model ${lm.dModel}, context ${lm.context} tokens.`
        : this.modelError ? 'Trained model not loaded.' : 'Loading the trained model…';
    } else {
      status.textContent = this.vectors
        ? `Vocabulary: ${number(this.vectors.size)} words, ${this.vectors.dim} dimensions each.`
        : this.loadError ? 'Not loaded.' : this.core ? 'Loading the word vectors…' : 'Loading the attention core…';
    }
    this.#updateStatusVisibility();
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
    e.source.value = s.source;
    const imported = Boolean(this.imported), model = !imported && s.source === 'model';
    for (const n of ['sentence', 'source']) e[n].disabled = imported;
    // Settings of the word-vector figure that the trained model does not have: greyed out (and the
    // option note says why), never silently ignored.
    for (const n of ['heads', 'mask', 'temperature', 'scale', 'norm']) e[n].disabled = imported || model;
    e.view.querySelector('option[value=steps]').disabled = imported;
    this.#syncLayers();
  }

  /** The layer and head menus: imported attention's, or the trained model's (with the rollout and captions). */
  #syncLayers() {
    const e = this.els;
    const dims = this.#dims();
    e.layerRow.hidden = !dims;
    e.importedInfo.hidden = !this.imported;
    e.clearImport.hidden = !this.imported || !this.controls?.has('import');
    e.caption.hidden = !dims || Boolean(this.imported);
    if (!dims) return;
    const key = `${dims.layers}/${dims.heads}/${dims.rollout}`;
    if (e.layer.dataset.shape !== key) {
      e.layer.dataset.shape = key;
      e.layer.replaceChildren(...Array.from({ length: dims.layers }, (_, l) => h('option', { value: l }, String(l + 1))),
        ...(dims.rollout ? [h('option', { value: ROLLOUT }, 'all: rollout')] : []));
      e.head.replaceChildren(...Array.from({ length: dims.heads }, (_, k) => h('option', { value: k }, String(k + 1))));
    }
    const { layer, head } = this.#pick(dims);
    if (layer !== this.state.layer || head !== this.state.head) this.state = { ...this.state, layer, head };
    e.layer.value = String(layer);
    e.head.value = String(head);
    // The heads view shows every head anyway; the rollout has none to pick.
    e.head.disabled = layer === ROLLOUT;
    if (!this.imported) {
      const captions = this.lm.model.captions;
      e.caption.textContent = layer === ROLLOUT ? ROLLOUT_TEXT
        : `Layer ${layer + 1}, head ${head + 1}, measured on held-out text: ${captions[layer]?.[head] ?? 'no caption'}.`;
    }
  }

  /** Layers and heads to choose from: imported attention's, the loaded trained model's, or none. */
  #dims() {
    if (this.imported) return { layers: this.imported.layers, heads: this.imported.heads, rollout: false };
    if (this.state.source === 'model' && this.lm) return { layers: this.lm.model.layers, heads: this.lm.model.heads, rollout: true };
    return null;
  }

  /** The state's layer and head, clamped to what `dims` has (the rollout only where it exists). */
  #pick(dims) {
    const s = this.state;
    const layer = s.layer === ROLLOUT ? (dims.rollout ? ROLLOUT : 0) : Math.min(s.layer, dims.layers - 1);
    return { layer, head: Math.min(s.head, dims.heads - 1) };
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
    // Picking the trained model again after it failed to load tries again.
    if (changes.source === 'model' && before.source !== 'model') this.modelError = null;
    if (changes.sentence !== undefined && changes.sentence !== before.sentence && changes.word === undefined) this.state.word = null;
    if (changes.word !== undefined && changes.word !== this.focus?.row) this.focus = null;
    this.#syncControls();
    if (changes.source !== undefined && changes.source !== before.source) this.#writeStatus();
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
  /**
   * Starts loading what the figure's source needs: the shared core and, after the first paint, the
   * shared word vectors; or the shared trained model (only when the source is "trained model", and
   * then the word vectors only if options.preloadVectors). Imported attention needs neither.
   */
  start() {
    this.started = true;
    this.#writeStatus();
    this.render();
    if (this.options.preloadVectors) this.#loadVectors();
  }

  /** The core, then the word vectors; once, whoever asks first. */
  #loadVectors() {
    if (!this.started || this.vectorsLoading || this.loadError) return;
    this.vectorsLoading = (async () => {
      this.core = await loadCore();
      this.#writeStatus();
      // No frame is given up here: the page preloads the vectors, so they have usually arrived; while
      // they have not, the browser paints the status line between tasks anyway.
      this.vectors = await loadVectors();
    })().then(() => {
      this.vectorsLoading = null;
      this.#writeStatus();
      this.options.onLoaded?.(this.vectors);
      if (this.state.source === 'vectors' || this.imported) this.render();
    }, (err) => {
      this.loadError = err;
      this.#writeStatus();
      if (this.state.source !== 'vectors' || this.imported) return;
      this.#clearFigure();
      this.#showMessage(`Could not load the attention core or the word vectors (${err.message}). Reload the page to try again.`);
    });
  }

  /** The trained model (its wasm module and data/model.bin), fetched and parsed on first use. */
  #loadLanguageModel() {
    if (!this.started || this.modelLoading || this.modelError) return;
    this.modelLoading = loadModel().then((lm) => {
      this.modelLoading = null;
      this.lm = lm;
      // For scripts and tests: fetch (with the module) and parse times of the model, in ms.
      this.modelTiming = lm.timing;
      this.#syncControls();
      this.#writeStatus();
      if (this.state.source === 'model') this.render();
    }, (err) => {
      this.modelLoading = null;
      this.modelError = err;
      this.#writeStatus();
      if (this.state.source !== 'model' || this.imported) return;
      this.#clearFigure();
      this.#showMessage(`Could not load the trained model (${err.message}). Choose “word vectors”, or choose “trained model” again to retry.`);
    });
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
    this.els.importedInfo.textContent = `Imported: ${model.layers} layer${model.layers > 1 ? 's' : ''} × ${model.heads} head${model.heads > 1 ? 's' : ''}, ${model.tokens.length} tokens`;
    this.state = { ...this.state, view: this.state.view === 'steps' ? 'heatmap' : this.state.view, word: null };
    this.#syncControls();
    this.#writeStatus();
    this.render();
    return true;
  }

  clearImport() {
    this.imported = null;
    this.started = true; // a widget that began with src= loads its source now
    this.#syncControls();
    this.#writeStatus();
    this.render();
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

  #tokenError(core, text, err) {
    const count = tokenCount(core, text);
    if (count === 0) return 'Type a sentence: there are no words to compare yet.';
    return err.message;
  }

  /**
   * Recomputes (in the core) and redraws from the current state. Until the source is loaded it starts
   * loading it (once start() was called) and says so in place of the figure.
   */
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
      const useModel = s.source === 'model';
      if (useModel ? !this.lm : !this.vectors) {
        if (useModel) this.#loadLanguageModel();
        else this.#loadVectors();
        // The other source's figure would be wrong under this choice: nothing until this one is in.
        if (this.model) this.#clearFigure();
        if (useModel && this.started && !this.modelError) this.#showMessage('Loading the trained model (0.8 MB, once)…', 'hint');
        return;
      }
      if (!s.sentence.trim()) {
        this.#clearFigure();
        this.#showMessage('Type a sentence… its words will appear as the rows and columns of the heatmap.', 'hint');
        return;
      }
      const core = useModel ? this.lm.core : this.core;
      try {
        model = useModel ? computeModel(this.lm, s) : computeSentence(core, this.vectors, s);
      } catch (err) {
        this.#clearFigure();
        this.#showMessage(err instanceof AttentionError ? this.#tokenError(core, s.sentence, err) : `Something went wrong: ${err.message}`);
        if (!(err instanceof AttentionError)) console.error(err);
        return;
      }
    }
    this.model = model;
    const computed = performance.now();
    this.#draw();
    const done = performance.now();
    // For scripts/measure-redraw.mjs: the core's share of the last redraw (the forward pass, with the
    // trained model) and the drawing's (ms).
    this.timing = { compute: computed - started, draw: done - computed };
    if (model.source !== 'imported') this.options.onComputed?.(model);
  }

  /** The view of this.model for the current state, drawn by the view objects kept across redraws. */
  #draw() {
    const model = this.model, s = this.state, e = this.els;
    if (!model) return;
    const T = model.tokens.length;
    const word = s.word !== null && s.word < T ? s.word : null;
    this.#fillWords(model.tokens, word);
    if (model.tokenTotal && model.source === 'model') {
      this.#showMessage(`That is ${number(model.tokenTotal)} tokens; the trained model reads at most ${model.context}, so the figure shows the first ${model.context}.`, 'note');
    } else if (model.tokenTotal) {
      this.#showMessage(`That is ${number(model.tokenTotal)} tokens; the figure shows the first ${number(MAX_TOKENS)}.`, 'note');
    } else this.#showMessage('');
    const pick = this.#shown(model);
    const weights = pick.weights;
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
      } else if (!pick.steps) {
        show();
        this.#showMessage('The rollout has no scores of its own: it multiplies the layers’ weights. Choose a layer to see one head’s steps.', 'hint');
      } else {
        const view = (this.views.steps ??= new Steps());
        show(view.el);
        view.update({ tokens: model.tokens, steps: pick.steps, query: word ?? 0, scaleText: pick.scaleText });
      }
      e.legend.replaceChildren();
    } else {
      const list = pick.heads;
      const max = Math.max(...list.map((m) => maxOf(m.weights.data)));
      const views = this.#headViews(list.length);
      show(...views.map((v) => v.el));
      list.forEach((m, k) => {
        const view = views[k];
        // Which head of which layer each map is (the model's rollout choice shows every layer's heads).
        view.el.dataset.head = String(m.head);
        if (m.layer === undefined) delete view.el.dataset.layer;
        else view.el.dataset.layer = String(m.layer);
        view.update({ tokens: model.tokens, weights: m.weights, max, selectedRow: word, width, title: m.title, caption: m.caption ?? '' });
      });
      drawLegend(e.legend, max);
    }
    this.#writeNotes(model.tokens, model.source);
    this.#writeOptionNote(model, s.view === 'heatmap');
    this.#writePredictions(model);
    // The first figure with numbers on it: User Timing marks that bench/browser.mjs reads, one now and
    // one when the frame that paints it begins.
    if (!this.drawnOnce) {
      this.drawnOnce = true;
      performance.mark('attention-figure:first-draw');
      requestAnimationFrame(() => performance.mark('attention-figure:first-frame'));
    }
  }

  /**
   * What the current state picks out of this.model: the matrix of the heatmap and lines views
   * (weights), the maps of the heads view (heads: [{ weights, title, caption, layer, head }]) and the
   * steps view's AttentionSteps and how they were scaled (steps: null when there are none).
   */
  #shown(model) {
    const s = this.state;
    if (model.source === 'imported') {
      const { layer, head } = this.#pick(model);
      return {
        weights: model.attentions[layer][head],
        heads: model.attentions[layer].map((weights, k) => ({ weights, title: `head ${k + 1}`, head: k })),
        steps: null,
      };
    }
    if (model.source === 'model') {
      const { layer, head } = this.#pick({ ...model, rollout: true });
      const { run, captions } = model;
      const mapOf = (l, k) => ({ weights: run.layers[l].heads[k].weights, title: `layer ${l + 1} · head ${k + 1}`, caption: captions[l]?.[k], layer: l, head: k });
      const layers = layer === ROLLOUT ? run.layers.map((_, l) => l) : [layer];
      const rollout = layer === ROLLOUT;
      return {
        weights: rollout ? run.rollout : run.layers[layer].heads[head].weights,
        heads: layers.flatMap((l) => run.layers[l].heads.map((_, k) => mapOf(l, k))),
        steps: rollout ? null : run.layers[layer].heads[head],
        scaleText: `scaled = q·k ÷ √${model.dk} (layer ${layer + 1}, head ${head + 1}); causal: later words masked (−∞)`,
      };
    }
    const columns = model.columns && s.view === 'heatmap';
    return {
      weights: columns ? model.columns : model.single.weights,
      heads: (model.heads ?? []).map((hd, k) => ({ weights: hd.weights, title: `head ${k + 1}`, head: k })),
      steps: model.single,
      scaleText: `scaled = q·k ${s.scale === 'none' ? '' : `÷ √${model.dim} `}÷ temperature ${s.temperature.toFixed(2)}${s.mask === 'causal' ? '; later words masked (−∞)' : ''}`,
    };
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
    if (model.source === 'vectors') {
      if (s.scale === 'none') lines.push('Scores are not divided by √d: the softmax sees the raw dot products, so it is much sharper.');
      if (heatmap && model.columns) lines.push('Softmax down each column: read a column to see how one key word’s attention is shared out among the queries; rows no longer sum to 1.');
    }
    if (model.source === 'model') {
      lines.push(s.layer === ROLLOUT && s.view !== 'heads'
        ? 'Causal model: each word draws only on itself and the words before it, through every layer, so the rollout is lower-triangular (zero above the diagonal).'
        : 'Causal model: each word attends only to itself and the words before it, so the weights are lower-triangular (zero above the diagonal).');
      // Said only where those settings are on screen (a widget may show none of them).
      const greyed = ['temperature', 'mask', 'options', 'heads'].some((c) => this.controls.has(c));
      lines.push(`The trained model fixes its own attention: scores ÷ √d_k = √${model.dk}, temperature 1, causal mask, softmax along each row, ${model.heads} heads per layer.` +
        (greyed ? ' The temperature, mask, √d, column-softmax and heads settings belong to the word-vector figure, so they are greyed out.' : ''));
    }
    if (heatmap && s.diagonal === 'hide') {
      lines.push(model.source !== 'vectors'
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
    const s = this.state, modelHeads = s.view === 'heads' && s.source === 'model' && !this.imported;
    this.els.readout.textContent = text ?? HINTS[modelHeads ? 'modelHeads' : s.view];
  }

  #readoutCell(cell) {
    const r = this.els.readout;
    if (!cell) return this.#readout(null);
    r.replaceChildren();
    const strong = h('strong', {}, `${cell.title ? `${cell.title}: ` : ''}${cell.query.text} → ${cell.key.text}: ${format4(cell.weight)}`);
    r.append(strong, h('span', { class: 'muted' }, ` (query word ${cell.row + 1}, key word ${cell.col + 1})`));
  }

  /** A note per word outside the vocabulary: how the source looked it up (stemmed or unknown). */
  #writeNotes(tokens, source) {
    const seen = new Set();
    const items = [];
    const model = source === 'model';
    for (const t of tokens) {
      if (t.lookup === 'known' || seen.has(t.text)) continue;
      seen.add(t.text);
      const what = t.lookup === 'unknown'
        ? model ? ' is not in the model’s vocabulary: it reads the unknown-word token <unk>, as it did for rare words in training.'
          : ' is not in the vocabulary: it uses a zero vector, so it attends evenly to every word.'
        : model ? ` is not in the model’s vocabulary: it reads ‘${t.matched}’.` : ` is not in the vocabulary: it uses the vector of ‘${t.matched}’.`;
      items.push(h('li', {}, h('span', { class: `token ${t.lookup}` }, `‘${t.text}’`), what));
    }
    this.els.notes.replaceChildren(...items);
  }

  /** The trained model's guesses for the word after the (shown) text: top 5, best first, with bars. */
  #writePredictions(model) {
    const e = this.els;
    e.predictions.hidden = model.source !== 'model';
    if (model.source !== 'model') return;
    const { predictions } = model.run, last = model.tokens.at(-1).text;
    e.predictionsTitle.replaceChildren(h('strong', {}, 'Next word. '),
      `The trained model’s ${predictions.length} most likely words after “${last}”${model.tokenTotal ? ` (the last of the ${model.context} tokens it read)` : ''}, from a softmax over its whole vocabulary:`);
    const top = predictions[0]?.probability || 1;
    const items = e.predictionList.children;
    while (items.length < predictions.length) {
      const bar = svgEl('svg', { class: 'pbar', width: 120, height: 10, viewBox: '0 0 120 10', 'aria-hidden': 'true' });
      svgEl('rect', { x: 0, y: 1, height: 8 }, bar);
      e.predictionList.append(h('li', {}, h('span', { class: 'predicted' }), bar, h('span', { class: 'probability' })));
    }
    while (items.length > predictions.length) e.predictionList.lastChild.remove();
    predictions.forEach((p, k) => {
      const li = items[k], [word, bar, probability] = li.children;
      li.dataset.word = p.word;
      li.dataset.probability = String(p.probability);
      word.textContent = p.word;
      setAttrs(bar.firstChild, { width: (120 * p.probability) / top });
      probability.textContent = `${(100 * p.probability).toFixed(1)}%`;
    });
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

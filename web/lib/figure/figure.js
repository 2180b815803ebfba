// One interactive attention figure: controls, the story line, the selected view (heatmap, lines, steps,
// heads), readout, legend, notes and the share / export / import toolbar. The page (light DOM) and the
// <attention-figure> widget (shadow DOM) both build theirs with this class. It renders from a Store
// (store.js): every change goes to the store, which recomputes once and calls render(state, result).
import { h } from '../dom.js';
import { format4 } from '../format.js';
import { download } from '../exporter.js';
import { FigureExports } from './exports.js';
import { ImportError, parseAttention } from '../importer.js';
import { DEFAULTS, toParams } from '../state.js';
import { wordOf } from '../compute.js';
import { Controls } from './controls.js';
import { cutNote, optionNotes, problemOf, statusOf, storyOf, writeWordNotes } from './notes.js';
import { predictionsBox, writePredictions } from './guesses.js';
import { toggled } from '../switches.js';
import { SwitchBar } from './switchbar.js';
import { Toolbar } from './toolbar.js';
import { viewNamed } from '../views/registry.js';

export class Figure {
  /**
   * root: an element (page) or shadow root (widget) to build into. options: { store, controls (Set of
   * state.CONTROLS words), framed, disclose (a "More options" panel), showStatus, theme,
   * shareBase: () => URL of the full page, onUserChange(state) after the reader changes something,
   * onDrawn({ busy, drawn }) after every render (drawn: the data-drawn parameters), onFirstDraw() }
   */
  constructor(root, options) {
    this.root = root;
    this.options = options;
    this.store = options.store;
    this.views = {};
    this.viewWidth = 0;
    this.importMessage = '';
    const e = (this.els = {});
    this.controls = new Controls({
      disclose: options.disclose,
      onChange: (changes, o) => this.change(changes, o),
      onClearImport: () => this.clearImport(),
    });
    this.controls.showStatus = Boolean(options.showStatus);
    e.story = h('p', { id: 'story', class: 'story', 'aria-live': 'polite' });
    e.message = h('p', { id: 'message', class: 'message', role: 'alert', hidden: true });
    // Loading is not a problem: it has its own quiet line, so #message only ever says what went wrong or what was cut.
    e.loading = h('p', { id: 'loading', class: 'loading', role: 'status', hidden: true });
    e.viewBox = h('div', { id: 'heatmap', class: 'view' });
    e.readout = h('p', { id: 'readout', class: 'readout', 'aria-live': 'polite' });
    e.legend = h('div', { id: 'legend', class: 'legend-wrap' });
    e.optionNote = h('p', { id: 'option-note', class: 'option-note' });
    e.predictions = predictionsBox();
    e.notes = h('ul', { id: 'notes', class: 'notes' });
    this.switchBar = new SwitchBar((changes) => this.change(changes));
    e.plot = h(
      'div',
      { id: 'plot', class: 'plot', hidden: true },
      e.story,
      this.switchBar.el,
      e.viewBox,
      e.readout,
      e.legend,
      e.optionNote,
      e.predictions,
      e.notes,
    );
    this.exports = new FigureExports(this);
    const x = this.exports;
    this.toolbar = new Toolbar({
      share: () => ({ url: x.shareURL(), snippet: x.embedSnippet(), note: x.shareNote() }),
      svg: () => download(e.figure, new Blob([x.svg()], { type: 'image/svg+xml' }), `${x.fileStem()}.svg`),
      png: async () => download(e.figure, await x.png(), `${x.fileStem()}.png`),
      json: () => download(e.figure, new Blob([JSON.stringify(x.json())], { type: 'application/json' }), `${x.fileStem()}.json`),
      importText: (text) => this.importAttention(text),
      problem: (text) => this.#message(text, 'error'),
    });
    const t = this.toolbar.els;
    e.figure = h(
      'div',
      { class: 'af', part: 'figure' },
      this.controls.el,
      e.message,
      e.loading,
      e.plot,
      t.root,
      t.sharePanel,
      t.importPanel,
    );
    if (options.framed) e.figure.classList.add('framed');
    root.append(e.figure);
    this.setControls(options.controls);
    this.setTheme(options.theme ?? 'auto');
    // Layout follows the width available (cell size, columns in the window, the lines' gap): redraw when
    // it changes. The width is kept from the observer's reports, so a redraw never forces a layout to read it.
    new ResizeObserver((entries) => {
      const w = Math.round(entries.at(-1).contentRect.width);
      if (!w || w === this.viewWidth) return;
      const redraw = this.viewWidth !== 0;
      this.viewWidth = w;
      if (redraw) this.render(this.store.state, this.store.result);
    }).observe(e.viewBox);
    matchMedia('(prefers-color-scheme: dark)').addEventListener?.('change', () => this.#restyle());
    this.store.subscribe((state, result) => this.render(state, result));
  }

  /** A change from the reader: to the store (which recomputes and re-renders), then onUserChange. */
  change(changes, { defer = false, typing = false } = {}) {
    this.store.set(changes, { defer, typing });
    this.options.onUserChange?.(this.store.state);
  }

  setControls(set) {
    this.allowed = set ?? new Set();
    this.controls.allowImport = this.allowed.has('import');
    if (this.store.result) this.render(this.store.state, this.store.result);
    else this.toolbar.draw(this.allowed);
  }

  setTheme(theme) {
    const f = this.els.figure;
    f.classList.remove('theme-auto', 'theme-light', 'theme-dark');
    f.classList.add(`theme-${['light', 'dark'].includes(theme) ? theme : 'auto'}`);
    this.#restyle();
  }

  #restyle() {
    for (const v of Object.values(this.views)) v.restyle?.();
  }

  #message(text, kind = 'error') {
    const m = this.els.message;
    if (m.textContent !== text) m.textContent = text;
    m.className = `message ${kind}`;
    m.hidden = !text;
  }

  /**
   * Draws (state, result): the store calls this after every change. Then says what it drew: aria-busy
   * while something it draws from is on its way, and data-drawn, the state (as URL parameters) that the
   * figure now shows, once it is drawn. Assistive technology and tests wait for these, never for a time.
   */
  render(state, result) {
    try {
      this.#draw(state, result);
    } catch (err) {
      // A view that fails to draw must not take the page with it: the reader sees why, the rest keeps working.
      this.els.plot.hidden = true;
      this.#message(`Could not draw this view (${err?.message ?? err}). Choose another view, or change the sentence.`, 'error');
      console.error(err);
    }
    const busy = !result || result.kind === 'loading';
    const f = this.els.figure;
    f.setAttribute('aria-busy', String(busy));
    if (!busy) f.dataset.drawn = toParams(state).toString();
    this.options.onDrawn?.({ busy, drawn: f.dataset.drawn ?? '' });
  }

  #draw(state, result) {
    const e = this.els,
      store = this.store,
      imported = store.sources.imported;
    // What the views draw: a pieces model's words with units=words, except where a view stays on pieces.
    const shown = store.drawn;
    this.controls.draw(state, shown, { allowed: this.allowed, imported, status: statusOf(state, store.sources) });
    this.toolbar.draw(this.allowed, { importMessage: this.importMessage });
    if (!shown) {
      // Nothing to draw (loading, no words, an error): the last view goes, so nothing stale stays.
      e.plot.hidden = true;
      e.viewBox.replaceChildren();
      e.viewBox.dataset.view = '';
      e.legend.replaceChildren();
      const loading = !result || result.kind === 'loading';
      this.#message(loading ? '' : problemOf(result, state), result?.kind === 'error' ? 'error' : 'hint');
      e.loading.hidden = !loading;
      e.loading.textContent = loading ? problemOf(result, state) : '';
      return;
    }
    // A word's vector or a trained model on its way: the last figure stays, and the quiet line says what is loading.
    e.loading.hidden = result.kind !== 'loading';
    e.loading.textContent = result.kind === 'loading' ? problemOf(result, state) : '';
    if (result.kind === 'cells') this.#message(result.message, 'error');
    else this.#message(cutNote(state, shown, store.sources), 'note');
    e.plot.hidden = false;
    this.viewWidth ||= e.viewBox.clientWidth; // before the first observer report
    const entry = viewNamed(state.view);
    const view = (this.views[entry.name] ??= new entry.View({
      select: (row, col) => this.#select(row, col),
      cell: (info) => this.#readoutCell(info),
      text: (t) => this.#readout(t),
      // A map opened from a view of many: the first view (one large heatmap) shows it.
      open: ({ layer, head }) => this.change({ view: DEFAULTS.view, layer, head }),
      // A head, a layer's attention or the positions switched off or on (switches.js spells the item).
      toggle: (item) => this.toggleOff(item),
    }));
    const word = wordOf(state, shown);
    this.#readout(null);
    // The view's nodes go in first: a canvas reads its theme colours and fonts from the page it is in.
    const show = (nodes) => {
      if (
        e.viewBox.dataset.view !== state.view ||
        nodes.some((n, k) => e.viewBox.children[k] !== n) ||
        e.viewBox.children.length !== nodes.length
      ) {
        e.viewBox.replaceChildren(...nodes);
        e.viewBox.dataset.view = state.view;
      }
    };
    show(view.nodes);
    const problem = view.draw(state, shown, { width: this.viewWidth || 640, word, legend: e.legend, extra: store.extra });
    show(problem ? [] : view.nodes); // a view of many maps makes them in draw()
    e.viewBox.className = entry.grid ? 'view grid' : 'view';
    if (problem) this.#message(problem, 'hint');
    this.switchBar.draw(state, shown);
    const story = storyOf(state, shown, store.extra);
    if (e.story.textContent !== story) e.story.textContent = story;
    e.optionNote.replaceChildren(...optionNotes(state, shown, { imported }).map((t) => h('span', {}, t)));
    writeWordNotes(e.notes, shown);
    // Hiding a word selects it too: the story and the highlighted row are then the blank's. A view with no
    // place for guesses (the compare view's two sentences) shows none, unless a blank (from another view)
    // is still hidden, which its buttons bring back.
    const guesses = entry.guesses === false && !shown?.model?.blank ? null : shown;
    writePredictions(e.predictions, guesses, {
      // The blank is a word; the selected row its first token (a pieces model's first piece).
      onBlank: (blank, row = blank) => this.change(blank === null ? { blank } : { blank, word: row }),
      onToggle: (item) => this.toggleOff(item),
    });
    // The first figure with numbers on it: User Timing marks that bench/browser.mjs reads.
    if (!this.drawnOnce) {
      this.drawnOnce = true;
      performance.mark('attention-figure:first-draw');
      requestAnimationFrame(() => performance.mark('attention-figure:first-frame'));
      this.options.onFirstDraw?.();
    }
  }

  /** Switches a part of the trained model ('L.H', 'L' or 'positions') off, or back on. */
  toggleOff(item) {
    this.change({ off: toggled(this.store.state.off, item) });
  }

  /** The reader chose a cell (or a word, col null): its row becomes the selected word. */
  #select(row) {
    if (this.store.state.word === row) return;
    this.change({ word: row });
  }

  #readout(text) {
    this.els.readout.textContent = text ?? viewNamed(this.store.state.view).hint;
  }

  #readoutCell(cell) {
    const r = this.els.readout;
    if (!cell) return this.#readout(null);
    r.replaceChildren(
      h('strong', {}, `${cell.title ? `${cell.title}: ` : ''}${cell.query.text} → ${cell.key.text}: ${format4(cell.weight)}`),
      h('span', { class: 'muted' }, ` (query word ${cell.row + 1}, key word ${cell.col + 1}${cell.itself ? ', itself' : ''})`),
    );
  }

  // ---- imported attention ------------------------------------------------------------------------
  /** Checks and draws attention weights from a model (JSON text or a parsed object). Returns true if drawn. */
  importAttention(input, tokens) {
    let parsed;
    try {
      parsed = parseAttention(input, tokens);
    } catch (err) {
      if (!(err instanceof ImportError)) throw err;
      this.importMessage = err.message;
      this.toolbar.draw(this.allowed, { importMessage: err.message });
      if (!this.store.shown) this.#message(`Could not draw the imported attention: ${err.message}`);
      else this.#message(`Could not draw the imported attention: ${err.message}`, 'error');
      return false;
    }
    this.importMessage = '';
    this.store.setImported(parsed);
    return true;
  }

  clearImport() {
    this.store.setImported(null);
    if (!this.store.started) this.store.start(); // a widget that began with src= loads its source now
  }

  /** Shows a problem in place of the figure. */
  showError(text) {
    this.els.plot.hidden = true;
    this.#message(text);
  }

  // ---- share and export (exports.js) ------------------------------------------------------------
  /** The full page's URL reproducing this state (embed: the figure alone, for an iframe). */
  shareURL(options) {
    return this.exports.shareURL(options);
  }

  /** An iframe snippet for the embed URL, as tall as the view needs. */
  embedSnippet() {
    return this.exports.embedSnippet();
  }

  /** The figure as standalone SVG text, with its title, sentence and caption. */
  exportSVG() {
    return this.exports.svg();
  }

  /** The figure as a PNG Blob, at twice the screen's pixels by default. */
  exportPNG(scale) {
    return this.exports.png(scale);
  }

  /** The numbers as JSON-ready data (importable again). */
  exportJSON() {
    return this.exports.json();
  }

  /** The figure's state (for tests and the widget's `state` property). */
  get state() {
    return this.store.state;
  }
}

// What a figure gives away: the full page's link and the iframe snippet that reproduce its state, and
// its SVG, PNG and JSON exports, each with the title, sentence and caption that say what it shows
// (notes.js captionOf) and the view's own numbers (views/registry.js json). Reads the figure; draws nothing.
import { toPNG, toSVG } from '../exporter.js';
import { toJSON } from '../export-json.js';
import { themeColours } from '../colour.js';
import { CONTROLS, toParams } from '../state.js';
import { SWITCHBAR_HEIGHT } from './switchbar.js';
import { viewNamed } from '../views/registry.js';
import { captionOf } from './notes.js';

export class FigureExports {
  /** figure: the Figure (its store, elements, options and the controls it shows). */
  constructor(figure) {
    this.figure = figure;
  }

  /** The full page's URL reproducing this state. */
  shareURL({ embed = false } = {}) {
    const url = new URL(this.figure.options.shareBase?.() ?? location.href);
    const params = toParams({ ...this.figure.store.state, tour: null });
    const theme = [...this.figure.els.figure.classList].find((c) => c.startsWith('theme-'))?.slice(6);
    if (theme && theme !== 'auto') params.set('theme', theme);
    if (embed) {
      params.set('embed', '1');
      // The frame shows the controls this figure shows (all: no parameter needed).
      const shown = CONTROLS.filter((c) => this.figure.allowed.has(c));
      if (shown.length < CONTROLS.length) params.set('controls', shown.join(' ') || 'none');
    }
    url.search = params.toString();
    url.hash = '';
    return url.href;
  }

  /**
   * An iframe snippet for the embed URL. Its height is the view's (views/registry.js embedHeight): it
   * shows the view without a scrollbar at an article's width. A parent that listens (README.md) fits the frame exactly.
   */
  embedSnippet() {
    const state = this.figure.store.state;
    const shown = this.figure.store.drawn;
    // A trained model's figure also holds the switchboard (switchbar.js), whatever the view.
    const height = viewNamed(state.view).embedHeight(state, shown) + (shown?.kind === 'model' ? SWITCHBAR_HEIGHT : 0);
    const src = this.shareURL({ embed: true }).replaceAll('&', '&amp;').replaceAll('"', '&quot;');
    return `<iframe src="${src}" title="Self-attention figure" width="100%" height="${height}" style="border:0" loading="lazy"></iframe>`;
  }

  shareNote() {
    if (this.figure.store.sources.imported)
      return 'Imported weights are not part of the link: it shows the word-vector figure with these settings.';
    return this.figure.store.state.weights === 'edited'
      ? 'Weights edited by hand are not part of the link: it opens with random weights of the same seed.'
      : '';
  }

  fileStem() {
    const words = this.figure.store.drawn
      ? this.figure.store.drawn.tokens
          .slice(0, 4)
          .map((t) => t.text.replace(/[^\p{L}\p{N}]+/gu, ''))
          .filter(Boolean)
      : [];
    return ['attention', this.figure.store.state.view, ...words].join('-').slice(0, 60);
  }

  /** What the exporter needs: the view's and the legend's SVGs as drawn, the words around them, the theme. */
  #exportable() {
    const e = this.figure.els,
      shown = this.figure.store.drawn;
    const svgs = [...e.viewBox.querySelectorAll('svg'), ...e.legend.querySelectorAll('svg')].filter(
      (s) => s.getBoundingClientRect().width > 0,
    );
    if (!shown || !svgs.length) throw new Error('there is no figure to export');
    return {
      svgs,
      words: captionOf(this.figure.store.state, shown, { imported: this.figure.store.sources.imported, extra: this.figure.store.extra }),
      colours: themeColours(e.figure),
      font: getComputedStyle(e.figure).fontFamily,
    };
  }

  /** The figure as standalone SVG text, with its title, sentence and caption. */
  svg() {
    return toSVG(this.#exportable());
  }

  /** The figure as a PNG Blob, at twice the screen's pixels by default (4× CSS pixels on a 2× screen). */
  png(scale = 2 * (devicePixelRatio || 1)) {
    return toPNG(this.#exportable(), scale);
  }

  /** The numbers: { tokens, attentions: layers × heads × T × T, source, settings, title, sentence, caption } (importable again). */
  json() {
    const { store } = this.figure;
    if (!store.drawn) throw new Error('there is no figure to export');
    const { state, drawn: shown, extra } = store;
    const { title, sentence, caption } = captionOf(state, shown, { imported: store.sources.imported, extra });
    const base = toJSON(shown, state);
    const numbers = viewNamed(state.view).json?.(base, shown, state, extra) ?? base;
    return { ...numbers, title, sentence, caption: caption.join(' ') };
  }
}

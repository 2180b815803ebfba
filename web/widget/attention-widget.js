// <attention-figure>: the embeddable widget. One element = one live figure in its own shadow root;
// every element on a page shares one wasm core, one copy of the word vectors and one trained model.
// Files (wasm, vectors, model) are fetched relative to this script's URL, each only when needed.
// Attributes:
//   sentence, source (vectors | model: word vectors, or the trained model of model.bin),
//   view (heatmap | lines | steps | heads), heads (1–8), temperature (0.1–3),
//   mask (none | causal), word (selected word, 0-based), seed,
//   layer (0-based, or rollout with the trained model), head (0-based; trained model or imported),
//   scale (sqrt | none), norm (rows | columns), diagonal (show | hide),
//   controls ("sentence view temperature" by default; "all", "none", or any of
//            sentence source view heads mask word temperature options share export import),
//   theme (auto | light | dark), src (URL of attention JSON from a real model),
//   page (URL of the full page that share links point to; default ../index.html beside this folder).
import { assetURL } from '../lib/core.js';
import { Figure } from '../lib/figure.js';
import { STATE_KEYS, parseControls, parseValue } from '../lib/state.js';
import { figureSheet } from '../lib/styles.js';

export { loadCore, loadModel, loadVectors } from '../lib/core.js';
export { parseAttention, ImportError } from '../lib/importer.js';

export const DEFAULT_CONTROLS = ['sentence', 'view', 'temperature'];

let hostSheet;
function hostStyles() {
  if (!hostSheet) {
    hostSheet = new CSSStyleSheet();
    // all: initial stops the article's inherited styles (fonts, colours, letter-spacing…) at the door.
    hostSheet.replaceSync(':host { all: initial; display: block; min-width: 0; margin: 1.5em 0; } :host([hidden]) { display: none; }');
  }
  return hostSheet;
}

export class AttentionFigureElement extends HTMLElement {
  static observedAttributes = [...STATE_KEYS, 'controls', 'theme', 'src', 'page'];
  #figure = null;
  #started = false;
  #srcLoad = 0;

  constructor() {
    super();
    const shadow = this.attachShadow({ mode: 'open' });
    shadow.adoptedStyleSheets = [hostStyles(), figureSheet()];
  }

  connectedCallback() {
    if (!this.#figure) {
      this.#figure = new Figure(this.shadowRoot, {
        controls: parseControls(this.getAttribute('controls'), DEFAULT_CONTROLS),
        framed: true,
        theme: this.getAttribute('theme') ?? 'auto',
        shareBase: () => new URL(this.getAttribute('page') ?? assetURL('../index.html'), document.baseURI).href,
        onState: (state) => this.dispatchEvent(new CustomEvent('attention-change', { detail: { ...state }, bubbles: true, composed: true })),
      });
      const initial = {};
      for (const key of STATE_KEYS) initial[key] = parseValue(key, this.getAttribute(key));
      this.#figure.set(initial);
    }
    if (!this.#started) {
      this.#started = true;
      if (this.hasAttribute('src')) this.#loadSrc(this.getAttribute('src'));
      else this.#figure.start();
    }
  }

  attributeChangedCallback(name, old, value) {
    if (!this.#figure || old === value) return;
    if (name === 'controls') this.#figure.setControls(parseControls(value, DEFAULT_CONTROLS));
    else if (name === 'theme') this.#figure.setTheme(value ?? 'auto');
    else if (name === 'src') {
      if (value) this.#loadSrc(value);
      else this.#figure.clearImport();
    } else if (name !== 'page') this.#figure.set({ [name]: parseValue(name, value) });
  }

  async #loadSrc(src) {
    const ticket = ++this.#srcLoad;
    let text;
    try {
      const response = await fetch(new URL(src, document.baseURI));
      if (!response.ok) throw new Error(`HTTP ${response.status}`);
      text = await response.text();
    } catch (err) {
      if (ticket !== this.#srcLoad) return;
      this.#figure.showError(`Could not load the attention file ${src} (${err.message}).`);
      return;
    }
    if (ticket === this.#srcLoad) this.#figure.importAttention(text);
  }

  /** The current state: { sentence, source, view, heads, temperature, mask, word, layer, head, seed, scale, norm, diagonal }. */
  get state() {
    return { ...this.#figure.state };
  }

  /** Draws attention from a model: JSON text or object {tokens, attentions}, or a bare array plus tokens. */
  importAttention(json, tokens) {
    return this.#figure.importAttention(json, tokens);
  }

  /** Back to the word-vector figure after importAttention. */
  clearImport() {
    this.#figure.clearImport();
  }

  exportSVG() { return this.#figure.exportSVG(); }
  exportPNG(scale) { return this.#figure.exportPNG(scale); }
  exportJSON() { return this.#figure.exportJSON(); }
  shareURL(options) { return this.#figure.shareURL(options); }
  embedSnippet() { return this.#figure.embedSnippet(); }
}

if (!customElements.get('attention-figure')) customElements.define('attention-figure', AttentionFigureElement);

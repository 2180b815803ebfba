// <attention-figure>: the embeddable widget. One element = one live figure in its own shadow root;
// every element on a page shares one wasm core, one copy of the word vectors and one trained model.
// Files (wasm, vectors, model) are fetched relative to this script's URL, each only when needed.
// Attributes: the state's names (lib/state.js), as the page's URL parameters:
//   sentence, source (vectors | model: word vectors, or the trained model of model.bin),
//   view (heatmap | lines | steps | heads), heads (1–8), temperature (0.1–3),
//   mask (none | causal), word (selected word, 0-based), seed,
//   layer (0-based, or rollout with the trained model), head (0-based; trained model or imported),
//   score (scaled | dot | cosine; scale="none" still means dot), norm (rows | columns),
//   diagonal (apart | scale: a word's weight on itself hatched and out of the colour scale, or in it),
//   input (sentence | seed003), weights (free | identity | random | seed), dk,
//   controls ("sentence view temperature" by default; "all", "none", or any of
//            sentence source view heads mask word temperature options share export import),
//   theme (auto | light | dark), src (URL of attention JSON from a real model),
//   page (URL of the full page that share links point to; default ../index.html beside this folder).
// @ts-check
import { assetURL } from '../lib/loader.js';
import { Figure } from '../lib/figure/figure.js';
import { LEGACY, STATE_KEYS, keyOf, paramOf, parseControls, parseValue } from '../lib/state.js';
import { Store } from '../lib/store.js';
import { holdHeight, staticHeight } from '../lib/static-figure.js';
import { figureSheet } from '../lib/styles.js';

export { loadCore, loadEncoder, loadModel, loadVectors, setAssetBase } from '../lib/loader.js';
export { parseAttention, ImportError } from '../lib/importer.js';

export const DEFAULT_CONTROLS = ['sentence', 'view', 'temperature'];

// While a static figure shows (through the slot), the live one lays out hidden at the same width.
let pendingSheet;
function pendingStyles() {
  if (!pendingSheet) {
    pendingSheet = new CSSStyleSheet();
    pendingSheet.replaceSync(':host { position: relative; } .af { position: absolute; top: 0; left: 0; right: 0; visibility: hidden; }');
  }
  return pendingSheet;
}

let hostSheet;
function hostStyles() {
  if (!hostSheet) {
    hostSheet = new CSSStyleSheet();
    // all: initial stops the article's inherited styles (fonts, colours, letter-spacing…) at the door.
    hostSheet.replaceSync(':host { all: initial; display: block; min-width: 0; margin: 1.5em 0; } :host([hidden]) { display: none; }');
  }
  return hostSheet;
}

/** @implements {Omit<import('./attention-widget.js').AttentionFigureElement, keyof HTMLElement>} */
export class AttentionFigureElement extends HTMLElement {
  static observedAttributes = [...STATE_KEYS.map(paramOf), ...Object.keys(LEGACY), 'controls', 'theme', 'src', 'page'];
  #figure = null;
  #store = null;
  #started = false;
  #srcLoad = 0;
  #letGo = () => {};
  #staticSlot = null;

  constructor() {
    super();
    // A static figure in the light DOM (scripts/static-figure.mjs) stays in view through a slot until
    // the live figure has drawn; the element keeps its height until the reader changes something, so
    // the live figure takes its place without a shift.
    const height = this.isConnected ? staticHeight(this) : 0;
    const shadow = this.attachShadow({ mode: 'open' });
    shadow.adoptedStyleSheets = [hostStyles(), figureSheet(), ...(height ? [pendingStyles()] : [])];
    if (height) this.#staticSlot = shadow.appendChild(document.createElement('slot'));
    this.#letGo = holdHeight(this, height);
  }

  /** The live figure has drawn (or has a message): the static one gives way, once. */
  #takeOver() {
    if (!this.#staticSlot) return;
    this.#staticSlot.remove();
    this.#staticSlot = null;
    this.shadowRoot.adoptedStyleSheets = this.shadowRoot.adoptedStyleSheets.filter((sheet) => sheet !== pendingSheet);
  }

  connectedCallback() {
    if (!this.#figure) {
      const initial = {};
      for (const key of STATE_KEYS) if (this.hasAttribute(paramOf(key))) initial[key] = parseValue(key, this.getAttribute(paramOf(key)));
      if (!this.hasAttribute('score') && this.getAttribute('scale') === 'none') initial.score = 'dot';
      this.#store = new Store(initial);
      this.#figure = new Figure(this.shadowRoot, {
        store: this.#store,
        controls: parseControls(this.getAttribute('controls'), DEFAULT_CONTROLS),
        framed: true,
        theme: this.getAttribute('theme') ?? 'auto',
        shareBase: () => new URL(this.getAttribute('page') ?? assetURL('../index.html'), document.baseURI).href,
        // The host says what its figure drew, so a page (or a test) can wait for it without reaching into the shadow root.
        onDrawn: ({ busy, drawn }) => {
          if (!busy) this.#takeOver();
          this.setAttribute('aria-busy', String(busy));
          if (drawn) this.dataset.drawn = drawn;
        },
        onUserChange: (state) => {
          this.#letGo();
          this.dispatchEvent(new CustomEvent('attention-change', { detail: { ...state }, bubbles: true, composed: true }));
        },
      });
    }
    if (!this.#started) {
      this.#started = true;
      if (this.hasAttribute('src')) this.#loadSrc(this.getAttribute('src'));
      else this.#store.start();
    }
  }

  attributeChangedCallback(name, old, value) {
    if (!this.#figure || old === value) return;
    if (name === 'controls') this.#figure.setControls(parseControls(value, DEFAULT_CONTROLS));
    else if (name === 'theme') this.#figure.setTheme(value ?? 'auto');
    else if (name === 'src') {
      if (value) this.#loadSrc(value);
      else this.#figure.clearImport();
    } else if (name in LEGACY) {
      if (!this.hasAttribute('score')) this.#store.set({ score: value === 'none' ? 'dot' : 'scaled' });
    } else if (name !== 'page') this.#store.set({ [keyOf(name)]: parseValue(keyOf(name), value) });
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

  /** The current state (lib/state.js): { sentence, source, view, word, score, temperature, mask, norm, diagonal, heads, seed, layer, head, … }. */
  get state() {
    return { ...this.#store.state };
  }

  /** Draws attention from a model: JSON text or object {tokens, attentions}, or a bare array plus tokens. */
  importAttention(json, tokens) {
    return this.#figure.importAttention(json, tokens);
  }

  /** Back to the word-vector figure after importAttention. */
  clearImport() {
    this.#figure.clearImport();
  }

  exportSVG() {
    return this.#figure.exportSVG();
  }
  exportPNG(scale) {
    return this.#figure.exportPNG(scale);
  }
  exportJSON() {
    return this.#figure.exportJSON();
  }
  shareURL(options) {
    return this.#figure.shareURL(options);
  }
  embedSnippet() {
    return this.#figure.embedSnippet();
  }
}

if (!customElements.get('attention-figure')) customElements.define('attention-figure', AttentionFigureElement);

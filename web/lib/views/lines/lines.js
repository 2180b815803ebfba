// The "lines" view (after BertViz's head view): query words on the left, key words on the right, one
// line per pair whose thickness and opacity follow its weight. The lines are drawn on a <canvas>
// (thousands of them cost one stroke per shade, not one DOM node each); the words are SVG text the
// keyboard can reach. Hovering or focusing a word isolates its lines. A long input shows a window of
// words around the chosen one. Weights come from the wasm core (or an imported model).
import { activeIn, svgEl as el, h, setAttrs, textWidth } from '../../dom.js';
import { themeColours } from '../../colour.js';
import { labelOf } from '../../format.js';
import { maxOf, offDiagonalMax } from '../../heatmap/heatmap.js';
import { ALL_ROWS, Pager, WINDOW, centre, follow } from '../../windowing.js';
import { lineShapes, paintLines } from './paint.js';

const ROW = 26;
const TOP = 34;
const SHADES = 64; // lines are stroked in this many steps of weight, one path each

/**
 * One lines view, kept across redraws: append `lines.el`, then call draw() whenever the weights
 * change. Options: onFocusWord(info | null) gets { side: 'query' | 'key', index, token, links:
 * [{ index, token, weight }] } (strongest first, over every word); onSelect(index) when a query word
 * is focused or clicked. The canvas carries what it drew as canvas.attentionLines (see #paint).
 */
export class Lines {
  constructor({ onFocusWord = () => {}, onSelect } = {}) {
    this.onFocusWord = onFocusWord;
    this.onSelect = onSelect;
    this.start = 0;
    this.anchorKey = null;
    this.isolated = null; // { side, index } whose lines are drawn alone
    this.current = null; // the word node in the tab order
    this.canvas = h('canvas', { class: 'links', 'aria-hidden': 'true' });
    this.svg = el('svg', { class: 'lines', role: 'group' });
    const titles = el('g', { class: 'axis-title', 'aria-hidden': 'true' }, this.svg);
    this.queriesTitle = el('text', { y: 16, 'text-anchor': 'end' }, titles);
    this.queriesTitle.textContent = 'queries';
    this.keysTitle = el('text', { y: 16 }, titles);
    this.keysTitle.textContent = 'keys';
    this.queryWords = [];
    this.keyWords = [];
    this.plot = h('div', { class: 'lines-plot' }, this.canvas, this.svg);
    this.pager = new Pager(
      'words',
      'Lines to words outside the window are not drawn; arrow keys on a word, or these buttons, scroll.',
      (direction) => this.#scroll(this.start + direction * this.rows),
    );
    this.el = h('div', { class: 'lines-view' }, this.pager.el, this.plot);
    this.svg.exportShapes = () => this.exportShapes();
    this.#wire();
  }

  /**
   * Draws `weights` (T×T, rows = queries); selected: the query word to isolate (null: none);
   * diagonalApart: a word's line to itself is dashed and grey, and the thickest line is the strongest
   * link between two different words.
   */
  draw({ tokens, weights, selected = null, width = 640, diagonalApart = false }) {
    const T = weights.rows;
    if (tokens !== this.tokens) {
      this.tokens = tokens;
      this.labels = tokens.map(labelOf);
      if (!this.family && this.el.isConnected) this.family = getComputedStyle(this.el).fontFamily;
      const font = `bold 14px ${this.family || 'sans-serif'}`; // the chosen word is drawn bold: room for that
      this.labelW = Math.ceil(Math.max(...this.labels.map((l) => textWidth(l, font)))) + 8;
    }
    this.data = weights.data;
    this.T = T;
    this.diagonalApart = diagonalApart;
    this.max = diagonalApart ? offDiagonalMax(weights.data, T) : maxOf(weights.data);
    this.selected = selected !== null && selected < T ? selected : null;
    this.rows = T <= ALL_ROWS ? T : WINDOW;
    const key = this.selected === null ? null : `${T}:${this.selected}`;
    if (key !== this.anchorKey && this.selected !== null && (this.selected < this.start || this.selected >= this.start + this.rows)) {
      this.start = centre(this.rows, T, this.selected);
    }
    this.anchorKey = key;
    this.start = Math.min(Math.max(0, this.start), T - this.rows);
    this.gap = Math.min(170, Math.max(60, width - 2 * this.labelW - 24));
    if (this.isolated && this.isolated.index >= T) this.isolated = null;
    this.#render();
    this.#show(this.#focusedWord());
  }

  #render() {
    const { T, rows, start, labelW, gap } = this;
    const xl = labelW + 8,
      xr = xl + gap;
    const width = xr + labelW + 8,
      height = TOP + rows * ROW + 6;
    Object.assign(this, { xl, xr });
    this.plot.style.width = `${width}px`;
    this.plot.style.height = `${height}px`;
    setAttrs(this.svg, {
      width,
      height,
      viewBox: `0 0 ${width} ${height}`,
      'aria-label':
        `Attention as lines: ${T} query words on the left, the same words as keys on the right` +
        `${rows < T ? `, words ${start + 1}–${start + rows} shown` : ''}. Use the arrow keys to move between words; a focused word keeps only its lines.`,
    });
    setAttrs(this.queriesTitle, { x: xl - 4 });
    setAttrs(this.keysTitle, { x: xr + 4 });
    this.canvas.style.left = `${xl + 2}px`;
    this.canvas.style.top = `${TOP}px`;
    this.#words('query', this.queryWords, xl - 4);
    this.#words('key', this.keyWords, xr + 4);
    if (!this.current || !this.current.isConnected) this.current = this.queryWords[0];
    for (const w of [...this.queryWords, ...this.keyWords]) w.setAttribute('tabindex', w === this.current ? 0 : -1);
    this.pager.show(start, rows, T);
  }

  /** Keeps one text node per word in the window (pooled: only changed text is written). */
  #words(side, pool, x) {
    const { rows, start, tokens } = this;
    while (pool.length < rows) {
      pool.push(
        el(
          'text',
          {
            'dominant-baseline': 'central',
            'text-anchor': side === 'query' ? 'end' : 'start',
            role: 'button',
            tabindex: -1,
            'data-side': side,
          },
          this.svg,
        ),
      );
    }
    while (pool.length > rows) pool.pop().remove();
    pool.forEach((node, k) => {
      const i = start + k,
        t = tokens[i];
      // The class is rewritten only when the word's kind (known, stemmed, unknown) changes.
      if (!node.classList.contains(t.lookup) || !node.classList.contains('word'))
        node.setAttribute('class', `word ${side} label ${t.lookup}`);
      setAttrs(node, { x, y: TOP + k * ROW + ROW / 2, 'data-index': i, 'aria-label': `${side} word ${i + 1}: ${t.text}` }, this.labels[i]);
    });
  }

  /** The lines between the words in the window, on the canvas (paint.js). */
  #paint() {
    paintLines(this, (this.theme ??= themeColours(this.el)), { row: ROW, shades: SHADES });
  }

  /** After a theme change: reads the line colour again and repaints. */
  restyle() {
    this.theme = null;
    if (this.tokens) this.#paint();
  }

  #scroll(start) {
    const s = Math.min(Math.max(0, start), this.T - this.rows);
    if (s === this.start) return;
    this.start = s;
    this.#render();
    this.#show(this.#focusedWord());
  }

  // ---- interaction ---------------------------------------------------------------------------------
  #focusedWord() {
    const a = activeIn(this.svg);
    return a && this.svg.contains(a) && a.classList.contains('word') ? a : null;
  }

  #linksOf(side, index) {
    const { T, data, tokens } = this;
    const out = [];
    for (let k = 0; k < T; k++)
      out.push({ index: k, token: tokens[k], weight: side === 'query' ? data[index * T + k] : data[k * T + index] });
    return out.sort((a, b) => b.weight - a.weight);
  }

  /** Isolates a word's lines (a hovered or focused word, else the selected query word). */
  #show(word) {
    const pinned = this.selected !== null ? { side: 'query', index: this.selected } : null;
    const target = word ? { side: word.dataset.side, index: +word.dataset.index } : pinned;
    this.isolated = target;
    for (const w of [...this.queryWords, ...this.keyWords]) {
      w.classList.toggle('active', Boolean(target) && w.dataset.side === target.side && +w.dataset.index === target.index);
    }
    this.#paint();
    this.onFocusWord(target ? { ...target, token: this.tokens[target.index], links: this.#linksOf(target.side, target.index) } : null);
  }

  #focusWord(word) {
    this.current?.setAttribute('tabindex', -1);
    word.setAttribute('tabindex', 0);
    this.current = word;
    word.focus();
  }

  #wire() {
    const svg = this.svg;
    const isWord = (t) => t?.classList?.contains('word');
    svg.addEventListener('pointerover', (e) => isWord(e.target) && this.#show(e.target));
    svg.addEventListener('pointerleave', () => this.#show(this.#focusedWord()));
    svg.addEventListener('pointerdown', (e) => {
      if (!isWord(e.target)) return;
      e.preventDefault();
      this.#focusWord(e.target);
    });
    svg.addEventListener('focusin', (e) => {
      const word = e.target;
      if (!isWord(word)) return;
      if (this.current !== word) {
        this.current?.setAttribute('tabindex', -1);
        word.setAttribute('tabindex', 0);
        this.current = word;
      }
      this.#show(word);
      if (word.dataset.side === 'query') this.onSelect?.(+word.dataset.index);
    });
    svg.addEventListener('focusout', (e) => {
      if (!svg.contains(e.relatedTarget)) this.#show(null);
    });
    svg.addEventListener('keydown', (e) => {
      const word = this.current;
      if (!word) return;
      let side = word.dataset.side,
        i = +word.dataset.index;
      switch (e.key) {
        case 'ArrowUp':
          i -= 1;
          break;
        case 'ArrowDown':
          i += 1;
          break;
        case 'ArrowLeft':
          side = 'query';
          break;
        case 'ArrowRight':
          side = 'key';
          break;
        case 'PageUp':
          i -= this.rows;
          break;
        case 'PageDown':
          i += this.rows;
          break;
        case 'Home':
          i = 0;
          break;
        case 'End':
          i = this.T - 1;
          break;
        default:
          return;
      }
      e.preventDefault();
      i = Math.min(Math.max(0, i), this.T - 1);
      const start = follow(this.start, this.rows, this.T, i);
      if (start !== this.start) {
        this.start = start;
        this.#render();
      }
      const target = (side === 'query' ? this.queryWords : this.keyWords)[i - this.start];
      if (target === word) {
        // Same node, new word (the window scrolled under it): focusin will not fire again.
        this.#show(word);
        if (side === 'query') this.onSelect?.(i);
      } else this.#focusWord(target);
    });
  }

  /** The drawn lines as SVG shapes in the word SVG's coordinates (for the exporter: paint.js). */
  exportShapes() {
    return lineShapes(this, (this.theme ??= themeColours(this.el)), { row: ROW, top: TOP });
  }
}

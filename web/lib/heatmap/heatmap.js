// Draws an attention-weight matrix (computed by the wasm core) as a heatmap: the cells as pixels on a
// <canvas> (no DOM node per cell), the word labels as a small SVG, and for keyboards and screen readers
// one focusable grid (grid.js) whose active cell moves with the arrow keys. A long input shows a
// labelled window of it, with an overview of the whole matrix to move the window (overview.js).
// Only presentation lives here; user text reaches the DOM through textContent/setAttribute only.
// Used by the heatmap view, each map of the heads view (compact) and the walkthrough's multi-head maps.
import { h, svgEl as el, setAttrs, uniqueId } from '../dom.js';
import { themeColours, viridis, viridisPixel } from '../colour.js';
import { labelOf } from '../format.js';
import { centre, clamp } from '../windowing.js';
import { attachGrid } from './grid.js';
import { layoutOf, labelWidths } from './layout.js';
import { paintCells } from './paint.js';
import { attachOverview } from './overview.js';
import { attachTable } from './table.js';

/** The colour scale of attention weights: viridis of weight / max (the default palette). */
export const VIRIDIS = { hex: viridis, pixel: viridisPixel, at: (v, max) => (max > 0 ? v / max : 0) };

/** The largest entry of a matrix's data (0 for none). */
export function maxOf(data) {
  let max = 0;
  for (let i = 0; i < data.length; i++) if (data[i] > max) max = data[i];
  return max;
}

/** The largest entry off the diagonal of a T×T matrix: the top of the colour scale when the diagonal is apart. */
export function offDiagonalMax(data, T) {
  let max = 0;
  for (let i = 0; i < data.length; i++) if (i % (T + 1) !== 0 && data[i] > max) max = data[i];
  return T > 1 ? max : maxOf(data);
}

/** Keeps `pool` at n SVG text nodes inside parent (adding or removing at the end). */
function resizePool(pool, n, parent, attrs) {
  while (pool.length < n) pool.push(el('text', attrs, parent));
  while (pool.length > n) pool.pop().remove();
}

/**
 * One heatmap, kept across redraws: build it once, append `heatmap.el`, then call draw() with new
 * weights as often as they change; it repaints in place. Options:
 *   compact (small cells, labels only when they fit: the heads grid), fitWidth (compact cells shrink, down
 *   to 8 px, to fit draw()'s width), interactive (a focusable grid;
 *   false for maps inside a button), title, head (index, shown in readouts), className ("heatmap"),
 *   table (offer a table of the drawn weights, built when opened), onCell(info | null) on hover and
 *   keyboard focus with { row, col, weight, query, key, head, title, itself }, onSelect(row, col) when the
 *   active cell moves, onWindow({ row0, col0 }) when the reader moves the window of a long input.
 * The cells canvas carries what it drew as canvas.attentionWeights (see paint.js publish).
 */
export class Heatmap {
  constructor(options = {}) {
    this.o = { interactive: true, className: 'heatmap', onCell: () => {}, palette: VIRIDIS, ...options };
    const o = this.o;
    this.id = uniqueId('hm');
    this.row0 = 0;
    this.col0 = 0;
    this.active = null; // { row, col } of the keyboard's cell, in matrix indices
    this.hover = null;
    this.anchorKey = null;
    this.p = null; // what draw() was last given
    this.L = null; // the layout it computed
    this.el = h('div', { class: `${o.className}${o.compact ? ' compact' : ''}` });
    if (o.head !== undefined) this.el.dataset.head = String(o.head);
    this.canvas = h('canvas', { class: 'cells', 'aria-hidden': 'true' });
    this.svg = el('svg', { class: 'hm-labels', 'aria-hidden': 'true' });
    if (o.title) this.titleText = el('text', { class: 'head-title', x: 2, y: 14 }, this.svg);
    else if (!o.compact) {
      const axes = el('g', { class: 'axis-title' }, this.svg);
      this.keysTitle = el('text', { 'text-anchor': 'end' }, axes);
      this.keysTitle.textContent = 'keys →';
      this.queriesTitle = el('text', { 'text-anchor': 'end' }, axes);
      this.queriesTitle.textContent = 'queries ↓';
    }
    this.colGroup = el('g', {}, this.svg);
    this.rowGroup = el('g', {}, this.svg);
    this.ring = el('rect', { class: 'ring', rx: 2, visibility: 'hidden' }, this.svg);
    this.rowLabels = [];
    this.colLabels = [];
    this.grid = h('div', { class: 'hm-grid' }, this.canvas);
    this.plot = h('div', { class: 'hm-plot' }, this.grid, this.svg);
    this.grids = o.interactive ? attachGrid(this) : null;
    this.overview = o.compact ? null : attachOverview(this);
    this.el.append(...[this.overview?.el, this.plot].filter(Boolean));
    this.table = o.table ? attachTable(this) : null;
    this.svg.exportShapes = () => this.table?.shapes() ?? [];
  }

  /**
   * Draws `weights` (T×T, rows = queries) labelled by `tokens`. params: { max (top of the colour scale;
   * default the largest weight drawn), diagonalApart (a word's weight on itself hatched and left out of
   * the scale), selectedRow, marked (indices whose labels are marked), focus ({ row, col } to make the
   * active cell), width (px available), origin
   * ({ row0, col0 }: put the window there), title (a new title), caption (a line under the map; '' for none) }.
   */
  draw({
    tokens,
    weights,
    max,
    diagonalApart = false,
    selectedRow = null,
    focus = null,
    width = 640,
    origin = null,
    title,
    caption,
    marked = [],
  }) {
    const T = weights.rows,
      data = weights.data;
    const prev = this.p;
    if (title !== undefined && this.titleText && title !== this.o.title) {
      this.o.title = title;
      this.table?.retitle(title);
    }
    if (caption !== undefined) this.#caption(caption);
    if (!this.family && this.el.isConnected) this.family = getComputedStyle(this.el).fontFamily;
    if (!prev || prev.tokens !== tokens || this.widthFamily !== this.family) {
      this.labels = tokens.map(labelOf);
      this.widthFamily = this.family;
      this.widthAt = labelWidths(this.labels, this.family || 'sans-serif');
    }
    const top = max ?? (diagonalApart ? offDiagonalMax(data, T) : maxOf(data));
    this.p = { tokens, weights, data, T, max: top, diagonalApart, selectedRow, marked: new Set(marked) };
    this.L = layoutOf(this, T, width);
    const { rows, cols } = this.L;
    if (this.active && (this.active.row >= T || this.active.col >= T)) this.active = null;
    if (focus && focus.row < T && focus.col < T) this.active = { row: focus.row, col: focus.col };
    if (origin) ({ row0: this.row0, col0: this.col0 } = origin);
    this.row0 = clamp(this.row0, 0, T - rows);
    this.col0 = clamp(this.col0, 0, T - cols);
    // A newly chosen word (or cell) is brought into view; otherwise the window stays where the reader put it.
    const anchor = focus ?? (selectedRow !== null && selectedRow < T ? { row: selectedRow, col: selectedRow } : null);
    const key = anchor ? `${T}:${anchor.row}:${anchor.col}` : null;
    if (anchor && key !== this.anchorKey && !origin) {
      if (anchor.row < this.row0 || anchor.row >= this.row0 + rows) this.row0 = centre(rows, T, anchor.row);
      if (anchor.col < this.col0 || anchor.col >= this.col0 + cols) this.col0 = centre(cols, T, anchor.col);
    }
    this.anchorKey = key;
    this.repaint(!prev || prev.data !== data || prev.max !== top || prev.diagonalApart !== diagonalApart);
  }

  /** The caption line under the map (HTML, so a long caption wraps), made when first needed. */
  #caption(text) {
    if (!this.captionEl) {
      if (!text) return;
      this.captionEl = h('p', { class: 'hm-caption' });
      this.plot.after(this.captionEl);
    }
    this.captionEl.hidden = !text;
    if (this.captionEl.textContent !== text) this.captionEl.textContent = text;
  }

  /** After a theme change: reads the theme's colours again and repaints (gaps take the background colour). */
  restyle() {
    this.theme = null;
    if (this.p) this.repaint(true);
  }

  colours() {
    if (this.theme) return this.theme;
    const theme = themeColours(this.el);
    if (this.el.isConnected) this.theme = theme;
    return theme;
  }

  /** Lays out labels and grid for the current window and repaints the cells (dataChanged: the overview too). */
  repaint(dataChanged) {
    const { tokens } = this.p;
    const L = this.L,
      { rows, cols, cell, left, top, right, fontPx, angle } = L;
    const gridW = cols * cell,
      gridH = rows * cell;
    const width = left + gridW + right,
      height = top + gridH + 8;
    this.plot.style.width = `${width}px`;
    this.plot.style.height = `${height}px`;
    if (this.captionEl) this.captionEl.style.maxWidth = `${Math.max(width, 180)}px`;
    setAttrs(this.svg, { width, height, viewBox: `0 0 ${width} ${height}` });
    this.svg.style.fontSize = `${fontPx}px`;
    Object.assign(this.grid.style, { left: `${left}px`, top: `${top}px`, width: `${gridW}px`, height: `${gridH}px` });
    this.ring.setAttribute('width', cell);
    this.ring.setAttribute('height', cell);
    // A small map of a long input says which window it shows in its title.
    if (this.titleText)
      setAttrs(
        this.titleText,
        {},
        this.windowed() ? `${this.o.title} · ${this.row0 + 1}–${this.row0 + rows} × ${this.col0 + 1}–${this.col0 + cols}` : this.o.title,
      );
    if (this.keysTitle) {
      setAttrs(this.keysTitle, { x: left - 10, y: top - 26 });
      setAttrs(this.queriesTitle, { x: left - 10, y: top - 8 });
    }
    // Labels of the rows and columns in the window (pooled nodes: only changed text is written).
    const show = L.showLabels;
    resizePool(this.rowLabels, show ? rows : 0, this.rowGroup, { 'text-anchor': 'end', 'dominant-baseline': 'central' });
    resizePool(this.colLabels, show ? cols : 0, this.colGroup, {});
    const cls = (t, extra) => `label ${t.lookup}${extra}`;
    this.rowLabels.forEach((node, r) => {
      const i = this.row0 + r;
      setAttrs(
        node,
        {
          class: cls(tokens[i], ' row-label' + (this.p.selectedRow === i ? ' selected' : '') + (this.p.marked.has(i) ? ' marked' : '')),
          x: left - 10,
          y: top + r * cell + cell / 2,
          'data-index': i,
        },
        this.labels[i],
      );
    });
    this.colLabels.forEach((node, c) => {
      const j = this.col0 + c;
      setAttrs(
        node,
        {
          class: cls(tokens[j], ' col-label' + (this.p.marked.has(j) ? ' marked' : '')),
          transform: `translate(${left + c * cell + cell / 2} ${top - 8}) rotate(${-angle})`,
          'data-index': j,
        },
        this.labels[j],
      );
    });
    paintCells(this);
    this.overview?.draw(dataChanged);
    this.grids?.describe();
    this.grids?.highlight(false);
    this.table?.fill();
  }

  windowed() {
    return this.L.rows < this.p.T || this.L.cols < this.p.T;
  }

  /** Moves the window (and reports it with onWindow unless quiet). */
  moveWindow(row0, col0, quiet = false) {
    if (!this.p) return;
    const { T } = this.p,
      { rows, cols } = this.L;
    row0 = clamp(row0, 0, T - rows);
    col0 = clamp(col0, 0, T - cols);
    if (row0 === this.row0 && col0 === this.col0) return;
    this.row0 = row0;
    this.col0 = col0;
    // The active cell stays where it is (as in a spreadsheet, the next arrow key brings it back into view).
    this.repaint(false);
    if (!quiet) this.o.onWindow?.({ row0, col0 });
  }

  /** Moves the window without reporting it (to follow another map's window). */
  scrollTo({ row0, col0 }) {
    this.moveWindow(row0, col0, true);
  }

  /** What a cell holds, for readouts. */
  info(cell) {
    const { tokens, data, T } = this.p;
    return {
      row: cell.row,
      col: cell.col,
      weight: data[cell.row * T + cell.col],
      query: tokens[cell.row],
      key: tokens[cell.col],
      head: this.o.head,
      title: this.o.title,
      itself: cell.row === cell.col,
    };
  }
}

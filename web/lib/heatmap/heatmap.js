// Draws an attention-weight matrix (computed by the wasm core) as a heatmap: the cells as pixels on a
// <canvas> (no DOM node per cell), the word labels as a small SVG, and for keyboards and screen readers
// one focusable grid (grid.js) whose active cell moves with the arrow keys. A long input shows a
// labelled window of it, with an overview of the whole matrix to move the window (overview.js).
// Only presentation lives here; user text reaches the DOM through textContent/setAttribute only.
// Used by the heatmap view, each map of the heads view (compact) and the walkthrough's multi-head maps.
import { h, svgEl as el, setAttrs, textWidth, uniqueId } from '../dom.js';
import { inkOn, packHex, sizeCanvas, themeColours, viridis, viridisPixel } from '../colour.js';

/** The colour scale of attention weights: viridis of weight / max (the default palette). */
export const VIRIDIS = { hex: viridis, pixel: viridisPixel, at: (v, max) => (max > 0 ? v / max : 0) };
import { cellText, labelOf } from '../format.js';
import { ALL_ROWS, WINDOW, centre, clamp } from '../windowing.js';
import { attachGrid } from './grid.js';
import { attachOverview } from './overview.js';
import { attachTable } from './table.js';

const MIN_CELL = 18; // px: below this the labels collide, so narrow screens get fewer columns

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

/** Widths of the longest label at a font size, cached per list of labels. */
function labelWidths(labels, family) {
  const cache = new Map();
  return (fontPx) => {
    if (!cache.has(fontPx)) {
      const font = `${fontPx}px ${family}`;
      let w = 0;
      for (const l of labels) w = Math.max(w, textWidth(l, font));
      cache.set(fontPx, Math.ceil(w));
    }
    return cache.get(fontPx);
  };
}

/** Keeps `pool` at n SVG text nodes inside parent (adding or removing at the end). */
function resizePool(pool, n, parent, attrs) {
  while (pool.length < n) pool.push(el('text', attrs, parent));
  while (pool.length > n) pool.pop().remove();
}

/**
 * One heatmap, kept across redraws: build it once, append `heatmap.el`, then call update() with new
 * weights as often as they change; it repaints in place. Options:
 *   compact (small cells, labels only when they fit: the heads grid), fitWidth (compact cells shrink, down
 *   to 8 px, to fit update()'s width), interactive (a focusable grid;
 *   false for maps inside a button), title, head (index, shown in readouts), className ("heatmap"),
 *   table (offer a table of the drawn weights, built when opened), onCell(info | null) on hover and
 *   keyboard focus with { row, col, weight, query, key, head, title, itself }, onSelect(row, col) when the
 *   active cell moves, onWindow({ row0, col0 }) when the reader moves the window of a long input.
 * The cells canvas carries what it drew as canvas.attentionWeights (see publish).
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
    this.p = null; // what update() was last given
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
  update({
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
    this.L = this.#layout(T, width);
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
    this.draw(!prev || prev.data !== data || prev.max !== top || prev.diagonalApart !== diagonalApart);
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
    if (this.p) this.draw(true);
  }

  colours() {
    if (this.theme) return this.theme;
    const theme = themeColours(this.el);
    if (this.el.isConnected) this.theme = theme;
    return theme;
  }

  /** Cell size, label font and margins; how many rows and columns fit. */
  #layout(T, width) {
    const compact = Boolean(this.o.compact),
      titleH = this.o.title ? 18 : 0;
    const margins = (cell) => {
      const fontPx = compact ? Math.min(12, Math.max(cell, 12)) : cell >= 28 ? 14 : 12;
      const angle = cell >= 28 ? 45 : 65; // column labels, degrees above the horizontal: steeper when packed
      const rad = (angle * Math.PI) / 180;
      const showLabels = !compact || cell >= 12;
      if (!showLabels) return { cell, fontPx, angle, labelW: 0, left: 2, top: titleH + 4, right: 4, showLabels };
      const labelW = this.widthAt(fontPx) + 4;
      return {
        cell,
        fontPx,
        angle,
        labelW,
        showLabels,
        left: Math.max(labelW + 12, compact ? 0 : 72),
        top: Math.ceil(labelW * Math.sin(rad) + fontPx) + 14 + titleH,
        right: Math.max(0, Math.ceil(labelW * Math.cos(rad) - cell / 2)) + 8,
      };
    };
    if (compact) {
      // Heads: small multiples at fixed sizes; a long input shows the same kind of window.
      const rows = Math.min(T, ALL_ROWS);
      let cell = rows <= 8 ? 22 : rows <= 12 ? 16 : rows <= 20 ? 12 : rows <= 32 ? 8 : 4;
      // Maps that share a row (the every-layer view) shrink their cells to fit the width they are given.
      const over = (c) => margins(c).left + margins(c).right + rows * c > width;
      if (this.o.fitWidth) while (cell > 8 && over(cell)) cell--;
      return { ...margins(cell), rows, cols: rows, showValues: false };
    }
    const rows = T <= ALL_ROWS ? T : WINDOW;
    const nominal = rows <= 8 ? 46 : rows <= 12 ? 38 : rows <= 20 ? 28 : MIN_CELL;
    const fits = (m, n) => m.left + m.right + n * m.cell <= width;
    let m = margins(nominal),
      cols = rows;
    if (!fits(m, cols)) {
      // Narrower cells first (down to MIN_CELL), then fewer columns: a window.
      let cell = nominal;
      while (cell > MIN_CELL && !fits(m, cols)) m = margins(--cell);
      if (!fits(m, cols)) cols = clamp(Math.floor((width - m.left - m.right) / m.cell), Math.min(4, rows), rows);
    }
    return { ...m, rows, cols, showValues: m.cell >= 32 };
  }

  /** Lays out labels and grid for the current window and repaints the cells (dataChanged: the overview too). */
  draw(dataChanged) {
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
    this.#paintCells();
    this.overview?.draw(dataChanged);
    this.grids?.describe();
    this.grids?.highlight(false);
    this.table?.fill();
  }

  windowed() {
    return this.L.rows < this.p.T || this.L.cols < this.p.T;
  }

  /**
   * The cells of the window: one pixel per weight in its viridis colour, scaled up without smoothing
   * (so each cell is one flat, exact colour however many there are), then the gaps between cells in the
   * background colour. With the diagonal apart, a word's cell with itself is the panel colour, hatched
   * and outlined, its number kept: it stands out without setting the colour scale.
   */
  #paintCells() {
    const { data, T, max, diagonalApart } = this.p,
      { rows, cols, cell } = this.L;
    const ratio = sizeCanvas(this.canvas, cols * cell, rows * cell);
    const W = this.canvas.width,
      H = this.canvas.height;
    const ctx = (this.ctx ??= this.canvas.getContext('2d', { alpha: false }));
    const theme = this.colours();
    const source = (this.source ??= document.createElement('canvas'));
    if (source.width !== cols || source.height !== rows) {
      source.width = cols;
      source.height = rows;
      this.sourceImage = null;
    }
    const sctx = source.getContext('2d');
    const image = (this.sourceImage ??= sctx.createImageData(cols, rows));
    const px = new Uint32Array(image.data.buffer);
    const panel = packHex(theme.panel),
      pal = this.o.palette;
    for (let r = 0; r < rows; r++) {
      const i = this.row0 + r,
        base = i * T + this.col0;
      for (let c = 0; c < cols; c++)
        px[r * cols + c] = diagonalApart && i === this.col0 + c ? panel : pal.pixel(pal.at(data[base + c], max));
    }
    sctx.putImageData(image, 0, 0);
    ctx.setTransform(1, 0, 0, 1, 0, 0);
    ctx.imageSmoothingEnabled = false;
    ctx.drawImage(source, 0, 0, W, H);
    // Each cell keeps a gap of ~1.5 CSS px (0.75 when compact), split across its edges, in whole device
    // pixels: none for cells only a few pixels wide, which a gap would wash out.
    const gap = cell * ratio < 6 ? 0 : Math.max(1, Math.round((this.o.compact ? 0.75 : 1.5) * ratio));
    const hi = gap - (gap >> 1);
    ctx.fillStyle = theme.bg;
    if (gap) for (let c = 0; c <= cols; c++) ctx.fillRect(Math.round(c * cell * ratio) - hi, 0, gap, H);
    if (gap) for (let r = 0; r <= rows; r++) ctx.fillRect(0, Math.round(r * cell * ratio) - hi, W, gap);
    ctx.setTransform(ratio, 0, 0, ratio, 0, 0);
    if (diagonalApart) this.#hatchDiagonal(ctx, theme);
    if (this.L.showValues) {
      ctx.font = `11px ${this.family || 'sans-serif'}`;
      ctx.textAlign = 'center';
      ctx.textBaseline = 'middle';
      for (let r = 0; r < rows; r++) {
        for (let c = 0; c < cols; c++) {
          const i = this.row0 + r,
            j = this.col0 + c,
            w = data[i * T + j];
          ctx.fillStyle = diagonalApart && i === j ? theme.fg : inkOn(pal.hex(pal.at(w, max)));
          ctx.fillText(cellText(w), (c + 0.5) * cell, (r + 0.5) * cell);
        }
      }
    }
    ctx.setTransform(1, 0, 0, 1, 0, 0);
    this.#publish(ratio, gap);
  }

  /**
   * Hatching on the diagonal cells in the window: lines x − y = c (c ≡ 3 mod 6 CSS px, inside the cell)
   * plus a dashed outline. The lines miss the cell's corners and centre: the number stays readable and
   * a test can read the cell's colour 2 px inside its corner.
   */
  #hatchDiagonal(ctx, theme) {
    const { rows, cols, cell } = this.L;
    ctx.save();
    ctx.strokeStyle = theme.muted;
    ctx.lineWidth = 1;
    for (let i = Math.max(this.row0, this.col0); i < Math.min(this.row0 + rows, this.col0 + cols); i++) {
      const x = (i - this.col0) * cell,
        y = (i - this.row0) * cell;
      ctx.save();
      ctx.beginPath();
      ctx.rect(x + 1, y + 1, cell - 2, cell - 2);
      ctx.clip();
      ctx.beginPath();
      for (let c = -Math.ceil(cell / 6) * 6 + 3; c < cell; c += 6) {
        if (Math.abs(c) < 6 && this.L.showValues) continue; // keep the number's middle band clear
        ctx.moveTo(x + Math.max(0, c), y + Math.max(0, -c));
        ctx.lineTo(x + Math.min(cell, cell + c), y + Math.min(cell, cell - c));
      }
      ctx.globalAlpha = 0.55;
      ctx.stroke();
      ctx.restore();
      // The outline sits 5 px inside the cell: its corner pixels keep the flat panel colour.
      ctx.setLineDash([3, 2]);
      if (cell >= 16) ctx.strokeRect(x + 5.5, y + 5.5, cell - 11, cell - 11);
      ctx.setLineDash([]);
    }
    ctx.restore();
  }

  /**
   * What the canvas shows, for tests and tools: canvas.attentionWeights = { T, rowStart, colStart, rows,
   * cols, data (the rows × cols weights drawn, row-major), max (the colour scale's top: a cell is
   * viridis(weight / max) with the default palette), diagonalApart, cell (CSS px), ratio (device px
   * per CSS px), gap }.
   */
  #publish(ratio, gap) {
    const { data, T, max, diagonalApart } = this.p,
      { rows, cols, cell } = this.L;
    const shown = new Float32Array(rows * cols);
    for (let r = 0; r < rows; r++)
      shown.set(data.subarray((this.row0 + r) * T + this.col0, (this.row0 + r) * T + this.col0 + cols), r * cols);
    this.canvas.attentionWeights = {
      T,
      rowStart: this.row0,
      colStart: this.col0,
      rows,
      cols,
      data: shown,
      max,
      diagonalApart,
      hideDiagonal: diagonalApart,
      cell,
      ratio,
      gap,
    };
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
    this.draw(false);
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

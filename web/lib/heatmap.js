// Draws an attention-weight matrix (computed elsewhere, by the wasm core) as a heatmap: the cells as
// pixels on a <canvas> (no DOM node per cell), the word labels as a small SVG, and for keyboards and
// screen readers one focusable grid whose single active cell moves with the arrow keys. A long input
// shows a labelled window of it, with an overview of the whole matrix to move the window.
// Only presentation lives here. User text reaches the DOM through textContent/setAttribute only.
// Shared by the page and the widget: the "heatmap" view, each map of the "heads" grid (compact),
// and the explainer's multi-head maps.
import { activeIn, count as number, h, svgEl as el, setAttrs, textWidth, uniqueId } from './dom.js';
import { inkOn, packHex, sizeCanvas, themeColours, viridis, viridisPixel } from './colour.js';
import { matrixTable } from './tables.js';
import { ALL_ROWS, WINDOW, centre, clamp, follow } from './windowing.js';

const MAX_LABEL_CHARS = 16;
const MIN_CELL = 18;        // px: below this the labels collide, so narrow screens get fewer columns
const OVERVIEW = 132;       // px: the overview's side
const OVERVIEW_PIXELS = 264; // the overview's image holds at most this many blocks a side

/** The label a token shows: its text, shortened if long, with "?" for unknown and "*" for stemmed. */
export function labelOf(token) {
  const t = [...token.text];
  const text = t.length > MAX_LABEL_CHARS ? t.slice(0, MAX_LABEL_CHARS - 1).join('') + '…' : token.text;
  return text + (token.lookup === 'unknown' ? '?' : token.lookup === 'stemmed' ? '*' : '');
}

export const format4 = (w) => w.toFixed(4);

/** The largest entry of a matrix's data (0 for none). */
export function maxOf(data) {
  let max = 0;
  for (let i = 0; i < data.length; i++) if (data[i] > max) max = data[i];
  return max;
}

/** The largest entry off the diagonal of a T×T matrix. */
function offDiagonalMax(data, T) {
  let max = 0;
  for (let i = 0; i < data.length; i++) if (i % (T + 1) !== 0 && data[i] > max) max = data[i];
  return max;
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
 * weights as often as they change — it repaints in place. Options:
 *   compact (small cells, labels only when they fit: the heads grid), interactive (a focusable grid;
 *   false for maps inside a button), title, head (index, shown in readouts), className ("heatmap"),
 *   table (offer a table of the drawn weights, built when opened), onCell(info | null) on hover and
 *   keyboard focus with { row, col, weight, query, key, head, title }, onSelect(row, col) when the active
 *   cell moves, onWindow({ row0, col0 }) when the reader moves the window of a long input.
 * The cells canvas carries what it drew as canvas.attentionWeights (see #publish).
 */
export class Heatmap {
  constructor(options = {}) {
    this.o = { interactive: true, className: 'heatmap', onCell: () => {}, ...options };
    const o = this.o;
    this.id = uniqueId('hm');
    this.row0 = 0;
    this.col0 = 0;
    this.active = null;   // { row, col } of the keyboard's cell, in matrix indices
    this.hover = null;
    this.anchorKey = null;
    this.p = null;        // what update() was last given
    this.L = null;        // the layout it computed

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
    if (o.interactive) this.#buildGrid();
    if (!o.compact) this.#buildNav();
    this.el.append(...[this.nav, this.plot].filter(Boolean));
    if (o.table) this.#buildTable();
    this.svg.exportShapes = () => this.#shapes();
  }

  // ---- construction --------------------------------------------------------------------------------
  #buildGrid() {
    const g = this.grid;
    g.setAttribute('role', 'grid');
    g.tabIndex = 0;
    // The grid's one visible cell for assistive technology: a row with the active cell (and its
    // header), pointed at by aria-activedescendant. Two cell nodes take turns so the id changes with
    // every move, which is what makes screen readers announce it.
    this.vHeader = h('div', { role: 'columnheader' });
    this.vRowHeader = h('div', { role: 'rowheader', 'aria-colindex': 1 });
    this.vCells = [0, 1].map((k) => h('div', { role: 'gridcell', id: `${this.id}-cell-${k}` }));
    this.vTurn = 0;
    this.vRow = h('div', { role: 'row', class: 'sr-only' }, this.vRowHeader, this.vCells[0]);
    g.append(h('div', { role: 'row', class: 'sr-only', 'aria-rowindex': 1 }, this.vHeader), this.vRow);

    g.addEventListener('pointermove', (e) => {
      const cell = this.#cellAt(e);
      if (cell?.row !== this.hover?.row || cell?.col !== this.hover?.col) {
        this.hover = cell;
        this.#highlight();
      }
    });
    g.addEventListener('pointerleave', () => {
      this.hover = null;
      this.#highlight();
    });
    g.addEventListener('pointerdown', (e) => {
      const cell = this.#cellAt(e);
      if (!cell) return;
      e.preventDefault(); // no text selection; focus is given below, without scrolling
      this.active = cell;
      this.skipFocusSelect = true;
      g.focus({ preventScroll: true });
      this.skipFocusSelect = false;
      this.#activate(true);
    });
    g.addEventListener('focus', () => {
      if (this.skipFocusSelect || !this.p) return;
      this.active ??= { row: this.row0, col: this.col0 };
      this.#activate(true);
    });
    g.addEventListener('blur', () => this.#highlight());
    g.addEventListener('keydown', (e) => this.#key(e));
  }

  #buildNav() {
    this.overview = h('canvas', {
      class: 'hm-overview', tabindex: 0, role: 'application', 'aria-roledescription': 'overview',
    });
    this.windowText = h('span', { class: 'hm-window-text', 'aria-live': 'polite' });
    this.nav = h('div', { class: 'hm-nav', hidden: true }, this.overview,
      h('p', { class: 'hm-window' }, this.windowText,
        h('span', { class: 'muted' }, ' Drag the frame in the overview, or focus it and use the arrow keys, to move the window; arrow keys in the grid scroll it too.')));
    const moveTo = (e) => {
      const r = this.overview.getBoundingClientRect(), { T } = this.p, { rows, cols } = this.L;
      const row = ((e.clientY - r.top) / r.height) * T, col = ((e.clientX - r.left) / r.width) * T;
      this.#moveWindow(Math.round(row - rows / 2), Math.round(col - cols / 2));
    };
    this.overview.addEventListener('pointerdown', (e) => {
      e.preventDefault();
      this.overview.focus({ preventScroll: true });
      this.overview.setPointerCapture?.(e.pointerId);
      this.dragging = true;
      moveTo(e);
    });
    this.overview.addEventListener('pointermove', (e) => this.dragging && moveTo(e));
    const stop = () => (this.dragging = false);
    this.overview.addEventListener('pointerup', stop);
    this.overview.addEventListener('pointercancel', stop);
    this.overview.addEventListener('keydown', (e) => {
      const { rows, cols } = this.L, T = this.p.T;
      const dr = Math.max(1, Math.floor(rows / 4)), dc = Math.max(1, Math.floor(cols / 4));
      const moves = {
        ArrowUp: [-dr, 0], ArrowDown: [dr, 0], ArrowLeft: [0, -dc], ArrowRight: [0, dc],
        PageUp: [-rows, 0], PageDown: [rows, 0], Home: [-T, -T], End: [T, T],
      };
      const m = moves[e.key];
      if (!m) return;
      e.preventDefault();
      this.#moveWindow(this.row0 + m[0], this.col0 + m[1]);
    });
  }

  #buildTable() {
    this.tableBox = h('div', { class: 'hm-table-box' });
    this.summary = h('summary', {}, this.o.title ? `${this.o.title} as a table` : 'Table of these weights');
    this.details = h('details', { class: 'hm-table' }, this.summary, this.tableBox);
    this.details.addEventListener('toggle', () => this.#fillTable());
    this.el.append(this.details);
  }

  // ---- update --------------------------------------------------------------------------------------
  /**
   * Draws `weights` (T×T, rows = queries) labelled by `tokens`. params: { max (top of the colour
   * scale; default the largest weight drawn), hideDiagonal (grey out (i, i), colours scaled to the
   * rest), selectedRow, focus ({ row, col } to make the active cell), width (px available),
   * origin ({ row0, col0 }: put the window there), title (a new title, for a map made with one),
   * caption (a line of text under the map, wrapped to its width; '' for none) }.
   */
  update({ tokens, weights, max, hideDiagonal = false, selectedRow = null, focus = null, width = 640, origin = null, title, caption }) {
    const T = weights.rows, data = weights.data;
    const prev = this.p;
    if (title !== undefined && this.titleText && title !== this.o.title) {
      this.o.title = title;
      if (this.summary) this.summary.textContent = `${title} as a table`;
    }
    if (caption !== undefined) this.#caption(caption);
    if (!this.family && this.el.isConnected) this.family = getComputedStyle(this.el).fontFamily;
    if (!prev || prev.tokens !== tokens || this.widthFamily !== this.family) {
      this.labels = tokens.map(labelOf);
      this.widthFamily = this.family;
      this.widthAt = labelWidths(this.labels, this.family || 'sans-serif');
    }
    const top = max ?? (hideDiagonal ? offDiagonalMax(data, T) : maxOf(data));
    this.p = { tokens, weights, data, T, max: top, hideDiagonal, selectedRow };
    this.L = this.#layout(T, width);
    const { rows, cols } = this.L;

    if (this.active && (this.active.row >= T || this.active.col >= T)) this.active = null;
    if (focus && focus.row < T && focus.col < T) this.active = { row: focus.row, col: focus.col };
    if (origin) {
      this.row0 = origin.row0;
      this.col0 = origin.col0;
    }
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
    this.#draw(!prev || prev.data !== data || prev.max !== top || prev.hideDiagonal !== hideDiagonal);
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
    if (this.p) this.#draw(true);
  }

  #colours() {
    if (this.theme) return this.theme;
    const theme = themeColours(this.el);
    if (this.el.isConnected) this.theme = theme;
    return theme;
  }

  // ---- layout --------------------------------------------------------------------------------------
  /** Cell size, label font and margins; how many rows and columns fit. */
  #layout(T, width) {
    const compact = Boolean(this.o.compact), titleH = this.o.title ? 18 : 0;
    const margins = (cell) => {
      const fontPx = compact ? Math.min(11, cell) : cell >= 28 ? 14 : 12;
      const angle = cell >= 28 ? 45 : 65; // column labels, degrees above the horizontal: steeper when packed
      const rad = (angle * Math.PI) / 180;
      const showLabels = !compact || cell >= 12;
      if (!showLabels) return { cell, fontPx, angle, labelW: 0, left: 2, top: titleH + 4, right: 4, showLabels };
      const labelW = this.widthAt(fontPx) + 4;
      return {
        cell, fontPx, angle, labelW, showLabels,
        left: Math.max(labelW + 12, compact ? 0 : 84),
        top: Math.ceil(labelW * Math.sin(rad) + fontPx) + 14 + titleH,
        right: Math.max(0, Math.ceil(labelW * Math.cos(rad) - cell / 2)) + 8,
      };
    };
    if (compact) {
      // Heads: small multiples at fixed sizes; a long input shows the same kind of window.
      const rows = Math.min(T, ALL_ROWS);
      const cell = rows <= 8 ? 22 : rows <= 12 ? 16 : rows <= 20 ? 12 : rows <= 32 ? 8 : 4;
      return { ...margins(cell), rows, cols: rows, showValues: false };
    }
    const rows = T <= ALL_ROWS ? T : WINDOW;
    const colCap = rows;
    const nominal = rows <= 8 ? 46 : rows <= 12 ? 38 : rows <= 20 ? 28 : MIN_CELL;
    const fits = (m, n) => m.left + m.right + n * m.cell <= width;
    let m = margins(nominal), cols = colCap;
    if (!fits(m, cols)) {
      // Narrower cells first (down to MIN_CELL), then fewer columns: a window.
      let cell = nominal;
      while (cell > MIN_CELL && !fits(m, cols)) m = margins(--cell);
      if (!fits(m, cols)) cols = clamp(Math.floor((width - m.left - m.right) / m.cell), Math.min(4, colCap), colCap);
    }
    return { ...m, rows, cols, showValues: m.cell >= 32 };
  }

  // ---- drawing -------------------------------------------------------------------------------------
  #draw(dataChanged) {
    const { T, tokens } = this.p;
    const L = this.L, { rows, cols, cell, left, top, right, fontPx, angle } = L;
    const gridW = cols * cell, gridH = rows * cell;
    const width = left + gridW + right, height = top + gridH + 8;
    this.plot.style.width = `${width}px`;
    this.plot.style.height = `${height}px`;
    if (this.captionEl) this.captionEl.style.maxWidth = `${Math.max(width, 180)}px`;
    setAttrs(this.svg, { width, height, viewBox: `0 0 ${width} ${height}` });
    this.svg.style.fontSize = `${fontPx}px`;
    this.grid.style.left = `${left}px`;
    this.grid.style.top = `${top}px`;
    this.grid.style.width = `${gridW}px`;
    this.grid.style.height = `${gridH}px`;
    this.ring.setAttribute('width', cell);
    this.ring.setAttribute('height', cell);
    // A small map of a long input says which window it shows in its title.
    if (this.titleText) setAttrs(this.titleText, {}, this.#windowed() ? `${this.o.title} · ${this.row0 + 1}–${this.row0 + rows} × ${this.col0 + 1}–${this.col0 + cols}` : this.o.title);
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
      setAttrs(node, { class: cls(tokens[i], ' row-label' + (this.p.selectedRow === i ? ' selected' : '')), x: left - 10, y: top + r * cell + cell / 2, 'data-index': i }, this.labels[i]);
    });
    this.colLabels.forEach((node, c) => {
      const j = this.col0 + c;
      setAttrs(node, { class: cls(tokens[j], ' col-label'), transform: `translate(${left + c * cell + cell / 2} ${top - 8}) rotate(${-angle})`, 'data-index': j }, this.labels[j]);
    });

    this.#paintCells();
    if (this.nav) this.#drawNav(dataChanged);
    if (this.o.interactive) {
      const g = this.grid;
      setAttrs(g, {
        'aria-rowcount': T + 1, 'aria-colcount': T + 1,
        'aria-label': `Attention weights: ${T} query words (rows) by ${T} key words (columns)${this.#windowed() ? `, through a window of ${rows} × ${cols}` : ''}. ` +
          'Arrow keys move between cells; Home and End go to the first and last key; Page Up and Page Down move a window of rows.',
      });
    }
    this.#highlight(false);
    this.#fillTable();
  }

  #windowed() {
    return this.L.rows < this.p.T || this.L.cols < this.p.T;
  }

  /**
   * The cells of the window: one pixel per weight in its viridis colour, scaled up without smoothing
   * (so each cell is one flat, exact colour however many there are), then the gaps between cells in
   * the background colour: a few draw calls whatever the size.
   */
  #paintCells() {
    const { data, T, max, hideDiagonal } = this.p, { rows, cols, cell } = this.L;
    const ratio = sizeCanvas(this.canvas, cols * cell, rows * cell);
    const W = this.canvas.width, H = this.canvas.height;
    const ctx = (this.ctx ??= this.canvas.getContext('2d', { alpha: false }));
    const theme = this.#colours();
    const source = (this.source ??= document.createElement('canvas'));
    if (source.width !== cols || source.height !== rows) {
      source.width = cols;
      source.height = rows;
      this.sourceImage = null;
    }
    const sctx = source.getContext('2d');
    const image = (this.sourceImage ??= sctx.createImageData(cols, rows));
    const px = new Uint32Array(image.data.buffer);
    const panel = packHex(theme.panel), scale = max > 0 ? 1 / max : 0;
    for (let r = 0; r < rows; r++) {
      const i = this.row0 + r, base = i * T + this.col0;
      for (let c = 0; c < cols; c++) px[r * cols + c] = hideDiagonal && i === this.col0 + c ? panel : viridisPixel(data[base + c] * scale);
    }
    sctx.putImageData(image, 0, 0);
    ctx.setTransform(1, 0, 0, 1, 0, 0);
    ctx.imageSmoothingEnabled = false;
    ctx.drawImage(source, 0, 0, W, H);
    // Each cell keeps a gap of ~1.5 CSS px (0.75 when compact), split across its edges, in whole device
    // pixels — none for cells only a few pixels wide, which a gap would wash out.
    const gap = cell * ratio < 6 ? 0 : Math.max(1, Math.round((this.o.compact ? 0.75 : 1.5) * ratio));
    const hi = gap - (gap >> 1);
    ctx.fillStyle = theme.bg;
    if (gap) for (let c = 0; c <= cols; c++) ctx.fillRect(Math.round(c * cell * ratio) - hi, 0, gap, H);
    if (gap) for (let r = 0; r <= rows; r++) ctx.fillRect(0, Math.round(r * cell * ratio) - hi, W, gap);
    ctx.setTransform(ratio, 0, 0, ratio, 0, 0);
    const diagonal = [];
    if (hideDiagonal) {
      for (let i = Math.max(this.row0, this.col0); i < Math.min(this.row0 + rows, this.col0 + cols); i++) diagonal.push(i);
      ctx.strokeStyle = theme.line;
      ctx.lineWidth = 1;
      ctx.setLineDash([2, 2]);
      for (const i of diagonal) ctx.strokeRect((i - this.col0) * cell + 1.25, (i - this.row0) * cell + 1.25, cell - 2.5 - 0.75, cell - 2.5 - 0.75);
      ctx.setLineDash([]);
    }
    if (this.L.showValues) {
      ctx.font = `11px ${this.family || 'sans-serif'}`;
      ctx.textAlign = 'center';
      ctx.textBaseline = 'middle';
      for (let r = 0; r < rows; r++) {
        for (let c = 0; c < cols; c++) {
          const i = this.row0 + r, j = this.col0 + c;
          if (hideDiagonal && i === j) continue;
          const w = data[i * T + j];
          ctx.fillStyle = inkOn(viridis(w * scale));
          ctx.fillText(w.toFixed(2).replace(/^0\./, '.'), (c + 0.5) * cell, (r + 0.5) * cell);
        }
      }
    }
    ctx.setTransform(1, 0, 0, 1, 0, 0);
    this.#publish(ratio, gap);
  }

  /**
   * What the canvas shows, for tests and tools: canvas.attentionWeights = { T, rowStart, colStart,
   * rows, cols, data (the rows × cols weights drawn, row-major), max (the colour scale's top: a cell
   * is viridis(weight / max)), hideDiagonal, cell (CSS px), ratio (device px per CSS px), gap }.
   */
  #publish(ratio, gap) {
    const { data, T, max, hideDiagonal } = this.p, { rows, cols, cell } = this.L;
    const shown = new Float32Array(rows * cols);
    for (let r = 0; r < rows; r++) shown.set(data.subarray((this.row0 + r) * T + this.col0, (this.row0 + r) * T + this.col0 + cols), r * cols);
    this.canvas.attentionWeights = { T, rowStart: this.row0, colStart: this.col0, rows, cols, data: shown, max, hideDiagonal, cell, ratio, gap };
  }

  /** The overview (whole matrix, largest weight per block) and the frame of the window on it. */
  #drawNav(dataChanged) {
    const windowed = this.#windowed();
    this.nav.hidden = !windowed;
    if (!windowed) return;
    const { data, T, max, hideDiagonal } = this.p, { rows, cols } = this.L;
    if (dataChanged || !this.overviewImage) {
      const n = Math.min(T, OVERVIEW_PIXELS);
      const image = (this.overviewImage ??= document.createElement('canvas'));
      image.width = n;
      image.height = n;
      const ictx = image.getContext('2d');
      const img = ictx.createImageData(n, n), px = new Uint32Array(img.data.buffer);
      const scale = max > 0 ? 1 / max : 0;
      const edges = Array.from({ length: n + 1 }, (_, k) => Math.floor((k * T) / n));
      for (let a = 0; a < n; a++) {
        for (let b = 0; b < n; b++) {
          let top = 0;
          for (let i = edges[a]; i < edges[a + 1]; i++) {
            const base = i * T;
            for (let j = edges[b]; j < edges[b + 1]; j++) if (!(hideDiagonal && i === j) && data[base + j] > top) top = data[base + j];
          }
          px[a * n + b] = viridisPixel(top * scale);
        }
      }
      ictx.putImageData(img, 0, 0);
    }
    const ratio = sizeCanvas(this.overview, OVERVIEW, OVERVIEW);
    const ctx = this.overview.getContext('2d');
    ctx.setTransform(1, 0, 0, 1, 0, 0);
    ctx.imageSmoothingEnabled = false;
    ctx.drawImage(this.overviewImage, 0, 0, this.overview.width, this.overview.height);
    ctx.setTransform(ratio, 0, 0, ratio, 0, 0);
    const f = OVERVIEW / T;
    const x = this.col0 * f, y = this.row0 * f, w = Math.max(3, cols * f), hgt = Math.max(3, rows * f);
    ctx.lineWidth = 3;
    ctx.strokeStyle = '#000';
    ctx.strokeRect(x + 1.5, y + 1.5, w - 3, hgt - 3);
    ctx.lineWidth = 1.5;
    ctx.strokeStyle = '#fff';
    ctx.strokeRect(x + 1.5, y + 1.5, w - 3, hgt - 3);
    ctx.setTransform(1, 0, 0, 1, 0, 0);
    const where = `rows ${number(this.row0 + 1)}–${number(this.row0 + rows)} and columns ${number(this.col0 + 1)}–${number(this.col0 + cols)}`;
    this.windowText.textContent = `Showing ${where} of ${number(T)} × ${number(T)}.`;
    this.overview.setAttribute('aria-label', `Overview of all ${number(T)} × ${number(T)} weights; the frame is the window shown, ${where}. Arrow keys move it, Page Up and Page Down by a window, Home and End to either end.`);
    this.overview.dataset.rowStart = String(this.row0);
    this.overview.dataset.colStart = String(this.col0);
  }

  #moveWindow(row0, col0) {
    const { T } = this.p, { rows, cols } = this.L;
    row0 = clamp(row0, 0, T - rows);
    col0 = clamp(col0, 0, T - cols);
    if (row0 === this.row0 && col0 === this.col0) return;
    this.row0 = row0;
    this.col0 = col0;
    // The active cell stays where it is (as in a spreadsheet, the next arrow key brings it back into view).
    this.#draw(false);
    this.o.onWindow?.({ row0, col0 });
  }

  /** Moves the window without reporting it (to follow another map's window). */
  scrollTo({ row0, col0 }) {
    if (!this.p) return;
    const { T } = this.p, { rows, cols } = this.L;
    this.row0 = clamp(row0, 0, T - rows);
    this.col0 = clamp(col0, 0, T - cols);
    this.#draw(false);
  }

  // ---- pointer and keyboard ------------------------------------------------------------------------
  #cellAt(e) {
    if (!this.L) return null;
    const r = this.grid.getBoundingClientRect(), { cell, rows, cols } = this.L;
    const c = Math.floor((e.clientX - r.left) / cell), k = Math.floor((e.clientY - r.top) / cell);
    return c >= 0 && c < cols && k >= 0 && k < rows ? { row: this.row0 + k, col: this.col0 + c } : null;
  }

  #key(e) {
    if (!this.p) return;
    const { T } = this.p, { rows } = this.L;
    let { row: i, col: j } = this.active ?? { row: this.row0, col: this.col0 };
    switch (e.key) {
      case 'ArrowUp': i -= 1; break;
      case 'ArrowDown': i += 1; break;
      case 'ArrowLeft': j -= 1; break;
      case 'ArrowRight': j += 1; break;
      case 'PageUp': i -= rows; break;
      case 'PageDown': i += rows; break;
      case 'Home': j = 0; if (e.ctrlKey) i = 0; break;
      case 'End': j = T - 1; if (e.ctrlKey) i = T - 1; break;
      default: return;
    }
    e.preventDefault();
    this.active = { row: clamp(i, 0, T - 1), col: clamp(j, 0, T - 1) };
    const { rows: R, cols: C } = this.L;
    const row0 = follow(this.row0, R, T, this.active.row), col0 = follow(this.col0, C, T, this.active.col);
    if (row0 !== this.row0 || col0 !== this.col0) {
      this.row0 = row0;
      this.col0 = col0;
      this.#draw(false);
      this.o.onWindow?.({ row0, col0 });
    }
    this.#activate(true);
  }

  #info(cell) {
    const { tokens, data, T } = this.p;
    return { row: cell.row, col: cell.col, weight: data[cell.row * T + cell.col], query: tokens[cell.row], key: tokens[cell.col], head: this.o.head, title: this.o.title };
  }

  /** The active cell becomes the grid's active descendant (and, if select, the chosen word). */
  #activate(select) {
    if (!this.active || !this.o.interactive) return;
    const { row, col } = this.active, info = this.#info(this.active);
    const hidden = this.p.hideDiagonal && row === col;
    this.vTurn ^= 1;
    const cell = this.vCells[this.vTurn];
    cell.setAttribute('aria-colindex', col + 2);
    cell.textContent = `${info.query.text} → ${info.key.text}: ${format4(info.weight)}${hidden ? ' (itself, greyed out)' : ''}`;
    this.vRow.setAttribute('aria-rowindex', row + 2);
    this.vRowHeader.textContent = info.query.text;
    this.vHeader.setAttribute('aria-colindex', col + 2);
    this.vHeader.textContent = info.key.text;
    this.vRow.lastElementChild.replaceWith(cell);
    this.grid.setAttribute('aria-activedescendant', cell.id);
    this.anchorKey = `${this.p.T}:${row}:${col}`; // already in view: a redraw need not move the window to it
    this.#highlight();
    if (select) this.o.onSelect?.(row, col);
  }

  /** The ring and bold labels on the hovered cell, else the active one while the grid has focus. */
  #highlight(report = true) {
    if (!this.p) return;
    const focused = this.o.interactive && activeIn(this.grid) === this.grid;
    const cell = this.hover ?? (focused ? this.active : null);
    const { rows, cols, cell: size, left, top } = this.L;
    const r = cell ? cell.row - this.row0 : -1, c = cell ? cell.col - this.col0 : -1;
    const visible = r >= 0 && r < rows && c >= 0 && c < cols;
    this.ring.setAttribute('visibility', visible ? 'visible' : 'hidden');
    if (visible) {
      this.ring.setAttribute('x', left + c * size);
      this.ring.setAttribute('y', top + r * size);
    }
    this.rowLabels.forEach((n, k) => n.classList.toggle('active', k === r));
    this.colLabels.forEach((n, k) => n.classList.toggle('active', k === c));
    if (report || cell) this.o.onCell(cell ? this.#info(cell) : null);
  }

  // ---- table alternative and export ----------------------------------------------------------------
  /** The drawn weights as an HTML table, built only while its disclosure is open. */
  #fillTable() {
    if (!this.details) return;
    if (!this.details.open || !this.p) {
      this.tableBox.replaceChildren();
      return;
    }
    const { tokens, weights, T } = this.p, { rows, cols } = this.L;
    const texts = tokens.map((t) => t.text);
    const part = this.#windowed() ? `, rows ${this.row0 + 1}–${this.row0 + rows} and columns ${this.col0 + 1}–${this.col0 + cols} of ${T}` : '';
    this.tableBox.replaceChildren(matrixTable(weights, {
      caption: `${this.o.title ? `${this.o.title}: ` : ''}attention weights, queries (rows) × keys (columns)${part}`,
      name: `weights${this.o.head !== undefined ? `-head-${this.o.head + 1}` : ''}`,
      rowLabels: texts, colLabels: texts,
      rowRange: [this.row0, this.row0 + rows], colRange: [this.col0, this.col0 + cols],
    }));
  }

  /** The cells as SVG shapes in the label SVG's coordinates (the exporter draws them under the labels). */
  #shapes() {
    if (!this.p) return [];
    const { data, T, max, hideDiagonal } = this.p, { rows, cols, cell, left, top, showValues } = this.L;
    const theme = this.#colours();
    const out = [];
    for (let r = 0; r < rows; r++) {
      for (let c = 0; c < cols; c++) {
        const i = this.row0 + r, j = this.col0 + c, w = data[i * T + j];
        const hidden = hideDiagonal && i === j;
        const fill = hidden ? theme.panel : viridis(max > 0 ? w / max : 0);
        out.push({
          tag: 'rect',
          attrs: { x: left + c * cell + 0.75, y: top + r * cell + 0.75, width: cell - 1.5, height: cell - 1.5, fill, 'data-row': i, 'data-col': j, 'data-weight': String(w) },
        });
        if (showValues && !hidden) {
          out.push({ tag: 'text', text: w.toFixed(2).replace(/^0\./, '.'), attrs: { x: left + (c + 0.5) * cell, y: top + (r + 0.5) * cell, fill: inkOn(fill), 'font-size': 11, 'text-anchor': 'middle', 'dominant-baseline': 'central', 'font-family': this.family } });
        }
      }
    }
    return out;
  }
}

/** The colour scale: 0 … max, into container (replacing its contents unless it already shows this). */
export function drawLegend(container, max, what = 'the largest weight shown') {
  const key = `${max}|${what}`;
  if (container.legendKey === key && container.firstElementChild) return;
  container.legendKey = key;
  const width = 260, barH = 12, pad = 14;
  const svg = el('svg', {
    class: 'legend', viewBox: `0 0 ${width + 2 * pad} 46`, width: width + 2 * pad, height: 46,
    role: 'img', 'aria-label': `Colour scale: dark purple is 0, yellow is ${format4(max)}, ${what}`,
  });
  const id = uniqueId('legend-gradient');
  const grad = el('linearGradient', { id, x1: 0, x2: 1, y1: 0, y2: 0 }, el('defs', {}, svg));
  for (let k = 0; k <= 10; k++) el('stop', { offset: `${k * 10}%`, 'stop-color': viridis(k / 10) }, grad);
  el('rect', { x: pad, y: 4, width, height: barH, fill: `url(#${id})`, rx: 2 }, svg);
  for (const f of [0, 0.25, 0.5, 0.75, 1]) {
    const x = pad + f * width;
    el('line', { class: 'tick', x1: x, x2: x, y1: 4 + barH, y2: 4 + barH + 5 }, svg);
    const label = el('text', { class: 'tick-label', x, y: 4 + barH + 18, 'text-anchor': 'middle' }, svg);
    // Two decimals, or two significant digits for small weights (a long input's are all small).
    label.textContent = f === 0 ? '0' : max >= 0.1 ? (f * max).toFixed(2) : (f * max).toPrecision(2);
  }
  container.replaceChildren(svg);
}

// Draws an attention-weight matrix (computed elsewhere, by the wasm core) as an SVG heatmap.
// Only presentation lives here: colours, labels, layout, hover and keyboard focus.
// User text reaches the DOM through textContent/setAttribute only, never as markup.
// Shared by the page and the widget: the "heatmap" view, and (compact) each cell of the "heads" grid.
import { interpolateViridis } from 'd3-scale-chromatic';
import { activeIn, svgEl as el, textWidth, uniqueId } from './dom.js';

const MAX_LABEL_CHARS = 16;

/** The label a token shows: its text, shortened if long, with "?" for unknown and "*" for stemmed. */
export function labelOf(token) {
  const t = [...token.text];
  const text = t.length > MAX_LABEL_CHARS ? t.slice(0, MAX_LABEL_CHARS - 1).join('') + '…' : token.text;
  return text + (token.lookup === 'unknown' ? '?' : token.lookup === 'stemmed' ? '*' : '');
}

// Viridis at 256 steps, computed once: a lookup per cell instead of an interpolation and a colour string.
let lut = null;
/** The viridis colour of f in [0, 1] ("#rrggbb"), from the bundled d3-scale-chromatic. */
export function viridis(f) {
  lut ??= Array.from({ length: 256 }, (_, k) => interpolateViridis(k / 255));
  return lut[Math.round(Math.min(1, Math.max(0, f)) * 255) | 0];
}

/** Dark text on light cells, light text on dark ones ("#rrggbb" input). */
export function inkOn(hex) {
  const [r, g, b] = [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16) / 255);
  return 0.2126 * r + 0.7152 * g + 0.0722 * b > 0.45 ? '#111' : '#fff';
}

export const format4 = (w) => w.toFixed(4);

/** The largest entry of a matrix's data (0 for none). */
export function maxOf(data) {
  let max = 0;
  for (let i = 0; i < data.length; i++) if (data[i] > max) max = data[i];
  return max;
}

/**
 * Draws a heatmap of `weights` (Matrix: rows = queries, columns = keys) labelled by `tokens` into
 * `container` (replacing its contents, or appending when options.append), and the legend into
 * `legend` (unless null). onFocusCell(info | null) is called on hover and keyboard focus with
 * { row, col, weight, query, key, head }; options.onSelect(row, col) when a cell is focused or clicked.
 * options: { compact, title, head, max (colour scale top), selectedRow, append, className (of the svg;
 * default "heatmap"), reuse (an svg drawn before, to repaint in place or replace), hideDiagonal (grey out
 * the cells (i, i) and scale the colours to the other cells), columns (the weights sum to 1 down each column) }.
 */
export function drawHeatmap(container, legend, tokens, weights, onFocusCell, focusAt, options = {}) {
  const T = weights.rows;
  const { data } = weights;
  const hideDiagonal = Boolean(options.hideDiagonal);
  let offMax = 0;
  if (hideDiagonal) for (let i = 0; i < data.length; i++) if (i % (T + 1) !== 0 && data[i] > offMax) offMax = data[i];
  const max = options.max ?? (hideDiagonal ? offMax : maxOf(data));
  const colour = (w) => viridis(max > 0 ? w / max : 0);

  // Same words, same layout (a slider, mask or option changed): repaint the cells in place, keeping
  // the focused cell, instead of rebuilding thousands of SVG nodes.
  const labels = tokens.map(labelOf);
  const key = JSON.stringify([labels, tokens.map((t) => t.text), Boolean(options.compact), options.title ?? '', options.className ?? 'heatmap', options.selectedRow ?? null, options.head ?? null]);
  const previous = options.reuse !== undefined ? options.reuse : options.append ? null : container.firstElementChild;
  if (previous?.heatmapState?.key === key && previous.isConnected) {
    const st = previous.heatmapState;
    Object.assign(st.ctx, { tokens, onFocusCell, onSelect: options.onSelect, head: options.head });
    paint(st.cells, st.values, data, T, tokens, colour, hideDiagonal);
    if (legend) drawLegend(legend, max, hideDiagonal ? 'the largest weight off the diagonal' : undefined);
    st.refresh();
    return st.api;
  }

  const cell = options.compact
    ? (T <= 8 ? 22 : T <= 12 ? 16 : T <= 20 ? 12 : 8)
    : (T <= 8 ? 46 : T <= 12 ? 38 : T <= 20 ? 28 : 18);
  const showValues = cell >= 38;
  const fontPx = options.compact ? Math.min(11, cell) : cell >= 28 ? 14 : 12;
  const angle = cell >= 28 ? 45 : 65; // column labels, degrees above the horizontal: steeper when packed
  const rad = (angle * Math.PI) / 180;
  const font = `${fontPx}px ${getComputedStyle(container).fontFamily}`;
  const labelW = Math.ceil(Math.max(...labels.map((l) => textWidth(l, font)))) + 4;
  const left = Math.max(labelW + 12, options.compact ? 0 : 84);
  const top = Math.ceil(labelW * Math.sin(rad) + fontPx) + 14 + (options.title ? 18 : 0);
  const gridW = T * cell;
  const right = Math.max(0, Math.ceil(labelW * Math.cos(rad) - cell / 2)) + 8;
  const width = left + gridW + right;
  const height = top + gridW + 8;

  const svg = el('svg', {
    class: options.className ?? 'heatmap',
    viewBox: `0 0 ${width} ${height}`,
    width,
    height,
    role: 'grid',
    'aria-label': `Attention weights: ${T} query words (rows) by ${T} key words (columns). Use the arrow keys to read each weight.`,
    'aria-rowcount': T + 1,
    'aria-colcount': T + 1,
    tabindex: -1, // chromium would otherwise put the svg itself in the tab order, before the cells
  });
  if (options.compact) svg.classList.add('compact');
  if (options.head !== undefined) svg.dataset.head = String(options.head);
  svg.style.fontSize = `${fontPx}px`;
  // Scale down to fit narrow screens, but not below 75 % (or 320 px): past that, scroll instead.
  if (!options.compact) svg.style.minWidth = `${Math.round(Math.min(width, Math.max(320, width * 0.75)))}px`;

  if (options.title) {
    el('text', { class: 'head-title', x: 2, y: 14 }, svg).textContent = options.title;
  } else {
    // Axis titles in the empty top-left corner.
    const axes = el('g', { class: 'axis-title', 'aria-hidden': 'true' }, svg);
    el('text', { x: left - 10, y: top - 26, 'text-anchor': 'end' }, axes).textContent = 'keys →';
    el('text', { x: left - 10, y: top - 8, 'text-anchor': 'end' }, axes).textContent = 'queries ↓';
  }

  const cls = (t) => `label ${t.lookup}`;
  const header = el('g', { role: 'row' }, svg);
  const colLabels = tokens.map((t, j) => {
    const x = left + j * cell + cell / 2;
    const y = top - 8;
    const text = el('text', { class: cls(t), role: 'columnheader', transform: `translate(${x} ${y}) rotate(${-angle})` }, header);
    text.textContent = labels[j];
    return text;
  });

  const rowLabels = [];
  const cells = [];
  const values = [];
  const ctx = { tokens, onFocusCell, onSelect: options.onSelect, head: options.head };
  tokens.forEach((t, i) => {
    const row = el('g', { role: 'row' }, svg);
    const y = top + i * cell;
    const label = el('text', { class: cls(t) + (options.selectedRow === i ? ' selected' : ''), role: 'rowheader', x: left - 10, y: y + cell / 2, 'text-anchor': 'end', 'dominant-baseline': 'central' }, row);
    label.textContent = labels[i];
    rowLabels.push(label);
    for (let j = 0; j < T; j++) {
      const w = data[i * T + j];
      const hidden = hideDiagonal && i === j;
      const fill = hidden ? 'none' : colour(w);
      const g = el('g', { class: 'cell-group' }, row);
      const rect = el('rect', {
        class: hidden ? 'cell diag' : 'cell', x: left + j * cell, y, width: cell, height: cell, fill,
        'data-row': i, 'data-col': j, 'data-weight': String(w),
        role: 'gridcell', tabindex: -1,
        'aria-label': `${t.text} → ${tokens[j].text}: ${format4(w)}${hidden ? ' (itself, greyed out)' : ''}`,
      }, g);
      if (showValues) {
        const v = el('text', { class: 'value', x: left + j * cell + cell / 2, y: y + cell / 2, fill: hidden ? 'none' : inkOn(fill), 'aria-hidden': 'true' }, g);
        v.textContent = hidden ? '' : w.toFixed(2).replace(/^0\./, '.');
        values.push(v);
      }
      cells.push(rect);
    }
  });

  // One outline drawn over everything, moved to the hovered or focused cell.
  const ring = el('rect', { class: 'ring', width: cell, height: cell, rx: 2, visibility: 'hidden', 'aria-hidden': 'true' }, svg);
  let current = null;
  const info = (rect) => {
    const row = +rect.dataset.row, col = +rect.dataset.col;
    return { row, col, weight: +rect.dataset.weight, query: ctx.tokens[row], key: ctx.tokens[col], head: ctx.head };
  };
  const highlight = (rect) => {
    for (const l of [...rowLabels, ...colLabels]) l.classList.remove('active');
    ring.setAttribute('visibility', rect ? 'visible' : 'hidden');
    if (rect) {
      ring.setAttribute('x', rect.getAttribute('x'));
      ring.setAttribute('y', rect.getAttribute('y'));
      rowLabels[+rect.dataset.row].classList.add('active');
      colLabels[+rect.dataset.col].classList.add('active');
    }
    ctx.onFocusCell(rect ? info(rect) : null);
  };
  const focusCell = (i, j) => {
    const rect = cells[i * T + j];
    if (current) current.setAttribute('tabindex', -1);
    rect.setAttribute('tabindex', 0);
    current = rect;
    rect.focus();
  };

  const start = focusAt && focusAt.row < T && focusAt.col < T ? focusAt : { row: 0, col: 0 };
  current = cells[start.row * T + start.col];
  current.setAttribute('tabindex', 0);

  svg.addEventListener('pointerover', (e) => {
    if (e.target.classList?.contains('cell')) highlight(e.target);
  });
  svg.addEventListener('pointerleave', () => {
    const active = activeIn(svg);
    const focused = active && svg.contains(active) && active.classList.contains('cell');
    highlight(focused ? active : null);
  });
  svg.addEventListener('focusin', (e) => {
    if (!e.target.classList?.contains('cell')) return;
    if (current !== e.target) {
      current?.setAttribute('tabindex', -1);
      e.target.setAttribute('tabindex', 0);
      current = e.target;
    }
    highlight(e.target);
    ctx.onSelect?.(+e.target.dataset.row, +e.target.dataset.col);
  });
  svg.addEventListener('focusout', (e) => {
    if (!svg.contains(e.relatedTarget)) highlight(null);
  });
  svg.addEventListener('pointerdown', (e) => {
    if (e.target.classList?.contains('cell')) {
      e.preventDefault();
      focusCell(+e.target.dataset.row, +e.target.dataset.col);
    }
  });
  svg.addEventListener('keydown', (e) => {
    if (!current) return;
    let i = +current.dataset.row, j = +current.dataset.col;
    switch (e.key) {
      case 'ArrowUp': i = Math.max(0, i - 1); break;
      case 'ArrowDown': i = Math.min(T - 1, i + 1); break;
      case 'ArrowLeft': j = Math.max(0, j - 1); break;
      case 'ArrowRight': j = Math.min(T - 1, j + 1); break;
      case 'Home': j = 0; if (e.ctrlKey) i = 0; break;
      case 'End': j = T - 1; if (e.ctrlKey) i = T - 1; break;
      default: return;
    }
    e.preventDefault();
    focusCell(i, j);
  });

  if (options.reuse?.isConnected) options.reuse.replaceWith(svg);
  else if (options.append) container.append(svg);
  else container.replaceChildren(svg);
  if (legend) drawLegend(legend, max, hideDiagonal ? 'the largest weight off the diagonal' : undefined);
  const api = {
    get focused() {
      return current ? { row: +current.dataset.row, col: +current.dataset.col } : null;
    },
  };
  // After an in-place repaint: the readout of a hovered or focused cell shows its new weight.
  const refresh = () => {
    const active = activeIn(svg);
    if (active && svg.contains(active) && active.classList.contains('cell')) highlight(active);
  };
  svg.heatmapState = { key, ctx, cells, values, api, refresh };
  return api;
}

/** Sets every cell's colour, weight and label (and its printed value, when shown). */
function paint(cells, values, data, T, tokens, colour, hideDiagonal) {
  for (let k = 0; k < cells.length; k++) {
    const rect = cells[k], i = (k / T) | 0, j = k - i * T, w = data[k];
    const hidden = hideDiagonal && i === j;
    const fill = hidden ? 'none' : colour(w);
    rect.setAttribute('fill', fill);
    if (hideDiagonal || i === j) rect.setAttribute('class', hidden ? 'cell diag' : 'cell');
    rect.setAttribute('data-weight', String(w));
    rect.setAttribute('aria-label', `${tokens[i].text} → ${tokens[j].text}: ${format4(w)}${hidden ? ' (itself, greyed out)' : ''}`);
    const v = values[k];
    if (v) {
      v.setAttribute('fill', hidden ? 'none' : inkOn(fill));
      v.textContent = hidden ? '' : w.toFixed(2).replace(/^0\./, '.');
    }
  }
}

/** The colour scale: 0 … max, into container (replacing its contents). */
export function drawLegend(container, max, what = 'the largest weight shown') {
  const width = 260, barH = 12, pad = 14;
  const svg = el('svg', {
    class: 'legend', viewBox: `0 0 ${width + 2 * pad} 46`, width: width + 2 * pad, height: 46,
    role: 'img', 'aria-label': `Colour scale: dark purple is 0, yellow is ${format4(max)}, ${what}`,
  });
  const id = uniqueId('legend-gradient');
  const grad = el('linearGradient', { id, x1: 0, x2: 1, y1: 0, y2: 0 }, el('defs', {}, svg));
  for (let k = 0; k <= 10; k++) el('stop', { offset: `${k * 10}%`, 'stop-color': interpolateViridis(k / 10) }, grad);
  el('rect', { x: pad, y: 4, width, height: barH, fill: `url(#${id})`, rx: 2 }, svg);
  for (const f of [0, 0.25, 0.5, 0.75, 1]) {
    const x = pad + f * width;
    el('line', { class: 'tick', x1: x, x2: x, y1: 4 + barH, y2: 4 + barH + 5 }, svg);
    const label = el('text', { class: 'tick-label', x, y: 4 + barH + 18, 'text-anchor': 'middle' }, svg);
    label.textContent = f === 0 ? '0' : (f * max).toFixed(2);
  }
  container.replaceChildren(svg);
}

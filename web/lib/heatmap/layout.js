// How a heatmap lays itself out: the cell size, the label font and margins, and how many rows and
// columns of a long input fit the width (a window of it when not all do).
import { textWidth } from '../dom.js';
import { ALL_ROWS, WINDOW, clamp } from '../windowing.js';

const MIN_CELL = 18; // px: below this the labels collide, so narrow screens get fewer columns

export /** Widths of the longest label at a font size, cached per list of labels. */
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

/** A heatmap's (map) cell size, label font and margins for T words in `width` px; how many rows and columns fit. */
export function layoutOf(map, T, width) {
  const compact = Boolean(map.o.compact),
    titleH = map.o.title ? 18 : 0;
  const margins = (cell) => {
    const fontPx = compact ? Math.min(12, Math.max(cell, 12)) : cell >= 28 ? 14 : 12;
    const angle = cell >= 28 ? 45 : 65; // column labels, degrees above the horizontal: steeper when packed
    const rad = (angle * Math.PI) / 180;
    const showLabels = !compact || cell >= 12;
    if (!showLabels) return { cell, fontPx, angle, labelW: 0, left: 2, top: titleH + 4, right: 4, showLabels };
    const labelW = map.widthAt(fontPx) + 4;
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
    if (map.o.fitWidth) while (cell > 8 && over(cell)) cell--;
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

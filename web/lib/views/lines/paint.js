// The lines view's lines, drawn two ways: on the canvas (paintLines), and as SVG shapes so an export holds
// them as vectors (lineShapes: the exporter calls the word SVG's exportShapes(), which lines.js answers with these).
import { sizeCanvas } from '../../colour.js';

/** The lines a Lines (lines.js) drew, as SVG shapes in its word SVG's coordinates, stroked in `theme`'s colours; row and top: its geometry (px). */
export function lineShapes(lines, theme, { row: ROW, top: TOP }) {
  const { T, rows, start, data, max, xl, xr } = lines;
  const iso = lines.isolated;
  const out = [];
  for (let r = 0; r < rows; r++) {
    for (let c = 0; c < rows; c++) {
      const i = start + r,
        j = start + c,
        v = data[i * T + j];
      if (!(v > 0)) continue;
      const f = Math.min(1, max > 0 ? v / max : 0);
      const on = !iso || (iso.side === 'query' ? i === iso.index : j === iso.index);
      const self = i === j && lines.diagonalApart;
      if (self && !on) continue;
      out.push({
        tag: 'line',
        attrs: {
          x1: xl + 2,
          y1: TOP + r * ROW + ROW / 2,
          x2: xr - 2,
          y2: TOP + c * ROW + ROW / 2,
          stroke: self ? theme.muted : theme.link,
          'stroke-width': self ? 1.5 : (0.5 + 5 * f).toFixed(2),
          'stroke-opacity': self ? 1 : (on ? 0.08 + 0.92 * f : 0.03).toFixed(3),
          ...(self ? { 'stroke-dasharray': '4 3' } : {}),
          'data-row': i,
          'data-col': j,
          'data-weight': String(v),
        },
      });
    }
  }
  return out;
}

/**
 * Paints a Lines' (lines.js) lines between the words in its window on its canvas, in `theme`'s colours,
 * shade by shade, an isolated word's on top; row and shades: its geometry. Publishes what it drew.
 */
export function paintLines(lines, theme, { row: ROW, shades: SHADES }) {
  const { T, rows, start, gap, data, max } = lines;
  const w = gap - 4,
    hgt = rows * ROW;
  const ratio = sizeCanvas(lines.canvas, w, hgt);
  const ctx = (lines.ctx ??= lines.canvas.getContext('2d'));
  ctx.setTransform(1, 0, 0, 1, 0, 0);
  ctx.clearRect(0, 0, lines.canvas.width, lines.canvas.height);
  ctx.setTransform(ratio, 0, 0, ratio, 0, 0);
  ctx.strokeStyle = theme.link;
  const iso = lines.isolated;
  const isOn = (i, j) => !iso || (iso.side === 'query' ? i === iso.index : j === iso.index);
  // Paths per shade: dimmed ones (when a word is isolated) first, then the lit ones above them.
  const paths = [new Map(), new Map()];
  const shown = new Float32Array(rows * rows);
  const selves = new Path2D();
  let drawn = 0;
  for (let r = 0; r < rows; r++) {
    const i = start + r;
    for (let c = 0; c < rows; c++) {
      const j = start + c,
        v = data[i * T + j];
      shown[r * rows + c] = v;
      if (!(v > 0)) continue;
      if (i === j && lines.diagonalApart) {
        // A word's line to itself: dashed and grey, outside the thickness scale.
        if (isOn(i, j)) (selves.moveTo(0, r * ROW + ROW / 2), selves.lineTo(w, r * ROW + ROW / 2));
        drawn++;
        continue;
      }
      const shade = Math.min(SHADES - 1, Math.floor((max > 0 ? v / max : 0) * SHADES));
      const set = paths[isOn(i, j) ? 1 : 0];
      if (!set.has(shade)) set.set(shade, new Path2D());
      const p = set.get(shade);
      p.moveTo(0, r * ROW + ROW / 2);
      p.lineTo(w, c * ROW + ROW / 2);
      drawn++;
    }
  }
  paths.forEach((set, lit) => {
    for (const [shade, path] of set) {
      const f = (shade + 0.5) / SHADES;
      ctx.lineWidth = 0.5 + 5 * f;
      ctx.globalAlpha = lit ? 0.08 + 0.92 * f : 0.03;
      ctx.stroke(path);
    }
  });
  ctx.globalAlpha = 1;
  ctx.strokeStyle = theme.muted;
  ctx.lineWidth = 1.5;
  ctx.setLineDash([4, 3]);
  ctx.stroke(selves);
  ctx.setLineDash([]);
  ctx.setTransform(1, 0, 0, 1, 0, 0);
  // What the canvas shows, for tests and tools: the window's weights (rows × rows, row-major),
  // how many lines were drawn, which word's lines are isolated, and the geometry.
  lines.canvas.attentionLines = {
    T,
    start,
    rows,
    data: shown,
    max,
    drawn,
    isolated: iso ? { ...iso } : null,
    rowHeight: ROW,
    width: w,
    ratio,
    diagonalApart: lines.diagonalApart,
  };
}

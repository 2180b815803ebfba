// The lines view's lines as SVG shapes, so an export holds them as vectors (the canvas draws them on
// screen): the exporter calls the word SVG's exportShapes(), which lines.js answers with these.
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

// How a heatmap paints its cells on the canvas: one pixel per weight, scaled up without smoothing, the
// gaps between cells, the hatched diagonal and, where the cells are large enough, the numbers.
import { inkOn, packHex, sizeCanvas } from '../colour.js';
import { cellText } from '../format.js';

/**
 * Paints a heatmap's (map: heatmap.js Heatmap) window of cells onto its canvas, then publishes what it
 * drew. One pixel per weight in its colour, scaled up without smoothing (so each cell is one flat,
 * exact colour however many there are), then the gaps between cells in the
 * background colour. With the diagonal apart, a word's cell with itself is the panel colour, hatched
 * and outlined, its number kept: it stands out without setting the colour scale.
 */
export function paintCells(map) {
  const { data, T, max, diagonalApart } = map.p,
    { rows, cols, cell } = map.L;
  const ratio = sizeCanvas(map.canvas, cols * cell, rows * cell);
  const W = map.canvas.width,
    H = map.canvas.height;
  const ctx = (map.ctx ??= map.canvas.getContext('2d', { alpha: false }));
  const theme = map.colours();
  const source = (map.source ??= document.createElement('canvas'));
  if (source.width !== cols || source.height !== rows) {
    source.width = cols;
    source.height = rows;
    map.sourceImage = null;
  }
  const sctx = source.getContext('2d');
  const image = (map.sourceImage ??= sctx.createImageData(cols, rows));
  const px = new Uint32Array(image.data.buffer);
  const panel = packHex(theme.panel),
    pal = map.o.palette;
  for (let r = 0; r < rows; r++) {
    const i = map.row0 + r,
      base = i * T + map.col0;
    for (let c = 0; c < cols; c++) px[r * cols + c] = diagonalApart && i === map.col0 + c ? panel : pal.pixel(pal.at(data[base + c], max));
  }
  sctx.putImageData(image, 0, 0);
  ctx.setTransform(1, 0, 0, 1, 0, 0);
  ctx.imageSmoothingEnabled = false;
  ctx.drawImage(source, 0, 0, W, H);
  // Each cell keeps a gap of ~1.5 CSS px (0.75 when compact), split across its edges, in whole device
  // pixels: none for cells only a few pixels wide, which a gap would wash out.
  const gap = cell * ratio < 6 ? 0 : Math.max(1, Math.round((map.o.compact ? 0.75 : 1.5) * ratio));
  const hi = gap - (gap >> 1);
  ctx.fillStyle = theme.bg;
  if (gap) for (let c = 0; c <= cols; c++) ctx.fillRect(Math.round(c * cell * ratio) - hi, 0, gap, H);
  if (gap) for (let r = 0; r <= rows; r++) ctx.fillRect(0, Math.round(r * cell * ratio) - hi, W, gap);
  ctx.setTransform(ratio, 0, 0, ratio, 0, 0);
  if (diagonalApart) hatchDiagonal(map, ctx, theme);
  if (map.L.showValues) {
    ctx.font = `11px ${map.family || 'sans-serif'}`;
    ctx.textAlign = 'center';
    ctx.textBaseline = 'middle';
    for (let r = 0; r < rows; r++) {
      for (let c = 0; c < cols; c++) {
        const i = map.row0 + r,
          j = map.col0 + c,
          w = data[i * T + j];
        ctx.fillStyle = diagonalApart && i === j ? theme.fg : inkOn(pal.hex(pal.at(w, max)));
        ctx.fillText(cellText(w), (c + 0.5) * cell, (r + 0.5) * cell);
      }
    }
  }
  ctx.setTransform(1, 0, 0, 1, 0, 0);
  publish(map, ratio, gap);
}

/**
 * Hatching on the diagonal cells in the window: lines x − y = c (c ≡ 3 mod 6 CSS px, inside the cell)
 * plus a dashed outline. The lines miss the cell's corners and centre: the number stays readable and
 * a test can read the cell's colour 2 px inside its corner.
 */
function hatchDiagonal(map, ctx, theme) {
  const { rows, cols, cell } = map.L;
  ctx.save();
  ctx.strokeStyle = theme.muted;
  ctx.lineWidth = 1;
  for (let i = Math.max(map.row0, map.col0); i < Math.min(map.row0 + rows, map.col0 + cols); i++) {
    const x = (i - map.col0) * cell,
      y = (i - map.row0) * cell;
    ctx.save();
    ctx.beginPath();
    ctx.rect(x + 1, y + 1, cell - 2, cell - 2);
    ctx.clip();
    ctx.beginPath();
    for (let c = -Math.ceil(cell / 6) * 6 + 3; c < cell; c += 6) {
      if (Math.abs(c) < 6 && map.L.showValues) continue; // keep the number's middle band clear
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
function publish(map, ratio, gap) {
  const { data, T, max, diagonalApart } = map.p,
    { rows, cols, cell } = map.L;
  const shown = new Float32Array(rows * cols);
  for (let r = 0; r < rows; r++) shown.set(data.subarray((map.row0 + r) * T + map.col0, (map.row0 + r) * T + map.col0 + cols), r * cols);
  map.canvas.attentionWeights = {
    T,
    rowStart: map.row0,
    colStart: map.col0,
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

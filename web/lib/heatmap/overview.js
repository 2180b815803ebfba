// The overview of a long input's heatmap: the whole matrix at one pixel per block (each block's largest
// weight) with a frame on the window shown; drag the frame, or focus the overview and use the arrow
// keys, to move the window.
import { count } from '../format.js';
import { h } from '../dom.js';
import { sizeCanvas } from '../colour.js';

const SIDE = 132; // px: the overview's side
const PIXELS = 264; // its image holds at most this many blocks a side

/** Builds the overview for heatmap `hm`; returns { el, draw(dataChanged) }. */
export function attachOverview(hm) {
  const canvas = h('canvas', { class: 'hm-overview', tabindex: 0, role: 'application', 'aria-roledescription': 'overview' });
  const windowText = h('span', { class: 'hm-window-text', 'aria-live': 'polite' });
  const el = h(
    'div',
    { class: 'hm-nav', hidden: true },
    canvas,
    h(
      'p',
      { class: 'hm-window' },
      windowText,
      h(
        'span',
        { class: 'muted' },
        ' Drag the frame in the overview, or focus it and use the arrow keys, to move the window; arrow keys in the grid scroll it too.',
      ),
    ),
  );
  let image = null,
    dragging = false;
  const moveTo = (e) => {
    const r = canvas.getBoundingClientRect(),
      { T } = hm.p,
      { rows, cols } = hm.L;
    const row = ((e.clientY - r.top) / r.height) * T,
      col = ((e.clientX - r.left) / r.width) * T;
    hm.moveWindow(Math.round(row - rows / 2), Math.round(col - cols / 2));
  };
  canvas.addEventListener('pointerdown', (e) => {
    e.preventDefault();
    canvas.focus({ preventScroll: true });
    canvas.setPointerCapture?.(e.pointerId);
    dragging = true;
    moveTo(e);
  });
  canvas.addEventListener('pointermove', (e) => dragging && moveTo(e));
  const stop = () => (dragging = false);
  canvas.addEventListener('pointerup', stop);
  canvas.addEventListener('pointercancel', stop);
  canvas.addEventListener('keydown', (e) => {
    const { rows, cols } = hm.L,
      T = hm.p.T;
    const dr = Math.max(1, Math.floor(rows / 4)),
      dc = Math.max(1, Math.floor(cols / 4));
    const moves = {
      ArrowUp: [-dr, 0],
      ArrowDown: [dr, 0],
      ArrowLeft: [0, -dc],
      ArrowRight: [0, dc],
      PageUp: [-rows, 0],
      PageDown: [rows, 0],
      Home: [-T, -T],
      End: [T, T],
    };
    const m = moves[e.key];
    if (!m) return;
    e.preventDefault();
    hm.moveWindow(hm.row0 + m[0], hm.col0 + m[1]);
  });

  function paintImage() {
    const { data, T, max, diagonalApart } = hm.p;
    const n = Math.min(T, PIXELS);
    image ??= document.createElement('canvas');
    image.width = n;
    image.height = n;
    const ictx = image.getContext('2d');
    const img = ictx.createImageData(n, n),
      px = new Uint32Array(img.data.buffer);
    const pal = hm.o.palette;
    const edges = Array.from({ length: n + 1 }, (_, k) => Math.floor((k * T) / n));
    for (let a = 0; a < n; a++) {
      for (let b = 0; b < n; b++) {
        let top = 0;
        for (let i = edges[a]; i < edges[a + 1]; i++) {
          const base = i * T;
          for (let j = edges[b]; j < edges[b + 1]; j++) if (!(diagonalApart && i === j) && data[base + j] > top) top = data[base + j];
        }
        px[a * n + b] = pal.pixel(pal.at(top, max));
      }
    }
    ictx.putImageData(img, 0, 0);
  }

  return {
    el,
    draw(dataChanged) {
      const windowed = hm.windowed();
      el.hidden = !windowed;
      if (!windowed) return;
      const { T } = hm.p,
        { rows, cols } = hm.L;
      if (dataChanged || !image) paintImage();
      const ratio = sizeCanvas(canvas, SIDE, SIDE);
      const ctx = canvas.getContext('2d');
      ctx.setTransform(1, 0, 0, 1, 0, 0);
      ctx.imageSmoothingEnabled = false;
      ctx.drawImage(image, 0, 0, canvas.width, canvas.height);
      ctx.setTransform(ratio, 0, 0, ratio, 0, 0);
      const f = SIDE / T;
      const x = hm.col0 * f,
        y = hm.row0 * f,
        w = Math.max(3, cols * f),
        hgt = Math.max(3, rows * f);
      ctx.lineWidth = 3;
      ctx.strokeStyle = '#000';
      ctx.strokeRect(x + 1.5, y + 1.5, w - 3, hgt - 3);
      ctx.lineWidth = 1.5;
      ctx.strokeStyle = '#fff';
      ctx.strokeRect(x + 1.5, y + 1.5, w - 3, hgt - 3);
      ctx.setTransform(1, 0, 0, 1, 0, 0);
      const where = `rows ${count(hm.row0 + 1)}–${count(hm.row0 + rows)} and columns ${count(hm.col0 + 1)}–${count(hm.col0 + cols)}`;
      windowText.textContent = `Showing ${where} of ${count(T)} × ${count(T)}.`;
      canvas.setAttribute(
        'aria-label',
        `Overview of all ${count(T)} × ${count(T)} weights; the frame is the window shown, ${where}. Arrow keys move it, Page Up and Page Down by a window, Home and End to either end.`,
      );
      canvas.dataset.rowStart = String(hm.row0);
      canvas.dataset.colStart = String(hm.col0);
    },
  };
}

// Colours and canvas pixels shared by every drawn view: the viridis scale (from the bundled
// d3-scale-chromatic) as CSS strings and as packed RGBA pixels, the figure's theme colours read from
// its CSS custom properties, and canvases sized for the screen's device pixel ratio.
import { interpolateViridis } from 'd3-scale-chromatic';

// Viridis at 256 steps, computed once: a lookup per cell instead of an interpolation per cell.
let hexLut = null;
let pixelLut = null;

/** Position of f in [0, 1] on the 256-step scale. */
const step = (f) => Math.round(Math.min(1, Math.max(0, f || 0)) * 255);

/** The viridis colour of f in [0, 1] ("#rrggbb"). */
export function viridis(f) {
  hexLut ??= Array.from({ length: 256 }, (_, k) => interpolateViridis(k / 255));
  return hexLut[step(f)];
}

/** The same colour as one opaque RGBA pixel, packed for a Uint32Array view of ImageData. */
export function viridisPixel(f) {
  pixelLut ??= Uint32Array.from({ length: 256 }, (_, k) => packHex(viridis(k / 255)));
  return pixelLut[step(f)];
}

// ImageData is RGBA bytes; a Uint32Array over it reads them in the machine's byte order.
const littleEndian = new Uint8Array(Uint32Array.of(1).buffer)[0] === 1;

/** "#rrggbb" → one opaque pixel for a Uint32Array view of ImageData. */
export function packHex(hex) {
  const r = parseInt(hex.slice(1, 3), 16),
    g = parseInt(hex.slice(3, 5), 16),
    b = parseInt(hex.slice(5, 7), 16);
  return (littleEndian ? (255 << 24) | (b << 16) | (g << 8) | r : (r << 24) | (g << 16) | (b << 8) | 255) >>> 0;
}

/**
 * Black or white text on a cell ("#rrggbb" input): whichever contrasts more by WCAG's relative
 * luminance, so never below 4.58:1 (where the two tie); #111 in place of black could fall to 4.35.
 */
export function inkOn(hex) {
  const [r, g, b] = [1, 3, 5].map((i) => {
    const c = parseInt(hex.slice(i, i + 2), 16) / 255;
    return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  });
  const L = 0.2126 * r + 0.7152 * g + 0.0722 * b;
  return (L + 0.05) / 0.05 >= 1.05 / (L + 0.05) ? '#000' : '#fff';
}

/** The figure's theme colours at `node` (inside an element of class "af"; styles.js gives them as "#rrggbb"). */
export function themeColours(node) {
  const cs = getComputedStyle(node);
  const read = (name, fallback) => cs.getPropertyValue(name).trim() || fallback;
  return {
    bg: read('--af-bg', '#ffffff'),
    fg: read('--af-fg', '#1d1f23'),
    panel: read('--af-panel', '#f6f7f9'),
    line: read('--af-line', '#d9dce1'),
    muted: read('--af-muted', '#5d636e'),
    link: read('--af-link', '#3b5bdb'),
  };
}

/** Device pixels per CSS pixel that canvases are drawn at (1–3). */
export const pixelRatio = () => Math.min(3, Math.max(1, globalThis.devicePixelRatio || 1));

/**
 * Gives a canvas cssWidth × cssHeight CSS pixels on screen and device pixels behind them, so lines
 * and cells stay crisp at any zoom. Returns the ratio used. (Sizes go through the CSSOM, which a
 * Content-Security-Policy without 'unsafe-inline' allows.)
 */
export function sizeCanvas(canvas, cssWidth, cssHeight) {
  const ratio = pixelRatio();
  const w = Math.max(1, Math.round(cssWidth * ratio)),
    h = Math.max(1, Math.round(cssHeight * ratio));
  if (canvas.width !== w) canvas.width = w;
  if (canvas.height !== h) canvas.height = h;
  canvas.style.width = `${cssWidth}px`;
  canvas.style.height = `${cssHeight}px`;
  return ratio;
}

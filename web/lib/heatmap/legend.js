// The colour scale under a heatmap: dark purple 0 … yellow at the scale's top, with ticks; with the
// diagonal apart, a hatched swatch says what a word's cell with itself looks like.
import { svgEl as el, uniqueId } from '../dom.js';
import { viridis } from '../colour.js';
import { format4, num } from '../format.js';

/** Draws the legend into container (replacing its contents unless it already shows this). */
export function drawLegend(container, max, { what = 'the largest weight shown', diagonalApart = false } = {}) {
  const key = `${max}|${what}|${diagonalApart}`;
  if (container.legendKey === key && container.firstElementChild) return;
  container.legendKey = key;
  // With the diagonal apart, a second line under the bar shows the hatched cell: the legend stays as narrow.
  const width = 260,
    barH = 12,
    pad = 14,
    H = diagonalApart ? 68 : 46;
  const svg = el('svg', {
    class: 'legend',
    viewBox: `0 0 ${width + 2 * pad} ${H}`,
    width: width + 2 * pad,
    height: H,
    role: 'img',
    'aria-label': `Colour scale: dark purple is 0, yellow is ${format4(max)}, ${what}${diagonalApart ? '. A word’s weight on itself is drawn hatched, outside the scale' : ''}`,
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
    label.textContent = f === 0 ? '0' : max >= 0.1 ? num(f * max, 2) : (f * max).toPrecision(2);
  }
  if (diagonalApart) {
    const x = pad,
      y = 48;
    const sw = el('g', { class: 'diag-swatch' }, svg);
    el('rect', { class: 'swatch', x, y, width: 16, height: 16, 'stroke-dasharray': '3 2' }, sw);
    for (const c of [-9, -3, 3, 9])
      el(
        'line',
        { class: 'hatch', x1: x + Math.max(0, c), y1: y + Math.max(0, -c), x2: x + Math.min(16, 16 + c), y2: y + Math.min(16, 16 - c) },
        sw,
      );
    const t = el('text', { class: 'tick-label', x: x + 24, y: y + 12 }, sw);
    t.textContent = 'a word with itself: outside the scale';
  }
  container.replaceChildren(svg);
}

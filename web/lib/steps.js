// The "steps" view: for one query word, the four stages the core went through — raw scores q·k,
// scaled scores, softmax weights, and the output row — with the core's own intermediate numbers
// (AttentionSteps.scores / .scaled / .weights / .output). Nothing is recomputed here.
import { svgEl as el, textWidth } from './dom.js';
import { labelOf } from './heatmap.js';

const ROW = 22;
const fmt = (x) => (x === -Infinity ? '−∞' : Number.isFinite(x) ? x.toFixed(4).replace('-', '−') : String(x));

/**
 * steps: AttentionSteps of the core; query: the word whose row is shown; scaleText: how the scores
 * were scaled (e.g. "÷ √50 ÷ 1.00"). Returns nothing; draws an SVG table into container.
 */
export function drawSteps(container, tokens, steps, query, { scaleText = '', outputDims = 8 } = {}) {
  const T = steps.weights.rows;
  const i = Math.min(Math.max(0, query), T - 1);
  const at = (m, r, c) => m.data[r * m.cols + c];
  const fontPx = 13;
  const font = `${fontPx}px ${getComputedStyle(container).fontFamily}`;
  const labels = tokens.map(labelOf);
  const keyW = Math.max(60, Math.ceil(Math.max(...labels.map((l) => textWidth(l, font)))) + 12);
  const colW = 92;
  const barW = 120;
  const cols = [keyW, colW, colW, colW + barW];
  const x0 = 8;
  const xs = cols.reduce((acc, w) => [...acc, acc[acc.length - 1] + w], [x0]);
  const top = 64;
  const outTop = top + T * ROW + 20;
  const d = steps.output.cols;
  const shown = Math.min(d, outputDims);
  const width = Math.max(xs[xs.length - 1] + 8, 460);
  const height = outTop + ROW + 14;

  const svg = el('svg', {
    class: 'steps', viewBox: `0 0 ${width} ${height}`, width, height, role: 'table',
    'aria-label': `How ${tokens[i].text} (query word ${i + 1}) shares its attention: scores, scaled scores, softmax weights, output.`,
  });
  svg.dataset.query = String(i);
  svg.style.fontSize = `${fontPx}px`;
  const title = el('text', { class: 'steps-title', x: x0, y: 18 }, svg);
  title.textContent = `Query: “${tokens[i].text}” (word ${i + 1} of ${T})`;

  const header = el('g', { role: 'row', class: 'steps-head' }, svg);
  if (scaleText) el('text', { class: 'steps-note', x: x0, y: 36 }, svg).textContent = scaleText;
  const heads = ['key', '1 q·k', '2 scaled', '3 softmax'];
  heads.forEach((text, c) => {
    const t = el('text', { role: 'columnheader', x: c === 0 ? xs[c] : xs[c + 1] - (c === 3 ? barW : 0) - 8, y: top - 10, 'text-anchor': c === 0 ? 'start' : 'end' }, header);
    t.textContent = text;
  });
  el('line', { class: 'rule', x1: x0, x2: xs[4], y1: top - 4, y2: top - 4 }, svg);

  let maxW = 0;
  for (let j = 0; j < T; j++) maxW = Math.max(maxW, at(steps.weights, i, j));
  for (let j = 0; j < T; j++) {
    const y = top + j * ROW + ROW / 2;
    const row = el('g', { role: 'row', class: 'steps-row', 'data-key': j }, svg);
    const score = at(steps.scores, i, j), scaled = at(steps.scaled, i, j), w = at(steps.weights, i, j);
    const masked = scaled === -Infinity;
    const cells = [
      [labels[j], xs[0], 'start', `label ${tokens[j].lookup}`],
      [fmt(score), xs[2] - 8, 'end', 'num score'],
      [fmt(scaled), xs[3] - 8, 'end', 'num scaled'],
      [fmt(w), xs[4] - barW - 8, 'end', 'num weight'],
    ];
    for (const [text, x, anchor, cls] of cells) {
      const t = el('text', { role: 'cell', class: cls + (masked ? ' masked' : ''), x, y, 'text-anchor': anchor, 'dominant-baseline': 'central' }, row);
      t.textContent = text;
    }
    row.querySelector('.score').dataset.value = String(score);
    row.querySelector('.scaled').dataset.value = String(scaled);
    row.querySelector('.weight').dataset.value = String(w);
    el('rect', { class: 'bar', x: xs[4] - barW, y: y - 6, height: 12, width: maxW > 0 ? (barW * w) / maxW : 0, 'aria-hidden': 'true' }, row);
  }
  el('line', { class: 'rule', x1: x0, x2: xs[4], y1: outTop - 10, y2: outTop - 10 }, svg);
  const out = el('text', { class: 'steps-title', x: x0, y: outTop + 6 }, svg);
  out.textContent = `4 output = Σ weight × v  (row ${i + 1} of weights · V, ${d} numbers)`;
  const values = [];
  for (let c = 0; c < shown; c++) values.push(fmt(at(steps.output, i, c)));
  const vec = el('text', { class: 'num output', x: x0, y: outTop + 6 + ROW }, svg);
  vec.textContent = `[ ${values.join('  ')}${d > shown ? '  …' : ''} ]`;
  vec.dataset.values = JSON.stringify(Array.from(steps.output.data.subarray(i * d, i * d + shown)));
  container.replaceChildren(svg);
}

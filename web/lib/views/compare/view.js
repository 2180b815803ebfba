// The compare view: one word in two sentences, side by side (stacked on a phone). Each side shows the
// word's attention row as bars and its nearest vocabulary words before attention (x_i) and after
// (A(i)) — with a trained model, its input and a layer's output — with their cosine similarities; two sentences of the same length also get the difference of
// their weight matrices, diverging around 0, the words that differ marked. Everything drawn comes from
// the store's comparison (comparison.js); the pictures are SVG (and the map a canvas with its own shapes),
// so the exports hold them.
import { schemeRdBu } from 'd3-scale-chromatic';
import { h, setAttrs, svgEl as el } from '../../dom.js';
import { packHex } from '../../colour.js';
import { format4, labelOf, num } from '../../format.js';
import { Heatmap } from '../../heatmap/heatmap.js';

const ROW = 20;
// Red where the first sentence gives more weight, blue where the second does: d3's 11-colour RdBu
// scheme, reversed, 256 steps linearly between its colours. (d3's interpolateRdBu would bring its colour
// parser, 5 KiB gzip, into the widget.)
const stops = [...schemeRdBu[11]].reverse().map((hex) => [1, 3, 5].map((k) => parseInt(hex.slice(k, k + 2), 16)));
const hexLut = Array.from({ length: 256 }, (_, k) => {
  const x = (k / 255) * (stops.length - 1),
    a = Math.min(stops.length - 2, Math.floor(x)),
    t = x - a;
  return `#${stops[a]
    .map((c, n) =>
      Math.round(c + (stops[a + 1][n] - c) * t)
        .toString(16)
        .padStart(2, '0'),
    )
    .join('')}`;
});
const step = (f) => Math.round(Math.min(1, Math.max(0, f || 0)) * 255);

const pixelLut = Uint32Array.from(hexLut, packHex);
/** The difference map's palette: f = 0.5 + v / (2 · max|v|), red above 0 (first sentence), blue below. */
const DIVERGING = { hex: (f) => hexLut[step(f)], pixel: (f) => pixelLut[step(f)], at: (v, max) => (max > 0 ? 0.5 + v / (2 * max) : 0.5) };

/** One side: the sentence, the word's attention row as bars, the nearest words before and after. */
class Side {
  constructor(n) {
    this.n = n;
    this.svg = el('svg', { class: 'compare-side', role: 'table' });
    this.el = h('div', { class: 'compare-col', 'data-side': n }, this.svg);
  }

  /**
   * r: that sentence's Result; i: the word (or -1); row: its α row; before/after: nearest lists (or
   * null); word: its text; stages: what the lists are of ({ before, after }: comparison.js).
   */
  draw(r, i, row, max, before, after, width, word, stages) {
    const svg = this.svg;
    svg.replaceChildren();
    // Room for the longest word (the selected one with " (itself)"), at ~7.5 px a character of 13 px text.
    const chars = Math.max(...r.tokens.map((t, j) => labelOf(t).length + (j === i ? 9 : 0)));
    const labelW = Math.max(72, Math.ceil(chars * 7.5) + 12),
      barW = Math.max(60, Math.min(160, width - labelW - 70)),
      W = labelW + barW + 64;
    let y = 16;
    const text = (cls, x, content, attrs = {}, parent = svg) => {
      const t = el('text', { class: cls, x, y, ...attrs }, parent);
      t.textContent = content;
      return t;
    };
    const words = r.tokens.map((t) => t.text).join(' ');
    text('compare-title', 0, `${this.n}. ${words.length > 48 ? `${words.slice(0, 47)}…` : words}`);
    y += 20;
    if (i < 0) {
      y += ROW;
      text('muted-text', 0, `“${word}” is not in this sentence.`);
    } else {
      text('compare-sub', 0, `“${r.tokens[i].text}” shares its attention${stages.row}:`);
      y += 8;
      row.forEach((w, j) => {
        y += ROW;
        const g = el('g', { role: 'row', class: `compare-row${j === i ? ' itself' : ''}`, 'data-key': j, 'data-value': String(w) }, svg);
        const label = el(
          'text',
          { role: 'rowheader', class: `label ${r.tokens[j].lookup}`, x: labelW - 8, y: y - 5, 'text-anchor': 'end' },
          g,
        );
        label.textContent = labelOf(r.tokens[j]) + (j === i ? ' (itself)' : '');
        el(
          'rect',
          {
            class: j === i ? 'bar itself' : 'bar',
            x: labelW,
            y: y - 15,
            height: 12,
            width: max > 0 ? (barW * Math.min(w, max)) / max : 0,
            'aria-hidden': 'true',
          },
          g,
        );
        const v = el('text', { role: 'cell', class: 'num', x: labelW + barW + 6, y: y - 5 }, g);
        v.textContent = format4(w);
      });
      y += 14;
      for (const [title, list] of [
        [stages.before, before],
        [stages.after, after],
      ]) {
        y += 20;
        text('compare-sub', 0, `nearest words ${title}:`);
        const items = list?.words ?? [];
        const note = list ? list.note : '—';
        if (!items.length) {
          y += ROW;
          text('muted-text', 12, note ?? '—');
        }
        for (const n of items) {
          y += ROW;
          // A row of the table: the word heads it, its similarity is its cell.
          const g = el('g', { role: 'row' }, svg);
          text('neighbour', 12, `${n.word}`, { role: 'rowheader', 'data-word': n.word, 'data-similarity': String(n.similarity) }, g);
          text('num', labelW + 60, num(n.similarity, 3), { role: 'cell' }, g);
        }
      }
    }
    setAttrs(svg, {
      width: W,
      height: y + 10,
      viewBox: `0 0 ${W} ${y + 10}`,
      'aria-label':
        i < 0
          ? `Sentence ${this.n}`
          : `Sentence ${this.n}: how “${r.tokens[i].text}” shares its attention, and its nearest words before and after attention`,
    });
  }
}

export class CompareView {
  constructor(hooks) {
    this.sides = [new Side(1), new Side(2)];
    this.map = new Heatmap({ table: true, palette: DIVERGING, onCell: hooks.cell, title: 'first − second' });
    this.diffNote = h('p', { class: 'compare-note' });
    this.mapBox = h('div', { class: 'compare-diff' }, this.diffNote, this.map.el);
    this.note = h('p', { class: 'view-message' });
    this.el = h('div', { class: 'compare' }, h('div', { class: 'compare-sides' }, ...this.sides.map((s) => s.el)), this.mapBox);
    this.nodes = [this.el];
  }

  /** ctx: { width, legend, extra (the comparison: comparison.js) }. Returns a message instead when there is nothing to compare. */
  draw(state, result, { width, legend, extra: c }) {
    legend.replaceChildren();
    if (!c?.ok) return c?.message || 'Computing the second sentence…';
    const both = [c.rows[0], c.rows[1] ?? []];
    let max = 0;
    for (const row of both) for (const w of row) max = Math.max(max, w);
    const sideW = width >= 720 ? Math.floor(width / 2) - 16 : width;
    const neighbours = (k) =>
      c.meaningful
        ? [c.before?.[k], c.after?.[k]]
        : [
            { words: [], note: 'with projections, A(i) is not a word vector' },
            { words: [], note: 'choose parameter-free weights (walkthrough step 2)' },
          ];
    this.sides[0].draw(c.first, c.i, c.rows[0], max, ...neighbours(0), sideW, c.text, c.stages);
    this.sides[1].draw(c.second, c.j, c.rows[1] ?? [], max, ...neighbours(1), sideW, c.text, c.stages);
    this.mapBox.hidden = !c.difference;
    if (c.difference) {
      let top = 0;
      for (const v of c.difference.data) top = Math.max(top, Math.abs(v));
      const changed = c.changed.map((k) => `“${c.first.tokens[k].text}” / “${c.second.tokens[k].text}”`).join(', ');
      this.diffNote.textContent = `The two weight matrices, first minus second: red where the first sentence gives more weight, blue where the second does (±${num(top, 2)}). ${changed ? `Changed word${c.changed.length > 1 ? 's' : ''}: ${changed} (marked).` : 'The same words: only the scores differ.'}`;
      this.map.draw({ tokens: c.first.tokens, weights: c.difference, max: top, width, marked: c.changed });
      drawDivergingLegend(legend, top);
    }
    return '';
  }

  restyle() {
    this.map.restyle();
  }
}

/** The difference map's legend: −max (blue) … 0 … +max (red). */
function drawDivergingLegend(container, max) {
  const width = 260,
    pad = 14;
  const svg = el('svg', {
    class: 'legend',
    viewBox: `0 0 ${width + 2 * pad} 46`,
    width: width + 2 * pad,
    height: 46,
    role: 'img',
    'aria-label': `Colour scale: blue is −${num(max, 4)} (more weight in the second sentence), white 0, red +${num(max, 4)} (more in the first)`,
  });
  for (let k = 0; k < 64; k++)
    el('rect', { x: pad + (k * width) / 64, y: 4, width: width / 64 + 0.5, height: 12, fill: DIVERGING.hex(k / 63) }, svg);
  for (const [f, label] of [
    [0, `−${num(max, 2)}`],
    [0.5, '0'],
    [1, `+${num(max, 2)}`],
  ]) {
    el('line', { class: 'tick', x1: pad + f * width, x2: pad + f * width, y1: 16, y2: 21 }, svg);
    const t = el('text', { class: 'tick-label', x: pad + f * width, y: 34, 'text-anchor': 'middle' }, svg);
    t.textContent = label;
  }
  container.replaceChildren(svg);
}

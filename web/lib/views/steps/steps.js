// The "steps" view: for one query word, the four stages the core went through (raw scores, scaled
// scores, softmax weights, and the output row) with the core's own numbers (the Result's steps.scores,
// steps.scaled, weights and output). Nothing is recomputed here. Rows are kept between redraws (only
// changed text is written); a long input shows a window of keys.
import { h, svgEl as el, setAttrs as set, textWidth } from '../../dom.js';
import { count, labelOf, num } from '../../format.js';
import { ALL_ROWS, Pager, WINDOW, centre } from '../../windowing.js';

const ROW = 22;
const TOP = 64;
const fmt = (x) => num(x, 4);

/** One steps view, kept across redraws: append `steps.el`, then draw() with the core's steps. */
export class Steps {
  constructor() {
    this.start = 0;
    this.anchorKey = null;
    this.svg = el('svg', { class: 'steps', role: 'table' });
    this.title = el('text', { class: 'steps-title', x: 8, y: 18 }, this.svg);
    this.note = el('text', { class: 'steps-note', x: 8, y: 36 }, this.svg);
    const header = el('g', { role: 'row', class: 'steps-head' }, this.svg);
    this.heads = ['key', '1 q·k', '2 scaled', '3 softmax'].map((_, c) =>
      el('text', { role: 'columnheader', y: TOP - 10, 'text-anchor': c === 0 ? 'start' : 'end' }, header),
    );
    this.rules = [el('line', { class: 'rule' }, this.svg), el('line', { class: 'rule' }, this.svg)];
    this.body = el('g', {}, this.svg);
    this.rows = [];
    this.outTitle = el('text', { class: 'steps-title', x: 8 }, this.svg);
    this.output = el('text', { class: 'num output', x: 8 }, this.svg);
    this.pager = new Pager('keys', '', (direction) => this.#scroll(direction));
    this.el = h('div', { class: 'steps-view' }, this.pager.el, this.svg);
  }

  /**
   * steps: { scores, scaled, weights, output } from the core (weights and output as the figure draws
   * them: the column softmax's when that is chosen); query: the word whose row is shown; scaleText: how
   * the scores were scaled (e.g. "÷ √50 ÷ 1.00"); headers: the three stages' names; diagonalApart: mark
   * the query's own row "(itself)"; outputDims: numbers of the output row printed.
   */
  draw({ tokens, steps, query, scaleText = '', headers = ['1 q·k', '2 scaled', '3 softmax'], diagonalApart = false, width = 640 }) {
    const T = steps.weights.rows;
    const i = Math.min(Math.max(0, query), T - 1);
    if (tokens !== this.tokens) {
      this.tokens = tokens;
      this.labels = tokens.map(labelOf);
      if (!this.family && this.el.isConnected) this.family = getComputedStyle(this.el).fontFamily;
      const font = `13px ${this.family || 'sans-serif'}`;
      this.keyW = Math.max(60, Math.ceil(Math.max(...this.labels.map((l) => textWidth(l, font)))) + 12);
    }
    this.n = T <= ALL_ROWS ? T : WINDOW;
    const key = `${T}:${i}`;
    if (key !== this.anchorKey) this.start = centre(this.n, T, i);
    this.anchorKey = key;
    this.start = Math.min(Math.max(0, this.start), T - this.n);
    ['key', ...headers].forEach((text, c) => set(this.heads[c], {}, text));
    // Narrow screens get narrower columns and fewer output numbers rather than a scaled-down picture
    // (the text must stay at its size to be read on a phone).
    this.compact = width < 540;
    const outputDims = Math.max(2, Math.min(8, Math.floor((width - 40) / 64)));
    Object.assign(this, { steps, i, T, scaleText, outputDims, diagonalApart });
    this.#render();
  }

  #scroll(direction) {
    const start = Math.min(Math.max(0, this.start + direction * this.n), this.T - this.n);
    if (start === this.start) return;
    this.start = start;
    this.#render();
  }

  #render() {
    const { steps, i, T, n, start, tokens, labels } = this;
    const at = (m, r, c) => m.data[r * m.cols + c];
    const colW = this.compact ? 68 : 92,
      barW = this.compact ? 34 : 120,
      x0 = 8;
    const cols = [this.keyW + (this.diagonalApart ? 58 : 0), colW, colW, colW + barW];
    const xs = cols.reduce((acc, w) => [...acc, acc[acc.length - 1] + w], [x0]);
    const outTop = TOP + n * ROW + 20;
    const d = steps.output.cols,
      shown = Math.min(d, this.outputDims);
    const width = Math.max(xs[4] + 8, this.compact ? 0 : 460),
      height = outTop + ROW + 14;
    // A pieces model's rows are pieces: a piece is not a word ("##tion" is part of one).
    const unit = tokens[i].word !== undefined && tokens.at(-1).word !== T - 1 ? 'piece' : 'word';
    set(this.svg, {
      viewBox: `0 0 ${width} ${height}`,
      width,
      height,
      'aria-label': `How ${tokens[i].text} (query ${unit} ${i + 1}) shares its attention: scores, scaled scores, softmax weights, output.`,
    });
    this.svg.dataset.query = String(i);
    this.svg.style.fontSize = '13px';
    set(this.title, {}, `Query: “${tokens[i].text}” (${unit} ${i + 1} of ${T})`);
    set(this.note, {}, this.scaleText);
    // The softmax header ends over its number, or, on a phone, over its bar: there it would touch "2 scaled".
    this.heads.forEach((t, c) => set(t, { x: c === 0 ? xs[0] : xs[c + 1] - (c === 3 && !this.compact ? barW : 0) - 8 }));
    set(this.rules[0], { x1: x0, x2: xs[4], y1: TOP - 4, y2: TOP - 4 });
    set(this.rules[1], { x1: x0, x2: xs[4], y1: outTop - 10, y2: outTop - 10 });

    while (this.rows.length < n) {
      const g = el('g', { role: 'row', class: 'steps-row' }, this.body);
      const texts = ['label', 'num score', 'num scaled', 'num weight'].map((cls, c) =>
        el('text', { role: 'cell', class: cls, 'text-anchor': c === 0 ? 'start' : 'end', 'dominant-baseline': 'central' }, g),
      );
      const bar = el('rect', { class: 'bar', height: 12, 'aria-hidden': 'true' }, g);
      this.rows.push({ g, texts, bar });
    }
    while (this.rows.length > n) this.rows.pop().g.remove();
    let maxW = 0;
    for (let j = 0; j < T; j++) maxW = Math.max(maxW, at(steps.weights, i, j));
    this.rows.forEach(({ g, texts, bar }, k) => {
      const j = start + k,
        y = TOP + k * ROW + ROW / 2;
      const score = at(steps.scores, i, j),
        scaled = at(steps.scaled, i, j),
        w = at(steps.weights, i, j);
      const masked = scaled === -Infinity ? ' masked' : '';
      g.dataset.key = String(j);
      const cells = [
        [
          labels[j] + (j === i && this.diagonalApart ? ' (itself)' : ''),
          xs[0],
          `label ${tokens[j].lookup}${j === i ? ' itself' : ''}`,
          null,
        ],
        [fmt(score), xs[2] - 8, 'num score', score],
        [fmt(scaled), xs[3] - 8, 'num scaled', scaled],
        [fmt(w), xs[4] - barW - 8, 'num weight', w],
      ];
      cells.forEach(([text, x, cls, value], c) => {
        set(texts[c], { x, y, class: cls + masked }, text);
        if (value !== null) texts[c].dataset.value = String(value);
      });
      set(bar, {
        x: xs[4] - barW,
        y: y - 6,
        width: maxW > 0 ? (barW * w) / maxW : 0,
        class: j === i && this.diagonalApart ? 'bar itself' : 'bar',
      });
    });
    set(
      this.outTitle,
      { y: outTop + 6 },
      this.compact ? `4 output = Σ weight × v (${d} numbers)` : `4 output = Σ weight × v  (row ${i + 1} of weights · V, ${d} numbers)`,
    );
    const values = [];
    for (let c = 0; c < shown; c++) values.push(fmt(at(steps.output, i, c)));
    set(this.output, { y: outTop + 6 + ROW }, `[ ${values.join('  ')}${d > shown ? '  …' : ''} ]`);
    this.output.dataset.values = JSON.stringify(Array.from(steps.output.data.subarray(i * d, i * d + shown)));
    this.pager.show(start, n, T, `; the softmax runs over all ${count(T)}`);
  }
}

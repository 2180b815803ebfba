// The page's "every step" explainer (page only: imported by web/app.js, never by the widget).
// Seed 003's eight steps on the reader's sentence (or the seed's own 3×4 example), with editable
// W_Q, W_K, W_V, a shapes table, MathML formulas, the weighted sum written out, the query/key vectors
// (BertViz neuron view), and multi-head attention with its concat + W_O step. Every number comes from
// the wasm core (core.attention / parameterFree / multiHead); this file only lays the numbers out.
import { h, svgEl } from './dom.js';
import { drawHeatmap, drawLegend, labelOf, maxOf } from './heatmap.js';
import { mulberry32, multiHeadWeights, xavierUniform } from './rng.js';
import {
  badCells, editTable, fmt, formula, fn, frac, m, matrixTable, mi, mn, mo, mrow, numeric, sqrt, sub, sum, sup,
} from './tables.js';

/** Seed 003's worked example (row convention), exactly as the article prints it. */
export const SEED003 = Object.freeze({
  X: [[1, 0, 1, 0], [0, 2, 0, 2], [1, 1, 1, 1]],
  Wk: [[0, 0, 1], [1, 1, 0], [0, 1, 0], [1, 1, 0]],
  Wq: [[1, 0, 1], [1, 0, 0], [0, 0, 1], [0, 1, 1]],
  Wv: [[0, 2, 0], [0, 3, 0], [1, 0, 3], [1, 1, 0]],
});
const LIMIT = 12; // rows / columns shown before "…" unless "show whole matrices"
const MODES = { free: 'parameter-free (Q = K = V = X)', identity: 'identity', xavier: 'random (Xavier, seeded)', edited: 'edited by hand' };

const asMatrix = (rows) => ({ rows: rows.length, cols: rows[0].length, data: Float32Array.from(rows.flat()) });
const rowOf = (mat, r) => ({ rows: 1, cols: mat.cols, data: mat.data.slice(r * mat.cols, (r + 1) * mat.cols) });
const toStrings = (mat) => Array.from({ length: mat.rows }, (_, r) => Array.from(mat.data.subarray(r * mat.cols, (r + 1) * mat.cols), (v) => String(Number(v.toFixed(4)))));

export class Explainer {
  /** root: element to build into; core, vectors: loaded; onQuery(i): the reader picked query word i. */
  constructor(root, { core, vectors, onQuery }) {
    this.core = core;
    this.vectors = vectors;
    this.onQuery = onQuery;
    this.fig = { sentence: '', temperature: 1, mask: 'none', word: null };
    this.s = { input: 'sentence', mode: 'free', dk: 4, seed: 1, scale: true, bias: false, query: 0, full: false, heads: 2, head: 0 };
    this.W = null;
    this.last = null;
    this.#build(root);
    // The multi-head section holds h + 1 heatmaps (thousands of SVG cells at T = 64): it is redrawn
    // only while it is on screen, and catches up when it scrolls into view.
    // So is the query/key vector view (T rows of d_k bars each).
    this.lazy = [
      { el: this.els.headsSection, draw: (r) => this.#drawHeads(r) },
      { el: this.els.vectorsSection, draw: (r) => this.#drawVectors(r) },
    ];
    for (const l of this.lazy) {
      l.visible = typeof IntersectionObserver === 'undefined';
      l.dirty = false;
      if (l.visible) continue;
      new IntersectionObserver((entries) => {
        l.visible = entries.some((en) => en.isIntersecting);
        if (l.visible && l.dirty && this.last) { l.dirty = false; l.draw(this.last); }
      }, { rootMargin: '200px 0px' }).observe(l.el);
    }
    this.#resetWeights();
  }

  // ---- controls ----------------------------------------------------------------------------------
  #build(root) {
    const e = (this.els = {});
    e.input = h('select', { id: 'x-input' }, h('option', { value: 'sentence' }, 'the sentence above (word vectors)'), h('option', { value: 'seed003' }, 'seed 003’s example (3 inputs × 4)'));
    e.mode = h('select', { id: 'x-mode' }, ...Object.entries(MODES).map(([v, t]) => h('option', { value: v }, t)));
    e.dk = h('input', { id: 'x-dk', type: 'number', min: 1, max: 16, step: 1, value: 4 });
    e.seed = h('input', { id: 'x-seed', type: 'number', min: 0, max: 9999, step: 1, value: 1 });
    e.scale = h('input', { id: 'x-scale', type: 'checkbox', checked: true });
    e.bias = h('input', { id: 'x-bias', type: 'checkbox' });
    e.full = h('input', { id: 'x-full', type: 'checkbox' });
    e.preset = h('button', { type: 'button', id: 'x-preset' }, 'Load seed 003’s example');
    const f = (label, control) => h('label', { class: 'field', for: control.id }, h('span', {}, label), control);
    const c = (label, control) => h('label', { class: 'field', for: control.id }, control, h('span', {}, label));
    e.controls = h('div', { class: 'x-controls' },
      h('div', { class: 'row' }, f('Input', e.input), e.preset),
      h('div', { class: 'row' }, f('Weights', e.mode), f('d_k = d_v', e.dk), f('seed', e.seed), c('biases', e.bias)),
      h('div', { class: 'row' }, c('divide scores by √d_k', e.scale), c('show whole matrices', e.full)));
    e.message = h('p', { class: 'x-message', role: 'alert', hidden: true });
    e.picker = h('div', { class: 'picker', role: 'group', 'aria-label': 'Query word' });

    const step = (n, id, title, ...kids) => h('section', { class: 'step', id, 'data-step': n }, h('h3', {}, h('span', { class: 'n' }, `${n}`), title), ...kids);
    e.s1 = h('div'); e.editors = h('div', { class: 'editors' }); e.s3 = h('div'); e.s4 = h('div'); e.s5 = h('div');
    e.s6 = h('div'); e.s7 = h('div'); e.s8 = h('div'); e.shapes = h('div'); e.vectors = h('div'); e.heads = h('div');
    e.headsCount = h('input', { id: 'x-heads', type: 'number', min: 1, max: 8, step: 1, value: 2 });

    root.append(
      e.controls, e.message,
      h('div', { class: 'pick-row' }, h('span', { class: 'pick-label' }, 'Query word (steps 4–7):'), e.picker),
      step(1, 'step-inputs', 'Prepare the inputs', e.s1),
      step(2, 'step-weights', 'Initialise the weights', e.editors),
      step(3, 'step-qkv', 'Derive queries, keys and values', e.s3),
      h('section', { class: 'step', id: 'shapes' }, h('h3', {}, 'Shapes'), e.shapes),
      step(4, 'step-scores', 'Scores for one query', e.s4),
      step(5, 'step-softmax', 'Softmax', e.s5),
      step(6, 'step-weighted', 'Multiply the weights with the values', e.s6),
      step(7, 'expansion', 'Sum the weighted values', e.s7),
      step(8, 'step-repeat', 'Repeat for every query', e.s8),
      e.vectorsSection = h('section', { class: 'step', id: 'vectors' }, h('h3', {}, 'Query and key vectors'), e.vectors),
      e.headsSection = h('section', { class: 'step', id: 'multihead' }, h('h3', {}, 'Multi-head: concatenate, then W', h('sub', {}, 'O')),
        h('div', { class: 'row' }, f('Heads', e.headsCount)), e.heads),
    );

    e.input.addEventListener('change', () => this.#setInput(e.input.value));
    e.preset.addEventListener('click', () => this.#setInput('seed003'));
    e.mode.addEventListener('change', () => { this.s.mode = e.mode.value; this.#resetWeights(); });
    e.dk.addEventListener('change', () => {
      const n = Math.round(Number(e.dk.value));
      if (n >= 1 && n <= 16) { this.s.dk = n; this.#resetWeights(); } else e.dk.value = String(this.s.dk);
    });
    e.seed.addEventListener('change', () => {
      const n = Math.round(Number(e.seed.value));
      if (n >= 0 && n <= 9999) { this.s.seed = n; if (this.s.mode === 'xavier') this.#resetWeights(); else this.render(); } else e.seed.value = String(this.s.seed);
    });
    e.scale.addEventListener('change', () => { this.s.scale = e.scale.checked; this.render(); });
    e.bias.addEventListener('change', () => { this.s.bias = e.bias.checked; this.#buildEditors(); this.render(); });
    e.full.addEventListener('change', () => { this.s.full = e.full.checked; this.render(); });
    e.headsCount.addEventListener('change', () => {
      const n = Math.round(Number(e.headsCount.value));
      if (n >= 1 && n <= 8) { this.s.heads = n; this.s.head = Math.min(this.s.head, n - 1); this.render(); } else e.headsCount.value = String(this.s.heads);
    });
  }

  #setInput(input) {
    this.s.input = input;
    this.els.input.value = input;
    if (input === 'seed003') {
      // The seed's own weights, unscaled "dot-product attention", no biases.
      Object.assign(this.s, { mode: 'edited', scale: false, bias: false, query: 0, dk: 3 });
      this.W = { Wq: SEED003.Wq.map((r) => r.map(String)), Wk: SEED003.Wk.map((r) => r.map(String)), Wv: SEED003.Wv.map((r) => r.map(String)), bq: [['0', '0', '0']], bk: [['0', '0', '0']], bv: [['0', '0', '0']] };
      this.#syncControls();
      this.#buildEditors();
      this.render();
    } else {
      Object.assign(this.s, { mode: 'free', scale: true });
      this.#resetWeights();
    }
  }

  #syncControls() {
    const e = this.els, s = this.s;
    e.mode.value = s.mode;
    e.dk.value = String(s.dk);
    e.scale.checked = s.scale;
    e.bias.checked = s.bias;
    e.dk.disabled = s.mode === 'free';
    e.seed.disabled = s.mode !== 'xavier';
    e.bias.disabled = s.mode === 'free';
  }

  /** d_model of the current input. */
  #dModel() {
    return this.s.input === 'seed003' ? SEED003.X[0].length : this.vectors.dim;
  }

  /** Fills W_Q, W_K, W_V (d_model × d_k) for the mode: identity, seeded Xavier, or keeps edits. */
  #resetWeights() {
    const s = this.s, d = this.#dModel();
    if (s.input === 'seed003' && s.mode !== 'free') s.dk = Math.min(s.dk, 16);
    const zeros = (r, c) => Array.from({ length: r }, () => Array(c).fill('0'));
    if (s.mode === 'identity') {
      const I = () => Array.from({ length: d }, (_, r) => Array.from({ length: s.dk }, (_, c) => (r === c ? '1' : '0')));
      this.W = { Wq: I(), Wk: I(), Wv: I() };
    } else if (s.mode === 'xavier' || (s.mode === 'edited' && (!this.W || this.W.Wq.length !== d || this.W.Wq[0].length !== s.dk))) {
      // Weight initialisation (not attention maths): seeded Xavier/Glorot uniform.
      const rand = mulberry32(s.seed + 1);
      this.W = { Wq: toStrings(xavierUniform(d, s.dk, rand)), Wk: toStrings(xavierUniform(d, s.dk, rand)), Wv: toStrings(xavierUniform(d, s.dk, rand)) };
    } else if (!this.W) {
      this.W = { Wq: zeros(d, s.dk), Wk: zeros(d, s.dk), Wv: zeros(d, s.dk) };
    }
    for (const b of ['bq', 'bk', 'bv']) if (!this.W[b] || this.W[b][0].length !== s.dk) this.W[b] = zeros(1, s.dk);
    this.#syncControls();
    this.#buildEditors();
    this.render();
  }

  #buildEditors() {
    const e = this.els, s = this.s;
    if (s.mode === 'free') {
      e.editors.replaceChildren(
        h('p', {}, 'No weights: parameter-free self-attention (seed 000, equation I) uses the word vectors themselves as queries, keys and values.'),
        formula('Q equals K equals V equals X', mi('Q'), mo('='), mi('K'), mo('='), mi('V'), mo('='), mi('X')),
        h('p', { class: 'muted' }, 'Pick “identity”, “random” or edit a cell to give the model weights.'));
      return;
    }
    const d = this.#dModel();
    const rowLabels = this.s.input === 'seed003' ? null : Array.from({ length: d }, (_, i) => `x${i + 1}`);
    const onChange = () => {
      if (this.s.mode !== 'edited') { this.s.mode = 'edited'; this.els.mode.value = 'edited'; this.#syncControls(); }
      this.render();
    };
    const block = (name, label, key, bkey) => h('div', { class: 'editor' },
      s.bias ? editTable(this.W[bkey], { caption: `b${label.slice(1)} (1×${s.dk})`, name: `b_${name.slice(2)}`, rowLabels: ['b'], onChange }) : null,
      editTable(this.W[key], { caption: `${label} (d_model × d_k = ${d}×${s.dk})`, name, rowLabels, onChange }));
    e.editors.replaceChildren(
      formula('Q equals X W Q plus b Q; K equals X W K plus b K; V equals X W V plus b V',
        mi('Q'), mo('='), mi('X'), sub('W', 'Q'), ...(s.bias ? [mo('+'), sub('b', 'Q')] : []), mo(',\u2003'),
        mi('K'), mo('='), mi('X'), sub('W', 'K'), ...(s.bias ? [mo('+'), sub('b', 'K')] : []), mo(',\u2003'),
        mi('V'), mo('='), mi('X'), sub('W', 'V'), ...(s.bias ? [mo('+'), sub('b', 'V')] : [])),
      h('p', { class: 'muted' }, 'Every cell is editable (Tab and the arrow keys move between cells). A cell that is not a number is flagged and the last good result stays on screen.'),
      h('div', { class: 'editor-row' }, block('W_Q', 'W_Q', 'Wq', 'bq'), block('W_K', 'W_K', 'Wk', 'bk'), block('W_V', 'W_V', 'Wv', 'bv')));
  }

  // ---- state from the figure ---------------------------------------------------------------------
  /** The figure's state changed (sentence, temperature, mask, selected word). */
  sync(fig) {
    const before = this.fig;
    this.fig = { sentence: fig.sentence, temperature: fig.temperature, mask: fig.mask, word: fig.word };
    if (fig.word !== null && fig.word !== undefined && this.s.input === 'sentence') this.s.query = fig.word;
    if (before.sentence === fig.sentence && before.temperature === fig.temperature && before.mask === fig.mask && before.word === fig.word) return;
    this.render();
  }

  // ---- compute (in the core) ---------------------------------------------------------------------
  #compute() {
    const s = this.s;
    let X, labels, tokens = null;
    if (s.input === 'seed003') {
      X = asMatrix(SEED003.X);
      labels = ['input 1', 'input 2', 'input 3'];
    } else {
      const emb = this.vectors.embed(this.fig.sentence, 64);
      X = emb.X;
      tokens = emb.tokens;
      labels = tokens.map(labelOf);
    }
    const opts = { temperature: this.fig.temperature, causal: this.fig.mask === 'causal' };
    const d = X.cols;
    let steps, weights = null;
    if (s.mode === 'free') {
      steps = this.core.parameterFree(X, s.scale ? Math.sqrt(d) : 1, opts);
    } else {
      const named = { W_Q: this.W.Wq, W_K: this.W.Wk, W_V: this.W.Wv };
      if (s.bias) Object.assign(named, { b_Q: this.W.bq, b_K: this.W.bk, b_V: this.W.bv });
      const bad = badCells(named);
      if (bad.length) throw new CellError(bad);
      weights = { Wq: numeric(this.W.Wq), Wk: numeric(this.W.Wk), Wv: numeric(this.W.Wv) };
      if (s.bias) Object.assign(weights, { bq: numeric(this.W.bq)[0], bk: numeric(this.W.bk)[0], bv: numeric(this.W.bv)[0] });
      steps = this.core.attention(X, weights, { ...opts, score: s.scale ? 'scaled_dot' : 'dot' });
    }
    // Multi-head: seeded Xavier projections, through the core.
    const mh = multiHeadWeights(d, Math.min(s.heads, d), s.seed);
    const multi = this.core.multiHead(X, { heads: mh.heads, Wo: mh.Wo }, opts);
    return { X, labels, tokens, steps, weights, multi, mh, d, dk: steps.Q.cols, dv: steps.V.cols, T: X.rows };
  }

  render() {
    const e = this.els;
    if (this.s.input === 'sentence' && !this.fig.sentence.trim()) return this.#problem('Type a sentence above: the walkthrough follows it.');
    let r;
    try {
      r = this.#compute();
    } catch (err) {
      if (err instanceof CellError) return this.#problem(`${err.cells.slice(0, 3).join(', ')}${err.cells.length > 3 ? ` and ${err.cells.length - 3} more` : ''} ${err.cells.length > 1 ? 'are' : 'is'} not a number: the results below are from the last good weights.`);
      return this.#problem(`${err.message}${this.last ? ' — the results below are from the last good input.' : ''}`);
    }
    e.message.hidden = true;
    this.last = r;
    this.s.query = Math.min(this.s.query, r.T - 1);
    this.#draw(r);
  }

  #problem(text) {
    this.els.message.textContent = text;
    this.els.message.hidden = false;
  }

  // ---- drawing -----------------------------------------------------------------------------------
  #draw(r) {
    const e = this.els, s = this.s, i = s.query, { steps, labels } = r;
    const limit = s.full ? Infinity : LIMIT;
    const free = s.mode === 'free';
    const table = (mat, o) => matrixTable(mat, { limit, ...o });
    const kLabels = labels;
    const dimLabels = (n, p) => Array.from({ length: n }, (_, k) => `${p}${k + 1}`);

    // Query picker: one button per word (keyboard reachable).
    e.picker.replaceChildren(...labels.map((l, k) => {
      const b = h('button', { type: 'button', class: k === i ? 'on' : null, 'aria-pressed': String(k === i), 'data-index': k }, l);
      b.addEventListener('click', () => { this.s.query = k; this.onQuery?.(k, this.s.input); this.#draw(this.last); e.picker.querySelector(`[data-index="${k}"]`)?.focus(); });
      return b;
    }));

    // 1. Inputs.
    e.s1.replaceChildren(
      h('p', {}, s.input === 'seed003'
        ? 'Seed 003’s three inputs of dimension 4, one per row.'
        : `One row per word: its ${r.d}-dimensional word vector. X is T × d_model = ${r.T}×${r.d}.`),
      table(r.X, { caption: 'X (inputs)', name: 'X', rowLabels: labels, colLabels: dimLabels(r.d, 'd'), highlightRow: i }));

    // 3. Q, K, V.
    const qkvLabel = free ? 'Q = K = V = X (parameter-free)' : `Q = XW_Q${s.bias ? ' + b_Q' : ''}, K = XW_K${s.bias ? ' + b_K' : ''}, V = XW_V${s.bias ? ' + b_V' : ''}`;
    e.s3.replaceChildren(
      h('p', {}, `${qkvLabel}. Each is computed independently (in parallel) from the same inputs.`),
      h('div', { class: 'matrix-row' },
        table(steps.Q, { caption: 'Q (queries)', name: 'Q', rowLabels: labels, highlightRow: i }),
        table(steps.K, { caption: 'K (keys)', name: 'K', rowLabels: labels }),
        table(steps.V, { caption: 'V (values)', name: 'V', rowLabels: labels })));

    // Shapes.
    const shapes = [
      ['X (inputs)', 'T × d_model', `${r.T}×${r.d}`, 'n × 512'],
      ['W_Q, W_K', 'd_model × d_k', free ? '— (none)' : `${r.d}×${r.dk}`, '512 × 64'],
      ['W_V', 'd_model × d_v', free ? '— (none)' : `${r.d}×${r.dv}`, '512 × 64'],
      ['Q, K', 'T × d_k', `${steps.Q.rows}×${steps.Q.cols}`, 'n × 64'],
      ['V', 'T × d_v', `${steps.V.rows}×${steps.V.cols}`, 'n × 64'],
      ['QKᵀ (scores), weights', 'T × T', `${steps.scores.rows}×${steps.scores.cols}`, 'n × n'],
      ['output', 'T × d_v', `${steps.output.rows}×${steps.output.cols}`, 'n × 64'],
      ['with a batch of N', 'N × T × d_v', `1×${steps.output.rows}×${steps.output.cols}`, 'N × n × 64'],
    ];
    e.shapes.replaceChildren(h('table', { class: 'shapes' },
      h('caption', {}, 'What each matrix holds: the shape in symbols, here, and in “Attention is all you need”.'),
      h('thead', {}, h('tr', {}, ...['matrix', 'shape', 'here', 'the paper (d_model 512, d_k = d_v = 64)'].map((t) => h('th', { scope: 'col' }, t)))),
      h('tbody', {}, ...shapes.map(([a, b, c, d]) => h('tr', {}, h('th', { scope: 'row' }, a), h('td', {}, b), h('td', { 'data-shape': a }, c), h('td', {}, d))))));

    // 4. Scores for query i.
    const qi = mrow(sub('q', mn(String(i + 1))));
    e.s4.replaceChildren(
      formula(`score i j equals q i dot k j`, sub('s', mrow(mn(String(i + 1)), mi('j'))), mo('='), qi, mo('·'), sub('k', 'j'), mo('='), sub(mrow(mi('Q'), sup('K', 'T')), mrow(mn(String(i + 1)), mi('j')))),
      h('p', {}, `The query of “${labels[i]}” meets every key: one dot product per word (row ${i + 1} of QKᵀ${free ? ' = XXᵀ' : ''}). T² = ${r.T * r.T} scores in all.`),
      table(steps.scores, { caption: 'QKᵀ (raw scores)', name: 'scores', rowLabels: labels, colLabels: kLabels, highlightRow: i }));

    // 5. Softmax.
    const tau = this.fig.temperature !== 1;
    // A fresh node per use (a DOM node can sit in one place only).
    const dk = () => (free ? mi('d') : sub('d', 'k'));
    const scaleMath = () => (s.scale ? mrow(sqrt(dk()), ...(tau ? [mo('·'), mi('τ')] : [])) : tau ? mi('τ') : null);
    const arg = (j) => (scaleMath() ? frac(sub('s', mrow(mn(String(i + 1)), mi(j))), scaleMath()) : sub('s', mrow(mn(String(i + 1)), mi(j))));
    const by = free ? `√d = √${r.d}` : `√d_k = √${r.dk}`;
    const divisor = [s.scale ? by : null, this.fig.temperature !== 1 ? `τ = ${this.fig.temperature.toFixed(2)}` : null].filter(Boolean);
    const stageRows = [['raw score', steps.scores], ['scaled', steps.scaled], ['weight α', steps.weights]];
    e.s5.replaceChildren(
      formula('alpha i j equals exp of the scaled score over the sum of exps', sub('α', mrow(mn(String(i + 1)), mi('j'))), mo('='),
        frac(mrow(mi('exp'), mo('('), arg('j'), mo(')')), mrow(sum('l'), mi('exp'), mo('('), arg('l'), mo(')')))),
      h('p', {}, divisor.length ? `Divide by ${divisor.join(' and by ')}${s.scale ? ' so the softmax does not saturate' : ''}, then softmax: positive weights that sum to 1.` : 'No scaling (plain dot-product attention), then softmax: positive weights that sum to 1.',
        this.fig.mask === 'causal' ? ' Causal mask: later words get −∞, weight 0.' : ''),
      stageTable(stageRows, i, kLabels, 'softmax', `Query “${labels[i]}”: score → scaled → softmax`));

    // 6. Weighted values: α_ij · v_j for every key, as the core computes them (core.queryTerms).
    const vName = free ? 'x' : 'v';
    const order = Array.from({ length: r.T }, (_, j) => j).sort((a, b) => steps.weights.data[i * r.T + b] - steps.weights.data[i * r.T + a]);
    const weighted = this.core.queryTerms(steps, i).weighted;  // T × d_v
    const shownV = Math.min(r.dv, s.full ? r.dv : 8);
    const t6 = h('table', { class: 'matrix weighted', 'data-name': 'weighted' },
      h('caption', {}, `Each value vector ${vName}_j is scaled by its weight α(${i + 1}, j)`),
      h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, 'key j'), h('th', { scope: 'col' }, 'α'),
        h('th', { scope: 'col', colspan: shownV }, `α · ${vName}_j (${r.dv} numbers${shownV < r.dv ? `, first ${shownV} shown` : ''})`))),
      h('tbody', {}, ...Array.from({ length: r.T }, (_, j) => h('tr', {},
        h('th', { scope: 'row' }, labels[j]),
        h('td', { 'data-value': String(steps.weights.data[i * r.T + j]) }, fmt(steps.weights.data[i * r.T + j])),
        ...Array.from({ length: shownV }, (_, c) => h('td', { class: 'v', 'data-value': String(weighted.data[j * r.dv + c]) }, fmt(weighted.data[j * r.dv + c]))),
      ))));
    e.s6.replaceChildren(h('p', {}, 'Each value row is multiplied by the weight its key got: heavy weights keep their value, light ones nearly vanish. The rows of this table add up to the output in step 7.'), h('div', { class: 'matrix-wrap' }, t6));

    // 7. Sum → output i, and the weighted sum written out (seed 000), largest terms first.
    const terms = [];
    order.forEach((j, k) => {
      if (k) terms.push(mo('+'));
      terms.push(mn(fmt(steps.weights.data[i * r.T + j])), mo('·'), sub(vName, mi(labels[j])));
    });
    const expansion = formula(`A of ${labels[i]} equals the weighted sum`, m('mi', 'A'), mo('('), mi(labels[i]), mo(')'), mo('='),
      sum('j'), sub('α', mrow(mn(String(i + 1)), mi('j'))), sub(vName, 'j'), mo('='), ...terms);
    expansion.classList.add('expansion');
    e.s7.replaceChildren(
      h('p', {}, `Add the weighted values up: the output for “${labels[i]}” is a blend of every word’s ${free ? 'vector' : 'value'}, mostly of the heaviest. Written out with the live weights, largest first:`),
      h('div', { class: 'scroll-x' }, expansion),
      table(rowOf(steps.output, i), { caption: `output for “${labels[i]}” (row ${i + 1} of the output, 1×${r.dv})`, name: 'output-row', rowLabels: [labels[i]] }));

    // 8. Every query at once.
    const heatMax = maxOf(steps.weights.data);
    e.s8.replaceChildren(
      formula('Attention of Q K V equals softmax of Q K transpose over root d k, times V', fn('Attention', mi('Q'), mo(','), mi('K'), mo(','), mi('V')), mo('='),
        fn('softmax', s.scale ? frac(mrow(mi('Q'), sup('K', 'T')), sqrt(sub('d', 'k'))) : mrow(mi('Q'), sup('K', 'T'))), mi('V')),
      h('p', {}, 'Steps 4–7 for every query at once are two matrix products and a row-wise softmax.'),
      h('div', { class: 'matrix-row' },
        table(steps.weights, { caption: 'weights (rows sum to 1)', name: 'weights', rowLabels: labels, colLabels: kLabels, heat: true, max: heatMax, highlightRow: i }),
        table(steps.output, { caption: 'output = weights · V', name: 'output', rowLabels: labels, highlightRow: i })),
      legendBox(heatMax));

    for (const l of this.lazy) {
      if (l.visible) { l.dirty = false; l.draw(r); } else l.dirty = true;
    }
  }

  /** BertViz neuron view: q_i, every k_j, the dot product, scaled, softmax, as small bars. */
  #drawVectors(r) {
    const { steps, labels } = r, i = this.s.query, dk = steps.Q.cols, T = r.T;
    let maxAbs = 0;
    for (const v of steps.Q.data) maxAbs = Math.max(maxAbs, Math.abs(v));
    for (const v of steps.K.data) maxAbs = Math.max(maxAbs, Math.abs(v));
    const wMax = Math.max(1e-9, ...steps.weights.data.subarray(i * T, (i + 1) * T));
    const q = vectorBars(steps.Q.data.subarray(i * dk, (i + 1) * dk), maxAbs, `q of ${labels[i]}`);
    const { products } = this.core.queryTerms(steps, i);  // row j: q_i ∘ k_j, entry by entry
    let productMax = 1e-9;
    for (const v of products.data) productMax = Math.max(productMax, Math.abs(v));
    const rows = labels.map((l, j) => h('tr', {},
      h('th', { scope: 'row' }, l),
      h('td', {}, vectorBars(steps.K.data.subarray(j * dk, (j + 1) * dk), maxAbs, `k of ${l}`)),
      h('td', {}, vectorBars(products.data.subarray(j * dk, (j + 1) * dk), productMax, `q∘k of ${labels[i]} and ${l}`)),
      h('td', { class: 'num', 'data-value': String(steps.scores.data[i * T + j]) }, fmt(steps.scores.data[i * T + j])),
      h('td', { class: 'num', 'data-value': String(steps.scaled.data[i * T + j]) }, fmt(steps.scaled.data[i * T + j])),
      h('td', { class: 'num weight', 'data-value': String(steps.weights.data[i * T + j]) }, fmt(steps.weights.data[i * T + j]), weightBar(steps.weights.data[i * T + j] / wMax))));
    this.els.vectors.replaceChildren(
      h('p', {}, `The query vector of “${labels[i]}” and each key vector, one bar per dimension (blue above zero, orange below, both to the same scale). q∘k multiplies them entry by entry (its own scale); those products add up to the dot product q·k, the score, which scaled and softmaxed is the weight.`),
      h('div', { class: 'qrow' }, h('strong', {}, `q (${labels[i]})`), q),
      h('div', { class: 'matrix-wrap' }, h('table', { class: 'matrix neuron', 'data-name': 'neuron' },
        h('caption', {}, `Keys for the query “${labels[i]}”`),
        h('thead', {}, h('tr', {}, ...['key', `k (${dk} numbers)`, 'q∘k', 'q·k', 'scaled', 'weight'].map((t) => h('th', { scope: 'col' }, t)))),
        h('tbody', {}, ...rows))));
  }

  /** Multi-head: per-head heatmaps (click to focus), the concatenation, W_O and the output. */
  #drawHeads(r) {
    const { multi, mh, labels } = r, s = this.s;
    const n = multi.heads.length;
    s.head = Math.min(s.head, n - 1);
    const tokens = r.tokens ?? labels.map((l) => ({ text: l, lookup: 'known' }));
    const max = Math.max(...multi.heads.map((hd) => maxOf(hd.weights.data)));
    // The maps live in one persistent, figure-styled block: with the same words they repaint in place.
    if (!this.headsUI) {
      const theme = document.documentElement.dataset.theme;
      const ui = (this.headsUI = {
        intro: h('p'), formula: h('div'),
        grid: h('div', { class: 'heads-grid', role: 'group', 'aria-label': 'Heads: choose one to focus it' }),
        legend: h('div', { class: 'legend-wrap' }), focus: h('div', { class: 'head-focus' }), tables: h('div', { class: 'matrix-row' }),
      });
      ui.formula.append(formula('MultiHead equals Concat of head 1 to head h, times W O', mi('MultiHead'), mo('='), fn('Concat', sub('head', mn('1')), mo(','), mo('…'), mo(','), sub('head', 'h')), sub('W', 'O')));
      this.els.heads.replaceChildren(ui.intro, ui.formula,
        h('div', { class: `af theme-${['light', 'dark'].includes(theme) ? theme : 'auto'} heads-area` }, ui.grid, ui.legend, ui.focus), ui.tables);
    }
    const ui = this.headsUI;
    ui.intro.textContent = `${n} head${n > 1 ? 's' : ''}, each with its own seeded random W_Q, W_K, W_V (d_model × d_k = ${r.d}×${mh.dk}), attend in parallel; their outputs are concatenated side by side and mixed by W_O.`;
    if (ui.grid.children.length !== n) {
      ui.grid.replaceChildren(...Array.from({ length: n }, (_, k) => {
        const box = h('button', { type: 'button', class: 'head-box', 'data-head': k, 'aria-label': `Focus head ${k + 1}` });
        box.addEventListener('click', () => { this.s.head = k; this.#drawHeads(this.last); box.focus(); });
        return box;
      }));
    }
    [...ui.grid.children].forEach((box, k) => {
      box.classList.toggle('on', k === s.head);
      box.setAttribute('aria-pressed', String(k === s.head));
      drawHeatmap(box, null, tokens, multi.heads[k].weights, () => {}, null,
        { compact: true, title: `head ${k + 1}`, head: k, max, append: true, className: 'head-map', reuse: box.querySelector('svg') });
      for (const c of box.querySelectorAll('[tabindex="0"]')) c.setAttribute('tabindex', '-1'); // the button is the stop
    });
    drawLegend(ui.legend, max);
    drawHeatmap(ui.focus, null, tokens, multi.heads[s.head].weights, () => {}, null, { title: `head ${s.head + 1} (focused)`, head: s.head, max, className: 'head-map focused' });
    const limit = s.full ? Infinity : LIMIT;
    ui.tables.replaceChildren(
      matrixTable(multi.concat, { limit, caption: `concat (T × h·d_k = ${multi.concat.rows}×${multi.concat.cols})`, name: 'concat', rowLabels: labels }),
      matrixTable(mh.Wo, { limit, caption: `W_O (h·d_k × d_model = ${mh.Wo.rows}×${mh.Wo.cols})`, name: 'Wo' }),
      matrixTable(multi.output, { limit, caption: `output = concat · W_O (${multi.output.rows}×${multi.output.cols})`, name: 'mh-output', rowLabels: labels }));
  }
}

class CellError extends Error {
  constructor(cells) {
    super('invalid cells');
    this.cells = cells;
  }
}

/** Rows of stages (raw, scaled, weight) for query i across the keys: a table whose cells carry the core's values. */
function stageTable(stages, i, labels, name, caption) {
  const T = labels.length;
  return h('div', { class: 'matrix-wrap' }, h('table', { class: 'matrix stages', 'data-name': name },
    h('caption', {}, caption),
    h('thead', {}, h('tr', {}, h('td', { class: 'corner' }), ...labels.map((l) => h('th', { scope: 'col' }, l)))),
    h('tbody', {}, ...stages.map(([title, mat]) => h('tr', { 'data-stage': title },
      h('th', { scope: 'row' }, title),
      ...Array.from({ length: T }, (_, j) => h('td', { 'data-value': String(mat.data[i * T + j]) }, fmt(mat.data[i * T + j]))))))));
}

function legendBox(max) {
  const box = h('div', { class: 'legend-wrap' });
  drawLegend(box, max);
  return box;
}

/** A vector as tiny bars around a zero line. */
function vectorBars(values, maxAbs, label) {
  const n = values.length, bw = n > 24 ? 3 : n > 8 ? 6 : 12, H = 28;
  const svg = svgEl('svg', { class: 'vbars', width: n * bw + 2, height: H, viewBox: `0 0 ${n * bw + 2} ${H}`, role: 'img', 'aria-label': `${label}: ${Array.from(values, (v) => fmt(v)).join(', ')}` });
  svgEl('line', { class: 'zero', x1: 0, x2: n * bw + 2, y1: H / 2, y2: H / 2 }, svg);
  values.forEach((v, k) => {
    const f = maxAbs > 0 ? Math.abs(v) / maxAbs : 0;
    const hgt = f * (H / 2 - 1);
    svgEl('rect', { class: v >= 0 ? 'pos' : 'neg', x: 1 + k * bw, y: v >= 0 ? H / 2 - hgt : H / 2, width: Math.max(1, bw - 1), height: hgt }, svg);
  });
  return svg;
}

function weightBar(f) {
  const svg = svgEl('svg', { class: 'wbar', width: 80, height: 10, viewBox: '0 0 80 10', 'aria-hidden': 'true' });
  svgEl('rect', { x: 0, y: 1, width: Math.max(0, Math.min(1, f)) * 80, height: 8 }, svg);
  return svg;
}

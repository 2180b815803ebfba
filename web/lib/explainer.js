// The page's "every step" explainer (page only: imported by web/app.js, never by the widget).
// Seed 003's eight steps on the reader's sentence (or the seed's own 3×4 example), with editable
// W_Q, W_K, W_V, a shapes table, MathML formulas, the weighted sum written out, the query/key vectors
// (BertViz neuron view), and multi-head attention with its concat + W_O step. Every number comes from
// the wasm core (core.attention / parameterFree / multiHead); this file only lays the numbers out.
// When the figure shows the trained model, the sentence input follows the model's chosen layer and
// head instead: LN1(x) and every head's Q, K, V, scores, weights and outputs, concat and W_O's
// mixing from the model's run, and the learnt W_Q, W_K, W_V, W_O from model.attentionWeights(layer).
// Each step is redrawn only while it is on screen (off-screen ones catch up when they scroll into
// view), and a long sentence is shown through windows of words around the query.
import { embedPrefix, loadModel } from './core.js';
import { count, h, morph, setAttrs, svgEl } from './dom.js';
import { Heatmap, drawLegend, labelOf, maxOf } from './heatmap.js';
import { centre } from './windowing.js';
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
const LIMIT = 8; // rows / columns shown before "…" unless "show whole matrices"
const WORDS = 16; // rows of per-key tables (steps 5–6, vectors) and words in the query picker before they window
const TERMS = 16; // terms of the weighted sum written out before "…"
/** The walkthrough follows the first this-many tokens of a longer sentence (the figure shows more). */
export const EXPLAINER_TOKENS = 128;
const MODES = { free: 'parameter-free (Q = K = V = X)', identity: 'identity', xavier: 'random (Xavier, seeded)', edited: 'edited by hand' };

const asMatrix = (rows) => ({ rows: rows.length, cols: rows[0].length, data: Float32Array.from(rows.flat()) });
const rowOf = (mat, r) => ({ rows: 1, cols: mat.cols, data: mat.data.slice(r * mat.cols, (r + 1) * mat.cols) });
const asRow = (v) => ({ rows: 1, cols: v.length, data: v });  // a vector (a bias) as a 1×n matrix
const dimLabels = (d) => Array.from({ length: d }, (_, k) => `d${k + 1}`);  // d1 … d_d
const toStrings = (mat) => Array.from({ length: mat.rows }, (_, r) => Array.from(mat.data.subarray(r * mat.cols, (r + 1) * mat.cols), (v) => String(Number(v.toFixed(4)))));

export class Explainer {
  /** root: element to build into; core, vectors: loaded; onQuery(i): the reader picked query word i. */
  constructor(root, { core, vectors, onQuery }) {
    this.root = root;
    this.core = core;
    this.vectors = vectors;
    this.onQuery = onQuery;
    this.fig = { sentence: '', temperature: 1, mask: 'none', word: null, source: 'vectors', layer: 0, head: 0 };
    this.run = null;        // the figure's run of the trained model, when that is its source
    this.modelLayer = 0;    // the model layer shown (the last one the reader chose, when the figure shows the rollout)
    this.s = { input: 'sentence', mode: 'free', dk: 4, seed: 1, scale: true, bias: false, query: 0, full: false, heads: 2, head: 0 };
    this.W = null;
    this.last = null;
    this.#build(root);
    this.generation = 0;
    // Every step is drawn only while on screen; the others are marked stale and catch up as they
    // scroll into view, so typing in the figure costs only what the reader can see.
    const e = this.els;
    const section = (node, draw) => ({ el: node.closest('section'), draw, visible: typeof IntersectionObserver === 'undefined', dirty: false });
    this.sections = [
      section(e.s1, (r) => this.#drawInputs(r)),
      section(e.editors, (r) => this.#drawModelWeights(r)),
      section(e.s3, (r) => this.#drawQKV(r)),
      section(e.shapes, (r) => this.#drawShapes(r)),
      section(e.s4, (r) => this.#drawScores(r)),
      section(e.s5, (r) => this.#drawSoftmax(r)),
      section(e.s6, (r) => this.#drawWeighted(r)),
      section(e.s7, (r) => this.#drawSum(r)),
      section(e.s8, (r) => this.#drawAll(r)),
      section(e.vectors, (r) => this.#drawVectors(r)),
      section(e.heads, (r) => this.#drawHeads(r)),
    ];
    for (const sec of this.sections) {
      if (sec.visible) continue;
      new IntersectionObserver((entries) => {
        sec.visible = entries.at(-1).isIntersecting;
        if (sec.visible && sec.dirty && this.last) this.#drawSection(sec, this.last);
      }).observe(sec.el);
    }
    // The multi-head maps are canvases: they repaint when the reader's colour scheme flips.
    matchMedia('(prefers-color-scheme: dark)').addEventListener?.('change', () => {
      const ui = this.headsUI;
      if (!ui) return;
      ui.focusMap.restyle();
      for (const box of ui.grid.children) box.map?.restyle();
    });
    // Printing shows every step, so the stale ones are drawn first.
    addEventListener('beforeprint', () => this.last && this.sections.forEach((sec) => sec.dirty && this.#drawSection(sec, this.last)));
    this.#resetWeights();
  }

  // ---- controls ----------------------------------------------------------------------------------
  #build(root) {
    const e = (this.els = {});
    e.input = h('select', { id: 'x-input' }, h('option', { value: 'sentence' }, 'the sentence above (word vectors)'), h('option', { value: 'seed003' }, 'seed 003’s example (3 inputs × 4)'));
    e.mode = h('select', { id: 'x-mode' }, ...Object.entries(MODES).map(([v, t]) => h('option', { value: v }, t)),
      // Shown (not offered) while the walkthrough follows the trained model.
      h('option', { value: 'model', hidden: true }, 'learnt (the trained model’s)'));
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
    e.note = h('p', { class: 'x-note muted', hidden: true });
    e.picker = h('div', { class: 'picker', role: 'group', 'aria-label': 'Query word' });
    // Past WORDS words the picker is a menu (a row of a hundred buttons would fill the screen).
    e.pickerMenu = h('select', { class: 'picker-menu', 'aria-label': 'Query word' });
    e.pickerMenu.addEventListener('change', () => this.#pick(Number(e.pickerMenu.value)));

    const step = (n, id, title, ...kids) => h('section', { class: 'step', id, 'data-step': n }, h('h3', {}, h('span', { class: 'n' }, `${n}`), title), ...kids);
    e.s1 = h('div'); e.editors = h('div', { class: 'editors' }); e.s3 = h('div'); e.s4 = h('div'); e.s5 = h('div');
    e.s6 = h('div'); e.s7 = h('div'); e.s8 = h('div'); e.shapes = h('div'); e.vectors = h('div'); e.heads = h('div');
    e.headsCount = h('input', { id: 'x-heads', type: 'number', min: 1, max: 8, step: 1, value: 2 });

    root.append(
      e.controls, e.message, e.note,
      h('div', { class: 'pick-row' }, h('span', { class: 'pick-label' }, 'Query word (steps 4–7):'), e.picker, e.pickerMenu),
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
    const e = this.els, s = this.s, model = this.#usesModel();
    e.mode.value = model ? 'model' : s.mode;
    e.dk.value = String(model ? this.run.layers[0].heads[0].Q.cols : s.dk);
    e.scale.checked = s.scale;
    e.bias.checked = s.bias;
    // The trained model brings its own weights, d_k, scaling and heads: these settings do not apply.
    e.mode.disabled = model;
    e.dk.disabled = model || s.mode === 'free';
    e.seed.disabled = model || s.mode !== 'xavier';
    e.bias.disabled = model || s.mode === 'free';
    e.scale.disabled = model;
    e.headsCount.disabled = model;
    e.headsCount.value = String(model ? this.run.layers[0].heads.length : s.heads);
    e.input.options[0].textContent = model ? 'the sentence above (trained model)' : 'the sentence above (word vectors)';
  }

  /** The walkthrough shows the trained model: the figure's source, on the sentence input. */
  #usesModel() {
    return this.s.input === 'sentence' && this.fig.source === 'model' && Boolean(this.run);
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
    if (this.#usesModel()) {
      // The learnt weights of the layer and head shown, drawn with the other steps (#drawModelWeights).
      e.editors.replaceChildren(e.modelWeights = h('div'));
      return;
    }
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
  /**
   * The figure's state changed (sentence, temperature, mask, selected word, source, layer, head);
   * model: what the figure computed last (its run of the trained model is followed when that is the
   * source; until it arrives the walkthrough keeps what it shows).
   */
  sync(fig, model) {
    const before = this.fig, run = model?.source === 'model' ? model.run : null;
    this.fig = { sentence: fig.sentence, temperature: fig.temperature, mask: fig.mask, word: fig.word, source: fig.source, layer: fig.layer, head: fig.head };
    if (fig.word !== null && fig.word !== undefined && this.s.input === 'sentence') this.s.query = fig.word;
    if (fig.source === 'model' && typeof fig.layer === 'number') this.modelLayer = fig.layer;
    // The multi-head section focuses the figure's head when the reader picks another one there.
    if (fig.source === 'model' && (before.head !== fig.head || before.source !== 'model')) this.s.head = fig.head;
    const same = ['sentence', 'temperature', 'mask', 'word', 'source', 'layer', 'head'].every((k) => before[k] === this.fig[k]);
    // The model's run for this state is on its way (or failed to load): keep what is shown till then.
    if (fig.source === 'model' && !run && fig.sentence.trim()) return;
    if (same && (run ?? this.run) === this.run) return;
    this.run = fig.source === 'model' ? run ?? this.run : null;
    if (this.run && !this.lm) this.#readModel();
    this.render();
  }

  /**
   * The trained model's handle, for its learnt weights (step 2, W_O): the figure loaded it already (it
   * sent a run), so this only picks up the shared, resolved load; then the walkthrough redraws.
   */
  #readModel() {
    this.lmLoading ??= loadModel().then(({ model }) => {
      this.lm = model;
      this.lmWeights = new Map();
      if (this.#usesModel()) this.render();
    }, () => {}).finally(() => { this.lmLoading = null; });
  }

  /** Layer l's learnt attention weights (core: model.attentionWeights), read once; null until the handle is here. */
  #layerWeights(l) {
    if (!this.lm) return null;
    if (!this.lmWeights.has(l)) this.lmWeights.set(l, this.lm.attentionWeights(l));
    return this.lmWeights.get(l);
  }

  // ---- compute (in the core) ---------------------------------------------------------------------
  #compute() {
    if (this.#usesModel()) return this.#computeModel();
    const s = this.s;
    let X, labels, tokens = null;
    if (s.input === 'seed003') {
      X = asMatrix(SEED003.X);
      labels = ['input 1', 'input 2', 'input 3'];
    } else {
      const { embedding, total } = embedPrefix(this.core, this.vectors, this.fig.sentence, EXPLAINER_TOKENS);
      X = embedding.X;
      tokens = embedding.tokens;
      labels = tokens.map(labelOf);
      if (this.els.note.hidden !== !total) this.els.note.hidden = !total;
      if (total) this.els.note.textContent = `The walkthrough follows the first ${EXPLAINER_TOKENS} of the sentence’s ${count(total)} tokens.`;
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
    return { X, labels, tokens, steps, weights, opts, scaled: s.scale, d, dk: steps.Q.cols, dv: steps.V.cols, T: X.rows };
  }

  /**
   * The trained model's head that the figure shows, from the figure's run (nothing recomputed): the
   * same fields as #compute, with X the residual stream entering the layer, plus model: { run,
   * layer, head }. The rollout has no queries or keys, so then the last layer chosen is shown.
   */
  #computeModel() {
    const run = this.run;
    const layer = Math.min(this.modelLayer, run.layers.length - 1);
    const heads = run.layers[layer].heads, head = Math.min(this.fig.head, heads.length - 1);
    const steps = heads[head];
    const X = layer === 0 ? run.input : run.layers[layer - 1].output;
    const tokens = run.tokens, T = tokens.length;
    const total = this.core.tokenize(this.fig.sentence).length;
    this.els.note.hidden = false;
    this.els.note.textContent = `The walkthrough follows the figure’s trained model: layer ${layer + 1}, head ${head + 1}` +
      `${this.fig.layer === 'rollout' ? ' (the figure shows the rollout, which has no queries or keys of its own: this is the last layer chosen)' : ''}. ` +
      `Every number is the model’s own, from its run in the core: learnt weights, scores ÷ √${steps.Q.cols}, causal mask, no temperature.` +
      `${total > T ? ` The model reads the first ${T} of the sentence’s ${count(total)} tokens.` : ''}`;
    return {
      X, labels: tokens.map(labelOf), tokens, steps, weights: null, opts: { temperature: 1, causal: true }, scaled: true,
      d: X.cols, dk: steps.Q.cols, dv: steps.V.cols, T,
      model: { run, layer, head, input: run.layers[layer].attentionInput, weights: this.#layerWeights(layer) },
    };
  }

  /** Multi-head attention of the same inputs (seeded Xavier projections, through the core), computed when first drawn. */
  #multi(r) {
    const s = this.s;
    if (r.model) {
      // The trained model's heads of the layer shown, from the run (its W_O: r.model.weights).
      r.multi = { heads: r.model.run.layers[r.model.layer].heads };
      return r;
    }
    const key = `${s.heads}/${s.seed}`;
    if (r.multiKey !== key) {
      r.mh = multiHeadWeights(r.d, Math.min(s.heads, r.d), s.seed);
      r.multi = this.core.multiHead(r.X, { heads: r.mh.heads, Wo: r.mh.Wo }, r.opts);
      r.multiKey = key;
    }
    return r;
  }

  render() {
    const e = this.els;
    // Switching between the word vectors and the trained model (or the model's layer) changes which
    // settings apply and what step 2 says.
    const mode = this.#usesModel() ? `model/${this.modelLayer}` : 'own';
    if (mode !== this.mode) {
      this.mode = mode;
      this.#syncControls();
      this.#buildEditors();
    }
    if (this.s.input === 'sentence' && !this.fig.sentence.trim()) return this.#problem('Type a sentence above: the walkthrough follows it.');
    let r;
    try {
      r = this.#compute();
    } catch (err) {
      if (err instanceof CellError) return this.#problem(`${err.cells.slice(0, 3).join(', ')}${err.cells.length > 3 ? ` and ${err.cells.length - 3} more` : ''} ${err.cells.length > 1 ? 'are' : 'is'} not a number: the results below are from the last good weights.`);
      return this.#problem(`${err.message}${this.last ? ' — the results below are from the last good input.' : ''}`);
    }
    if (!e.message.hidden) e.message.hidden = true;
    this.last = r;
    this.s.query = Math.min(this.s.query, r.T - 1);
    this.#draw(r);
  }

  #problem(text) {
    this.els.message.textContent = text;
    this.els.message.hidden = false;
  }

  // ---- drawing -----------------------------------------------------------------------------------
  /** Draws the picker, then every step on screen; the rest are drawn when they scroll into view. */
  #draw(r) {
    this.generation++;
    this.root.dataset.generation = String(this.generation);
    this.#drawPicker(r);
    for (const sec of this.sections) {
      if (sec.visible) this.#drawSection(sec, r);
      else sec.dirty = true;
    }
  }

  #drawSection(sec, r) {
    sec.dirty = false;
    sec.draw(r);
    // For tests: which redraw this section shows.
    sec.el.dataset.drawn = String(this.generation);
  }

  #pick(k) {
    this.s.query = k;
    this.onQuery?.(k, this.s.input);
    this.#draw(this.last);
  }

  /** Query picker: one button per word (keyboard reachable), or a menu for a long sentence. */
  #drawPicker(r) {
    const e = this.els, i = this.s.query, { labels } = r;
    const menu = labels.length > WORDS;
    e.picker.hidden = menu;
    e.pickerMenu.hidden = !menu;
    if (menu) {
      const options = e.pickerMenu.options;
      if (options.length !== labels.length) e.pickerMenu.replaceChildren(...labels.map((_, k) => h('option', { value: k })));
      labels.forEach((l, k) => {
        const text = `${k + 1}: ${l}`;
        if (options[k].textContent !== text) options[k].textContent = text;
      });
      e.pickerMenu.value = String(i);
      return;
    }
    if (e.picker.children.length !== labels.length) {
      e.picker.replaceChildren(...labels.map((_, k) => {
        const b = h('button', { type: 'button', 'data-index': k });
        b.addEventListener('click', () => {
          this.#pick(k);
          b.focus();
        });
        return b;
      }));
    }
    [...e.picker.children].forEach((b, k) => {
      if (b.textContent !== labels[k]) b.textContent = labels[k];
      b.classList.toggle('on', k === i);
      b.setAttribute('aria-pressed', String(k === i));
    });
  }

  /** What every step uses: the query, the matrix table maker (which rewrites last draw's table in place when it can), labels. */
  #common(r) {
    const s = this.s, limit = s.full ? Infinity : LIMIT;
    return { s, i: s.query, free: !r.model && s.mode === 'free', steps: r.steps, labels: r.labels, table: (mat, o) => this.#table(mat, { limit, ...o }) };
  }

  /**
   * A row of tables that stays in the page between redraws: its tables rewrite themselves in place,
   * and a fresh row built around them would pull them out of the page first.
   */
  #row(key, tables) {
    this.rowsOf ??= new Map();
    if (!this.rowsOf.has(key)) this.rowsOf.set(key, Object.assign(h('div', { class: 'matrix-row' }), { morphKeep: true }));
    const row = this.rowsOf.get(key);
    morph(row, tables);
    return row;
  }

  #table(mat, o) {
    this.tables ??= new Map();
    const t = matrixTable(mat, { ...o, reuse: this.tables.get(o.name) });
    this.tables.set(o.name, t);
    return t;
  }

  /** The keys shown in per-key tables: all of them, or WORDS around the query (unless "show whole matrices"). */
  #keys(r) {
    const n = this.s.full ? r.T : Math.min(r.T, WORDS);
    const start = centre(n, r.T, this.s.query);
    return Array.from({ length: n }, (_, k) => start + k);
  }

  #keysNote(r, keys) {
    return keys.length < r.T ? ` Keys ${keys[0] + 1}–${keys.at(-1) + 1} of ${r.T} are shown (around the query; tick “show whole matrices” for all).` : '';
  }

  // 1. Inputs.
  #drawInputs(r) {
    const { s, i, labels, table } = this.#common(r);
    const colLabels = dimLabels(r.d);
    if (r.model) {
      const L = r.model.layer + 1;
      morph(this.els.s1, [
        h('p', {}, `One row per word: the model’s ${r.d}-dimensional stream x entering layer ${L} (${r.model.layer === 0 ? '√d_model · its embedding + its position’s sinusoid' : `layer ${r.model.layer}’s output`}), T × d_model = ${r.T}×${r.d}. ` +
          `The heads read its LayerNorm, LN₁(x): each row shifted to mean 0 and scaled to variance 1, then multiplied by the learnt γ and shifted by the learnt β of layer ${L}’s first LayerNorm.`),
        this.#row('inputs', [
          table(r.X, { caption: `x (entering layer ${L})`, name: 'X', rowLabels: labels, colLabels, highlightRow: i }),
          table(r.model.input, { caption: `LN₁(x): what the heads read (${r.model.input.rows}×${r.model.input.cols})`, name: 'LN-x', rowLabels: labels, colLabels, highlightRow: i })])]);
      return;
    }
    morph(this.els.s1, [
      h('p', {}, s.input === 'seed003'
        ? 'Seed 003’s three inputs of dimension 4, one per row.'
        : `One row per word: its ${r.d}-dimensional word vector. X is T × d_model = ${r.T}×${r.d}.`),
      table(r.X, { caption: 'X (inputs)', name: 'X', rowLabels: labels, colLabels, highlightRow: i })]);
  }

  // 2. With the trained model: the chosen head's learnt W_Q, W_K, W_V and biases (read-only).
  #drawModelWeights(r) {
    const el = this.els.modelWeights;
    if (!r.model || !el?.isConnected) return;
    const { table } = this.#common(r);
    const { layer, head, weights } = r.model, L = layer + 1, H = head + 1;
    const intro = h('p', {}, `Learnt weights of layer ${L}, head ${H}: found by training on WordNet (data/model.bin), so fixed, not editable. ` +
      `Each of the layer’s ${r.model.run.layers[layer].heads.length} heads has its own W_Q, W_K, W_V (d_model × d_k = ${r.d}×${r.dk}; its rows match the columns d1–d${r.d} of LN₁(x)) and biases b_Q, b_K, b_V.`);
    const ln = () => mrow(sub('LN', mn('1')), mo('('), mi('x'), mo(')'));
    const eq = formula('Q equals LN 1 of x times W Q plus b Q, and likewise K and V',
      mi('Q'), mo('='), ln(), sub('W', 'Q'), mo('+'), sub('b', 'Q'), mo(',\u2003'),
      mi('K'), mo('='), ln(), sub('W', 'K'), mo('+'), sub('b', 'K'), mo(',\u2003'),
      mi('V'), mo('='), ln(), sub('W', 'V'), mo('+'), sub('b', 'V'));
    const hint = h('p', { class: 'muted' }, 'Choose “word vectors” as the figure’s source to give the walkthrough weights of your own.');
    if (!weights) {
      morph(el, [intro, eq, h('p', { class: 'muted' }, 'Reading the learnt weights from the core…'), hint]);
      return;
    }
    const w = weights.heads[head], rowLabels = dimLabels(r.d);
    const block = (name, label, W, b) => h('div', { class: 'editor' },
      table(asRow(b), { caption: `b_${label} (1×${b.length})`, name: `b_${label}`, rowLabels: ['b'] }),
      table(W, { caption: `W_${label} (d_model × d_k = ${W.rows}×${W.cols})`, name, rowLabels }));
    // Why b_K is all but zero: it adds q_i·b_K to every score of query i alike, which the softmax cancels.
    const why = h('p', { class: 'muted' }, 'b_K stays close to 0, where training started it: it adds the same q_i · b_K to all of query i’s scores, which the softmax cancels, so its gradient is zero (up to rounding).');
    morph(el, [intro, eq, hint, h('div', { class: 'editor-row' },
      block('W_Q', 'Q', w.Wq, w.bq), block('W_K', 'K', w.Wk, w.bk), block('W_V', 'V', w.Wv, w.bv)), why]);
  }

  // 3. Q, K, V.
  #drawQKV(r) {
    const { s, i, free, steps, labels, table } = this.#common(r);
    const qkvLabel = r.model ? `Layer ${r.model.layer + 1}, head ${r.model.head + 1} of the trained model: Q = LN₁(x)W_Q + b_Q, K = LN₁(x)W_K + b_K, V = LN₁(x)W_V + b_V, with LN₁(x) from step 1 and the learnt weights of step 2 (d_k = ${r.dk})`
      : free ? 'Q = K = V = X (parameter-free)' : `Q = XW_Q${s.bias ? ' + b_Q' : ''}, K = XW_K${s.bias ? ' + b_K' : ''}, V = XW_V${s.bias ? ' + b_V' : ''}`;
    morph(this.els.s3, [
      h('p', {}, `${qkvLabel}. Each is computed independently (in parallel) from the same inputs.`),
      this.#row('qkv', [
        table(steps.Q, { caption: 'Q (queries)', name: 'Q', rowLabels: labels, highlightRow: i }),
        table(steps.K, { caption: 'K (keys)', name: 'K', rowLabels: labels }),
        table(steps.V, { caption: 'V (values)', name: 'V', rowLabels: labels })])]);
  }

  // Shapes.
  #drawShapes(r) {
    const { free, steps } = this.#common(r);
    const shapes = [
      ['X (inputs)', 'T × d_model', `${r.T}×${r.d}`, 'n × 512'],
      ['W_Q, W_K', 'd_model × d_k', free ? '— (none)' : `${r.d}×${r.dk}${r.model ? ' per head (learnt)' : ''}`, '512 × 64'],
      ['W_V', 'd_model × d_v', free ? '— (none)' : `${r.d}×${r.dv}${r.model ? ' per head (learnt)' : ''}`, '512 × 64'],
      ['Q, K', 'T × d_k', `${steps.Q.rows}×${steps.Q.cols}`, 'n × 64'],
      ['V', 'T × d_v', `${steps.V.rows}×${steps.V.cols}`, 'n × 64'],
      ['QKᵀ (scores), weights', 'T × T', `${steps.scores.rows}×${steps.scores.cols}`, 'n × n'],
      ['output', 'T × d_v', `${steps.output.rows}×${steps.output.cols}`, 'n × 64'],
      ['with a batch of N', 'N × T × d_v', `1×${steps.output.rows}×${steps.output.cols}`, 'N × n × 64'],
    ];
    morph(this.els.shapes, [h('table', { class: 'shapes' },
      h('caption', {}, 'What each matrix holds: the shape in symbols, here, and in “Attention is all you need”.'),
      h('thead', {}, h('tr', {}, ...['matrix', 'shape', 'here', 'the paper (d_model 512, d_k = d_v = 64)'].map((t) => h('th', { scope: 'col' }, t)))),
      h('tbody', {}, ...shapes.map(([a, b, c, d]) => h('tr', {}, h('th', { scope: 'row' }, a), h('td', {}, b), h('td', { 'data-shape': a }, c), h('td', {}, d)))))]);
  }

  // 4. Scores for query i.
  #drawScores(r) {
    const { i, free, steps, labels, table } = this.#common(r);
    const qi = mrow(sub('q', mn(String(i + 1))));
    morph(this.els.s4, [
      formula(`score i j equals q i dot k j`, sub('s', mrow(mn(String(i + 1)), mi('j'))), mo('='), qi, mo('·'), sub('k', 'j'), mo('='), sub(mrow(mi('Q'), sup('K', 'T')), mrow(mn(String(i + 1)), mi('j')))),
      h('p', {}, `The query of “${labels[i]}” meets every key: one dot product per word (row ${i + 1} of QKᵀ${free ? ' = XXᵀ' : ''}). T² = ${r.T * r.T} scores in all.`),
      table(steps.scores, { caption: 'QKᵀ (raw scores)', name: 'scores', rowLabels: labels, colLabels: labels, highlightRow: i })]);
  }

  // 5. Softmax.
  #drawSoftmax(r) {
    const { i, free, steps, labels } = this.#common(r);
    const temperature = r.opts.temperature, tau = temperature !== 1;
    // A fresh node per use (a DOM node can sit in one place only).
    const dk = () => (free ? mi('d') : sub('d', 'k'));
    const scaleMath = () => (r.scaled ? mrow(sqrt(dk()), ...(tau ? [mo('·'), mi('τ')] : [])) : tau ? mi('τ') : null);
    const arg = (j) => (scaleMath() ? frac(sub('s', mrow(mn(String(i + 1)), mi(j))), scaleMath()) : sub('s', mrow(mn(String(i + 1)), mi(j))));
    const by = free ? `√d = √${r.d}` : `√d_k = √${r.dk}`;
    const divisor = [r.scaled ? by : null, tau ? `τ = ${temperature.toFixed(2)}` : null].filter(Boolean);
    const stageRows = [['raw score', steps.scores], ['scaled', steps.scaled], ['weight α', steps.weights]];
    const keys = this.#keys(r);
    morph(this.els.s5, [
      formula('alpha i j equals exp of the scaled score over the sum of exps', sub('α', mrow(mn(String(i + 1)), mi('j'))), mo('='),
        frac(mrow(mi('exp'), mo('('), arg('j'), mo(')')), mrow(sum('l'), mi('exp'), mo('('), arg('l'), mo(')')))),
      h('p', {}, divisor.length ? `Divide by ${divisor.join(' and by ')}${r.scaled ? ' so the softmax does not saturate' : ''}, then softmax: positive weights that sum to 1.` : 'No scaling (plain dot-product attention), then softmax: positive weights that sum to 1.',
        r.opts.causal ? ` Causal mask: later words get −∞, weight 0${r.model ? ' (the model was trained to predict the next word, so it may not look ahead)' : ''}.` : '', this.#keysNote(r, keys)),
      stageTable(stageRows, i, labels, keys, 'softmax', `Query “${labels[i]}”: score → scaled → softmax`)]);
  }

  // 6. Weighted values: α_ij · v_j for every key, as the core computes them (core.queryTerms).
  #drawWeighted(r) {
    const { s, i, free, steps, labels } = this.#common(r);
    const vName = free ? 'x' : 'v';
    const weighted = this.core.queryTerms(steps, i).weighted;  // T × d_v
    const shownV = Math.min(r.dv, s.full ? r.dv : 8);
    const keys = this.#keys(r);
    const t6 = h('table', { class: 'matrix weighted', 'data-name': 'weighted' },
      h('caption', {}, `Each value vector ${vName}_j is scaled by its weight α(${i + 1}, j)`),
      h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, 'key j'), h('th', { scope: 'col' }, 'α'),
        h('th', { scope: 'col', colspan: shownV }, `α · ${vName}_j (${r.dv} numbers${shownV < r.dv ? `, first ${shownV} shown` : ''})`))),
      h('tbody', {}, ...keys.map((j) => h('tr', {},
        h('th', { scope: 'row' }, labels[j]),
        h('td', { 'data-value': String(steps.weights.data[i * r.T + j]) }, fmt(steps.weights.data[i * r.T + j])),
        ...Array.from({ length: shownV }, (_, c) => h('td', { class: 'v', 'data-value': String(weighted.data[j * r.dv + c]) }, fmt(weighted.data[j * r.dv + c]))),
      ))));
    morph(this.els.s6, [h('p', {}, 'Each value row is multiplied by the weight its key got: heavy weights keep their value, light ones nearly vanish. The rows of this table add up to the output in step 7.', this.#keysNote(r, keys)),
      h('div', { class: 'matrix-wrap' }, t6)]);
  }

  // 7. Sum → output i, and the weighted sum written out (seed 000), largest terms first.
  #drawSum(r) {
    const { s, i, free, steps, labels, table } = this.#common(r);
    const vName = free ? 'x' : 'v';
    const order = Array.from({ length: r.T }, (_, j) => j).sort((a, b) => steps.weights.data[i * r.T + b] - steps.weights.data[i * r.T + a]);
    const shown = s.full ? order : order.slice(0, TERMS);
    const terms = [];
    shown.forEach((j, k) => {
      if (k) terms.push(mo('+'));
      terms.push(mn(fmt(steps.weights.data[i * r.T + j])), mo('·'), sub(vName, mi(labels[j])));
    });
    if (shown.length < order.length) terms.push(mo('+'), mo('…'), m('mtext', ` (${order.length - shown.length} smaller terms)`));
    const expansion = formula(`A of ${labels[i]} equals the weighted sum`, m('mi', 'A'), mo('('), mi(labels[i]), mo(')'), mo('='),
      sum('j'), sub('α', mrow(mn(String(i + 1)), mi('j'))), sub(vName, 'j'), mo('='), ...terms);
    expansion.classList.add('expansion');
    morph(this.els.s7, [
      h('p', {}, `Add the weighted values up: the output for “${labels[i]}” is a blend of every word’s ${free ? 'vector' : 'value'}, mostly of the heaviest. Written out with the live weights, largest first:`),
      h('div', { class: 'scroll-x' }, expansion),
      table(rowOf(steps.output, i), { caption: `output for “${labels[i]}” (row ${i + 1} of the output, 1×${r.dv})`, name: 'output-row', rowLabels: [labels[i]] })]);
  }

  // 8. Every query at once.
  #drawAll(r) {
    const { i, steps, labels, table } = this.#common(r);
    const heatMax = maxOf(steps.weights.data);
    morph(this.els.s8, [
      formula('Attention of Q K V equals softmax of Q K transpose over root d k, times V', fn('Attention', mi('Q'), mo(','), mi('K'), mo(','), mi('V')), mo('='),
        fn('softmax', r.scaled ? frac(mrow(mi('Q'), sup('K', 'T')), sqrt(sub('d', 'k'))) : mrow(mi('Q'), sup('K', 'T'))), mi('V')),
      h('p', {}, 'Steps 4–7 for every query at once are two matrix products and a row-wise softmax.'),
      this.#row('all', [
        table(steps.weights, { caption: 'weights (rows sum to 1)', name: 'weights', rowLabels: labels, colLabels: labels, heat: true, max: heatMax, highlightRow: i }),
        table(steps.output, { caption: 'output = weights · V', name: 'output', rowLabels: labels, highlightRow: i })]),
      legendBox(heatMax)]);
  }

  /**
   * BertViz neuron view: q_i, every k_j, the dot product, scaled, softmax, as small bars. Its nodes
   * stay between redraws (one row per key in the window); a redraw rewrites bars, numbers and labels.
   */
  #drawVectors(r) {
    const { steps, labels } = r, i = this.s.query, dk = steps.Q.cols, T = r.T;
    let maxAbs = 0;
    for (const v of steps.Q.data) maxAbs = Math.max(maxAbs, Math.abs(v));
    for (const v of steps.K.data) maxAbs = Math.max(maxAbs, Math.abs(v));
    const wMax = Math.max(1e-9, ...steps.weights.data.subarray(i * T, (i + 1) * T));
    const { products } = this.core.queryTerms(steps, i);  // row j: q_i ∘ k_j, entry by entry
    let productMax = 1e-9;
    for (const v of products.data) productMax = Math.max(productMax, Math.abs(v));
    const keys = this.#keys(r);
    if (!this.vectorsUI) {
      const ui = (this.vectorsUI = {
        intro: h('p'), qName: h('strong'), q: vectorBars(), caption: h('caption'), kHead: h('th', { scope: 'col', role: 'columnheader' }), body: h('tbody', { role: 'rowgroup' }), rows: [],
      });
      // On a narrow screen the stylesheet lays each key out on three lines of a grid (numbers, k, q∘k;
      // table.neuron in style.css). It stays this table: the roles repeat the elements' own, for
      // browsers that drop a table's semantics when its display changes.
      this.els.vectors.replaceChildren(ui.intro, h('div', { class: 'qrow' }, ui.qName, ui.q),
        h('div', { class: 'matrix-wrap neuron-wrap' }, h('table', { class: 'matrix neuron', 'data-name': 'neuron', role: 'table' }, ui.caption,
          h('thead', { role: 'rowgroup' }, h('tr', { role: 'row' }, h('th', { scope: 'col', role: 'columnheader' }, 'key'), ui.kHead,
            ...['q∘k', 'q·k', 'scaled', 'weight'].map((t) => h('th', { scope: 'col', role: 'columnheader' }, t)))),
          ui.body)));
    }
    const ui = this.vectorsUI;
    const whose = r.model ? ` (layer ${r.model.layer + 1}, head ${r.model.head + 1} of the trained model: its learnt projections of the word)` : '';
    ui.intro.textContent = `The query vector of “${labels[i]}”${whose} and each key vector, one bar per dimension (blue above zero, orange below, both to the same scale). q∘k multiplies them entry by entry (its own scale); those products add up to the dot product q·k, the score, which scaled and softmaxed is the weight.${this.#keysNote(r, keys)}`;
    ui.qName.textContent = `q (${labels[i]})`;
    vectorBars(ui.q, steps.Q.data.subarray(i * dk, (i + 1) * dk), maxAbs, `q of ${labels[i]}`);
    ui.caption.textContent = `Keys for the query “${labels[i]}”`;
    ui.kHead.textContent = `k (${dk} numbers)`;
    while (ui.rows.length < keys.length) {
      const cell = (cls, ...kids) => h('td', { class: cls, role: 'cell' }, ...kids);
      const row = { th: h('th', { scope: 'row', role: 'rowheader' }), k: vectorBars(), p: vectorBars(), score: cell('num'), scaled: cell('num'), wText: h('span'), bar: weightBar() };
      row.weight = cell('num weight', h('span', { class: 'wcell' }, row.wText, row.bar));
      row.tr = h('tr', { role: 'row' }, row.th, cell('spark k', row.k), cell('spark qk', row.p), row.score, row.scaled, row.weight);
      ui.body.append(row.tr);
      ui.rows.push(row);
    }
    while (ui.rows.length > keys.length) ui.rows.pop().tr.remove();
    const number = (td, v, text = td) => {
      setAttrs(td, { 'data-value': v });
      setAttrs(text, {}, fmt(v));
    };
    keys.forEach((j, n) => {
      const row = ui.rows[n], l = labels[j];
      setAttrs(row.th, {}, l);
      vectorBars(row.k, steps.K.data.subarray(j * dk, (j + 1) * dk), maxAbs, `k of ${l}`);
      vectorBars(row.p, products.data.subarray(j * dk, (j + 1) * dk), productMax, `q∘k of ${labels[i]} and ${l}`);
      number(row.score, steps.scores.data[i * T + j]);
      number(row.scaled, steps.scaled.data[i * T + j]);
      number(row.weight, steps.weights.data[i * T + j], row.wText);
      weightBar(row.bar, steps.weights.data[i * T + j] / wMax);
    });
  }

  /** Multi-head: per-head heatmaps (click to focus), the concatenation, W_O and the output. */
  #drawHeads(r) {
    const { multi, mh, labels } = this.#multi(r), s = this.s;
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
        legend: h('div', { class: 'legend-wrap' }), focusTitle: h('p', { class: 'head-focus-title' }), focus: h('div', { class: 'head-focus' }),
        tables: h('div', { class: 'matrix-row' }),
        focusMap: new Heatmap({ className: 'heatmap head-map focused', table: true }),
      });
      ui.focus.append(ui.focusMap.el);
      // Its width, kept from the observer's reports (reading it while drawing would force a layout).
      new ResizeObserver((entries) => {
        const w = Math.round(entries.at(-1).contentRect.width);
        if (!w || w === ui.width) return;
        const redraw = ui.width !== undefined;
        ui.width = w;
        if (redraw && this.last) this.#drawHeads(this.last);
      }).observe(ui.focus);
      ui.formula.append(formula('MultiHead equals Concat of head 1 to head h, times W O', mi('MultiHead'), mo('='), fn('Concat', sub('head', mn('1')), mo(','), mo('…'), mo(','), sub('head', 'h')), sub('W', 'O')));
      this.els.heads.replaceChildren(ui.intro, ui.formula,
        h('div', { class: `af theme-${['light', 'dark'].includes(theme) ? theme : 'auto'} heads-area` }, ui.grid, ui.legend, ui.focusTitle, ui.focus), ui.tables);
    }
    const ui = this.headsUI;
    const captions = r.model ? r.model.run.captions[r.model.layer] : null;
    ui.intro.textContent = r.model
      ? `The ${n} heads of the trained model’s layer ${r.model.layer + 1}, each with its own learnt W_Q, W_K, W_V (d_model × d_k = ${r.d}×${r.dk}), attend in parallel; ` +
        'under each, what it does on held-out text. Their outputs are concatenated side by side and mixed by the learnt W_O.'
      : `${n} head${n > 1 ? 's' : ''}, each with its own seeded random W_Q, W_K, W_V (d_model × d_k = ${r.d}×${mh.dk}), attend in parallel; their outputs are concatenated side by side and mixed by W_O.`;
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
      // A picture inside the button (the button is the keyboard stop): not a grid of its own.
      box.map ??= new Heatmap({ compact: true, interactive: false, title: `head ${k + 1}`, head: k, className: 'head-map' });
      if (box.map.el.parentNode !== box) box.append(box.map.el);
      box.map.update({ tokens, weights: multi.heads[k].weights, max, caption: captions?.[k] ?? '' });
    });
    drawLegend(ui.legend, max);
    ui.focusTitle.textContent = `Head ${s.head + 1} (focused): hover, tap or use the arrow keys to read a weight.`;
    ui.width ??= ui.focus.clientWidth; // before the first report
    ui.focusMap.update({ tokens, weights: multi.heads[s.head].weights, max, width: ui.width || 640 });
    const limit = s.full ? Infinity : LIMIT;
    if (r.model) {
      // The model's concatenation, its learnt W_O and b_O, and their product, all from the core.
      const layer = r.model.run.layers[r.model.layer], L = r.model.layer + 1, w = r.model.weights;
      const { concat, multiHeadOutput: out, afterAttention: after } = layer;
      morph(ui.tables, [
        h('p', {}, `The heads’ outputs side by side (concat), mixed by layer ${L}’s learnt W_O and shifted by its b_O; the residual connection then adds the result to the stream x.`),
        this.#table(concat, { limit, caption: `concat (T × h·d_k = ${concat.rows}×${concat.cols})`, name: 'concat', rowLabels: labels }),
        w ? this.#table(w.Wo, { limit, caption: `W_O (h·d_k × d_model = ${w.Wo.rows}×${w.Wo.cols}, learnt)`, name: 'Wo' }) : h('p', { class: 'muted' }, 'Reading W_O from the core…'),
        w ? this.#table(asRow(w.bo), { limit, caption: `b_O (1×${w.bo.length})`, name: 'b_O', rowLabels: ['b'] }) : null,
        this.#table(out, { limit, caption: `output = concat · W_O + b_O (${out.rows}×${out.cols})`, name: 'mh-output', rowLabels: labels }),
        this.#table(after, { limit, caption: `x + output: the stream after layer ${L}’s attention (${after.rows}×${after.cols})`, name: 'after-attention', rowLabels: labels })]);
      return;
    }
    morph(ui.tables, [
      this.#table(multi.concat, { limit, caption: `concat (T × h·d_k = ${multi.concat.rows}×${multi.concat.cols})`, name: 'concat', rowLabels: labels }),
      this.#table(mh.Wo, { limit, caption: `W_O (h·d_k × d_model = ${mh.Wo.rows}×${mh.Wo.cols})`, name: 'Wo' }),
      this.#table(multi.output, { limit, caption: `output = concat · W_O (${multi.output.rows}×${multi.output.cols})`, name: 'mh-output', rowLabels: labels })]);
  }
}

class CellError extends Error {
  constructor(cells) {
    super('invalid cells');
    this.cells = cells;
  }
}

/** Rows of stages (raw, scaled, weight) for query i across the keys: a table whose cells carry the core's values. */
function stageTable(stages, i, labels, keys, name, caption) {
  const T = labels.length;
  return h('div', { class: 'matrix-wrap' }, h('table', { class: 'matrix stages', 'data-name': name },
    h('caption', {}, caption),
    h('thead', {}, h('tr', {}, h('td', { class: 'corner' }), ...keys.map((j) => h('th', { scope: 'col' }, labels[j])))),
    h('tbody', {}, ...stages.map(([title, mat]) => h('tr', { 'data-stage': title },
      h('th', { scope: 'row' }, title),
      ...keys.map((j) => h('td', { 'data-key': j, 'data-value': String(mat.data[i * T + j]) }, fmt(mat.data[i * T + j]))))))));
}

function legendBox(max) {
  const box = h('div', { class: 'legend-wrap' });
  drawLegend(box, max);
  return box;
}

/**
 * A vector as tiny bars around a zero line: two paths (above and below zero), not a node per bar.
 * vectorBars() makes an empty one; vectorBars(svg, values, maxAbs, label) draws into it (and returns it).
 */
function vectorBars(svg, values, maxAbs, label) {
  if (!svg) {
    // preserveAspectRatio none: where the stylesheet narrows it (a phone), the bars get thinner, not shorter.
    svg = svgEl('svg', { class: 'vbars', role: 'img', preserveAspectRatio: 'none' });
    svgEl('line', { class: 'zero' }, svg);
    svgEl('path', { class: 'pos' }, svg);
    svgEl('path', { class: 'neg' }, svg);
    return svg;
  }
  const n = values.length, bw = n > 24 ? 3 : n > 8 ? 6 : 12, H = 28, w = Math.max(1, bw - 1), W = n * bw + 2;
  setAttrs(svg, { width: W, height: H, viewBox: `0 0 ${W} ${H}`, 'aria-label': `${label}: ${Array.from(values, (v) => fmt(v)).join(', ')}` });
  setAttrs(svg.firstChild, { x1: 0, x2: W, y1: H / 2, y2: H / 2 });
  const d = { pos: '', neg: '' };
  values.forEach((v, k) => {
    const hgt = (maxAbs > 0 ? Math.abs(v) / maxAbs : 0) * (H / 2 - 1);
    if (v >= 0) d.pos += `M${1 + k * bw} ${H / 2 - hgt}h${w}v${hgt}h${-w}z`;
    else d.neg += `M${1 + k * bw} ${H / 2}h${w}v${hgt}h${-w}z`;
  });
  setAttrs(svg.children[1], { d: d.pos || 'M0 0' });
  setAttrs(svg.children[2], { d: d.neg || 'M0 0' });
  return svg;
}

/** A weight as a bar (0–1 of its width): weightBar() makes one, weightBar(svg, f) sets it. */
function weightBar(svg, f) {
  if (!svg) {
    svg = svgEl('svg', { class: 'wbar', width: 80, height: 10, viewBox: '0 0 80 10', preserveAspectRatio: 'none', 'aria-hidden': 'true' });
    svgEl('rect', { x: 0, y: 1, height: 8 }, svg);
    return svg;
  }
  setAttrs(svg.firstChild, { width: Math.max(0, Math.min(1, f)) * 80 });
  return svg;
}

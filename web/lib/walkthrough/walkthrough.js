// The page's step-by-step walkthrough (seed 003's eight steps, plus shapes, the query and key vectors and
// multi-head attention), rendered from the page's one store: the same sentence, word, score, options and
// numbers as the figure above it. Its own controls (the input, the weights W_Q, W_K, W_V, d_k) are state
// too, so choosing weights here changes the figure as well. Each step is redrawn only while it is on
// screen; the others catch up when they scroll into view (or before printing).
import { headIsOff, layerIsOff } from '../switches.js';
import { h } from '../dom.js';
import { count } from '../format.js';
import { wordOf } from '../compute.js';
import { LIMIT, TableKit } from './kit.js';
import { Picker } from './picker.js';
import { InputsStep } from './inputs.js';
import { WeightsStep } from './weights.js';
import { QKVStep, ShapesTable } from './qkv.js';
import { ScoresStep, SoftmaxStep } from './scores.js';
import { WeightedStep, SumStep, AllStep } from './sums.js';
import { VectorsView } from './vectors.js';
import { MultiHeadStep } from './multihead.js';

const MODES = {
  free: 'parameter-free (Q = K = V = X)',
  identity: 'identity',
  random: 'random (Xavier, seeded)',
  seed: 'seed 003’s own',
  edited: 'edited by hand',
  learnt: 'learnt (the trained model’s)',
};

export class Walkthrough {
  /** options: { store, onUserChange() after the reader changes something here, showHeadsControl() } */
  constructor(root, { store, onUserChange, showHeadsControl }) {
    this.root = root;
    this.store = store;
    this.onUserChange = onUserChange;
    this.generation = 0;
    this.kit = new TableKit();
    this.#controls();
    const set = (changes) => this.change(changes);
    this.picker = new Picker((i) => set({ word: i }));
    this.steps = [
      new InputsStep(),
      new WeightsStep(store, (next) => {
        store.setEdits(next);
        this.onUserChange?.();
      }),
      new QKVStep(),
      new ShapesTable(),
      new ScoresStep(),
      new SoftmaxStep(),
      new WeightedStep(),
      new SumStep(),
      new AllStep(),
      new VectorsView(),
      new MultiHeadStep(set, showHeadsControl),
    ];
    root.append(this.els.controls, this.els.message, this.els.note, this.picker.el, ...this.steps.map((s) => s.el));
    // Every step is drawn only while on screen; the others are marked stale and catch up as they scroll
    // into view, so typing in the figure costs only what the reader can see.
    for (const step of this.steps) {
      step.visible = typeof IntersectionObserver === 'undefined';
      if (step.visible) continue;
      new IntersectionObserver((entries) => {
        step.visible = entries.at(-1).isIntersecting;
        if (step.visible && step.dirty) this.#draw(step);
      }).observe(step.el);
    }
    addEventListener('beforeprint', () => this.steps.forEach((s) => s.dirty && this.#draw(s)));
    store.subscribe(() => this.render());
    this.render();
  }

  change(changes) {
    this.store.set(changes);
    this.onUserChange?.();
  }

  #controls() {
    const e = (this.els = {});
    const f = (label, control) => h('label', { class: 'field', for: control.id }, h('span', {}, label), control);
    const c = (label, control) => h('label', { class: 'field', for: control.id }, control, h('span', {}, label));
    e.input = h(
      'select',
      { id: 'x-input' },
      h('option', { value: 'sentence' }, 'the sentence above'),
      h('option', { value: 'seed003' }, 'seed 003’s example (3 inputs × 4)'),
    );
    e.mode = h('select', { id: 'x-mode' }, ...Object.entries(MODES).map(([v, t]) => h('option', { value: v }, t)));
    e.dk = h('input', { id: 'x-dk', type: 'number', min: 1, max: 16, step: 1 });
    e.seed = h('input', { id: 'x-seed', type: 'number', min: 0, max: 9999, step: 1 });
    e.bias = h('input', { id: 'x-bias', type: 'checkbox' });
    e.full = h('input', { id: 'x-full', type: 'checkbox' });
    e.preset = h('button', { type: 'button', id: 'x-preset' }, 'Load seed 003’s example');
    e.dkField = f('d_k = d_v', e.dk);
    e.seedField = f('seed', e.seed);
    e.biasField = c('biases', e.bias);
    e.controls = h(
      'div',
      { class: 'x-controls' },
      h('div', { class: 'row' }, f('Input', e.input), e.preset),
      h('div', { class: 'row' }, f('Weights', e.mode), e.dkField, e.seedField, e.biasField, c('show whole matrices', e.full)),
    );
    e.message = h('p', { class: 'x-message', role: 'alert', hidden: true });
    e.note = h('p', { class: 'x-note muted', hidden: true });
    const number = (input, key, lo, hi) =>
      input.addEventListener('change', () => {
        const n = Math.round(Number(input.value));
        if (n >= lo && n <= hi) this.change({ [key]: n });
        else input.value = String(this.store.state[key]);
      });
    e.input.addEventListener('change', () => this.change({ input: e.input.value }));
    e.preset.addEventListener('click', () => this.change({ input: 'seed003' }));
    e.mode.addEventListener('change', () => this.change({ weights: e.mode.value }));
    number(e.dk, 'dk', 1, 16);
    number(e.seed, 'seed', 0, 9999);
    e.bias.addEventListener('change', () => this.change({ bias: e.bias.checked }));
    e.full.addEventListener('change', () => this.change({ full: e.full.checked }));
  }

  #syncControls(state, result) {
    const e = this.els,
      model = result?.kind === 'model',
      imported = Boolean(this.store.sources.imported);
    e.input.value = state.input;
    e.mode.value = model ? 'learnt' : state.weights;
    for (const o of e.mode.options) {
      o.hidden =
        (o.value === 'learnt') !== model ||
        (o.value === 'seed' && state.input !== 'seed003') ||
        (o.value === 'edited' && state.weights !== 'edited');
    }
    e.dk.value = String(result?.projection?.dk ?? state.dk);
    e.seed.value = String(state.seed);
    e.bias.checked = state.bias;
    e.full.checked = state.full;
    // Settings that do not apply are hidden: the trained model brings its own weights, d_k and heads.
    e.input.disabled = model || imported;
    e.mode.disabled = model || imported;
    e.dkField.hidden = model || ['free', 'seed', 'edited'].includes(state.weights);
    e.seedField.hidden = model || state.weights !== 'random';
    e.biasField.hidden = model || state.weights === 'free';
  }

  render() {
    const state = this.store.state,
      result = this.store.result,
      shown = this.store.shown;
    this.#syncControls(state, shown);
    const e = this.els;
    const problem = this.#problem(state, result, shown);
    e.message.hidden = !problem;
    e.message.textContent = problem;
    this.#note(state, shown);
    const drawable = shown && shown.kind !== 'imported';
    for (const step of this.steps) step.el.hidden = !drawable;
    this.picker.el.hidden = !drawable;
    if (!drawable) return;
    this.ctx = { word: wordOf(state, shown), full: state.full, limit: state.full ? Infinity : LIMIT, kit: this.kit, store: this.store };
    this.generation++;
    this.root.dataset.generation = String(this.generation);
    this.picker.draw(shown.labels, this.ctx.word);
    for (const step of this.steps) {
      if (step.visible) this.#draw(step);
      else step.dirty = true;
    }
  }

  #draw(step) {
    step.dirty = false;
    const shown = this.store.shown;
    if (shown && shown.kind !== 'imported') step.draw(this.store.state, shown, this.ctx);
    // For tests: which redraw this step shows.
    step.el.dataset.drawn = String(this.generation);
  }

  #problem(state, result, shown) {
    if (this.store.sources.imported)
      return 'Imported attention holds only the weights: the steps below need the vectors, queries and keys, which the file does not have. Choose “Back to word vectors” in the figure to follow your sentence again.';
    if (result?.kind === 'cells') return result.message;
    if (!shown && result?.kind === 'empty') return 'Type a sentence above: the walkthrough follows it.';
    if (!shown && result) return `${result.message}${result.kind === 'loading' ? '' : ' (the walkthrough follows the figure).'}`;
    return '';
  }

  #note(state, r) {
    const e = this.els;
    let text = '';
    if (r?.kind === 'model') {
      const { layer, head, rollout, off, offMode } = r.model;
      // A switched-off head is still walked through (its scores and weights are computed), but what
      // reaches the rest of the model is not its output: say so before the numbers.
      const headOff = headIsOff(off, layer, head),
        layerOff = layerIsOff(off, layer);
      const switched = layerOff
        ? ` Layer ${layer + 1}’s attention is switched off: this head’s steps are computed, but its output never reaches the residual stream.`
        : headOff
          ? ` This head is switched off (${offMode}): ${
              {
                zero: 'its output below is replaced by zeros before W_O',
                mean: 'its output below is its mean over the words',
                uniform: 'its weights below are an even spread, not its learnt ones',
              }[offMode]
            }.`
          : '';
      text =
        `The walkthrough follows the figure’s trained model: layer ${layer + 1}, head ${head + 1}` +
        `${rollout ? ' (the figure shows the rollout, which has no queries or keys of its own: this is its last layer)' : ''}. ` +
        `Every number is the model’s own, from its run in the core: learnt weights, scores ÷ √${r.projection.dk}, ${r.causal ? 'causal mask' : 'no mask'}, no temperature.` +
        `${r.cut ? ` The model reads the first ${count(r.cut.words)} words (${count(r.cut.pieces)} pieces) of the sentence’s ${count(r.cut.totalWords)}.` : r.total ? ` The model reads the first ${r.cap} of the sentence’s ${count(r.total)} tokens.` : ''}${switched}` +
        // Its vectors, scores and sums are one piece's: a word-level map only averages them.
        `${r.vocabulary === 'pieces' ? ` It follows the model’s pieces (“sta”, “##tion”)${this.store.state.units === 'words' ? ', even while the figure shows words: each row here is one piece' : ''}.` : ''}`;
    } else if (r?.total) text = `The walkthrough follows the figure’s first ${count(r.cap)} of the sentence’s ${count(r.total)} tokens.`;
    e.note.hidden = !text;
    e.note.textContent = text;
  }
}

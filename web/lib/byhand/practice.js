// By-hand practice (page only): a fresh exercise on the by-hand sheet's shapes from a seed, every
// intermediate cell an input, each checked by the core when the learner leaves it (right, wrong, or right
// from their own wrong upstream cells, with the source of its value and, on request, the expected value).
// The exercise, its answer, the tolerances, the reading of "27/39" and every verdict come from the wasm
// core (core/include/attention/exercise.hpp through the larger module): nothing here computes a number.
// The seed and the maths mode live in the URL (state.js PRACTICE_KEYS), so the same sheet comes back.
import { h } from '../dom.js';
import { num } from '../format.js';
import { practiceFromParams, practiceParams } from '../state.js';
import { matrixTable } from '../tables.js';
import { FEATURES, QK_ROWS, TOKENS } from './worksheet.js';

/** Row labels of each step's grid (its columns are always the tokens). */
const ROW_LABELS = { Q: QK_ROWS, K: QK_ROWS, V: QK_ROWS, Z: QK_ROWS, sums: ['Σ'] };
/** What each mode's rules say: the tolerance and the fraction-or-decimal rule, as the core applies them. */
const RULES = {
  shortcuts:
    'Sheet shortcuts: floor(x/2) for ÷√3 and 3^x for e^x. Q, K, V, KᵀQ, S, P and Σ are whole numbers and must be exact; ' +
    'A may be a fraction (27/39) or a decimal, and A and Z count as right to two decimals (within 0.01).',
  real:
    'Real maths: ÷√3 and e^x. Q, K, V and KᵀQ are whole numbers and must be exact; S, P, Σ, A and Z count as right to ' +
    'two decimals (within 0.01, or 1 % of numbers above 1, so e^x of a rounded S passes). A may be a fraction.',
};
const MARKS = {
  right: { symbol: '✓', words: 'right' },
  'right-from-yours': { symbol: '↺', words: 'right from your own numbers' },
  wrong: { symbol: '✗', words: 'not yet' },
  unreadable: { symbol: '?', words: 'not a number' },
};

/** A random seed for "New exercise" (which exercise is drawn is the core's business, from this seed). */
const freshSeed = () => crypto.getRandomValues(new Uint32Array(1))[0];
/** A number as the hint shows it: whole numbers bare, others to four decimals. */
const shown = (x) => num(x, Number.isInteger(x) ? 0 : 4);

export class Practice {
  /**
   * root: the element to fill. loadCore: resolves to the core API with the exercise part (the larger
   * module, loader.js loadLargerCore). onPrint(seed, math): prints this exercise (the class set's pages).
   */
  constructor(root, { loadCore, onPrint = null }) {
    this.root = root;
    this.loadCore = loadCore;
    const { seed, math } = practiceFromParams(new URLSearchParams(location.search));
    this.seed = seed;
    this.math = math;
    const e = (this.els = {});
    e.start = h('button', { type: 'button', id: 'practice-new' }, 'New exercise');
    e.print = h('button', { type: 'button', id: 'practice-print', hidden: true }, 'Print this exercise (with its key)');
    e.mathShortcuts = h('input', { type: 'radio', name: 'practice-math', value: 'shortcuts', id: 'practice-math-shortcuts' });
    e.mathReal = h('input', { type: 'radio', name: 'practice-math', value: 'real', id: 'practice-math-real' });
    e.rules = h('p', { class: 'practice-rules', id: 'practice-rules' });
    e.meta = h('p', { class: 'practice-meta', id: 'practice-meta' });
    e.progress = h('p', { class: 'practice-progress', id: 'practice-progress' });
    e.message = h('p', { class: 'x-message', role: 'alert', hidden: true });
    e.givens = h('div', { class: 'matrix-row practice-givens' });
    e.steps = h('div', { class: 'practice-steps' });
    // The feedback sits under the step of the cell just left: the verdict (a live region, so it is heard
    // as well as seen), the hint, and the expected value on request.
    e.status = h('p', { class: 'practice-status', id: 'practice-status', role: 'status', 'aria-live': 'polite' });
    e.show = h('button', { type: 'button', id: 'practice-show', hidden: true }, 'Show the expected value');
    e.expected = h('p', { class: 'practice-expected', id: 'practice-expected', hidden: true });
    e.feedback = h('div', { class: 'practice-feedback', id: 'practice-feedback' }, e.status, e.show, e.expected);
    e.sheet = h('div', { class: 'practice-sheet', hidden: true }, e.meta, e.progress, e.givens, e.steps);
    root.append(
      h('h3', {}, 'Practise: a fresh exercise'),
      h(
        'p',
        {},
        'New numbers each time, on the same sheet. Fill in every cell; each is checked when you leave it. ',
        'Arrows and Enter move between cells. A slip upstream is not held against you downstream: a cell that is right from ',
        'your own earlier numbers counts, and the hint names the cell that is off.',
      ),
      h(
        'div',
        { class: 'row no-print practice-controls' },
        e.start,
        h(
          'fieldset',
          { class: 'practice-math' },
          h('legend', {}, 'Maths'),
          h('label', {}, e.mathShortcuts, ' the sheet’s shortcuts'),
          h('label', {}, e.mathReal, ' real (÷√3, e^x)'),
        ),
        e.print,
      ),
      e.rules,
      e.message,
      e.sheet,
    );
    e.start.addEventListener('click', () => this.open(freshSeed(), this.math, { focus: true }));
    for (const radio of [e.mathShortcuts, e.mathReal]) radio.addEventListener('change', () => radio.checked && this.setMath(radio.value));
    e.show.addEventListener('click', () => {
      e.expected.hidden = false;
      e.show.hidden = true;
    });
    e.print.addEventListener('click', () => onPrint?.(this.seed, this.math));
    e.steps.addEventListener('change', (event) => event.target.matches('input[data-step]') && this.#checkAll(event.target));
    e.steps.addEventListener('keydown', (event) => this.#move(event));
    e.steps.addEventListener('focusin', (event) => event.target.matches('input[data-step]') && event.target.select());
    this.#showMath();
    if (this.seed !== null) this.open(this.seed, this.math);
  }

  /** Opens the exercise of `seed` in `math` ('shortcuts' | 'real'): blank cells, the seed in the URL. */
  async open(seed, math, { focus = false } = {}) {
    this.seed = seed;
    this.math = math;
    this.#writeURL();
    this.#showMath();
    this.root.dataset.exercise = String(seed);
    delete this.root.dataset.ready;
    try {
      this.core = await this.loadCore();
      if (this.seed !== seed) return; // a newer exercise was asked for meanwhile
      this.exercise = this.core.exercise(seed);
    } catch (err) {
      this.els.message.hidden = false;
      this.els.message.textContent = `The exercise could not be made: ${err.message}`;
      return;
    }
    this.els.message.hidden = true;
    this.#build();
    this.els.sheet.hidden = false;
    this.els.print.hidden = false;
    this.root.dataset.ready = `${seed}:${this.math}`;
    if (focus) this.els.steps.querySelector('input')?.focus();
  }

  /** Switches between the shortcuts and the real maths; the entries stay and are checked again. */
  setMath(math) {
    if (math === this.math) return;
    this.math = math;
    this.#writeURL();
    this.#showMath();
    if (!this.exercise) return;
    const typed = [...this.els.steps.querySelectorAll('input[data-step]')].map((i) => i.value);
    this.#build();
    this.#inputs().forEach((input, i) => (input.value = typed[i]));
    this.#checkAll(null);
    this.root.dataset.ready = `${this.seed}:${math}`;
  }

  #showMath() {
    this.els.mathShortcuts.checked = this.math === 'shortcuts';
    this.els.mathReal.checked = this.math === 'real';
    this.els.rules.textContent = RULES[this.math];
  }

  #writeURL() {
    const params = practiceParams(new URLSearchParams(location.search), { seed: this.seed, math: this.math });
    history.replaceState(history.state, '', `${location.pathname}?${params}${location.hash}`);
  }

  #inputs() {
    return [...this.els.steps.querySelectorAll('input[data-step]')];
  }

  /** The givens and one grid of inputs per step, as the core names and sizes them. */
  #build() {
    const { X, Wq, Wk, Wv, seed, code } = this.exercise;
    const e = this.els;
    e.meta.replaceChildren(
      'Exercise ',
      h('strong', {}, String(seed)),
      ' · code ',
      h('strong', {}, code),
      ' · ',
      this.math === 'real' ? 'real maths' : 'the sheet’s shortcuts',
    );
    const given = (m, caption, name, rowLabels, colLabels) => matrixTable(m, { caption, name, rowLabels, colLabels });
    e.givens.replaceChildren(
      given(X, 'X (given: 6 features × 4 tokens)', 'practice-X', FEATURES, TOKENS),
      given(Wq, 'W_Q (given)', 'practice-Wq', QK_ROWS, FEATURES),
      given(Wk, 'W_K (given)', 'practice-Wk', QK_ROWS, FEATURES),
      given(Wv, 'W_V (given)', 'practice-Wv', QK_ROWS, FEATURES),
    );
    this.steps = this.core.exerciseSteps({ math: this.math });
    e.steps.replaceChildren(...this.steps.map((s) => this.#stepGrid(s)));
    e.status.textContent = '';
    e.show.hidden = true;
    e.expected.hidden = true;
    this.total = this.steps.reduce((n, s) => n + s.rows * s.cols, 0);
    this.#progress(0, 0);
  }

  #stepGrid({ step, name, rows, cols }) {
    const rowLabels = ROW_LABELS[step] ?? TOKENS;
    const table = h(
      'table',
      { class: 'matrix practice-grid', 'data-name': `practice-${step}` },
      h('caption', {}, name),
      h('thead', {}, h('tr', {}, h('td', { class: 'corner' }), ...TOKENS.slice(0, cols).map((t) => h('th', { scope: 'col' }, t)))),
    );
    const body = h('tbody');
    for (let r = 0; r < rows; r++) {
      const tr = h('tr', {}, h('th', { scope: 'row' }, rowLabels[r]));
      for (let c = 0; c < cols; c++) {
        const id = `practice-${step}-${r}-${c}`;
        const mark = h('span', { class: 'mark', id: `${id}-mark` });
        const input = h('input', {
          type: 'text',
          id,
          autocomplete: 'off',
          spellcheck: 'false',
          'data-step': step,
          'data-row': r,
          'data-col': c,
          'aria-label': `${name}, row ${rowLabels[r]}, column ${TOKENS[c]}`,
          'aria-describedby': `${id}-mark`,
        });
        tr.append(h('td', {}, input, mark));
      }
      body.append(tr);
    }
    table.append(body);
    return h('div', { class: 'practice-step', 'data-step': step }, table);
  }

  /**
   * Checks every filled cell against the key and the learner's own entries (a changed cell can forgive
   * or blame the cells computed from it), and says the verdict of the cell just left (`left`).
   */
  #checkAll(left) {
    const cellOf = (input) => ({ step: input.dataset.step, row: Number(input.dataset.row), col: Number(input.dataset.col) });
    const filled = this.#inputs().filter((input) => input.value.trim() !== '');
    const entries = [];
    const unreadable = new Map();
    for (const input of filled) {
      try {
        entries.push({ ...cellOf(input), value: this.core.parseExerciseEntry(input.value) });
      } catch (err) {
        unreadable.set(input, err.message);
      }
    }
    let right = 0,
      forgiven = 0,
      said = null;
    for (const input of this.#inputs()) {
      if (!filled.includes(input)) {
        this.#mark(input, null);
        continue;
      }
      if (unreadable.has(input)) {
        this.#mark(input, 'unreadable');
        if (input === left) said = { verdict: 'unreadable', hint: unreadable.get(input) };
        continue;
      }
      const check = this.core.checkExerciseCell(this.exercise, cellOf(input), input.value, { math: this.math, entries });
      this.#mark(input, check.verdict);
      if (check.verdict !== 'wrong') right++;
      if (check.verdict === 'right-from-yours') forgiven++;
      if (input === left) said = check;
    }
    this.#progress(right, forgiven);
    if (left) this.#say(left, said);
    this.checks = (this.checks ?? 0) + 1;
    this.root.dataset.checked = String(this.checks);
  }

  #mark(input, verdict) {
    const mark = input.nextElementSibling;
    if (verdict === null) {
      input.removeAttribute('aria-invalid');
      input.parentElement.removeAttribute('data-verdict');
      mark.replaceChildren();
      return;
    }
    const { symbol, words } = MARKS[verdict];
    input.setAttribute('aria-invalid', String(verdict === 'wrong' || verdict === 'unreadable'));
    input.parentElement.dataset.verdict = verdict;
    mark.replaceChildren(h('span', { 'aria-hidden': 'true' }, symbol), h('span', { class: 'sr-only' }, words));
  }

  #progress(right, forgiven) {
    this.els.progress.replaceChildren(
      h('progress', { max: this.total, value: right, 'aria-hidden': 'true' }),
      ` ${right} of ${this.total} cells right`,
      forgiven ? ` (${forgiven} from your own numbers)` : '',
    );
    this.root.dataset.right = String(right);
  }

  /** The feedback for the cell just left, placed under its step. */
  #say(input, check) {
    const e = this.els;
    if (!check) {
      e.status.textContent = '';
      e.show.hidden = e.expected.hidden = true;
      return;
    }
    input.closest('.practice-step').append(e.feedback);
    const { symbol } = MARKS[check.verdict];
    e.status.textContent = `${symbol} ${check.hint}`;
    e.status.dataset.verdict = check.verdict;
    e.expected.hidden = true;
    if (check.verdict === 'unreadable' || check.verdict === 'right') {
      e.show.hidden = true;
      return;
    }
    e.show.hidden = false;
    const yours = check.expectedFromYours !== check.expected ? `; from your own numbers it is ${shown(check.expectedFromYours)}` : '';
    e.expected.textContent = `${check.cellName} = ${shown(check.expected)}${yours}.`;
  }

  /** Arrows move between cells (left and right once the caret is at the edge of the text); Enter to the next cell, Shift+Enter back. */
  #move(event) {
    const input = event.target;
    if (!input.matches('input[data-step]')) return;
    const all = this.#inputs();
    const i = all.indexOf(input);
    const step = input.dataset.step,
      row = Number(input.dataset.row),
      col = Number(input.dataset.col);
    let target = null;
    const atStart = input.selectionStart === 0 && input.selectionEnd === 0;
    const atEnd = input.selectionStart === input.value.length && input.selectionEnd === input.value.length;
    if (event.key === 'Enter') target = all[i + (event.shiftKey ? -1 : 1)];
    else if (event.key === 'ArrowLeft' && (atStart || input.value === '')) target = all[i - 1];
    else if (event.key === 'ArrowRight' && (atEnd || input.value === '')) target = all[i + 1];
    else if (event.key === 'ArrowUp' || event.key === 'ArrowDown') {
      const down = event.key === 'ArrowDown';
      const s = this.steps.findIndex((x) => x.step === step);
      const same = (st, r) => this.els.steps.querySelector(`#practice-${st}-${r}-${col}`);
      target = same(step, row + (down ? 1 : -1));
      if (!target) {
        const next = this.steps[s + (down ? 1 : -1)];
        if (next) target = same(next.step, down ? 0 : next.rows - 1);
      }
    } else return;
    event.preventDefault();
    if (target) target.focus();
  }
}

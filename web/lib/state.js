// The one state of a figure (and of the page's whole lesson): what the reader chose, as plain values,
// with its round trip through attributes (widget) and URL parameters (page): the same names either way.
//
//   sentence     the text; input: 'sentence' (word vectors of it) or 'seed003' (seed 003's 3×4 example)
//   sentence2    the compare view's second sentence (the same word, in another context)
//   source       'vectors' (attention computed from word vectors), 'encoder' (the trained encoder: every word
//                sees the whole sentence) or 'decoder' (the trained decoder: a word sees only the words before it);
//                'model', the decoder's old name, still reads as 'decoder'
//   blank        the encoder's hidden word (0-based; its run sees '[MASK]' there and guesses it), or null
//   view         one of views/registry.js's views (heatmap, lines, steps, heads, model: every layer × head of a
//                trained model, compare);  word: the selected query word, 0-based, or null
//   score        scaled (q·k/√d) | dot (q·k) | cosine (q·k/(|q||k|));  temperature 0.1–3;  mask none | causal
//   norm         rows | columns: which way the softmax normalises;  diagonal: apart (a word's weight on
//                itself is drawn hatched and left out of the colour scale) | scale (in the scale like any other)
//   heads, seed  heads of the multi-head views (1–8) and the seed of their random projections
//   layer, head  of the trained model (layer 0-based or 'rollout') or of imported attention
//   weights      the single head's projections: free (Q = K = V = X) | identity | random | seed (seed
//                003's own) | edited;  dk: their width;  bias: add b_Q, b_K, b_V
//   full         the walkthrough shows whole matrices;  tour: the guided tour's stop, or null
//   off          a trained model's parts switched off, 1-based, comma-separated: 'L.H' a head, 'L' a whole
//                layer's attention, 'positions' the positional encoding (e.g. '1.2,1.3'); '' for none
//   offMode      how a switched-off head is replaced: zero | mean | uniform (URL and attribute: off-mode)
//   units        a pieces model's maps: pieces (a row and column per piece, "sta", "##tion") | words (each
//                map merged to words by the core); offered only for a pieces model, the walkthrough stays on pieces
import { ROLLOUT, SOURCES, SOURCE_NAMES, isTrained } from './sources.js';
import { PAGE_SCORES } from './scores.js';
import { OFF_MODES, offList } from './switches.js';
import { VIEWS as VIEW_ENTRIES, isAvailable, viewNamed } from './views/registry.js';

export { ROLLOUT, SOURCES, SOURCE_NAMES, isTrained, OFF_MODES };
/** The views' names, in the View menu's order (views/registry.js). */
export const VIEWS = VIEW_ENTRIES.map((v) => v.name);
/** The second sentence when no view's opening (views/registry.js) gives one. */
const SENTENCE2 = VIEW_ENTRIES.find((v) => v.opening?.sentence2)?.opening.sentence2 ?? '';
/** The score functions the page offers: the core's table (scores.js), by name. */
export const SCORES = PAGE_SCORES.map((s) => s.name);
export const WEIGHT_MODES = ['free', 'identity', 'random', 'seed', 'edited'];
export const INPUTS = ['sentence', 'seed003'];
export const CONTROLS = ['sentence', 'source', 'view', 'heads', 'mask', 'word', 'temperature', 'options', 'share', 'export', 'import'];
export const THEMES = ['auto', 'light', 'dark'];
export const CHOICES = {
  view: VIEWS,
  offMode: OFF_MODES,
  units: ['pieces', 'words'],
  source: SOURCES,
  score: SCORES,
  mask: ['none', 'causal'],
  norm: ['rows', 'columns'],
  diagonal: ['apart', 'scale'],
  weights: WEIGHT_MODES,
  input: INPUTS,
};
export const STATE_KEYS = [
  'sentence',
  'sentence2',
  'input',
  'source',
  'view',
  'word',
  'score',
  'temperature',
  'mask',
  'norm',
  'diagonal',
  'heads',
  'seed',
  'layer',
  'head',
  'blank',
  'weights',
  'dk',
  'bias',
  'full',
  'tour',
  'off',
  'offMode',
  'units',
];
/** The URL parameter (and widget attribute) of a state key where the two differ: attributes are lower-case. */
const PARAMS = { offMode: 'off-mode' };
export const paramOf = (key) => PARAMS[key] ?? key;
/** The state key an attribute or URL parameter names (the inverse of paramOf). */
export const keyOf = (param) => Object.keys(PARAMS).find((key) => PARAMS[key] === param) ?? param;
/** Keys read for backward compatibility: scale=none meant score=dot; diagonal=hide/show predate apart/scale. */
export const LEGACY = { scale: 'score' };

export const DEFAULTS = Object.freeze({
  sentence: 'the train left the station on time',
  sentence2: SENTENCE2,
  input: 'sentence',
  source: 'vectors',
  view: 'heatmap',
  word: null,
  score: 'scaled',
  temperature: 1,
  mask: 'none',
  norm: 'rows',
  diagonal: 'apart',
  heads: 4,
  seed: 1,
  layer: 0,
  head: 0,
  blank: null,
  weights: 'free',
  dk: 4,
  bias: false,
  full: false,
  tour: null,
  off: '',
  offMode: 'zero',
  units: 'pieces',
});

const int = (v, lo, hi, fallback) => {
  const n = Number(v);
  return v !== null && v !== '' && Number.isInteger(n) && n >= lo && n <= hi ? n : fallback;
};
const flag = (v) => v === '1' || v === 'true' || v === 'yes';

/** One state value from its string form (attribute or URL parameter); out-of-range → default. */
export function parseValue(key, raw) {
  if (raw === null || raw === undefined) return DEFAULTS[key];
  if (key === 'source' && raw === 'model') return 'decoder'; // its name before the encoder came
  if (CHOICES[key]) return CHOICES[key].includes(raw) ? raw : key === 'diagonal' ? 'apart' : DEFAULTS[key];
  switch (key) {
    case 'sentence':
    case 'sentence2':
      return String(raw);
    case 'temperature': {
      const t = Number(raw);
      return raw !== '' && Number.isFinite(t) ? Math.min(3, Math.max(0.1, t)) : DEFAULTS.temperature;
    }
    case 'word':
    case 'blank':
      return int(raw, 0, 1023, null);
    case 'heads':
      return int(raw, 1, 8, DEFAULTS.heads);
    case 'seed':
      return int(raw, 0, 2 ** 31, DEFAULTS.seed);
    case 'layer':
      return raw === ROLLOUT ? ROLLOUT : int(raw, 0, 1023, 0);
    case 'head':
      return int(raw, 0, 1023, 0);
    case 'dk':
      return int(raw, 1, 16, DEFAULTS.dk);
    case 'bias':
    case 'full':
      return flag(raw);
    case 'tour':
      return int(raw, 0, 20, null);
    case 'off':
      return offList(raw);
    default:
      return undefined;
  }
}

/** A full state from URLSearchParams or attributes (anything with get(name)). */
export function fromParams(params) {
  const state = {};
  for (const key of STATE_KEYS) state[key] = parseValue(key, params.get(paramOf(key)));
  if (params.get('score') === null && params.get('scale') === 'none') state.score = 'dot';
  // A link to a view with an opening of its own (the compare view's pair) and no sentence opens on it.
  const opening = viewNamed(state.view).opening;
  if (opening && params.get('sentence') === null) {
    state.sentence = opening.sentence;
    if (params.get('word') === null) state.word = opening.word;
  }
  // Seed 003's example comes with its own weights and the article's unscaled scores unless the link says otherwise.
  if (state.input === 'seed003') {
    if (params.get('weights') === null) state.weights = 'seed';
    if (params.get('score') === null) state.score = 'dot';
  }
  return normalise(state);
}

/** The URL parameters that reproduce a state: the sentence and view always, the rest when not the default. */
export function toParams(state) {
  const p = new URLSearchParams();
  p.set('sentence', state.sentence);
  p.set('view', state.view);
  for (const key of STATE_KEYS) {
    if (key === 'sentence' || key === 'view') continue;
    const v = state[key];
    if (v === DEFAULTS[key] || v === null || v === undefined) continue;
    p.set(paramOf(key), key === 'temperature' ? String(Number(v.toFixed(2))) : typeof v === 'boolean' ? (v ? '1' : '0') : String(v));
  }
  return p;
}

/**
 * What a change implies for the rest of the state, so no combination is ever half-applied: a new
 * sentence forgets the selected word; seed 003's example comes with its own weights and unscaled
 * scores (as the article computes) and its first input selected; its weights mean nothing for a
 * sentence.
 */
export function apply(state, changes) {
  const next = { ...state, ...changes };
  if (changes.sentence !== undefined && changes.sentence !== state.sentence) {
    if (changes.word === undefined) next.word = null;
    if (changes.blank === undefined) next.blank = null;
    if (changes.input === undefined) next.input = 'sentence';
  }
  // A view with an opening of its own (the compare view's pair), chosen on the untouched default sentence, starts from it.
  const opening = changes.view !== undefined && changes.view !== state.view ? viewNamed(changes.view).opening : null;
  if (opening && next.sentence === DEFAULTS.sentence && changes.sentence === undefined) {
    Object.assign(next, { sentence: opening.sentence, word: changes.word ?? opening.word, input: 'sentence' });
  }
  // Pieces and words are different rows: the selected one means nothing in the other.
  if (changes.units !== undefined && changes.units !== state.units && changes.word === undefined) next.word = null;
  if (changes.input === 'seed003' && state.input !== 'seed003') {
    Object.assign(next, { weights: 'seed', score: 'dot', word: changes.word ?? 0, bias: false, source: 'vectors' });
  }
  return normalise(next);
}

/** Values that cannot go together, made consistent. */
export function normalise(state) {
  const s = { ...state };
  if (s.input === 'sentence' && s.weights === 'seed') s.weights = 'free';
  if (s.input === 'seed003' && isTrained(s.source)) s.input = 'sentence';
  if (s.source !== 'encoder') s.blank = null; // only the encoder fills a blank
  if (!isTrained(s.source)) s.off = ''; // only a trained model has parts to switch off
  if (!isTrained(s.source)) s.units = DEFAULTS.units; // only a trained model reads pieces
  // A view that cannot show this state (every layer × head without a trained model) gives way to the first view.
  if (!isAvailable(viewNamed(s.view), s)) s.view = DEFAULTS.view;
  if (s.source === 'model') s.source = 'decoder';
  return s;
}

/**
 * Which settings change what the view shows, per source: the sources' rule, then the view's own
 * (views/registry.js settings). The controls show these and hide the others; a view that cannot follow
 * a setting in force says so (figure/notes.js).
 */
export function settingsFor(state, imported = false) {
  const model = !imported && isTrained(state.source);
  const vectors = !imported && !model;
  const applies = {
    source: !imported,
    score: vectors,
    temperature: vectors,
    mask: vectors,
    norm: vectors,
    diagonal: true,
    heads: false,
    layer: model || Boolean(imported),
    head: (model || Boolean(imported)) && state.layer !== ROLLOUT,
    sentence2: false,
  };
  return viewNamed(state.view).settings?.(applies, state, { vectors, model, imported }) ?? applies;
}

/** Which controls to show, from "sentence view temperature", "all" or "none" (commas or spaces). */
export function parseControls(raw, fallback) {
  if (raw === null || raw === undefined) return new Set(fallback);
  const words = String(raw)
    .toLowerCase()
    .split(/[\s,]+/)
    .filter(Boolean);
  if (words.includes('all')) return new Set(CONTROLS);
  return new Set(words.filter((w) => CONTROLS.includes(w)));
}

// ---- by-hand practice (lib/byhand/practice.js): its own URL keys, not figure state ----------------------
// exercise: the practice sheet's seed (0 … 2³²−1), or absent; math: 'real' for ÷√3 and e^x, absent for the
// sheet's shortcuts. The page's URL writer (app.js) keeps them as they are.
/** The URL keys of the by-hand practice. */
export const PRACTICE_KEYS = ['exercise', 'math'];
/** { seed (a whole number, or null), math ('shortcuts' | 'real') } from URL parameters. */
export function practiceFromParams(params) {
  const raw = params.get('exercise');
  const seed = raw !== null && /^\d{1,10}$/.test(raw) && Number(raw) <= 0xffffffff ? Number(raw) : null;
  return { seed, math: params.get('math') === 'real' ? 'real' : 'shortcuts' };
}
/** `params` with the practice's keys set from { seed, math } (absent when null / the shortcuts). */
export function practiceParams(params, { seed, math }) {
  const p = new URLSearchParams(params);
  if (seed === null) p.delete('exercise');
  else p.set('exercise', String(seed));
  if (math === 'real') p.set('math', 'real');
  else p.delete('math');
  return p;
}

// A figure's state, as attributes (widget) or URL parameters (page): the same names either way.
//   sentence, view (heatmap | lines | steps | heads), heads (1–8), temperature (0.1–3),
//   mask (none | causal), word (selected query word, 0-based), layer, head (imported attention), seed,
//   scale (sqrt | none: divide the scores by √d or not), norm (rows | columns: which way the softmax
//   runs in the heatmap), diagonal (show | hide: grey out each word's weight on itself),
//   source (vectors | model: parameter-free attention over word vectors, or the trained language
//   model of data/model.bin). With the model, layer is 0-based or 'rollout' (attention rollout over
//   all layers) and head is 0-based.
export const VIEWS = ['heatmap', 'lines', 'steps', 'heads'];
export const VIEW_NAMES = { heatmap: 'Heatmap', lines: 'Lines', steps: 'Steps', heads: 'Heads' };
export const MASKS = ['none', 'causal'];
export const SOURCES = ['vectors', 'model'];
export const SOURCE_NAMES = { vectors: 'word vectors', model: 'trained model' };
/** The layer value that stands for the attention rollout over all of the model's layers. */
export const ROLLOUT = 'rollout';
export const CONTROLS = ['sentence', 'source', 'view', 'heads', 'mask', 'word', 'temperature', 'options', 'share', 'export', 'import'];
export const THEMES = ['auto', 'light', 'dark'];
export const STATE_KEYS = ['sentence', 'source', 'view', 'heads', 'temperature', 'mask', 'word', 'layer', 'head', 'seed', 'scale', 'norm', 'diagonal'];
export const CHOICES = { scale: ['sqrt', 'none'], norm: ['rows', 'columns'], diagonal: ['show', 'hide'] };

export const DEFAULTS = Object.freeze({
  sentence: 'the train left the station on time',
  source: 'vectors',
  view: 'heatmap',
  heads: 4,
  temperature: 1,
  mask: 'none',
  word: null,
  layer: 0,
  head: 0,
  seed: 1,
  scale: 'sqrt',
  norm: 'rows',
  diagonal: 'show',
});

const int = (v, lo, hi, fallback) => {
  const n = Number(v);
  return v !== null && v !== '' && Number.isInteger(n) && n >= lo && n <= hi ? n : fallback;
};

/** One state value from its string form (attribute or URL parameter); out-of-range → default. */
export function parseValue(key, raw) {
  if (raw === null || raw === undefined) return DEFAULTS[key];
  switch (key) {
    case 'sentence': return String(raw);
    case 'view': return VIEWS.includes(raw) ? raw : DEFAULTS.view;
    case 'heads': return int(raw, 1, 8, DEFAULTS.heads);
    case 'temperature': {
      const t = Number(raw);
      return raw !== '' && Number.isFinite(t) ? Math.min(3, Math.max(0.1, t)) : DEFAULTS.temperature;
    }
    case 'mask': return MASKS.includes(raw) ? raw : DEFAULTS.mask;
    case 'word': return int(raw, 0, 1023, null);
    case 'source': return SOURCES.includes(raw) ? raw : DEFAULTS.source;
    case 'layer': return raw === ROLLOUT ? ROLLOUT : int(raw, 0, 1023, 0);
    case 'head': return int(raw, 0, 1023, 0);
    case 'seed': return int(raw, 0, 2 ** 31, DEFAULTS.seed);
    case 'scale': case 'norm': case 'diagonal': return CHOICES[key].includes(raw) ? raw : DEFAULTS[key];
    default: return undefined;
  }
}

/** A full state from URLSearchParams (or anything with get(name)). */
export function fromParams(params) {
  const state = {};
  for (const key of STATE_KEYS) state[key] = parseValue(key, params.get(key));
  return state;
}

/** URL parameters that reproduce a state (source/layer/head/seed only when not the default). */
export function toParams(state) {
  const p = new URLSearchParams();
  p.set('sentence', state.sentence);
  if (state.source && state.source !== DEFAULTS.source) p.set('source', state.source);
  p.set('view', state.view);
  p.set('heads', String(state.heads));
  p.set('temperature', String(Number(state.temperature.toFixed(2))));
  p.set('mask', state.mask);
  if (state.word !== null && state.word !== undefined) p.set('word', String(state.word));
  for (const key of ['layer', 'head', 'seed', 'scale', 'norm', 'diagonal']) if (state[key] !== DEFAULTS[key]) p.set(key, String(state[key]));
  return p;
}

/** Which controls to show, from "sentence view temperature", "all" or "none" (commas or spaces). */
export function parseControls(raw, fallback) {
  if (raw === null || raw === undefined) return new Set(fallback);
  const words = String(raw).toLowerCase().split(/[\s,]+/).filter(Boolean);
  if (words.includes('all')) return new Set(CONTROLS);
  return new Set(words.filter((w) => CONTROLS.includes(w)));
}

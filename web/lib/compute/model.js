// The trained model's result (its run of the sentence, or of the sentence with a word hidden) and
// imported attention's. Part of the one computation (../compute.js).
import { ROLLOUT } from '../sources.js';
import { offParts } from '../switches.js';
import { finish, once, termsOf } from './parts.js';

// ---- the trained model -------------------------------------------------------------------------------
/**
 * What the model reads of the sentence: { text: the sentence, or its first `context` tokens when it
 * cannot read it all (they tokenise back to themselves), T: its token count, total: the sentence's
 * token count when cut, else null }.
 */
function fitted(sentence, core, model) {
  const tokens = core.tokenize(sentence);
  if (tokens.length <= model.context) return { text: sentence, T: tokens.length, total: null };
  return { text: tokens.slice(0, model.context).join(' '), T: model.context, total: tokens.length };
}

/**
 * How deep into the model's guesses a run with parts switched off (and its run without) look, so the
 * before → after line can say where a word went ("from 3rd to 41st"); past it, "below 200th".
 */
export const RANKED = 200;

/**
 * The state's switched-off parts that this model has, as the core's `off` option, or null for none:
 * { heads: [[layer, head]], layers, positions, mode } (0-based). Parts a model does not have (a link
 * made for a bigger one) are left out here, not refused: the notes say which are in force.
 */
export function interventionOf(state, model) {
  const parts = offParts(state.off);
  const heads = parts.heads.filter(([l, h]) => l < model.layers && h < model.heads);
  const layers = parts.layers.filter((l) => l < model.layers);
  if (!heads.length && !layers.length && !parts.positions) return null;
  return { heads, layers, positions: parts.positions, mode: state.offMode };
}

/** The guesses the figure lists: the encoder's for its blank, the decoder's next words. */
const guessesOf = (run, filled) => (filled ? filled.guesses : run.predictions);

export function modelResult(state, { core, model }, key) {
  const encoder = model.kind === 'encoder';
  let run,
    blank = null;
  const { text, T, total } = fitted(state.sentence, core, model);
  const off = interventionOf(state, model);
  // With parts switched off the model also runs whole (its guesses only), so the guesses show before → after.
  const top = off ? RANKED : 5;
  let before = null;
  if (encoder && state.blank !== null) {
    // Fill the blank: the word at state.blank becomes [MASK]; that run's attention is what is drawn.
    const position = Math.min(state.blank, T - 1);
    const filled = model.fill(text, position, { top, off });
    run = filled.run;
    blank = { position, word: filled.tokens[position].text, guesses: filled.guesses.slice(0, 5), ranked: filled.guesses };
    if (off) before = model.fill(text, position, { top, keep: [] }).guesses;
  } else {
    run = model.run(text, { top, off });
    if (off) before = model.run(text, { top, keep: [] }).predictions;
  }
  const ranked = guessesOf(run, blank && { guesses: blank.ranked });
  if (!encoder) run.predictions = ranked.slice(0, 5);
  const L = run.layers.length,
    H = run.layers[0].heads.length;
  const rollout = state.layer === ROLLOUT;
  // The rollout has no queries or keys of its own: the single-head views show the last layer's head.
  const layer = rollout ? L - 1 : Math.min(state.layer, L - 1);
  const head = Math.min(state.head, H - 1);
  const steps = run.layers[layer].heads[head];
  const learnt = new Map();
  const weightsOf = (l) => (learnt.has(l) ? learnt.get(l) : learnt.set(l, model.attentionWeights(l)).get(l));
  const result = {
    key,
    kind: 'model',
    tokens: run.tokens,
    total,
    cap: model.context,
    X: layer === 0 ? run.input : run.layers[layer - 1].output,
    d: model.dModel,
    projection: { mode: 'learnt', W: null, dk: steps.Q.cols, dv: steps.V.cols },
    steps,
    weights: steps.weights,
    output: steps.output,
    shown: rollout ? run.rollout : steps.weights,
    score: 'scaled',
    norm: 'rows',
    divisor: `√${steps.Q.cols}`,
    scaleDivisor: Math.sqrt(steps.Q.cols),
    temperature: 1,
    causal: !encoder,
    model: {
      run,
      kind: model.kind,
      blank,
      layer,
      head,
      rollout,
      layers: L,
      heads: H,
      context: model.context,
      info: model,
      learnt: weightsOf,
      // The parts switched off (null: none), and the guesses of the whole model and of this one, deep
      // enough to rank a word before and after (RANKED); guesses still lists the top 5 of this run.
      off,
      offMode: state.offMode,
      ranked: { before, after: off ? ranked : null },
      // Which heads matter here: every head switched off in turn (on top of `off`), in one core call, on first use.
      effects: once(() =>
        model.kind === 'encoder' && !blank
          ? null
          : model.headEffects(text, { position: blank?.position, off: off ?? undefined, mode: state.offMode }),
      ),
    },
  };
  result.terms = termsOf(core, result);
  result.heads = () => {
    const layers = rollout ? run.layers.map((_, l) => l) : [layer];
    const shown = run.layers[layer];
    return {
      maps: layers.flatMap((l) =>
        run.layers[l].heads.map((h, k) => ({
          weights: h.weights,
          title: `layer ${l + 1} · head ${k + 1}`,
          caption: run.captions[l]?.[k],
          layer: l,
          head: k,
        })),
      ),
      steps: shown.heads,
      concat: shown.concat,
      output: shown.multiHeadOutput,
      afterAttention: shown.afterAttention,
      dk: steps.Q.cols,
      learnt: true,
      layer,
    };
  };
  return finish(result);
}

// ---- imported attention ------------------------------------------------------------------------------
export function importedResult(state, imported, key) {
  const layer = Math.min(typeof state.layer === 'number' ? state.layer : 0, imported.layers - 1);
  const head = Math.min(state.head, imported.heads - 1);
  const result = {
    key,
    kind: 'imported',
    tokens: imported.tokens,
    total: null,
    cap: imported.tokens.length,
    X: null,
    d: null,
    projection: null,
    steps: null,
    weights: imported.attentions[layer][head],
    output: null,
    score: null,
    norm: 'rows',
    imported: { layers: imported.layers, heads: imported.heads, layer, head },
    terms: () => null,
  };
  result.heads = () => ({
    maps: imported.attentions[layer].map((weights, k) => ({ weights, title: `head ${k + 1}`, head: k })),
    learnt: true,
  });
  return finish(result);
}

// The trained model's result (its run of the sentence, or of the sentence with a word hidden) and
// imported attention's. Part of the one computation (../compute.js).
import { AttentionError } from '../loader.js';
import { ROLLOUT } from '../sources.js';
import { offParts } from '../switches.js';
import { finish, once, termsOf } from './parts.js';

// ---- the trained model -------------------------------------------------------------------------------
// The model reads the sentence cut to its context, at a whole word, in the same core call as its run
// (run's and fill's `fit`): a words model counts words, a pieces model pieces. A pieces model's run also
// brings every map merged to words (`wordLevel`), for units=words.

/** The bare word-start piece "▁" has an empty label; it is drawn as the mark itself so it can be seen. */
export const BARE_PIECE = '▁';
/** Tokens as the views label them: a piece by its BertViz label ("sta", "##tion"), the bare piece as "▁". */
export const labelled = (tokens) => tokens.map((t) => (t.text === '' ? { ...t, text: BARE_PIECE } : t));

/** A word from its pieces' labels ("sta", "##tion" → "station"; byte pieces "<0xE2>" decoded as UTF-8). */
export function joinPieces(labels) {
  const bytes = [];
  const utf8 = new TextEncoder();
  for (const label of labels) {
    const byte = /^<0x([0-9A-F]{2})>$/.exec(label);
    if (byte) bytes.push(parseInt(byte[1], 16));
    else bytes.push(...utf8.encode(label.startsWith('##') ? label.slice(2) : label));
  }
  // Byte pieces may spell the word-start mark itself: a word never starts with it (the core's decode_word).
  return new TextDecoder().decode(new Uint8Array(bytes)).replace(/^▁/, '');
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
  const pieces = model.vocabulary === 'pieces';
  let run,
    blank = null,
    fitted;
  const off = interventionOf(state, model);
  // With parts switched off the model also runs whole (its guesses only), so the guesses show before → after.
  const top = off ? RANKED : 5;
  const options = { top, off, fit: true, wordLevel: pieces };
  let before = null;
  if (encoder && state.blank !== null) {
    // Fill the blank: the word state.blank (a word, all its pieces) becomes [MASK]; that run's attention is drawn.
    const filled = model.fill(state.sentence, state.blank, options);
    ({ run, fitted } = filled);
    const position = filled.position;
    const written = labelled(filled.tokens);
    blank = {
      position,
      masked: filled.masked,
      tokens: written,
      word: pieces ? joinPieces(filled.masked.map((t) => filled.tokens[t].text)) : filled.tokens[position].text,
      guesses: filled.guesses.slice(0, 5),
      ranked: filled.guesses,
    };
    if (off) before = model.fill(fitted.text, position, { top, keep: [] }).guesses;
  } else {
    run = model.run(state.sentence, options);
    fitted = run.fitted;
    if (off) before = model.run(fitted.text, { top, keep: [] }).predictions;
  }
  const text = fitted.text,
    cut = fitted.cut;
  run.tokens = labelled(run.tokens);
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
    // Cut: the sentence's tokens and the ones read (a words model: the context); a pieces model's in pieces, with its words.
    total: cut ? cut.totalPieces : null,
    cap: cut ? cut.pieces : model.context,
    cut: cut && pieces ? cut : null,
    vocabulary: model.vocabulary,
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
      // A model the core cannot rank heads for yet (a pieces encoder, whose blank is several pieces) says
      // why in { unavailable }, and the figure shows no ranking.
      effects: once(() => {
        if (model.kind === 'encoder' && !blank) return null;
        try {
          return model.headEffects(text, { position: blank?.position, off: off ?? undefined, mode: state.offMode });
        } catch (err) {
          if (!(err instanceof AttentionError)) throw err;
          return { unavailable: err.message };
        }
      }),
    },
  };
  result.terms = termsOf(core, result);
  if (pieces) result.wordLevel = wordLevelOf(result, run.wordMaps);
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

/**
 * A pieces model's result as words (units=words): the same result with the words as its tokens and every
 * map, the rollout too, merged by the core in the run's own call (wordMaps: the sum over a word's pieces
 * as keys, the mean over its own pieces as queries). It has no steps: the walkthrough stays on pieces.
 */
function wordLevelOf(result, maps) {
  const m = result.model,
    run = m.run;
  const tokens = maps.labels.map((text, w) => ({ text, lookup: 'known', matched: text, id: -1, word: w }));
  const weights = maps.heads[m.layer][m.head];
  // The run as words: each head's weights and the rollout merged; its guesses and captions as they are.
  const wordRun = {
    ...run,
    tokens,
    layers: run.layers.map((layer, l) => ({ ...layer, heads: layer.heads.map((_, k) => ({ weights: maps.heads[l][k] })) })),
    rollout: maps.rollout,
  };
  const words = {
    ...result,
    units: 'words',
    tokens,
    X: null,
    steps: null,
    weights,
    output: null,
    shown: m.rollout ? maps.rollout : weights,
    terms: () => null,
    model: { ...m, run: wordRun, blank: m.blank && { ...m.blank, masked: [m.blank.position] } },
    pieces: result,
  };
  words.heads = () => {
    const layers = m.rollout ? run.layers.map((_, l) => l) : [m.layer];
    return {
      maps: layers.flatMap((l) =>
        maps.heads[l].map((w, k) => ({
          weights: w,
          title: `layer ${l + 1} · head ${k + 1}`,
          caption: run.captions[l]?.[k],
          layer: l,
          head: k,
        })),
      ),
      learnt: true,
      layer: m.layer,
    };
  };
  return finish(words);
}

/**
 * What a view draws: with units=words, a pieces model's word-level result (wordLevelOf), except in a view
 * that stays on pieces (views/registry.js units: 'pieces', the steps); otherwise the result itself.
 */
export function unitsOf(state, result, view) {
  return state.units === 'words' && result?.wordLevel && view?.units !== 'pieces' ? result.wordLevel : result;
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

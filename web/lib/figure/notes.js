// The figure's words, computed from its numbers: the story line (who the selected word looks at most),
// one line per setting in force saying what it changes (and, where a view cannot follow it, that it
// does not), a note per word outside the vocabulary, and the title and caption an export carries.
// (The trained model's guesses are guesses.js's.)
import { h } from '../dom.js';
import { wordOf } from '../compute.js';
import { count, num } from '../format.js';
import { ROLLOUT, isTrained, settingsFor } from '../state.js';
import { scoreWords } from '../scores.js';
import { viewNamed } from '../views/registry.js';
import { named, strongest, weight, wordLabels } from '../words.js';
import { describeOff, headIsOff, layerIsOff } from '../switches.js';
import { WORD_RULE } from '../export-json.js';
import { BARE_PIECE } from '../compute/model.js';

/**
 * The story line of what the view draws: the view's own (views/registry.js story), else one sentence
 * about the selected word, from the numbers drawn: "“train” looks most at “station” (0.21), after itself (0.39)."
 * extra: the view's extra numbers (the compare view's comparison).
 */
export function storyOf(state, result, extra) {
  if (!result?.ok) return '';
  const own = viewNamed(state.view).story;
  return own ? own(state, result, extra) : wordStory(state, result);
}

function wordStory(state, result) {
  const i = wordOf(state, result),
    m = result.shown,
    t = result.tokens;
  // A pieces model's pieces also name their word (words.js).
  const words = wordLabels(result);
  const name = (tokens, k) => named(tokens, k, words);
  if (result.T === 1) return `${name(t, 0)} is the only word: it can look only at itself (weight ${weight(m.data[0])}).`;
  const byColumn = result.norm === 'columns';
  const { k, w, self } = strongest(m, i, byColumn);
  if (w <= 0) return `${name(t, i)} can look only at itself here (weight ${weight(self)}): the causal mask hides every later word.`;
  const after = self > w ? `, after itself (${weight(self)})` : `; on itself ${weight(self)}`;
  const rollout = result.kind === 'model' && result.model.rollout;
  if (byColumn) return `Down the column of the key ${name(t, i)}: the query that takes most of it is ${name(t, k)} (${weight(w)})${after}.`;
  const verb = rollout ? 'draws most, through every layer, on' : 'looks most at';
  let line = `${name(t, i)} ${verb} ${name(t, k)} (${weight(w)})${after}.`;
  const back = strongest(m, k, false);
  if (back.k === i && back.w > 0 && !rollout) line += ` ${name(t, k)} looks most at ${name(t, i)} in turn (${weight(back.w)}).`;
  return line;
}

/**
 * What is switched off, and what that does to what this view draws: a switched-off head's map still
 * shows the weights it computed (zero, mean) or the even spread it now uses (uniform); later layers,
 * the rollout and the guesses are the changed model's.
 */
function offNote(result) {
  const { off, offMode, layer, head, rollout } = result.model;
  const shownOff = !rollout && (headIsOff(off, layer, head) || layerIsOff(off, layer));
  const replaced = {
    zero: 'its output is replaced by zeros',
    mean: 'its output is replaced by its mean over the words',
    uniform: 'it attends evenly',
  }[offMode];
  return [
    `Switched off: ${describeOff(off)}${off.heads.length ? ` (a head off: ${replaced})` : ''}.`,
    shownOff
      ? `The head shown here is switched off: ${offMode === 'uniform' && !layerIsOff(off, layer) ? 'its map is the even spread it now uses' : 'its map shows the weights it computed, which no longer reach the rest of the model'}.`
      : '',
    'Every later layer, the rollout and the guesses are those of the model without it.',
  ]
    .filter(Boolean)
    .join(' ');
}

/**
 * What a pieces model's rows are: its pieces the BertViz way, or (units=words) its words with the rule
 * that merged them; a view that stays on pieces (the steps) says so.
 */
function piecesNote(state, result, view) {
  if (result.units === 'words') return `${WORD_RULE[0].toUpperCase()}${WORD_RULE.slice(1)}.`;
  const pieces = `The model reads subword pieces: “##” marks a piece that continues a word, “${BARE_PIECE}” a word’s bare start.`;
  if (state.units === 'words' && view.units === 'pieces')
    return `${pieces} This view stays on pieces: its numbers are one piece’s, which a word-level map only averages.`;
  return `${pieces} Choose units: words to see each map merged to words.`;
}

/** One line per setting in force, saying what the figure now shows (or that this view cannot show it). */
export function optionNotes(state, result, { imported }) {
  const lines = [];
  if (!result?.ok) return lines;
  const view = viewNamed(state.view);
  if (imported) {
    lines.push('Imported attention: the weights of a real model, drawn as they are. Score, temperature and mask do not apply.');
    return lines;
  }
  if (result.kind === 'model') {
    const encoder = result.model.kind === 'encoder';
    lines.push(
      encoder
        ? 'Encoder: each word attends to the whole sentence, the words after it as well as before, so a word can look ahead (trained to fill in a hidden word).'
        : state.layer === ROLLOUT && !view.drawsHeads
          ? 'Decoder: each word draws only on itself and the words before it, through every layer, so the rollout is zero above the diagonal (trained to predict the next word).'
          : 'Decoder: each word attends only to itself and the words before it, so the weights are zero above the diagonal: a word cannot look ahead (trained to predict the next word).',
    );
    if (result.vocabulary === 'pieces') lines.push(piecesNote(state, result, view));
    const blank = result.model.blank;
    if (blank) {
      const pieces = blank.masked.length > 1,
        several = pieces && result.units !== 'words';
      // Measured (model/README.md): each hidden piece is guessed on its own, so whole words of several pieces
      // are guessed far less well than words of one piece; the reader should know before judging the list.
      lines.push(
        `Word ${blank.position + 1} (“${blank.word}”${several ? `, ${blank.masked.length} pieces` : ''}) is hidden: the encoder reads [MASK] ${several ? 'in place of each of its pieces' : 'there'}, and the maps show that run’s attention, the one behind its guesses.` +
          (pieces
            ? ` It guesses each hidden piece on its own and lists the real spellings of ${blank.masked.length} pieces they make together, so its guesses for a word of several pieces are much weaker than for a word of one piece.`
            : ''),
      );
    }
    if (result.model.off) lines.push(offNote(result));
    lines.push(
      `The trained ${result.model.kind} fixes its own attention: its learnt W_Q, W_K, W_V, scores ÷ √d_k = √${result.projection.dk}, temperature 1${encoder ? ', no mask' : ', a causal mask'} and a softmax along each row. The word-vector settings are hidden while it is shown.`,
    );
    return lines;
  }
  if (result.kind === 'seed003')
    lines.push(
      'Seed 003’s worked example: three inputs of four numbers, its own W_Q, W_K, W_V (walkthrough step 2) and, as in the article, unscaled dot-product scores unless you choose another score.',
    );
  else if (result.projection.mode !== 'free' && !view.drawsHeads) {
    const mode = { identity: 'identity', random: `random (Xavier, seed ${state.seed})`, edited: 'edited by hand' }[result.projection.mode];
    lines.push(`Q, K and V come from the walkthrough’s weights: ${mode}, d_k = ${result.projection.dk} (step 2 below).`);
  }
  const scoreNote = scoreWords(state.score).note;
  if (scoreNote) lines.push(scoreNote);
  if (state.mask === 'causal')
    lines.push('Causal mask: each word sees only itself and the words before it (later words get −∞, weight 0).');
  const applies = settingsFor(state, imported);
  if (state.norm === 'columns') {
    lines.push(
      applies.norm
        ? 'Softmax down each column: read a column to see how one key word’s attention is shared out among the queries; rows no longer sum to 1.'
        : 'Softmax along columns applies to the single-head views; the heads below use the usual row softmax.',
    );
  }
  lines.push(...(view.notes?.(state, result) ?? []));
  if (
    state.diagonal === 'apart' &&
    applies.diagonal &&
    !view.drawsHeads &&
    result.kind === 'vectors' &&
    result.projection.mode === 'free'
  ) {
    lines.push(
      'A word’s weight on itself is hatched and left out of the colour scale: without learned weights a word matches itself most (x·x = |x|², and x·y ≤ |x||y|), which would drown every other link.',
    );
  }
  return lines;
}

/** How many of a composed word's pieces its note names before "…". */
const PIECES_SHOWN = 8;

/**
 * The note of a word whose vector fastText's character n-grams composed (lookup 'composed'). Its pieces
 * come in fastText's order (by start, then length); the note names the shortest first ("mur, urp, …"),
 * which read as the word spelled out.
 */
function composedNote(t) {
  const pieces = t.pieces ?? [];
  const ordered = [...pieces].sort((a, b) => [...a].length - [...b].length);
  const named = ordered.slice(0, PIECES_SHOWN).join(', ') + (pieces.length > PIECES_SHOWN ? ', …' : '');
  // A word none of whose n-grams fastText trained is spelled out from its letters (not fastText's vector);
  // otherwise the mean over all its n-grams, the untrained ones as zeros, as fastText composes it.
  const how = t.spelled
    ? `spelled out from its letters: ${named} (none of its character n-grams was trained, so it takes the mean of its letters’ vectors, not fastText’s).`
    : t.found
      ? `composed from its pieces: ${named} (${t.found.length} of its ${pieces.length} character n-grams were trained; the mean of all ${pieces.length}, the untrained ones as zeros, as fastText composes a word it never saw).`
      : `composed from its pieces: ${named} (the mean of ${pieces.length} character n-grams’ vectors, as fastText composes a word it never saw).`;
  return t.matched !== t.text
    ? ` is not in the vocabulary: it uses the vector of ‘${t.matched}’, ${how}`
    : ` is not in the vocabulary: its vector is ${how}`;
}

/** A note per word outside the vocabulary: how the source looked it up (stemmed, composed or unknown). */
export function writeWordNotes(list, result) {
  const seen = new Set(),
    items = [];
  const model = result?.kind === 'model';
  for (const t of result?.ok ? result.tokens : []) {
    if (!t.lookup || t.lookup === 'known' || seen.has(t.text)) continue;
    seen.add(t.text);
    const what =
      t.lookup === 'composed'
        ? composedNote(t)
        : t.lookup === 'unknown'
          ? model
            ? ' is not in the model’s vocabulary: it reads the unknown-word token <unk>, as it did for rare words in training.'
            : ' is not in the vocabulary: it uses a zero vector, so it attends evenly to every word.'
          : model
            ? ` is not in the model’s vocabulary: it reads ‘${t.matched}’.`
            : ` is not in the vocabulary: it uses the vector of ‘${t.matched}’.`;
    items.push(h('li', {}, h('span', { class: `token ${t.lookup}` }, `‘${t.text}’`), what));
  }
  list.replaceChildren(...items);
}

/**
 * What an export says about itself, so a pasted SVG or PNG needs no caption by hand: { title, sentence,
 * caption: lines naming the source (layer and head; each trained head's measured caption), the settings
 * in force and the story line, notes: optionNotes' lines }.
 */
export function captionOf(state, result, { imported, extra }) {
  const view = viewNamed(state.view),
    t = result.tokens,
    m = result.model;
  const heads = view.drawnHeads?.(state, result) ?? null;
  const title = view.title?.(state, result, named(t, wordOf(state, result))) ?? 'Self-attention weights';
  let source;
  if (imported) {
    const { layer, layers, head, heads: H } = result.imported;
    source = `Imported attention (a real model’s weights), layer ${layer + 1} of ${layers}, ${heads ? `all ${H} heads` : `head ${head + 1} of ${H}`}.`;
  } else if (m) {
    const which = heads
      ? m.rollout
        ? `every head of all ${m.layers} layers`
        : `layer ${m.layer + 1}, all ${m.heads} heads`
      : m.rollout
        ? `attention rollout through all ${m.layers} layers`
        : `layer ${m.layer + 1}, head ${m.head + 1} (${m.run.captions[m.layer]?.[m.head] ?? 'no caption'})`;
    source = `The trained ${m.layers}-layer, ${m.heads}-head ${m.kind === 'encoder' ? 'encoder (every word sees the whole sentence)' : 'decoder (each word sees only the words before it)'}, ${which}.`;
    if (m.off)
      source += ` ${describeOff(m.off)[0].toUpperCase()}${describeOff(m.off).slice(1)} switched off${m.off.heads.length ? `, ${m.offMode}` : ''}.`;
  } else {
    const mode = result.projection.mode;
    source = `${result.kind === 'seed003' ? 'Seed 003’s worked example, 3 inputs of 4 numbers' : `${result.d}-d word vectors (fastText on WordNet)`}, ${
      heads
        ? `${heads.maps.length} random heads (seed ${state.seed}, d_k = ${heads.dk})`
        : mode === 'free'
          ? 'no learned weights (Q = K = V = X)'
          : `${{ identity: 'identity', random: `random (seed ${state.seed})`, seed: 'its own', edited: 'hand-edited' }[mode]} W_Q, W_K, W_V (d_k = ${result.projection.dk})`
    }.`;
  }
  const applies = settingsFor(state, imported),
    settings = [];
  if (applies.score)
    settings.push(
      `Score: ${scoreWords(state.score).label}`,
      `temperature ${state.temperature.toFixed(2)}`,
      state.mask === 'causal' ? 'causal mask' : 'no mask',
    );
  if (applies.norm) settings.push(`softmax along ${state.norm}`);
  const caption = [
    source,
    ...(heads?.maps ?? []).filter((x) => x.caption).map((x) => `${x.title[0].toUpperCase()}${x.title.slice(1)}: ${x.caption}.`),
    settings.length ? `${settings.join('; ')}.` : '',
    heads ? '' : storyOf(state, result, extra),
    result.cut
      ? `The text has ${count(result.cut.totalWords)} words (${count(result.cut.totalPieces)} pieces); the figure shows the first ${count(result.cut.words)} words (${count(result.cut.pieces)} pieces).`
      : result.total
        ? `The text has ${count(result.total)} tokens; the figure shows the first ${count(result.cap)}.`
        : '',
  ].filter(Boolean);
  const sentence =
    imported || result.kind === 'seed003' ? t.map((x) => x.text).join(' ') : (view.captionSentence?.(state) ?? state.sentence);
  return { title, sentence, caption, notes: optionNotes(state, result, { imported }) };
}

/** The status line: what the figure's source is, or what is still loading. */
export function statusOf(state, s) {
  if (s.imported) return '';
  if (isTrained(state.source)) {
    const lm = s.trained[state.source]?.model,
      name = `Trained ${state.source}`;
    return lm
      ? `${name}: ${count(lm.vocabularySize)}-${lm.vocabulary === 'pieces' ? 'piece' : 'word'} vocabulary, ${lm.layers} layers × ${lm.heads} heads, d_model ${lm.dModel}, context ${lm.context} ${lm.vocabulary === 'pieces' ? 'pieces' : 'tokens'}.`
      : s.trainedError[state.source]
        ? `${name} not loaded.`
        : `Loading the trained ${state.source}…`;
  }
  return s.vectors
    ? s.vectorsPartial
      ? `Word vectors: ${count(s.vectors.size)} words loaded (the most frequent and this text’s; the rest when a view needs them), ${s.vectors.dim} dimensions each.`
      : `Vocabulary: ${count(s.vectors.size)} words, ${s.vectors.dim} dimensions each.`
    : s.vectorsError
      ? 'Not loaded.'
      : s.core
        ? 'Loading the word vectors…'
        : 'Loading the attention core…';
}

/** What stands in for a figure that cannot be drawn: loading, no words, or what went wrong (and how to retry). */
export function problemOf(result, state) {
  if (!result) return 'Loading…';
  if (result.kind === 'loading' && isTrained(state.source)) return `Loading the trained ${state.source} (under 1 MB, once)…`;
  if (result.loadFailed)
    return `${result.message} ${isTrained(state.source) ? `Choose “word vectors”, or choose the trained ${state.source} again to retry.` : 'Reload the page to try again.'}`;
  return result.message;
}

/** A note above a drawn figure: the text was cut to what the figure (or the model) reads, or the whole table could not load; else ''. */
export function cutNote(state, shown, sources) {
  const cut = shown.cut;
  if (cut)
    return `That is ${count(cut.totalWords)} words (${count(cut.totalPieces)} pieces); the trained ${shown.model.kind} reads at most ${count(shown.model.context)} pieces, so the figure shows the first ${count(cut.words)} words (${count(cut.pieces)} pieces).`;
  if (shown.total)
    return `That is ${count(shown.total)} tokens; ${shown.kind === 'model' ? `the trained ${shown.model.kind} reads at most ${shown.cap}, so the figure shows the first ${shown.cap}` : `the figure shows the first ${count(shown.cap)}`}.`;
  if (sources.vectorsError && sources.vectorsPartial && !isTrained(state.source))
    return `Could not load the whole word-vector table (${sources.vectorsError.message}). The figure draws from the word vectors loaded so far (the examples’ and the most frequent words); reload the page to get the rest.`;
  return '';
}

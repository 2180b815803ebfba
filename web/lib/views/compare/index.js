// The compare view: one word in two sentences (the second is the state's sentence2). Its numbers are
// the same computation run on the second sentence, the word's nearest words before and after
// attention, and the difference of the two weight matrices (comparison.js); view.js draws them.
import { isTrained } from '../../sources.js';
import { matrixRows } from '../../export-json.js';
import { wordRowsHeight } from '../embed-height.js';
import { compareLine, compareOf } from './comparison.js';
import { CompareView } from './view.js';

/**
 * One word ("bank"), two meanings: where a link to the view without a sentence of its own opens. The word
 * is a token index, and every source reads "bank" as the seventh token: each word before it is one piece
 * of the trained models' vocabulary too (tests/web/compare.test.mjs holds it to that).
 */
const OPENING = Object.freeze({
  sentence: 'he put his money in the bank',
  sentence2: 'the boat drifted to the bank of the river',
  word: 6,
});

const nearestWords = (list) => list?.words.map(({ word, similarity }) => ({ word, similarity })) ?? null;

export default {
  name: 'compare',
  label: 'Compare',
  hint: 'Each sentence: the word’s attention as bars, and its nearest words before and after attention. Two sentences of as many words also get a difference map: hover or tap it to read a cell.',
  View: CompareView,
  // The word's row, and its output row A(i) for the nearest words after attention.
  draws: ['weights', 'output'],
  // At 600 px the two sides stack (a bar per word and two lists each) above the difference map of two
  // sentences of the same length: 1,851 px at seven words, 2,520 at 21 (measured).
  embedHeight: wordRowsHeight(1880, 50),
  opening: OPENING,
  settings: (applies) => ({ ...applies, diagonal: false, sentence2: true }),
  guesses: false,
  // Its second sentence is computed piece by piece (extra, from the store's result): both stay on pieces.
  units: 'pieces',
  /** The second sentence's numbers and the comparison (comparison.js); none for imported attention. */
  extra: (state, sources, result, previous) => (sources.imported ? null : compareOf(state, sources, result, previous)),
  // The nearest words search the whole word-vector table.
  needsWholeTable: (state, { imported }) => !isTrained(state.source) && !imported,
  story: (state, result, comparison) => compareLine(comparison),
  title: (state, result, named) => `One word in two sentences: ${named}`,
  captionSentence: (state) => `${state.sentence} / ${state.sentence2}`,
  /** Both sentences' weights (as drawn), the word compared, its nearest words before and after, the difference. */
  json(base, result, state, c) {
    if (!c?.ok) return base;
    return {
      tokens: base.tokens,
      attentions: [[matrixRows(c.first.shown)]],
      compare: {
        sentence2: state.sentence2,
        tokens2: c.second.tokens.map((t) => t.text),
        attentions2: [[matrixRows(c.second.shown)]],
        word: c.text,
        index: c.i,
        index2: c.j,
        nearest: c.after ? { before: c.before.map(nearestWords), after: c.after.map(nearestWords) } : null,
        difference: c.difference ? matrixRows(c.difference) : null,
      },
      source:
        'the same word in two sentences: parameter-free attention over word vectors, nearest words by cosine similarity over the whole table',
      settings: {
        sentence: state.sentence,
        sentence2: state.sentence2,
        score: state.score,
        temperature: state.temperature,
        mask: state.mask,
        norm: state.norm,
      },
    };
  },
};

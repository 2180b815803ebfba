// The page's words for each score function of the core's one table (wasm/attention.js SCORES, the
// core's attn::Score): the menu's label, the symbols the steps, formula and walkthrough write, and the
// note when it is chosen. The menu offers the core's scores that need no learnt weights and have words
// here; whether a score is divided (√d) the core decides (result.scaleDivisor). Adding a score: the
// core, its SCORES entry, and its words here.
import { SCORES as CORE_SCORES } from '#attention-core';

const WORDS = {
  scaled: {
    label: 'scaled dot q·k/√d',
    symbol: 'q·k',
    note: '',
    formulaNote: '',
  },
  dot: {
    label: 'dot q·k',
    symbol: 'q·k',
    note: 'Scores are not divided by √d: the softmax sees the raw dot products, so it is much sharper.',
    formulaNote: 'Raw dot products, not divided.',
  },
  cosine: {
    label: 'cosine',
    symbol: 'cos(q, k)',
    byLengths: true, // each dot product divided by both vectors' lengths
    note: 'Cosine scores divide each dot product by both vectors’ lengths: every score lies between −1 and 1 and a word matches itself exactly 1, so the softmax is much flatter. Lower the temperature to sharpen it.',
    formulaNote: 'cos divides each dot product by both lengths.',
  },
};

/** The page's scores, in the core's order: { name, label, symbol, byLengths, note, formulaNote }. */
export const PAGE_SCORES = Object.freeze(
  CORE_SCORES.filter((s) => s.parameterFree && WORDS[s.name]).map((s) =>
    Object.freeze({ name: s.name, byLengths: false, ...WORDS[s.name] }),
  ),
);

/** The page's words for a score name (the first score's for a name it does not know). */
export const scoreWords = (name) => PAGE_SCORES.find((s) => s.name === name) ?? PAGE_SCORES[0];

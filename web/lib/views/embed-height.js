// How tall an iframe of a view must be to show it without a scrollbar at an article's width (measured
// at 600–800 px with every control): a base height for up to seven words, a row more per further word
// (up to 50) in views that draw a row per word, and room for a trained model's layer row, units and guesses.
import { isTrained } from '../sources.js';

/** → embedHeight(state, shown) for a view of `base` px at seven words and `perWord` px a word after that. */
export const wordRowsHeight = (base, perWord) => (state, shown) =>
  base + perWord * Math.max(0, Math.min(shown?.T ?? 0, 50) - 7) + (isTrained(state.source) ? 400 : 0);

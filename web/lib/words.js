// How the figure's sentences name words and weights, and find a word's strongest link: shared by the
// story line (figure/notes.js) and the views that write their own (heads, compare).
import { num } from './format.js';

/** A pieces model's word labels, indexed by each token's `word` (its word-level result's tokens), or null. */
export const wordLabels = (result) => result.wordLevel?.tokens.map((w) => w.text) ?? null;

/** The word token i is a piece of, when that word has other pieces too (from `words`: wordLabels); else null. */
const longerWord = (tokens, i, words) => {
  const w = tokens[i].word;
  return words && w !== undefined && tokens.some((t, k) => k !== i && t.word === w) ? words[w] : null;
};

/**
 * A word as the story names it: its text, with its position when the text repeats it. With `words`
 * (wordLabels), a piece of a longer word also names that word: “hav” (of “haven't”).
 */
export function named(tokens, i, words = null) {
  const text = tokens[i].text;
  const repeated = tokens.some((t, k) => k !== i && t.text === text);
  const word = longerWord(tokens, i, words);
  return `“${text}”${repeated ? ` (${i + 1})` : ''}${word ? ` (of “${word}”)` : ''}`;
}

/** The query menu's words: each token's text, and for a piece of a longer word that word too ("g (gtk)"). */
export function pickerLabels(tokens, words = null) {
  return tokens.map((t, i) => {
    const word = longerWord(tokens, i, words);
    return word ? `${t.text} (${word})` : t.text;
  });
}

/** A weight as the story writes it: two decimals, or four when it is that small (a long text spreads each row thin). */
export const weight = (w) => num(w, w > 0 && w < 0.005 ? 4 : 2);

/** The strongest entry of line i (a row, or a column when byColumn) other than i itself: { k, w, self }. */
export function strongest(m, i, byColumn) {
  const T = m.rows;
  let k = -1,
    w = -1;
  for (let j = 0; j < T; j++) {
    const v = byColumn ? m.data[j * T + i] : m.data[i * T + j];
    if (j !== i && v > w) ((w = v), (k = j));
  }
  return { k, w, self: m.data[i * T + i] };
}

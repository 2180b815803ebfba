// How the figure's sentences name words and weights, and find a word's strongest link: shared by the
// story line (figure/notes.js) and the views that write their own (heads, compare).
import { num } from './format.js';

/**
 * A word as the story names it: its text, with its position when the text repeats it. With `words` (a
 * pieces model's word labels, indexed by each token's `word`), a piece of a longer word also names that
 * word: “hav” (of “haven't”).
 */
export function named(tokens, i, words = null) {
  const text = tokens[i].text;
  const repeated = tokens.some((t, k) => k !== i && t.text === text);
  const w = tokens[i].word;
  const piece = words && w !== undefined && tokens.some((t, k) => k !== i && t.word === w);
  return `“${text}”${repeated ? ` (${i + 1})` : ''}${piece ? ` (of “${words[w]}”)` : ''}`;
}

/**
 * The query menu's words: each token's text, and for a piece of a longer word that word too ("g (gtk)"),
 * from `words` (a pieces model's word labels, indexed by each token's `word`; null: the texts alone).
 */
export function pickerLabels(tokens, words = null) {
  if (!words) return tokens.map((t) => t.text);
  const pieces = new Map();
  for (const t of tokens) pieces.set(t.word, (pieces.get(t.word) ?? 0) + 1);
  return tokens.map((t) => (pieces.get(t.word) > 1 ? `${t.text} (${words[t.word]})` : t.text));
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

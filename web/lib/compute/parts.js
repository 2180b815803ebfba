// What every kind of result shares: matrices from rows, values made once on first use, the bad-cell
// problem, and finish(): a result's labels, size and story word. Part of the one computation (../compute.js).
import { labelOf } from '../format.js';

export const asMatrix = (rows) => ({ rows: rows.length, cols: rows[0].length, data: Float32Array.from(rows.flat()) });

/** A value made by make() on first use, then kept. */
export const once = (make) => {
  let value,
    made = false;
  return () => (made ? value : ((made = true), (value = make())));
};

export class CellError extends Error {
  constructor(cells) {
    super('invalid cells');
    this.cells = cells;
  }
}
export const cellMessage = (cells) =>
  `${cells.slice(0, 3).join(', ')}${cells.length > 3 ? ` and ${cells.length - 3} more` : ''} ${cells.length > 1 ? 'are' : 'is'} not a number: the results are from the last good weights.`;

/**
 * The index of the query with the strongest link to another word (off the diagonal). With tokens that
 * carry their word (a pieces model's: `sta`, `##tion` share one), only a word's first piece asks and only
 * links to other words count: the story (and the default query) is about words, never "tion" looking at
 * "sta".
 */
export function strongestRow(weights, tokens = []) {
  const T = weights.rows,
    d = weights.data;
  const wordOf = (i) => tokens[i]?.word ?? i;
  let best = 0,
    top = -1;
  for (let i = 0; i < T; i++) {
    if (i > 0 && wordOf(i) === wordOf(i - 1)) continue; // not a word's first piece
    for (let j = 0; j < T; j++) if (wordOf(j) !== wordOf(i) && d[i * T + j] > top) ((top = d[i * T + j]), (best = i));
  }
  return T > 1 ? best : 0;
}

export function finish(result) {
  result.labels = result.tokens.map(labelOf);
  result.T = result.tokens.length;
  result.shown ??= result.weights;
  result.storyWord = strongestRow(result.shown, result.tokens);
  result.ok = true;
  return result;
}

/** Query terms, computed by `terms(i)` on first use and kept per query. */
export function cachedTerms(terms) {
  const cache = new Map();
  return (i) => {
    if (!cache.has(i)) cache.set(i, terms(i));
    return cache.get(i);
  };
}

/** Query terms of a result whose steps are JS copies (the trained model's): its Q, K, V and drawn weights go back in. */
export const termsOf = (core, result) => cachedTerms((i) => core.queryTerms({ ...result.steps, weights: result.weights }, i));

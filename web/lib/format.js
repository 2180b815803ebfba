// How the page prints numbers and words: one format everywhere. A number has a true minus sign (−),
// a fixed count of decimals chosen per table (all integers print as integers), −∞ for a masked score;
// a word is shortened past 16 characters and marked ? (not in the vocabulary), * (found by stemming) or
// + (its vector composed from its character n-grams).
const MAX_LABEL_CHARS = 16;

/** The label a token shows: its text, shortened if long, with "?" for unknown, "*" for stemmed, "+" for composed. */
export function labelOf(token) {
  const t = [...token.text];
  const text = t.length > MAX_LABEL_CHARS ? t.slice(0, MAX_LABEL_CHARS - 1).join('') + '…' : token.text;
  return text + ({ unknown: '?', stemmed: '*', composed: '+' }[token.lookup] ?? '');
}

/** x with `digits` decimals (0 for integers), a true minus sign, −∞ for -Infinity, and never "−0.0000". */
export function num(x, digits = 4) {
  if (x === -Infinity) return '−∞';
  if (x === Infinity) return '∞';
  if (!Number.isFinite(x)) return String(x);
  const s = x.toFixed(digits);
  return (/^-0\.?0*$/.test(s) ? s.slice(1) : s).replace('-', '−');
}

/** The decimals a set of numbers is printed with: 0 when every finite one is a whole number, else `digits`. */
export function decimalsFor(values, digits = 4) {
  for (const v of values) if (Number.isFinite(v) && !Number.isInteger(v)) return digits;
  return 0;
}

/** A weight as the readouts print it: 4 decimals. */
export const format4 = (w) => num(w, 4);

/** A weight in a heatmap cell: 2 decimals without the leading zero (".39"). */
export const cellText = (w) => num(w, 2).replace(/^0\./, '.');

/** A whole number as the page prints it: 1,024. (Not toLocaleString: its first call loads locale data, ~40 ms.) */
export const count = (n) => String(Math.trunc(n)).replace(/\B(?=(\d{3})+$)/g, ',');

// Numbers typed into editable cells (the walkthrough's W_Q, W_K, W_V, the by-hand sheet): parsed,
// checked, and named by position when they are not numbers, so the page can say which cell is wrong.

/** One edited cell: a finite number (− or - for minus), or null. */
export function parseCell(raw) {
  const t = String(raw).trim().replace('−', '-');
  if (t === '') return null;
  const v = Number(t);
  return Number.isFinite(v) ? v : null;
}

/** The invalid cells of edited matrices ({ name: rows of strings }) as "W_Q[2, 3]", in order. */
export function badCells(named) {
  const out = [];
  for (const [name, rows] of Object.entries(named)) {
    rows.forEach((row, r) =>
      row.forEach((v, c) => {
        if (parseCell(v) === null) out.push(`${name}[${r + 1}, ${c + 1}]`);
      }),
    );
  }
  return out;
}

/** Edited rows of strings as a Matrix { rows, cols, data } (call only when badCells found none). */
export function numericMatrix(rows) {
  return { rows: rows.length, cols: rows[0].length, data: Float32Array.from(rows.flat(), parseCell) };
}

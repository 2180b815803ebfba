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

/**
 * Matrices ({ name: rows of strings }) frozen all the way down, so no one can edit in place what the
 * store holds: a change is a new object (withCell). Returns `named`.
 */
export function frozenCells(named) {
  for (const rows of Object.values(named)) {
    for (const row of rows) Object.freeze(row);
    Object.freeze(rows);
  }
  return Object.freeze(named);
}

/** `named` with cell (r, c) of matrix `name` set to `value`: a new, frozen object sharing every other row. */
export function withCell(named, name, r, c, value) {
  const rows = named[name].map((row, i) => (i === r ? row.map((v, j) => (j === c ? value : v)) : row));
  return frozenCells({ ...named, [name]: rows });
}

// Matrices as real HTML tables (so screen readers read them as tables; the figure's views use
// matrixTable for their table alternative too) and editable matrices for the walkthrough and the
// by-hand sheet. Every number shown comes from the wasm core; nothing here does arithmetic on it.
import { h } from './dom.js';
import { inkOn, viridis } from './colour.js';
import { decimalsFor, num } from './format.js';
import { parseCell } from './cells.js';

/**
 * The attributes of a box that scrolls a wide table sideways (on a narrow screen): a keyboard can focus
 * it to scroll, and it is a region named after what it holds (WCAG 2.1.1; axe scrollable-region-focusable).
 */
export const scrollBox = (label, cls = 'matrix-wrap') => ({ class: cls, tabindex: 0, role: 'region', 'aria-label': label });

const at = (mat, r, c) => mat.data[r * mat.cols + c];

/**
 * A matrix (core Matrix) as a <table>. options: { caption, name, rowLabels, colLabels, heat (colour
 * cells by value, 0…max), max, highlightRow, highlightCol, limit (rows/cols shown before "…"), keep
 * (a row index always shown), title, rowRange, colRange ([start, end): show only these rows/columns,
 * e.g. the window a view draws of a long input), reuse (a table this function made before: if it
 * has the same rows, columns and labels, its numbers are rewritten in place and it is returned — a
 * redraw then re-lays out changed text only, not a new table) }.
 */
export function matrixTable(mat, o = {}) {
  const limit = o.limit ?? Infinity;
  const range = ([start, end]) => Array.from({ length: end - start }, (_, k) => start + k);
  const rowsShown = o.rowRange ? range(o.rowRange) : pick(mat.rows, limit, o.highlightRow);
  const colsShown = o.colRange ? range(o.colRange) : pick(mat.cols, limit, o.highlightCol);
  let max = o.max ?? 0;
  if (o.heat && o.max === undefined) for (const v of mat.data) if (v > max) max = v;
  // One count of decimals per table: integers (seed 003's scores, the by-hand products) print as such,
  // anything else with o.digits (4) decimals throughout, so no bare "0" sits among "0.1234"s.
  const digits = o.digits ?? decimalsFor(mat.data, 4);
  const label = (labels, i) => (i === null ? null : (labels?.[i] ?? String(i + 1)));
  const shape = JSON.stringify([o.name, o.heat, o.highlightRow, o.highlightCol, mat.rows, mat.cols, rowsShown, colsShown]);
  const labels = [...rowsShown.map((r) => label(o.rowLabels, r)), ...colsShown.map((c) => label(o.colLabels, c))].filter((l) => l !== null);
  // A cell's text node is rewritten rather than replaced (cheaper for the browser to re-lay out).
  const setText = (node, text) => {
    const t = node.firstChild;
    if (t?.nodeType === 3 && !t.nextSibling) {
      if (t.data !== text) t.data = text;
    } else if (node.textContent !== text) node.textContent = text;
  };
  const paint = (td, v) => {
    const text = num(v, digits),
      value = String(v);
    setText(td, text);
    if (td.dataset.value !== value) td.dataset.value = value;
    if (o.heat && Number.isFinite(v)) {
      const bg = viridis(max > 0 ? v / max : 0);
      td.style.background = bg;
      td.style.color = inkOn(bg);
    }
  };
  if (o.reuse?.tableShape === shape) {
    let k = 0;
    for (const r of rowsShown) for (const c of colsShown) if (r !== null && c !== null) paint(o.reuse.valueCells[k++], at(mat, r, c));
    o.reuse.labelCells.forEach((th, n) => setText(th, labels[n]));
    if (o.reuse.caption) setText(o.reuse.caption, o.caption ?? '');
    if (o.caption && o.reuse.getAttribute('aria-label') !== o.caption) o.reuse.setAttribute('aria-label', o.caption);
    return o.reuse;
  }
  const table = h('table', {
    class: `matrix${o.heat ? ' heat' : ''}`,
    'data-name': o.name ?? '',
    'data-rows': mat.rows,
    'data-cols': mat.cols,
  });
  const caption = o.caption ? h('caption', {}, o.caption) : null;
  if (caption) table.append(caption);
  const head = h('tr', {}, h('td', { class: 'corner' }, `${mat.rows}×${mat.cols}`));
  const rowHeads = [],
    colHeads = [];
  for (const c of colsShown) {
    if (c === null) head.append(h('th', { scope: 'col', class: 'gap' }, '…'));
    else
      head.append(
        (colHeads[colHeads.length] = h('th', { scope: 'col', class: c === o.highlightCol ? 'hl' : null }, label(o.colLabels, c))),
      );
  }
  table.append(h('thead', {}, head));
  const body = h('tbody');
  const valueCells = [];
  for (const r of rowsShown) {
    if (r === null) {
      body.append(h('tr', { class: 'gap' }, h('th', { scope: 'row' }, '⋮'), ...colsShown.map(() => h('td', {}, '⋮'))));
      continue;
    }
    const th = h('th', { scope: 'row' }, label(o.rowLabels, r));
    rowHeads.push(th);
    const tr = h('tr', { class: r === o.highlightRow ? 'hl' : null }, th);
    for (const c of colsShown) {
      if (c === null) {
        tr.append(h('td', { class: 'gap' }, '…'));
        continue;
      }
      const td = h('td', { 'data-row': r, 'data-col': c, class: c === o.highlightCol ? 'hl' : null });
      paint(td, at(mat, r, c));
      valueCells.push(td);
      tr.append(td);
    }
    body.append(tr);
  }
  table.append(body);
  const wrap = h('div', scrollBox(o.caption ?? `matrix ${o.name ?? ''}`.trim()), table);
  return Object.assign(wrap, { tableShape: shape, valueCells, labelCells: [...rowHeads, ...colHeads], caption, morphKeep: true });
}

/** Indices 0…n-1, or the first `limit` with null for "…" (plus `keep` if it is beyond). */
function pick(n, limit, keep) {
  if (n <= limit) return Array.from({ length: n }, (_, i) => i);
  const out = Array.from({ length: limit - 1 }, (_, i) => i);
  if (keep !== undefined && keep !== null && keep >= limit - 1 && keep < n - 1) out.push(null, keep, null, n - 1);
  else out.push(null, n - 1);
  return out;
}

/**
 * An editable matrix: values is an array of rows of strings/numbers, read once and never written.
 * onChange(r, c, text) after every edit, so the owner makes its new values (cells.withCell); cells that
 * are not numbers get aria-invalid and the class "bad".
 * Returns the wrapper (compute.js names the invalid cells: cells.badCells).
 */
export function editTable(values, { caption, name, rowLabels, colLabels, onChange }) {
  const table = h('table', { class: 'matrix edit', 'data-name': name });
  if (caption) table.append(h('caption', {}, caption));
  const cols = values[0]?.length ?? 0;
  const head = h('tr', {}, h('td', { class: 'corner' }, `${values.length}×${cols}`));
  for (let c = 0; c < cols; c++) head.append(h('th', { scope: 'col' }, colLabels?.[c] ?? String(c + 1)));
  table.append(h('thead', {}, head));
  const body = h('tbody');
  const inputs = [];
  values.forEach((row, r) => {
    const tr = h('tr', {}, h('th', { scope: 'row' }, rowLabels?.[r] ?? String(r + 1)));
    row.forEach((v, c) => {
      const input = h('input', {
        type: 'text',
        inputmode: 'decimal',
        value: String(v),
        size: 5,
        'data-row': r,
        'data-col': c,
        'aria-label': `${name} row ${r + 1}, column ${c + 1}`,
        spellcheck: 'false',
        autocomplete: 'off',
      });
      const mark = () => {
        const ok = parseCell(input.value) !== null;
        input.classList.toggle('bad', !ok);
        if (ok) input.removeAttribute('aria-invalid');
        else input.setAttribute('aria-invalid', 'true');
        return ok;
      };
      mark();
      input.addEventListener('input', () => {
        mark();
        onChange?.(r, c, input.value);
      });
      input.addEventListener('keydown', (e) => {
        const move = { ArrowUp: [-1, 0], ArrowDown: [1, 0] }[e.key];
        if (!move) return;
        const next = inputs[(r + move[0]) * cols + c];
        if (next) {
          e.preventDefault();
          next.focus();
          next.select();
        }
      });
      inputs.push(input);
      tr.append(h('td', {}, input));
    });
    body.append(tr);
  });
  table.append(body);
  const wrap = h('div', { class: 'matrix-wrap' }, table);
  return wrap;
}

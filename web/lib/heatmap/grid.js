// The heatmap for keyboards, pointers and screen readers: one focusable grid (one tab stop) whose
// active cell moves with the arrow keys, Home/End and Page Up/Down; hover and tap read a cell; the
// active cell is exposed through aria-activedescendant on a one-row stand-in that screen readers announce.
import { activeIn, h } from '../dom.js';
import { format4 } from '../format.js';
import { clamp, follow } from '../windowing.js';

/** Wires hm.grid (a Heatmap's cell area) and returns { describe(), highlight(report) } for the heatmap's redraws. */
export function attachGrid(hm) {
  const g = hm.grid;
  g.setAttribute('role', 'grid');
  g.tabIndex = 0;
  // The grid's one visible cell for assistive technology: a row with the active cell (and its header).
  // Two cell nodes take turns so the id changes with every move, which is what makes readers announce it.
  const vHeader = h('div', { role: 'columnheader' });
  const vRowHeader = h('div', { role: 'rowheader', 'aria-colindex': 1 });
  const vCells = [0, 1].map((k) => h('div', { role: 'gridcell', id: `${hm.id}-cell-${k}` }));
  let turn = 0,
    skipFocusSelect = false;
  const vRow = h('div', { role: 'row', class: 'sr-only' }, vRowHeader, vCells[0]);
  g.append(h('div', { role: 'row', class: 'sr-only', 'aria-rowindex': 1 }, vHeader), vRow);

  const cellAt = (e) => {
    if (!hm.L) return null;
    const r = g.getBoundingClientRect(),
      { cell, rows, cols } = hm.L;
    const c = Math.floor((e.clientX - r.left) / cell),
      k = Math.floor((e.clientY - r.top) / cell);
    return c >= 0 && c < cols && k >= 0 && k < rows ? { row: hm.row0 + k, col: hm.col0 + c } : null;
  };

  /** The ring and bold labels on the hovered cell, else the active one while the grid has focus. */
  function highlight(report = true) {
    if (!hm.p) return;
    const focused = activeIn(g) === g;
    const cell = hm.hover ?? (focused ? hm.active : null);
    const { rows, cols, cell: size, left, top } = hm.L;
    const r = cell ? cell.row - hm.row0 : -1,
      c = cell ? cell.col - hm.col0 : -1;
    const visible = r >= 0 && r < rows && c >= 0 && c < cols;
    hm.ring.setAttribute('visibility', visible ? 'visible' : 'hidden');
    if (visible) {
      hm.ring.setAttribute('x', left + c * size);
      hm.ring.setAttribute('y', top + r * size);
    }
    hm.rowLabels.forEach((n, k) => n.classList.toggle('active', k === r));
    hm.colLabels.forEach((n, k) => n.classList.toggle('active', k === c));
    if (report || cell) hm.o.onCell(cell ? hm.info(cell) : null);
  }

  /** The active cell becomes the grid's active descendant (and, if select, the chosen word). */
  function activate(select) {
    if (!hm.active) return;
    const { row, col } = hm.active,
      info = hm.info(hm.active);
    turn ^= 1;
    const cell = vCells[turn];
    cell.setAttribute('aria-colindex', col + 2);
    cell.textContent = `${info.query.text} → ${info.key.text}: ${format4(info.weight)}${info.itself && hm.p.diagonalApart ? ' (itself, hatched)' : ''}`;
    vRow.setAttribute('aria-rowindex', row + 2);
    vRowHeader.textContent = info.query.text;
    vHeader.setAttribute('aria-colindex', col + 2);
    vHeader.textContent = info.key.text;
    vRow.lastElementChild.replaceWith(cell);
    g.setAttribute('aria-activedescendant', cell.id);
    hm.anchorKey = `${hm.p.T}:${row}:${col}`; // already in view: a redraw need not move the window to it
    highlight();
    if (select) hm.o.onSelect?.(row, col);
  }

  function key(e) {
    if (!hm.p) return;
    const { T } = hm.p,
      { rows } = hm.L;
    let { row: i, col: j } = hm.active ?? { row: hm.row0, col: hm.col0 };
    switch (e.key) {
      case 'ArrowUp':
        i -= 1;
        break;
      case 'ArrowDown':
        i += 1;
        break;
      case 'ArrowLeft':
        j -= 1;
        break;
      case 'ArrowRight':
        j += 1;
        break;
      case 'PageUp':
        i -= rows;
        break;
      case 'PageDown':
        i += rows;
        break;
      case 'Home':
        j = 0;
        if (e.ctrlKey) i = 0;
        break;
      case 'End':
        j = T - 1;
        if (e.ctrlKey) i = T - 1;
        break;
      default:
        return;
    }
    e.preventDefault();
    hm.active = { row: clamp(i, 0, T - 1), col: clamp(j, 0, T - 1) };
    const { rows: R, cols: C } = hm.L;
    hm.moveWindow(follow(hm.row0, R, T, hm.active.row), follow(hm.col0, C, T, hm.active.col));
    activate(true);
  }

  g.addEventListener('pointermove', (e) => {
    const cell = cellAt(e);
    if (cell?.row !== hm.hover?.row || cell?.col !== hm.hover?.col) {
      hm.hover = cell;
      highlight();
    }
  });
  g.addEventListener('pointerleave', () => {
    hm.hover = null;
    highlight();
  });
  g.addEventListener('pointerdown', (e) => {
    const cell = cellAt(e);
    if (!cell) return;
    e.preventDefault(); // no text selection; focus is given below, without scrolling
    hm.active = cell;
    skipFocusSelect = true;
    g.focus({ preventScroll: true });
    skipFocusSelect = false;
    activate(true);
  });
  g.addEventListener('focus', () => {
    if (skipFocusSelect || !hm.p) return;
    hm.active ??= { row: hm.row0, col: hm.col0 };
    activate(true);
  });
  g.addEventListener('blur', () => highlight());
  g.addEventListener('keydown', key);

  return {
    highlight,
    describe() {
      const { T } = hm.p,
        { rows, cols } = hm.L;
      g.setAttribute('aria-rowcount', T + 1);
      g.setAttribute('aria-colcount', T + 1);
      g.setAttribute(
        'aria-label',
        `Attention weights: ${T} query words (rows) by ${T} key words (columns)${hm.windowed() ? `, through a window of ${rows} × ${cols}` : ''}. ` +
          'Arrow keys move between cells; Home and End go to the first and last key; Page Up and Page Down move a window of rows.',
      );
    },
  };
}

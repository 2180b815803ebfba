// A heatmap's weights two more ways: as an HTML table (its alternative for screen readers and for
// copying numbers, built only while its disclosure is open) and as SVG shapes for the exporter.
import { h } from '../dom.js';
import { inkOn } from '../colour.js';
import { cellText } from '../format.js';
import { matrixTable } from '../tables.js';

/** Adds the table disclosure to heatmap `hm`; returns { fill(), retitle(title), shapes() }. */
export function attachTable(hm) {
  const box = h('div', { class: 'hm-table-box' });
  const summary = h('summary', {}, hm.o.title ? `${hm.o.title} as a table` : 'Table of these weights');
  const details = h('details', { class: 'hm-table' }, summary, box);
  hm.el.append(details);
  const fill = () => {
    if (!details.open || !hm.p) {
      box.replaceChildren();
      return;
    }
    const { tokens, weights, T } = hm.p,
      { rows, cols } = hm.L;
    const texts = tokens.map((t) => t.text);
    const part = hm.windowed() ? `, rows ${hm.row0 + 1}–${hm.row0 + rows} and columns ${hm.col0 + 1}–${hm.col0 + cols} of ${T}` : '';
    box.replaceChildren(
      matrixTable(weights, {
        caption: `${hm.o.title ? `${hm.o.title}: ` : ''}attention weights, queries (rows) × keys (columns)${part}`,
        name: `weights${hm.o.head !== undefined ? `-head-${hm.o.head + 1}` : ''}`,
        rowLabels: texts,
        colLabels: texts,
        rowRange: [hm.row0, hm.row0 + rows],
        colRange: [hm.col0, hm.col0 + cols],
      }),
    );
  };
  details.addEventListener('toggle', fill);
  return {
    fill,
    retitle: (title) => (summary.textContent = `${title} as a table`),
    /** The cells as SVG shapes in the label SVG's coordinates (the exporter draws them under the labels). */
    shapes() {
      if (!hm.p) return [];
      const { data, T, max, diagonalApart } = hm.p,
        { rows, cols, cell, left, top, showValues } = hm.L;
      const theme = hm.colours();
      const out = [];
      for (let r = 0; r < rows; r++) {
        for (let c = 0; c < cols; c++) {
          const i = hm.row0 + r,
            j = hm.col0 + c,
            w = data[i * T + j];
          const apart = diagonalApart && i === j;
          const fill = apart ? theme.panel : hm.o.palette.hex(hm.o.palette.at(w, max));
          const attrs = {
            x: left + c * cell + 0.75,
            y: top + r * cell + 0.75,
            width: cell - 1.5,
            height: cell - 1.5,
            fill,
            'data-row': i,
            'data-col': j,
            'data-weight': String(w),
          };
          if (apart) Object.assign(attrs, { stroke: theme.muted, 'stroke-dasharray': '3 2' });
          out.push({ tag: 'rect', attrs });
          if (showValues) {
            out.push({
              tag: 'text',
              text: cellText(w),
              attrs: {
                x: left + (c + 0.5) * cell,
                y: top + (r + 0.5) * cell,
                fill: apart ? theme.fg : inkOn(fill),
                'font-size': 11,
                'text-anchor': 'middle',
                'dominant-baseline': 'central',
                'font-family': hm.family,
              },
            });
          }
        }
      }
      return out;
    },
  };
}

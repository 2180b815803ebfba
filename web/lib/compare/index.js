// The compare view, on demand: fetched only when a reader chooses it, as its own small file beside the
// page's and the widget's bundles.
// It holds no second copy of their code: createCompare(lib) gets the helpers it draws and computes with.
import { compareLine, compareOf } from './comparison.js';
import { compareView } from './view.js';

/**
 * lib: { compute, wordOf } (compute.js), { h, svgEl, setAttrs } (dom.js), packHex (colour.js),
 * { format4, num, labelOf } (format.js), Heatmap (heatmap/heatmap.js).
 * → { compareOf(state, sources, result, previous), compareLine(comparison), CompareView }
 */
export function createCompare(lib) {
  return {
    compareOf: (...args) => compareOf(lib, ...args),
    compareLine,
    CompareView: compareView({ ...lib, compareLine }),
  };
}

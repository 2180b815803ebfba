// Loads the on-demand compare module (compare/index.js, built as attention-compare.js beside the page's
// and the widget's bundles) once, and hands it the helpers it needs from this bundle, so it carries no
// second copy of them (nor of their state: Heatmap ids, the colour tables).
import { compute, wordOf } from './compute.js';
import { h, setAttrs, svgEl } from './dom.js';
import { packHex } from './colour.js';
import { format4, labelOf, num } from './format.js';
import { Heatmap } from './heatmap/heatmap.js';
import { assetURL } from './loader.js';

let comparePromise = null;

/** → { compareOf, compareLine, CompareView } (see compare/index.js); a failed load is retried on the next call. */
export function loadCompare() {
  // A computed URL: bundlers leave it alone, so the module stays its own file, fetched on demand.
  const url = import.meta.url.endsWith('/compare-loader.js')
    ? new URL('./compare/index.js', import.meta.url).href
    : assetURL('attention-compare.js');
  comparePromise ??= import(/* @vite-ignore */ url)
    .then(({ createCompare }) => createCompare({ compute, wordOf, h, svgEl, setAttrs, packHex, format4, num, labelOf, Heatmap }))
    .catch((err) => {
      comparePromise = null;
      throw err;
    });
  return comparePromise;
}

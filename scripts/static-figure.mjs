#!/usr/bin/env node
// A static attention figure: the heatmap of a state's weights as inline SVG, its caption and the
// weights as a data table, plain HTML that needs no script. It goes inside an <attention-figure> (or the
// page's #figure) so readers see the figure before the module upgrades the element (and feed readers,
// print and readers without JavaScript see it at all); the live figure then takes its place.
// The numbers come from the wasm core run here in node, through the page's own computation
// (web/lib/compute.js), colour scale (colour.js), number format (format.js) and caption (notes.js).
//
//   node scripts/static-figure.mjs --sentence "the bank of the river flooded" [--temperature 0.5 --mask causal
//        --score dot --norm columns --diagonal scale --word 2 ...]   (any state attribute, as the widget's)
// prints the markup to paste between <attention-figure …> and </attention-figure>.
// Needs the wasm build (build/wasm) and data/vectors.bin.
import { readFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const lib = (file) => import(pathToFileURL(join(root, 'web', 'lib', file)).href);
const [
  { compute, release },
  { STATE_KEYS, fromParams, toParams },
  { viridis, inkOn },
  { cellText, format4, labelOf },
  { captionOf },
  heatmap,
] = await Promise.all([
  lib('compute.js'),
  lib('state.js'),
  lib('colour.js'),
  lib('format.js'),
  lib('figure/notes.js'),
  lib('heatmap/heatmap.js'),
]);

/** The core and the whole word-vector table, loaded once per process. */
let sourcesPromise = null;
export function loadSources() {
  sourcesPromise ??= (async () => {
    const { loadAttention } = await import(pathToFileURL(join(root, 'build', 'wasm', 'attention.js')).href);
    const core = await loadAttention({ wasmBinary: await readFile(join(root, 'build', 'wasm', 'attention_wasm.wasm')) });
    const vectors = core.loadVectors(await readFile(join(root, 'data', 'vectors.bin')));
    return { core, vectors, trained: {}, trainedError: {}, imported: null };
  })();
  return sourcesPromise;
}

const escape = (text) => String(text).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

// The cell pitch and label sizes (CSS px) of the live heatmap at its largest, so the two look alike.
const CELL = 44,
  GAP = 2,
  FONT = 13,
  CHAR = 7.4; // a label character's width, estimated (no fonts to measure in node)

/**
 * The static figure of `attributes` (the state's names, as the widget's attributes or the page's URL
 * parameters) as an HTML string: <figure class="attention-static"> with the SVG heatmap (its <title> the
 * figure's title), a <figcaption> (the caption the figure's exports carry) and a <table> of the weights.
 * data-state holds the state's URL parameters, as the live figure's data-drawn does.
 */
export async function staticFigure(attributes = {}) {
  const state = fromParams(new URLSearchParams(Object.entries(attributes).filter(([k]) => STATE_KEYS.includes(k) || k === 'scale')));
  if (state.source !== 'vectors') throw new Error(`a static figure is drawn from the word vectors (source="vectors"), not ${state.source}`);
  if (!['heatmap', 'lines'].includes(state.view))
    throw new Error(`a static figure draws the heatmap and lines views' weights, not view="${state.view}"`);
  const sources = await loadSources();
  const result = compute(state, sources);
  if (!result.ok) throw new Error(result.message);
  try {
    return figureHTML(state, result);
  } finally {
    release(result);
  }
}

function figureHTML(state, result) {
  const { T } = result,
    data = result.shown.data;
  const labels = result.tokens.map(labelOf);
  const apart = state.diagonal === 'apart';
  const max = apart ? heatmap.offDiagonalMax(data, T) : heatmap.maxOf(data);
  const { title, caption } = captionOf(state, result, { imported: false, extra: null });
  const left = Math.ceil(Math.max(...labels.map((l) => [...l].length)) * CHAR) + 10;
  const top = Math.ceil(Math.min(16, Math.max(...labels.map((l) => [...l].length))) * CHAR * 0.72) + 16;
  const size = T * CELL + (T - 1) * GAP;
  const width = left + size + 4,
    height = top + size + 2;
  const at = (k) => k * (CELL + GAP);
  const cells = [];
  for (let i = 0; i < T; i++)
    for (let j = 0; j < T; j++) {
      const w = data[i * T + j],
        x = left + at(j),
        y = top + at(i);
      const own = apart && i === j;
      const fill = own ? 'none' : viridis(heatmap.VIRIDIS.at(w, max));
      cells.push(
        own
          ? `<rect class="attention-static-self" x="${x + 0.5}" y="${y + 0.5}" width="${CELL - 1}" height="${CELL - 1}" fill="currentColor" fill-opacity="0.08" stroke="currentColor" stroke-dasharray="3 2"/>`
          : `<rect x="${x}" y="${y}" width="${CELL}" height="${CELL}" fill="${fill}"/>`,
        `<text class="attention-static-cell" x="${x + CELL / 2}" y="${y + CELL / 2}" fill="${own ? 'currentColor' : inkOn(fill)}" font-size="11" text-anchor="middle" dominant-baseline="central">${cellText(w)}</text>`,
      );
    }
  const rowLabels = labels.map(
    (l, i) => `<text x="${left - 8}" y="${top + at(i) + CELL / 2}" text-anchor="end" dominant-baseline="central">${escape(l)}</text>`,
  );
  const colLabels = labels.map(
    (l, j) => `<text transform="translate(${left + at(j) + CELL / 2} ${top - 6}) rotate(-40)">${escape(l)}</text>`,
  );
  const svg =
    `<svg class="attention-static-map" role="img" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${width} ${height}" width="${width}" height="${height}" font-family="system-ui, sans-serif" font-size="${FONT}">` +
    `<title>${escape(`${title}: “${state.sentence}”`)}</title>` +
    `<g fill="currentColor">${rowLabels.join('')}${colLabels.join('')}</g>${cells.join('')}</svg>`;
  const head = labels.map((l) => `<th scope="col">${escape(l)}</th>`).join('');
  const rows = labels
    .map((l, i) => `<tr><th scope="row">${escape(l)}</th>${labels.map((_, j) => `<td>${format4(data[i * T + j])}</td>`).join('')}</tr>`)
    .join('\n');
  const byColumns = state.norm === 'columns';
  return [
    `<figure class="attention-static" data-state="${escape(toParams(state).toString())}">`,
    svg,
    `<figcaption><strong>${escape(title)}.</strong> ${caption.map(escape).join(' ')} Rows are queries, columns are keys${apart ? '; a word’s weight on itself is drawn dashed, outside the colour scale' : ''}.</figcaption>`,
    `<table class="attention-static-table"><caption>The weights (each ${byColumns ? 'column' : 'row'} sums to 1)</caption>`,
    `<thead><tr><th scope="col">query ↓ key →</th>${head}</tr></thead>`,
    `<tbody>\n${rows}\n</tbody></table>`,
    `</figure>`,
  ].join('\n');
}

/** --name value pairs from the command line. */
function parseArgs(argv) {
  const out = {};
  for (let k = 0; k < argv.length; k++) {
    const a = argv[k];
    if (!a.startsWith('--')) throw new Error(`unexpected argument ${a}: use --name value (e.g. --sentence "the cat sat")`);
    const name = a.slice(2);
    if (k + 1 >= argv.length) throw new Error(`--${name} needs a value`);
    out[name] = argv[++k];
  }
  return out;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  try {
    const args = parseArgs(process.argv.slice(2));
    const unknown = Object.keys(args).filter((k) => !STATE_KEYS.includes(k) && k !== 'scale');
    if (unknown.length)
      throw new Error(
        `unknown option${unknown.length > 1 ? 's' : ''} --${unknown.join(', --')} (the state's names: ${STATE_KEYS.join(', ')})`,
      );
    process.stdout.write((await staticFigure(args)) + '\n');
    process.exit(0);
  } catch (err) {
    console.error(`static-figure: ${err.message}`);
    process.exit(1);
  }
}

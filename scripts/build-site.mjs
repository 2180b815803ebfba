#!/usr/bin/env node
// Builds the static page into build/site/:
//   app.js                 web/app.js bundled by esbuild ('#attention-core' = build/wasm/attention.js, package.json "imports")
//   chunks/                the parts of the page below the figure, which app.js imports once the figure has drawn
//   attention_wasm.wasm    from the Emscripten build (build/wasm/): the core with fixed SIMD
//   attention_wasm_relaxed.wasm
//                          the same core with relaxed-SIMD multiply-adds (same glue); a browser loads
//                          one of the two (web/lib/core-file.js), never both
//   vectors.bin            data/vectors.bin
//   vectors-first.bin      the words of the sentences a reader meets first (the first figure draws from it)
//   vectors-common.bin     the 2,000 most frequent words, fetched once the first figure has drawn
//   attention_model_wasm.js, attention_model_wasm.wasm
//                          the larger module that also runs the trained language model (its glue
//                          minified); fetched only when the reader first picks "trained model"
//   model.bin              data/model.bin, the trained decoder, fetched at the same moment
//   encoder.bin            data/encoder.bin, the trained encoder, fetched when the reader first picks it
//   index.html, style.css  from web/
//   load-early.js          web/load-early.js bundled into a classic script (it imports web/lib/core-file.js):
//                          starts compiling the core and reading the vectors before app.js runs
// and the embeddable widget into build/site/widget/ (a folder that is also an npm package):
//   attention-widget.js    web/widget/attention-widget.js, self-contained (core glue included) — <attention-figure>
//   attention.js           the compute module alone (build/wasm/attention.js + glue), self-contained too
//   attention_wasm.wasm, attention_wasm_relaxed.wasm, vectors.bin, attention_model_wasm.js/.wasm, model.bin, encoder.bin, *.d.ts, package.json,
//   README.md
//   LICENSE                the project's MIT licence (also at build/site/)
//   WORDNET-LICENSE        data/WORDNET-LICENSE (also at build/site/): vectors.bin and the models derive from
//                          WordNet 3.0, whose licence asks to travel with every copy
//   SCOWL-LICENSE          data/SCOWL-LICENSE (also at build/site/): vectors-composed/ lists words of SCOWL
//   vectors-shards/, vectors-composed/, vectors-ngrams/
//                          the table, the composed list and fastText's n-gram rows in shards (also in widget/)
// and examples/ (article-like pages embedding the widget) into build/site/examples/.
// Needs the wasm build first:  emcmake cmake -S . -B build/wasm ... && cmake --build build/wasm
import { build } from 'esbuild';
import { copyFile, mkdir, readFile, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { gzipSync } from 'node:zlib';
import { SHARDS, composedShardFile, shardFile, shardOf, subsetVectors, vectorsLayout } from './vectors-file.mjs';
import { NGRAM_SHARDS, ngramShardFile, splitVectors } from '../web/lib/vectors-format.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const out = join(root, 'build', 'site');
const wrapper = join(root, 'build', 'wasm', 'attention.js');
const inputs = {
  entry: join(root, 'web', 'app.js'),
  early: join(root, 'web', 'load-early.js'),
  widget: join(root, 'web', 'widget', 'attention-widget.js'),
  wrapper,
  glue: join(root, 'build', 'wasm', 'attention_wasm.js'),
  modelGlue: join(root, 'build', 'wasm', 'attention_model_wasm.js'),
};
const copies = [
  [join(root, 'web', 'index.html'), 'index.html'],
  [join(root, 'web', 'style.css'), 'style.css'],
  [join(root, 'build', 'wasm', 'attention_wasm.wasm'), 'attention_wasm.wasm'],
  [join(root, 'build', 'wasm', 'attention_wasm_relaxed.wasm'), 'attention_wasm_relaxed.wasm'],
  [join(root, 'data', 'vectors.bin'), 'vectors.bin'],
  [join(root, 'build', 'wasm', 'attention_wasm.wasm'), 'widget/attention_wasm.wasm'],
  [join(root, 'build', 'wasm', 'attention_wasm_relaxed.wasm'), 'widget/attention_wasm_relaxed.wasm'],
  [join(root, 'data', 'vectors.bin'), 'widget/vectors.bin'],
  // The trained models and their module, beside each bundle: loader.js finds the module's glue and
  // .wasm, model.bin and encoder.bin in the bundle's folder (or where setAssetBase() says).
  [join(root, 'build', 'wasm', 'attention_model_wasm.wasm'), 'attention_model_wasm.wasm'],
  [join(root, 'data', 'model.bin'), 'model.bin'],
  [join(root, 'data', 'encoder.bin'), 'encoder.bin'],
  [join(root, 'build', 'wasm', 'attention_model_wasm.wasm'), 'widget/attention_model_wasm.wasm'],
  [join(root, 'data', 'model.bin'), 'widget/model.bin'],
  [join(root, 'data', 'encoder.bin'), 'widget/encoder.bin'],
  [join(root, 'web', 'widget', 'attention-widget.d.ts'), 'widget/attention-widget.d.ts'],
  [join(root, 'wasm', 'attention.d.ts'), 'widget/attention.d.ts'],
  [join(root, 'web', 'widget', 'package.json'), 'widget/package.json'],
  [join(root, 'web', 'widget', 'README.md'), 'widget/README.md'],
  [join(root, 'LICENSE'), 'LICENSE'],
  [join(root, 'data', 'WORDNET-LICENSE'), 'WORDNET-LICENSE'],
  [join(root, 'LICENSE'), 'widget/LICENSE'],
  [join(root, 'data', 'WORDNET-LICENSE'), 'widget/WORDNET-LICENSE'],
  // vectors-composed/ lists words of the wamerican (SCOWL) word list, whose notice travels with it.
  [join(root, 'data', 'SCOWL-LICENSE'), 'SCOWL-LICENSE'],
  [join(root, 'data', 'SCOWL-LICENSE'), 'widget/SCOWL-LICENSE'],
];
const exampleFiles = ['index.html', 'dark.html', 'article.css', 'favicon.svg'];
for (const f of exampleFiles) copies.push([join(root, 'examples', f), `examples/${f}`]);

const missing = [];
for (const file of [...Object.values(inputs), ...copies.map(([from]) => from)]) {
  try {
    if (!(await stat(file)).isFile()) missing.push(file);
  } catch {
    missing.push(file);
  }
}
if (missing.length) {
  console.error('build-site: missing input file(s):');
  for (const file of missing) console.error(`  ${relative(root, file)}`);
  if (missing.some((f) => f.startsWith(join(root, 'build', 'wasm')))) {
    console.error('Build the WebAssembly module first (emcmake cmake -S . -B build/wasm ... && cmake --build build/wasm).');
  }
  if (missing.includes(join(root, 'data', 'vectors.bin'))) console.error('Make the word vectors first (data/vectors.bin).');
  for (const file of ['model.bin', 'encoder.bin'])
    if (missing.includes(join(root, 'data', file))) console.error(`data/${file} is missing (model/README.md says how to rebuild it).`);
  process.exit(1);
}

// d3-scale-chromatic ships one module whose top level builds every scheme, so a bundler keeps all of
// them (~30 KiB) for one interpolateViridis. Marking each top-level `var x = <expr>;` as a pure
// expression lets esbuild drop the unused ones. Behaviour is unchanged (each expression still runs
// when its variable is used); if a future version's layout does not match, nothing is rewritten.
const pureD3Schemes = {
  name: 'pure-d3-scale-chromatic',
  setup(b) {
    b.onLoad({ filter: /[\\/]d3-scale-chromatic[\\/]dist[\\/][^\\/]+\.mjs$/ }, async (args) => {
      const source = await readFile(args.path, 'utf8');
      const contents = source
        .replace(/^var ([\w$]+) = ((?:(?!^var |^function |^export )[\s\S])*?);\n(?=\n)/gm, (all, name, expr) =>
          /,\n\s+[\w$]+ = /.test(expr) ? all : `var ${name} = /* @__PURE__ */ (() => ${expr})();\n`,
        )
        .replace(/^var c = rgb\(\),/m, 'var c = /* @__PURE__ */ rgb(),');
      return { contents, loader: 'js' };
    });
  },
};

// The figure's CSS (web/lib/styles.js) is a template string esbuild cannot minify: its comments and
// the whitespace around { } ; , and after : go at build time (≈ 0.3 KiB gzip of the widget's 150). Only inside
// the file's template literals, which hold CSS and nothing else.
const minifyFigureCSS = {
  name: 'minify-figure-css',
  setup(b) {
    b.onLoad({ filter: /[\\/]web[\\/]lib[\\/]styles\.js$/ }, async (args) => {
      const source = await readFile(args.path, 'utf8');
      const contents = source.replace(/`[^`]*`/g, (css) =>
        css
          .replace(/\/\*[\s\S]*?\*\//g, '')
          .replace(/\s+/g, ' ')
          .replace(/ ?([{};,]) ?/g, '$1')
          .replace(/: /g, ':'),
      );
      return { contents, loader: 'js' };
    });
  },
};

await rm(out, { recursive: true, force: true });
await mkdir(join(out, 'widget'), { recursive: true });
await mkdir(join(out, 'examples'), { recursive: true });

const common = {
  bundle: true,
  format: 'esm',
  platform: 'browser',
  target: 'es2022',
  minify: true,
  sourcemap: false,
  legalComments: 'none',
  // The Emscripten glue has node-only branches (require('fs') etc.) that never run in a browser.
  external: ['fs', 'path', 'crypto', 'module', 'url', 'worker_threads', 'node:*'],
  plugins: [pureD3Schemes, minifyFigureCSS],
  logLevel: 'warning',
};
let appChunks = [];
try {
  // app.js and, in chunks/, what it imports on demand (the parts below the figure): esbuild's splitting
  // puts the code both use in a shared chunk, which app.js imports statically.
  const app = await build({
    ...common,
    entryPoints: { app: inputs.entry },
    outdir: out,
    splitting: true,
    chunkNames: 'chunks/[name]-[hash]',
    metafile: true,
  });
  // The chunks app.js imports statically, preloaded from index.html's head: fetched beside app.js, not
  // after it has arrived and been parsed (one round trip less before the first figure).
  appChunks = app.metafile.outputs[relative(root, join(out, 'app.js'))].imports
    .filter((i) => i.kind === 'import-statement')
    .map((i) => relative(out, join(root, i.path)));
  // A classic script (index.html runs it before the modules, under the strict CSP): its one import,
  // the relaxed-SIMD check it shares with loader.js, inlined.
  await build({
    ...common,
    format: 'iife',
    banner: { js: "'use strict';" },
    entryPoints: [inputs.early],
    outfile: join(out, 'load-early.js'),
  });
  // The widget and the bare compute module are each one self-contained file. A chunk shared between
  // them (one wasm instance for a page that uses both) cost every widget page a second round trip
  // before its core could start loading: ≈ 74 ms later first figure at 40 ms latency (7 loads each).
  await build({
    ...common,
    entryPoints: { 'attention-widget': inputs.widget, attention: wrapper },
    outdir: join(out, 'widget'),
  });
  // The model module's glue, minified, once per folder (it stays a separate file: it is imported
  // on demand by URL, so neither bundle carries it).
  for (const dir of [out, join(out, 'widget')]) {
    await build({ ...common, entryPoints: [inputs.modelGlue], outfile: join(dir, 'attention_model_wasm.js') });
  }
} catch {
  console.error('build-site: esbuild failed (see above).');
  process.exit(1);
}
for (const [from, name] of copies) await copyFile(from, join(out, name));

// The first figure without script: the default sentence's heatmap in index.html's #figure and each
// example heatmap widget's own as a static figure (scripts/static-figure.mjs, numbers
// from the same wasm core, run here), which the live figure replaces in place once it has drawn.
const { staticFigure } = await import(pathToFileURL(join(root, 'scripts', 'static-figure.mjs')).href);
const { DEFAULTS: PAGE_DEFAULTS, toParams: pageParams } = await import(pathToFileURL(join(root, 'web', 'lib', 'state.js')).href);
{
  const page = join(out, 'index.html');
  let html = await readFile(page, 'utf8');
  const figure = await staticFigure(Object.fromEntries(pageParams(PAGE_DEFAULTS)));
  const preloads = appChunks.map((chunk) => `  <link rel="modulepreload" href="${chunk}">\n`).join('');
  if (!html.includes('  <script type="module" src="app.js"></script>\n'))
    throw new Error('build-site: index.html does not load app.js as <script type="module" src="app.js">');
  html = html.replace('  <script type="module" src="app.js"></script>\n', (tag) => tag + preloads);
  if (!html.includes('<div id="figure"></div>'))
    throw new Error('build-site: index.html has no empty <div id="figure"></div> for the static figure');
  await writeFile(page, html.replace('<div id="figure"></div>', `<div id="figure">\n${figure}\n</div>`));
}
for (const f of ['index.html', 'dark.html']) {
  const page = join(out, 'examples', f);
  let html = await readFile(page, 'utf8');
  for (const [element, attributes] of html.matchAll(/<attention-figure\b([^>]*)><\/attention-figure>/g)) {
    const attrs = Object.fromEntries([...attributes.matchAll(/([\w-]+)="([^"]*)"/g)].map(([, k, v]) => [k, v]));
    // A heatmap's static figure is the live one's picture; a lines or heads view would swap pictures.
    if (!['heatmap', undefined].includes(attrs.view) || attrs.src) continue;
    html = html.replace(element, `<attention-figure${attributes}>\n${await staticFigure(attrs)}\n</attention-figure>`);
  }
  await writeFile(page, html);
}

// The word vectors' first chunk: the words of the sentences a reader meets before typing (the page's,
// the views' openings, the examples'), each the table word the core uses for it (itself or a stem), in the
// same format as vectors.bin and with the very same bytes per word. A page draws its first figure from it
// alone. Then the frequent words: the FIRST_WORDS most frequent not in it, which a store fetches once its
// first figure has drawn (web/lib/store.js), so most typed sentences need no shard and the first figure
// never waits for them. Derived here from data/vectors.bin, so nothing new is committed.
const FIRST_WORDS = 2000;
const { DEFAULTS } = await import(pathToFileURL(join(root, 'web', 'lib', 'state.js')).href);
const { VIEWS } = await import(pathToFileURL(join(root, 'web', 'lib', 'views', 'registry.js')).href);
const openings = VIEWS.flatMap((v) => (v.opening ? [v.opening.sentence, v.opening.sentence2] : []));
const sentences = [DEFAULTS.sentence, DEFAULTS.sentence2, ...openings];
for (const f of ['index.html', 'dark.html']) {
  for (const [, text] of (await readFile(join(root, 'examples', f), 'utf8')).matchAll(/sentence="([^"]*)"/g)) sentences.push(text);
}
const { loadSources } = await import(pathToFileURL(join(root, 'scripts', 'static-figure.mjs')).href);
const { vectors: wholeTable } = await loadSources();
const used = new Set();
for (const text of sentences) for (const t of wholeTable.embed(text).tokens) if (t.matched) used.add(t.matched);
const table = await readFile(join(root, 'data', 'vectors.bin'));
const first = subsetVectors(table, (i, word) => used.has(word));
const frequent = subsetVectors(table, (i, word) => i < FIRST_WORDS && !used.has(word));
for (const dir of ['', 'widget/']) {
  await writeFile(join(out, dir, 'vectors-first.bin'), first);
  await writeFile(join(out, dir, 'vectors-common.bin'), frequent);
}

// The whole table again, split into SHARDS files by a hash of the word (web/lib/vectors-format.js): a
// sentence with words outside the first chunk fetches only the shards of those words (and of the stems
// the core would try for them), ~9 KiB gzip each, instead of waiting for the whole table.
for (const dir of ['', 'widget/']) await mkdir(join(out, dir, 'vectors-shards'), { recursive: true });
for (let id = 0; id < SHARDS; id++) {
  const shard = subsetVectors(table, (i, word) => shardOf(word) === id);
  for (const dir of ['', 'widget/']) await writeFile(join(out, dir, shardFile(id)), shard);
}

// Issue 24: the vectors composed from character n-grams (data/vectors-composed.bin) split the same way;
// the page fetches a composed shard only for a word neither the table nor its stems have.
const composed = await readFile(join(root, 'data', 'vectors-composed.bin'));
const composedShard = vectorsLayout(composed).words.map(shardOf);
for (const dir of ['', 'widget/']) await mkdir(join(out, dir, 'vectors-composed'), { recursive: true });
for (let id = 0; id < SHARDS; id++) {
  const shard = subsetVectors(composed, (i) => composedShard[i] === id);
  for (const dir of ['', 'widget/']) await writeFile(join(out, dir, composedShardFile(id)), shard);
}

// And the n-gram last resort (data/vectors-ngrams.bin: fastText's trained n-gram rows, keyed by bucket) in
// NGRAM_SHARDS files by bucket: a word in neither list fetches only the shards of its n-grams' buckets.
const ngrams = await readFile(join(root, 'data', 'vectors-ngrams.bin'));
const ngramShards = splitVectors(ngrams, NGRAM_SHARDS, (i, key) => Number(key.slice(1)) % NGRAM_SHARDS);
for (const dir of ['', 'widget/']) await mkdir(join(out, dir, 'vectors-ngrams'), { recursive: true });
for (const [k, shard] of ngramShards.entries())
  for (const dir of ['', 'widget/']) await writeFile(join(out, dir, ngramShardFile(k)), shard);

const rows = [];
async function list(dir, prefix = '') {
  for (const entry of (await readdir(dir, { withFileTypes: true })).sort((a, b) => a.name.localeCompare(b.name))) {
    if (entry.name === 'vectors-shards' || entry.name === 'vectors-composed' || entry.name === 'vectors-ngrams') {
      // One line for the shards (their sizes, summed), not 128 (or NGRAM_SHARDS).
      const sizes = await Promise.all(
        (await readdir(join(dir, entry.name))).map(async (f) => {
          const bytes = await readFile(join(dir, entry.name, f));
          return [bytes.length, gzipSync(bytes, { level: 9 }).length];
        }),
      );
      rows.push([`${prefix}${entry.name}/ (${sizes.length} files)`, ...sizes.reduce((a, b) => [a[0] + b[0], a[1] + b[1]], [0, 0])]);
    } else if (entry.isDirectory()) await list(join(dir, entry.name), `${prefix}${entry.name}/`);
    else {
      const bytes = await readFile(join(dir, entry.name));
      rows.push([prefix + entry.name, bytes.length, gzipSync(bytes, { level: 9 }).length]);
    }
  }
}
await list(out);
const kb = (n) => `${(n / 1024).toFixed(1)} KiB`;
const width = Math.max(...rows.map(([n]) => n.length));
console.log(`build-site: wrote ${relative(process.cwd(), out) || '.'}/`);
for (const [name, raw, gz] of rows) console.log(`  ${name.padEnd(width)}  ${kb(raw).padStart(10)}  gzip ${kb(gz).padStart(10)}`);
const sum = (pick) => rows.filter(([n]) => pick(n)).reduce((a, [, raw, gz]) => [a[0] + raw, a[1] + gz], [0, 0]);
const total = sum((n) => !n.includes('/'));
console.log(`  ${'page total'.padEnd(width)}  ${kb(total[0]).padStart(10)}  gzip ${kb(total[1]).padStart(10)}`);
// The widget's payload before the word vectors: its one JS file and the core's wasm — one of the two
// builds, whichever the browser runs (web/lib/core-file.js), counted as the larger. The model's module
// is not part of it: it is fetched only when a reader (or source="model") asks for it.
const onDemand = (n) => n.includes('attention_model_wasm');
const core = ['widget/attention_wasm.wasm', 'widget/attention_wasm_relaxed.wasm'].map((n) => rows.find(([name]) => name === n));
const [, coreRaw, coreGz] = core.reduce((a, b) => (b[2] > a[2] ? b : a));
const js = sum((n) => n.startsWith('widget/') && !onDemand(n) && n.endsWith('.js') && n !== 'widget/attention.js');
const payload = [js[0] + coreRaw, js[1] + coreGz];
console.log(
  `  ${'widget JS + wasm'.padEnd(width)}  ${kb(payload[0]).padStart(10)}  gzip ${kb(payload[1]).padStart(10)}  (one of the two core builds, the larger; limit 150 KiB gzip)`,
);
const model = sum((n) => n.startsWith('widget/') && onDemand(n));
console.log(
  `  ${'+ on demand'.padEnd(width)}  ${kb(model[0]).padStart(10)}  gzip ${kb(model[1]).padStart(10)}  (the model's module, with model.bin)`,
);

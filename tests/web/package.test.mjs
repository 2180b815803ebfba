// The widget folder (build/site/widget) as the npm package an article's author installs: packed with
// `npm pack`, installed from the tarball into a fresh project outside the repository, bundled by
// esbuild (the repository's copy, through its JS API) into a page served on localhost and opened in
// Chromium, where both a word-vector figure and a trained-model figure must draw the reference
// weights; its .d.ts type-checked by tsc from a consumer file; and its licences shipped. No network:
// npm works offline from the tarball. Build first: bash scripts/build.sh. Run: node --test tests/web/
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { copyFile, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { promisify } from 'node:util';
import { build } from 'esbuild';
import { startServer } from '../../scripts/serve.mjs';
import {
  FIXED_CORE,
  RELAXED_CORE,
  assertShows,
  assertShowsModel,
  drawn as drawnState,
  figureState,
  launch,
  modelReference,
  reference,
  root,
  site,
} from './harness.mjs';

const run = promisify(execFile);
const widget = join(site, 'widget');
const WORDS = 'the train left the station on time';
const MODEL = 'he cashed a check at the bank';

let work, project, packed, installed;

before(async () => {
  await readFile(join(widget, 'package.json')).catch(() => {
    throw new Error(`${widget}/package.json is missing: build first (bash scripts/build.sh)`);
  });
  work = await mkdtemp(join(tmpdir(), 'attention-figure-author-'));
  // --json lists what went into the tarball; the log lines npm may print go to stderr.
  const { stdout } = await run('npm', ['pack', widget, '--pack-destination', work, '--json', '--loglevel=error'], { cwd: work });
  [packed] = JSON.parse(stdout);
  project = join(work, 'article');
  await mkdir(join(project, 'src'), { recursive: true });
  await writeFile(join(project, 'package.json'), JSON.stringify({ name: 'my-article', private: true, type: 'module' }, null, 2));
  await run('npm', ['install', join(work, packed.filename), '--offline', '--no-audit', '--no-fund', '--loglevel=error'], { cwd: project });
  installed = join(project, 'node_modules', 'attention-figure');
});

after(() => work && rm(work, { recursive: true, force: true }));

// A file, or for a subpath pattern ("vectors-shards/*") at least one file it matches.
const inTarball = (file) =>
  file.endsWith('*') ? packed.files.some((f) => f.path.startsWith(file.slice(0, -1))) : packed.files.some((f) => f.path === file);

test('licence: the code is MIT, and the WordNet licence ships with the WordNet-derived data', async () => {
  const license = await readFile(join(root, 'LICENSE'), 'utf8');
  assert.match(license, /^MIT License\n\nCopyright \(c\) 2026 the attention-explainer authors\n/);
  assert.equal(JSON.parse(await readFile(join(root, 'package.json'), 'utf8')).license, 'MIT', 'root package.json');
  const pkg = JSON.parse(await readFile(join(installed, 'package.json'), 'utf8'));
  assert.equal(pkg.license, 'MIT', 'the installed package.json');
  // vectors.bin and model.bin are derived from WordNet 3.0, whose licence must travel with every copy.
  assert.ok(inTarball('vectors.bin') && inTarball('model.bin'), 'the tarball carries the WordNet-derived data');
  for (const [file, source] of [
    ['LICENSE', join(root, 'LICENSE')],
    ['WORDNET-LICENSE', join(root, 'data', 'WORDNET-LICENSE')],
  ]) {
    assert.ok(inTarball(file), `${file} is in the tarball (${packed.files.map((f) => f.path).join(', ')})`);
    assert.equal(await readFile(join(installed, file), 'utf8'), await readFile(source, 'utf8'), `the installed ${file} is ${source}`);
  }
  const readme = await readFile(join(installed, 'README.md'), 'utf8');
  assert.match(readme, /MIT/, 'the package README names the licence');
  assert.match(readme, /`WORDNET-LICENSE`/, 'the package README points at the WordNet licence it ships');
});

test('every file package.json exports or lists is in the tarball', async () => {
  const pkg = JSON.parse(await readFile(join(installed, 'package.json'), 'utf8'));
  const targets = [];
  const collect = (value) => (typeof value === 'string' ? targets.push(value) : Object.values(value).forEach(collect));
  collect(pkg.exports);
  targets.push(pkg.types);
  assert.ok(targets.length >= 6, targets.join());
  for (const target of targets)
    assert.ok(inTarball(target.replace(/^\.\//, '')), `package.json points at ${target}, which is not in the tarball`);
  // Both builds of the core: a reader's browser fetches one of them (web/lib/core-file.js).
  for (const file of [FIXED_CORE, RELAXED_CORE]) {
    assert.ok(inTarball(file), `${file} is in the tarball`);
    assert.ok(targets.includes(`./${file}`), `${file} is exported, so an author's build can find it`);
  }
  // The word-vector shards, every one of them (a missing one would make its words wait for vectors.bin).
  assert.equal(packed.files.filter((f) => /^vectors-shards\/\d{3}\.bin$/.test(f.path)).length, 128);
});

// The author's page: one script bundled from the package's two entry points, and two figures.
const PAGE = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta http-equiv="Content-Security-Policy" content="default-src 'self'; script-src 'self' 'wasm-unsafe-eval'">
  <link rel="icon" href="favicon.svg">
  <title>An article</title>
  <script type="module" src="article.js"></script>
</head>
<body>
  <p>Who attends to whom:</p>
  <attention-figure id="words" sentence="${WORDS}"></attention-figure>
  <attention-figure id="model" source="model" sentence="${MODEL}"></attention-figure>
</body>
</html>
`;
const SCRIPT = `import 'attention-figure';
import { loadAttention } from 'attention-figure/core';

// The compute module on its own, beside the figures.
loadAttention().then(
  (core) => { document.body.dataset.softmax = Array.from(core.softmax([[0, Math.log(3)]]).data, (p) => p.toFixed(6)).join(' '); },
  (err) => { document.body.dataset.softmax = 'error: ' + err.message; },
);
`;

test('an author installs the tarball, bundles a page with esbuild, and both figures draw in Chromium', async () => {
  const pub = join(project, 'public');
  await mkdir(pub, { recursive: true });
  await writeFile(join(project, 'src', 'article.js'), SCRIPT);
  await writeFile(join(pub, 'index.html'), PAGE);
  // A file, not data: (the CSP's default-src 'self' refuses data: images), so the browser asks no /favicon.ico.
  await writeFile(join(pub, 'favicon.svg'), '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 1 1"/>');
  const result = await build({
    absWorkingDir: project,
    entryPoints: ['src/article.js'],
    bundle: true,
    format: 'esm',
    platform: 'browser',
    outfile: join(pub, 'article.js'),
    logLevel: 'silent',
  });
  assert.deepEqual(result.errors, []);
  // Bundled, the widget's code runs from article.js, so "its own files, relative to its script" are
  // beside article.js: copy them there, found through the package's exports as an author's build would.
  const require = createRequire(join(project, 'package.json'));
  // The list the widget's README gives.
  const files = [FIXED_CORE, RELAXED_CORE, 'vectors-first.bin', 'vectors-common.bin', 'vectors.bin'];
  for (const file of [...files, 'attention_model_wasm.js', 'attention_model_wasm.wasm', 'model.bin']) {
    await copyFile(require.resolve(`attention-figure/${file}`), join(pub, file));
  }

  const ref = await reference();
  const modelRef = await modelReference(ref.api);
  const { server, url } = await startServer(pub, 0);
  const browser = await launch();
  try {
    const page = await browser.newPage({ viewport: { width: 1000, height: 1600 } });
    const problems = [];
    const requests = [];
    page.on('console', (m) => m.type() === 'error' && problems.push(`console: ${m.text()}`));
    page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
    page.on('requestfailed', (r) => problems.push(`requestfailed: ${r.url()}`));
    page.on('request', (r) => requests.push(r.url()));
    await page.goto(url);
    await page.waitForFunction(() => document.body.dataset.softmax, null, { timeout: 15_000 });
    assert.equal(
      await page.evaluate(() => document.body.dataset.softmax),
      '0.250000 0.750000',
      'attention-figure/core computes in the page',
    );
    const drawn = (host) =>
      page
        .waitForFunction(
          (host) => document.querySelector(host)?.shadowRoot?.querySelector('#heatmap canvas.cells')?.attentionWeights,
          host,
          { timeout: 15_000 },
        )
        .catch((e) =>
          assert.fail(`${host} drew no heatmap (${e.message.split('\n')[0]}); the page saw: ${problems.join('; ') || 'no error'}`),
        );
    await drawn('#words');
    await drawnState(page, { scope: '#words', sentence: WORDS });
    assertShows(await figureState(page, '#words'), WORDS, ref);
    await drawn('#model');
    await drawnState(page, { scope: '#model', sentence: MODEL });
    assertShowsModel(await figureState(page, '#model'), MODEL, modelRef);
    // Once drawn, the figures ask for the frequent words (store.js): wait for that fetch to end.
    await page.waitForFunction(() => performance.getEntriesByType('resource').some((r) => r.name.endsWith('/vectors-common.bin')));
    assert.deepEqual(problems, []);
    const fetched = requests.map((r) => new URL(r)).filter((u) => u.protocol !== 'data:');
    assert.ok(
      fetched.every((u) => u.origin === new URL(url).origin),
      `only the page's own origin: ${fetched.join(', ')}`,
    );
    // The figures and the compute module alone (attention-figure/core, wasm/attention.js) all run the
    // core's relaxed build (this Chromium runs relaxed SIMD): one core is downloaded, not two.
    assert.deepEqual([...new Set(fetched.map((u) => basename(u.pathname)))].sort(), [
      '',
      'article.js',
      'attention_model_wasm.js',
      'attention_model_wasm.wasm',
      'attention_wasm_relaxed.wasm',
      'favicon.svg',
      'model.bin',
      'vectors-common.bin',
      'vectors-first.bin',
    ]);
  } finally {
    await browser.close();
    await new Promise((done) => server.close(done));
    ref.vectors.delete();
    modelRef.model.delete();
  }
});

// An author's TypeScript against the shipped declarations. The @ts-expect-error lines fail the check
// if the types ever resolve to `any` (a missing or unreachable .d.ts) and so stop catching mistakes.
const CONSUMER = `import 'attention-figure';
import { DEFAULT_CONTROLS, type AttentionFigureElement, type FigureState, type View } from 'attention-figure';
import { loadAttention, type AttentionCore, type Matrix, type Neighbour } from 'attention-figure/core';

const figure: AttentionFigureElement | null = document.querySelector('attention-figure');
if (figure) {
  const view: View = figure.state.view;
  figure.addEventListener('attention-change', (event) => {
    const state: FigureState = event.detail;
    console.log(state.sentence, view, DEFAULT_CONTROLS.join(' '));
  });
  const svg: string = figure.exportSVG();
  const png: Promise<Blob> = figure.exportPNG(2);
  console.log(svg.length, png);
  // @ts-expect-error: 'pie' is not a view
  const pie: View = 'pie';
  console.log(pie);
}
const core: AttentionCore = await loadAttention({ locateFile: (path) => '/assets/' + path });
const weights: Matrix = core.softmax([[1, 2, 3]], { axis: 'rows', temperature: 0.5 });
const data: Float32Array = weights.data;
console.log(data.length);
// @ts-expect-error: softmax runs along 'rows' or 'columns' only
core.softmax([[1]], { axis: 'diagonal' });
const vectors = core.loadVectors(new Uint8Array(await (await fetch('/vectors.bin')).arrayBuffer()));
const near: Neighbour[] = vectors.nearest(data, 5, { exclude: ['bank', 3] });
console.log(near[0].word, near[0].similarity);
// @ts-expect-error: exclude holds words and word ids only
vectors.nearest(data, 5, { exclude: [true] });
`;

test('tsc type-checks a consumer against the shipped .d.ts (bundler and Node resolution)', async () => {
  await writeFile(join(project, 'src', 'consumer.ts'), CONSUMER);
  const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');
  for (const [module, moduleResolution] of [
    ['esnext', 'bundler'],
    ['nodenext', 'nodenext'],
  ]) {
    const config = join(project, `tsconfig.${moduleResolution}.json`);
    await writeFile(
      config,
      JSON.stringify(
        {
          compilerOptions: {
            target: 'es2022',
            module,
            moduleResolution,
            lib: ['es2022', 'dom'],
            types: [],
            strict: true,
            noEmit: true,
            skipLibCheck: false,
          },
          files: ['src/consumer.ts'],
        },
        null,
        2,
      ),
    );
    try {
      await run(process.execPath, [tsc, '-p', config], { cwd: project });
    } catch (e) {
      assert.fail(`tsc (${moduleResolution}) found errors:\n${e.stdout}${e.stderr}`);
    }
  }
});

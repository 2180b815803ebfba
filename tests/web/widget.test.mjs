// End-to-end tests of the embeddable widget (<attention-figure>, build/site/widget/) on the examples
// page (an article with three widgets, under a strict Content-Security-Policy), and of the full
// page's URL state, share / embed, export and import. Numbers are compared with the same wasm core
// run in node. Build first: bash scripts/build.sh. Run: node --test tests/web/
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import {
  FIXED_CORE,
  RELAXED_CORE,
  assertColours,
  assertLabels,
  assertWeights,
  coreFetches,
  drawn,
  readHeatmaps,
  root,
  site,
  startSession,
  withoutRelaxedSimd,
} from './harness.mjs';
import { HEAD_SHARPNESS, multiHeadWeights } from '../../web/lib/rng.js';
import { DEFAULTS } from '../../web/lib/state.js';

const TOLERANCE = 1e-6;
let browser, url, core, vectors, session;

before(async () => {
  session = await startSession();
  ({ browser, url, core, vectors } = session);
});

after(() => session?.stop());

// ---- references from the wasm core in node ---------------------------------------------------------
function single(text, { temperature = 1, mask = 'none' } = {}) {
  const { tokens, X } = vectors.embed(text, 64);
  return { tokens, steps: core.parameterFree(X, Math.sqrt(vectors.dim), { temperature, causal: mask === 'causal' }) };
}
function multi(text, { heads = 4, seed = 1, temperature = 1, mask = 'none' } = {}) {
  const { tokens, X } = vectors.embed(text, 64);
  const w = multiHeadWeights(vectors.dim, heads, seed, HEAD_SHARPNESS);
  return { tokens, heads: core.multiHead(X, { heads: w.heads, Wo: w.Wo }, { temperature, causal: mask === 'causal' }).heads };
}
const near = (a, b, where) => assert.ok(Math.abs(Number(a) - b) <= TOLERANCE, `${where}: shown ${a}, wasm ${b}`);

/** A heatmap (read by readHeatmaps) drew the whole T×T matrix `weights`, each cell in its weight's colour. */
function assertCells(map, weights, where) {
  const T = weights.rows;
  assert.ok(map, `${where}: no heatmap`);
  assert.equal(map.cells.length, T * T, `${where}: ${map.cells.length} cells, want ${T}×${T}`);
  assert.equal(new Set(map.cells.map((c) => c.row * T + c.col)).size, T * T, `${where}: every cell once`);
  assertWeights(map, weights, where, TOLERANCE);
  assertColours(map, where);
}

// ---- browser helpers ------------------------------------------------------------------------------
async function open(path, { width = 1100, height = 900, colorScheme = 'light', before } = {}) {
  const page = await browser.newPage({ viewport: { width, height }, colorScheme, acceptDownloads: true });
  const problems = [];
  const requests = [];
  page.on('console', (m) => m.type() === 'error' && problems.push(`console: ${m.text()}`));
  page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
  page.on('requestfailed', (r) => problems.push(`requestfailed: ${r.url()}`));
  page.on('request', (r) => requests.push(new URL(r.url()).pathname));
  page.on('dialog', (d) => {
    problems.push(`dialog: ${d.message()}`);
    d.dismiss().catch(() => {});
  });
  await before?.(page);
  await page.goto(url + path);
  return { page, problems, requests };
}

/** Waits until every <attention-figure> on the page shows a drawn view. */
const widgetsDrawn = (page) =>
  page.waitForFunction(
    () => {
      const all = [...document.querySelectorAll('attention-figure')];
      return (
        all.length > 0 &&
        all.every((w) => {
          // The host says its figure drew a state and nothing is on its way (figure.js render()).
          if (w.getAttribute('aria-busy') !== 'false' || w.dataset.drawn === undefined) return false;
          const view = w.shadowRoot?.querySelector('#plot:not([hidden]) #heatmap');
          return (
            view &&
            (view.querySelector('canvas.cells')?.attentionWeights ||
              view.querySelector('canvas.links')?.attentionLines ||
              view.querySelector('svg.steps'))
          );
        })
      );
    },
    null,
    { timeout: 20_000 },
  );

/**
 * What a widget (by id) or, with id null, the page shows: the view, the heatmap and head maps as
 * their canvases report them (readHeatmaps: weights, labels, pixel colours), the lines canvas's
 * window of weights (canvas.attentionLines), the steps table, the message.
 */
const shown = async (page, id) => {
  const host = id ? `#${id}` : null;
  const maps = (await page.evaluate(readHeatmaps, { host, selector: '#heatmap > .heatmap' })).filter(Boolean);
  const rest = await page.evaluate(showing, id);
  const map = maps.find((m) => m.head === null) ?? null;
  return {
    ...rest,
    map,
    rows: map ? map.rowLabels.map((l) => l.text.replace(/[?*]$/, '')) : [],
    heads: maps.filter((m) => m.head !== null),
  };
};
const showing = (id) => {
  const root = id ? document.getElementById(id).shadowRoot : document;
  const view = root.getElementById('heatmap');
  const message = root.getElementById('message');
  const lines = view.querySelector('canvas.links')?.attentionLines;
  return {
    view: view.dataset.view,
    lines: lines && { ...lines, data: Array.from(lines.data) },
    steps: view.querySelector('svg.steps') && {
      query: +view.querySelector('svg.steps').dataset.query,
      rows: [...view.querySelectorAll('.steps-row')].map((r) =>
        ['score', 'scaled', 'weight'].map((k) => r.querySelector(`.${k}`).dataset.value),
      ),
      output: JSON.parse(view.querySelector('.output').dataset.values),
    },
    message: message.hidden ? '' : message.textContent,
  };
};

function assertSteps(steps, ref, query) {
  const T = ref.weights.rows;
  assert.equal(steps.query, query);
  assert.equal(steps.rows.length, T);
  steps.rows.forEach(([score, scaled, weight], j) => {
    near(score, ref.scores.data[query * T + j], `score ${query}→${j}`);
    const want = ref.scaled.data[query * T + j];
    if (want === -Infinity) assert.equal(scaled, '-Infinity', `scaled ${query}→${j} masked`);
    else near(scaled, want, `scaled ${query}→${j}`);
    near(weight, ref.weights.data[query * T + j], `weight ${query}→${j}`);
  });
  const d = ref.output.cols;
  steps.output.forEach((v, c) => near(v, ref.output.data[query * d + c], `output[${c}]`));
}

/** The lines canvas drew the window of `weights` it reports: one line per non-zero weight in it. */
function assertLinks(lines, weights, where) {
  const T = weights.rows;
  assert.ok(lines, `${where}: no lines canvas`);
  assert.equal(lines.T, T);
  const { start, rows } = lines;
  let positive = 0;
  for (let r = 0; r < rows; r++) {
    for (let c = 0; c < rows; c++) {
      const want = weights.data[(start + r) * T + start + c];
      if (want > 0) positive++;
      near(lines.data[r * rows + c], want, `${where} line ${start + r}→${start + c}`);
    }
  }
  assert.equal(lines.drawn, positive, `${where}: one line per non-zero weight`);
}

// ---- tests ----------------------------------------------------------------------------------------
test("examples page, strict CSP: three widgets draw the core's numbers from one wasm and one vectors fetch", async () => {
  const { page, problems, requests } = await open('examples/index.html');
  try {
    await widgetsDrawn(page);
    const a = await shown(page, 'fig-heatmap');
    assert.equal(a.view, 'heatmap');
    assert.deepEqual(a.rows, ['the', 'train', 'left', 'the', 'station', 'on', 'time']);
    assertCells(a.map, single('the train left the station on time').steps.weights, 'heatmap');

    const b = await shown(page, 'fig-lines');
    assert.equal(b.view, 'lines');
    const refB = single('he cashed a check at the bank', { temperature: 0.5, mask: 'causal' }).steps.weights;
    assertLinks(b.lines, refB, 'lines');
    assert.ok(
      b.lines.data.every((w, k) => w === 0 || k % 7 <= Math.floor(k / 7)),
      'causal: no line to a later word',
    );
    assert.equal(b.lines.drawn, (7 * 8) / 2);

    const c = await shown(page, 'fig-heads');
    assert.equal(c.view, 'heads');
    const refC = multi('the bank of the river flooded', { heads: 4 });
    assert.deepEqual(
      c.heads.map((h) => h.head),
      [0, 1, 2, 3],
    );
    c.heads.forEach((h, k) => assertCells(h, refC.heads[k].weights, `head ${k + 1}`));
    // The heads differ from each other and from uniform: the seeded projections do something.
    assert.notEqual(c.heads[0].cells[0].weight, c.heads[1].cells[0].weight);
    assertLabels(c.heads[0], refC.tokens, 'head 1');

    // This Chromium runs relaxed SIMD: the core's relaxed build, fetched once for the three, never the fixed one.
    assert.deepEqual(coreFetches(requests), { fixed: 0, relaxed: 1 }, 'one wasm fetch for three widgets');
    assert.equal(
      requests.filter((p) => p.endsWith('/vectors-first.bin')).length,
      1,
      "one fetch of the vectors' first chunk for three widgets",
    );
    // Their sentences' words are all in the first chunk, and none of these views needs every word: the
    // whole table (vectors.bin, 1.1 MB) is never fetched, nor any shard. (The store asks for what a state
    // needs in the same update that draws it: all three drew their state and none is busy, so nothing is left to ask.)
    assert.equal(requests.filter((p) => p.endsWith('/vectors.bin') || p.includes('/vectors-shards/')).length, 0, requests.join(' '));
    // Once drawn, each store asks for the frequent words (store.js): one fetch for the three, after the first figure.
    await page.waitForFunction(() => performance.getEntriesByType('resource').some((r) => r.name.endsWith('/vectors-common.bin')));
    assert.equal(requests.filter((p) => p.endsWith('/vectors-common.bin')).length, 1, 'one fetch of the frequent words for three widgets');
    assert.ok(
      requests.every(
        (p) =>
          !p.startsWith('/widget/') ||
          /^\/widget\/(attention-widget\.js|attention_wasm_relaxed\.wasm|vectors-(first|common)\.bin)$/.test(p),
      ),
      requests.join(' '),
    );
    assert.deepEqual(problems, []);
  } finally {
    await page.close();
  }
});

test('the preload link the READMEs suggest is used by the widget: one fetch of each file, no warning', async () => {
  // The example article with the optional line of README.md / web/widget/README.md in its head (no
  // preload of the core: which of its two builds a browser runs is decided by the widget's script).
  const { page, problems, requests } = await open('examples/index.html', {
    before: async (page) => {
      // Chromium warns (not an error) about a preload no fetch used.
      page.on('console', (m) => /preload/i.test(m.text()) && problems.push(`console: ${m.text()}`));
      await page.route('**/examples/index.html', async (route) => {
        const response = await route.fetch();
        const body = (await response.text()).replace(
          '</head>',
          '<link rel="preload" href="../widget/vectors-first.bin" as="fetch" crossorigin>\n</head>',
        );
        await route.fulfill({ response, body });
      });
    },
  });
  try {
    await widgetsDrawn(page);
    const a = await shown(page, 'fig-heatmap');
    assertCells(a.map, single('the train left the station on time').steps.weights, 'heatmap');
    // A preload whose request mode differs from the widget's fetch would be fetched twice (two requests,
    // two resource entries): the widgets drew, so their fetch of the first chunk is done.
    assert.equal(
      await page.evaluate(() => performance.getEntriesByType('resource').filter((e) => e.name.endsWith('/vectors-first.bin')).length),
      1,
      'the preload is the fetch',
    );
    assert.deepEqual(coreFetches(requests), { fixed: 0, relaxed: 1 }, requests.join(' '));
    assert.equal(requests.filter((p) => p.endsWith('/vectors-first.bin')).length, 1, requests.join(' '));
    assert.equal(requests.filter((p) => p.endsWith('/vectors.bin')).length, 0, requests.join(' '));
    assert.deepEqual(problems, []);
  } finally {
    await page.close();
  }
});

test('without relaxed SIMD the widgets load the fixed build, once for three; a relaxed build that fails gives way to it', async () => {
  const ref = single('the train left the station on time').steps.weights;
  for (const [what, before] of [
    ['no relaxed SIMD', withoutRelaxedSimd],
    ['relaxed build 404', (page) => page.route(`**/${RELAXED_CORE}`, (route) => route.fulfill({ status: 404, body: 'Not found' }))],
  ]) {
    const { page, problems, requests } = await open('examples/index.html', { before });
    try {
      await widgetsDrawn(page);
      assertCells((await shown(page, 'fig-heatmap')).map, ref, what);
      const fetched = coreFetches(requests);
      assert.equal(fetched.fixed, 1, `${what}: ${requests.join(' ')}`);
      // Without relaxed SIMD the relaxed build is never asked for; a 404 one is tried before the fallback.
      if (what === 'no relaxed SIMD') assert.equal(fetched.relaxed, 0, `${what}: ${requests.join(' ')}`);
      else assert.ok(fetched.relaxed >= 1, `${what}: ${requests.join(' ')}`);
      assert.deepEqual(
        problems.filter((p) => !/Failed to load resource: the server responded with a status of 404/.test(p)),
        [],
        what,
      );
    } finally {
      await page.close();
    }
  }
});

test('a widget reacts to each attribute changing', async () => {
  const { page, problems } = await open('examples/index.html');
  try {
    await widgetsDrawn(page);
    // Sets an attribute, then waits until the widget drew every state attribute set so far.
    const want = {};
    const set = async (name, value) => {
      await page.evaluate(([n, v]) => document.getElementById('fig-heatmap').setAttribute(n, v), [name, value]);
      if (name in DEFAULTS) want[name] = value;
      await drawn(page, { scope: '#fig-heatmap', ...want });
    };
    const text = 'he cashed a check at the bank';
    await set('sentence', text);
    let s = await shown(page, 'fig-heatmap');
    assert.deepEqual(s.rows, ['he', 'cashed', 'a', 'check', 'at', 'the', 'bank']);
    assertCells(s.map, single(text).steps.weights, 'sentence');

    await set('temperature', '0.3');
    s = await shown(page, 'fig-heatmap');
    assertCells(s.map, single(text, { temperature: 0.3 }).steps.weights, 'temperature 0.3');

    await set('mask', 'causal');
    s = await shown(page, 'fig-heatmap');
    const causal = single(text, { temperature: 0.3, mask: 'causal' }).steps;
    assertCells(s.map, causal.weights, 'causal');
    assert.ok(
      s.map.cells.filter((c) => c.col > c.row).every((c) => c.weight === 0),
      'upper triangle is 0',
    );

    await set('view', 'lines');
    s = await shown(page, 'fig-heatmap');
    assert.equal(s.view, 'lines');
    assertLinks(s.lines, causal.weights, 'lines');

    await set('word', '3');
    await set('view', 'steps');
    s = await shown(page, 'fig-heatmap');
    assertSteps(s.steps, causal, 3);

    await set('heads', '2');
    await set('view', 'heads');
    s = await shown(page, 'fig-heatmap');
    const ref = multi(text, { heads: 2, temperature: 0.3, mask: 'causal' });
    assert.equal(s.heads.length, 2);
    s.heads.forEach((h, k) => assertCells(h, ref.heads[k].weights, `head ${k + 1}`));

    const bg = () =>
      page.evaluate(() => getComputedStyle(document.getElementById('fig-heatmap').shadowRoot.querySelector('.af')).backgroundColor);
    assert.equal(await bg(), 'rgb(255, 255, 255)');
    await set('theme', 'dark');
    await page.waitForFunction(() =>
      document.getElementById('fig-heatmap').shadowRoot.querySelector('.af').classList.contains('theme-dark'),
    );
    assert.equal(await bg(), 'rgb(23, 25, 30)');

    const visible = (sel) =>
      page.evaluate((sel) => {
        const n = document.getElementById('fig-heatmap').shadowRoot.querySelector(sel);
        return Boolean(n && n.getClientRects().length);
      }, sel);
    assert.equal(await visible('#sentence'), true);
    assert.equal(await visible('.toolbar'), false);
    await set('controls', 'none');
    await page.waitForFunction(
      () => document.getElementById('fig-heatmap').shadowRoot.querySelector('#sentence').getClientRects().length === 0,
    );
    assert.equal(await visible('#sentence'), false);
    assert.equal(await visible('#temperature'), false);
    await set('controls', 'mask export');
    await page.waitForFunction(() => document.getElementById('fig-heatmap').shadowRoot.querySelector('#mask').getClientRects().length > 0);
    assert.equal(await visible('#mask'), true);
    assert.equal(await visible('.svgButton'), true);
    assert.equal(await visible('#sentence'), false);
    assert.deepEqual(problems, []);
  } finally {
    await page.close();
  }
});

test("the article's CSS stays out of the widgets, the widgets' out of the article; width follows the container", async () => {
  for (const width of [1100, 390]) {
    const { page, problems } = await open('examples/index.html', { width });
    try {
      await widgetsDrawn(page);
      const info = await page.evaluate(() => {
        const w = document.getElementById('fig-heatmap');
        const r = w.shadowRoot;
        const label = r.querySelector('.heatmap svg text.row-label');
        const button =
          r.querySelector('.toolbar button') ?? document.getElementById('fig-heads').shadowRoot.querySelector('.toolbar button');
        const article = document.querySelector('article');
        const cs = getComputedStyle(article);
        return {
          labelFill: getComputedStyle(label).fill,
          labelSize: getComputedStyle(label).fontSize,
          cellDisplay: getComputedStyle(r.querySelector('canvas.cells')).display,
          svgBorder: getComputedStyle(r.querySelector('.heatmap svg')).borderTopStyle,
          plotRight: r.querySelector('.heatmap .hm-plot').getBoundingClientRect().right,
          viewRight: r.getElementById('heatmap').getBoundingClientRect().right,
          buttonTransform: getComputedStyle(document.getElementById('fig-heads').shadowRoot.querySelector('.toolbar button')).textTransform,
          inputFont: getComputedStyle(r.querySelector('#sentence')).fontFamily,
          paragraphFont: getComputedStyle(document.querySelector('article p')).fontFamily,
          documentSheets: document.styleSheets.length,
          adopted: document.adoptedStyleSheets.length,
          styleElements: document.querySelectorAll('style').length,
          widgets: [...document.querySelectorAll('attention-figure')].map((f) => f.getBoundingClientRect().width),
          content: article.clientWidth - parseFloat(cs.paddingLeft) - parseFloat(cs.paddingRight),
          scrollWidth: document.documentElement.scrollWidth,
          innerWidth,
        };
      });
      assert.notEqual(info.labelFill, 'rgb(255, 105, 180)', 'article svg { fill: hotpink } must not reach the widget');
      assert.notEqual(info.labelSize, '30px');
      assert.notEqual(info.cellDisplay, 'none');
      assert.equal(info.svgBorder, 'none');
      assert.equal(info.buttonTransform, 'none');
      assert.doesNotMatch(info.inputFont, /Georgia/);
      assert.match(info.paragraphFont, /Georgia/, 'the widget does not restyle the article');
      assert.deepEqual([info.documentSheets, info.adopted, info.styleElements], [1, 0, 0]);
      for (const w of info.widgets) assert.ok(Math.abs(w - info.content) <= 1, `widget ${w}px in a ${info.content}px column`);
      assert.ok(info.scrollWidth <= info.innerWidth, `page scrolls sideways at ${width}px: ${info.scrollWidth}`);
      assert.ok(info.plotRight <= info.viewRight + 1, `the heatmap fits its box at ${width}px: ${info.plotRight} > ${info.viewRight}`);
      assert.deepEqual(problems, []);
    } finally {
      await page.close();
    }
  }
});

test('dark example page: widgets draw in the dark theme', async () => {
  const { page, problems } = await open('examples/dark.html', { colorScheme: 'dark' });
  try {
    await widgetsDrawn(page);
    const colours = await page.evaluate(() =>
      [...document.querySelectorAll('attention-figure')].map((w) => {
        const af = w.shadowRoot.querySelector('.af');
        return [getComputedStyle(af).backgroundColor, getComputedStyle(w.shadowRoot.querySelector('#readout')).color];
      }),
    );
    assert.deepEqual(colours, Array(3).fill(['rgb(23, 25, 30)', 'rgb(231, 233, 238)']));
    assertCells((await shown(page, 'fig-heatmap')).map, single('the train left the station on time').steps.weights, 'dark heatmap');
    assert.deepEqual(problems, []);
  } finally {
    await page.close();
  }
});

test("share / embed: the link and iframe URL reproduce the widget's state on the full page", async () => {
  const { page, problems } = await open('examples/index.html');
  let full;
  try {
    await widgetsDrawn(page);
    const w = page.locator('#fig-heads');
    const text = 'the river bank was quiet';
    const scope = '#fig-heads';
    await w.locator('#sentence').fill(text);
    // The new words' vector shards arrive before the figure draws the sentence: wait for it.
    await drawn(page, { scope, sentence: text });
    // Heads first: the Heads control shows only while the heads view is on (it changes nothing else).
    await w.locator('#heads').fill('3');
    await w.locator('#heads').dispatchEvent('change');
    await drawn(page, { scope, sentence: text, heads: 3 });
    await w.locator('#view').selectOption('steps');
    await drawn(page, { scope, sentence: text, heads: 3, view: 'steps' });
    assert.equal(await w.locator('#heads').isVisible(), false);
    await w.locator('#mask').selectOption('causal');
    await w.locator('#temperature').evaluate((el) => {
      el.value = '0.7';
      el.dispatchEvent(new Event('input', { bubbles: true }));
    });
    await w.locator('#word').selectOption({ value: '2' });
    const ref = single(text, { temperature: 0.7, mask: 'causal' }).steps;
    await drawn(page, { scope, sentence: text, heads: 3, view: 'steps', mask: 'causal', temperature: 0.7, word: 2 });
    assertSteps((await shown(page, 'fig-heads')).steps, ref, 2);

    await w.locator('.shareButton').click();
    await w.locator('.panel.share').waitFor({ state: 'visible' });
    const link = await w.locator('.share-url').inputValue();
    const snippet = await w.locator('.share-snippet').inputValue();
    const params = new URL(link).searchParams;
    assert.equal(new URL(link).pathname, '/index.html');
    assert.deepEqual(Object.fromEntries(params), {
      sentence: text,
      view: 'steps',
      heads: '3',
      temperature: '0.7',
      mask: 'causal',
      word: '2',
    });
    const src = /<iframe src="([^"]+)"/.exec(snippet)?.[1].replaceAll('&amp;', '&');
    assert.ok(src, snippet);
    assert.equal(new URL(src).searchParams.get('embed'), '1');
    assert.deepEqual(Object.fromEntries([...new URL(src).searchParams].filter(([k]) => k !== 'embed')), Object.fromEntries(params));

    // The iframe URL, opened: the same state, the same numbers, the figure alone.
    full = await open(src.slice(url.length));
    const p = full.page;
    await drawn(p, Object.fromEntries(params));
    assert.equal(await p.inputValue('#sentence'), text);
    assert.equal(await p.inputValue('#view'), 'steps');
    assert.equal(await p.inputValue('#mask'), 'causal');
    assert.equal(await p.inputValue('#heads'), '3');
    assert.equal(await p.inputValue('#word'), '2');
    assert.equal(await p.textContent('#temperature-value'), '0.70');
    assertSteps((await shown(p, null)).steps, ref, 2);
    assert.equal(await p.locator('header').isVisible(), false, 'embed mode shows the figure alone');
    // The page's own share link is the same state.
    await p.click('.shareButton');
    await p.locator('.panel.share').waitFor({ state: 'visible' });
    const again = new URL(await p.inputValue('.share-url'));
    assert.deepEqual(Object.fromEntries(again.searchParams), Object.fromEntries(params));

    // On the page, changing something rewrites the URL, and the rewritten URL reproduces it.
    await p.selectOption('#view', 'heads');
    await drawn(p, { ...Object.fromEntries(params), view: 'heads' });
    const now = new URL(p.url());
    assert.equal(now.searchParams.get('view'), 'heads');
    assert.equal(now.searchParams.get('embed'), '1');
    const refHeads = multi(text, { heads: 3, temperature: 0.7, mask: 'causal' });
    const s = await shown(p, null);
    assert.equal(s.heads.length, 3);
    s.heads.forEach((h, k) => assertCells(h, refHeads.heads[k].weights, `page head ${k + 1}`));
    await p.reload();
    await drawn(p, { ...Object.fromEntries(params), view: 'heads' });
    const s2 = await shown(p, null);
    assert.deepEqual(s2.heads, s.heads);
    assert.deepEqual(full.problems, []);
    assert.deepEqual(problems, []);
  } finally {
    await full?.page.close();
    await page.close();
  }
});

test('the page reads view and selected word from the URL (lines isolate the word)', async () => {
  const text = 'the train left the station on time';
  const { page, problems } = await open(`index.html?sentence=${encodeURIComponent(text)}&view=lines&word=4`);
  try {
    await drawn(page, { sentence: text, view: 'lines', word: 4 });
    const s = await shown(page, null);
    const ref = single(text).steps.weights;
    assertLinks(s.lines, ref, 'page lines');
    assert.deepEqual(s.lines.isolated, { side: 'query', index: 4 }, "only station's lines are kept");
    assert.match(await page.textContent('#readout'), /^station → station \d\.\d{4}/);
    // The canvas shows it: where the lines reach the keys, the ink at each key follows station's weight to it.
    const ink = await page.evaluate(() => {
      const canvas = document.querySelector('canvas.links'),
        l = canvas.attentionLines;
      const px = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height).data;
      const x = Math.floor((l.width - 1.5) * l.ratio);
      return Array.from({ length: l.rows }, (_, c) => {
        const y = Math.round((c + 0.5) * l.rowHeight * l.ratio);
        return Math.max(px[((y - 1) * canvas.width + x) * 4 + 3], px[(y * canvas.width + x) * 4 + 3]);
      });
    });
    // Station's line to itself is drawn apart (dashed, grey, out of the scale): the thickest line is its
    // strongest link to another word.
    const row = Array.from(ref.data.subarray(4 * 7, 5 * 7));
    const others = (xs) => xs.map((x, j) => (j === 4 ? -Infinity : x));
    const argmax = (xs) => xs.indexOf(Math.max(...xs));
    const argmin = (xs) => xs.indexOf(Math.min(...xs.map((x) => (x === -Infinity ? Infinity : x))));
    assert.equal(argmax(others(ink)), argmax(others(row)), `most ink ${ink} where the weight to another word is largest ${row}`);
    assert.ok(ink[argmax(others(row))] > ink[argmin(others(row))] + 40, `ink ${ink} follows the weights ${row}`);
    assert.equal(s.lines.diagonalApart, true);
    assert.deepEqual(problems, []);
  } finally {
    await page.close();
  }
});

test('export: SVG, PNG and JSON of what the widget shows (under the strict CSP)', async () => {
  const { page, problems } = await open('examples/index.html');
  try {
    await widgetsDrawn(page);
    const w = page.locator('#fig-heads');
    const ref = multi('the bank of the river flooded', { heads: 4 });
    const T = 6;
    const fetchDownload = async (button) => {
      const [download] = await Promise.all([page.waitForEvent('download'), w.locator(button).click()]);
      return { name: download.suggestedFilename(), bytes: await readFile(await download.path()) };
    };

    const svg = await fetchDownload('.svgButton');
    assert.match(svg.name, /^attention-heads-the-bank-of-the\.svg$/);
    const text = svg.bytes.toString('utf8');
    assert.match(text, /^<\?xml[^>]*>\n<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg"/);
    assert.doesNotMatch(text, /class=|hotpink/);
    const weights = [...text.matchAll(/data-weight="([^"]+)"/g)].map((m) => Number(m[1]));
    assert.equal(weights.length, 4 * T * T);
    const want = ref.heads.flatMap((h) => Array.from(h.weights.data));
    weights.forEach((v, i) => near(v, want[i], `svg weight ${i}`));
    assert.equal((text.match(/<svg /g) ?? []).length, 1 + 4 + 1, 'wrapper + 4 heads + legend');
    // Colours are written in: the first cell's fill is an explicit colour.
    assert.match(text, /<rect(?=[^>]*data-row="0")(?=[^>]*fill="#[0-9a-f]{6}")/);

    const png = await fetchDownload('.pngButton');
    assert.match(png.name, /\.png$/);
    assert.deepEqual([...png.bytes.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
    const pngW = png.bytes.readUInt32BE(16),
      pngH = png.bytes.readUInt32BE(20);
    // The PNG is painted, not blank: sample it where head 2's cell (3, 4) is, at 1×, and compare with
    // that cell's pixels on screen. Where head 2's SVG is placed in the export, the SVG export says.
    const check = await page.evaluate(async () => {
      const el = document.getElementById('fig-heads');
      const doc = new DOMParser().parseFromString(el.exportSVG(), 'image/svg+xml');
      const placed = [...doc.documentElement.children].filter((n) => n.localName === 'svg');
      const svgs = [...el.shadowRoot.querySelectorAll('#plot svg')];
      const head = el.shadowRoot.querySelector('.heatmap[data-head="1"]');
      const k = svgs.indexOf(head.querySelector('svg')),
        s = svgs[k].getBoundingClientRect();
      const cells = head.querySelector('canvas.cells');
      const w = cells.attentionWeights,
        r = cells.getBoundingClientRect();
      const x = (4 - w.colStart + 0.5) * w.cell,
        y = (3 - w.rowStart + 0.5) * w.cell;
      const screen = cells.getContext('2d').getImageData(Math.floor(x * w.ratio), Math.floor(y * w.ratio), 1, 1).data;
      const bmp = await createImageBitmap(await el.exportPNG(1));
      const canvas = new OffscreenCanvas(bmp.width, bmp.height);
      const ctx = canvas.getContext('2d');
      ctx.drawImage(bmp, 0, 0);
      const at = (n, name) => Number(n.getAttribute(name));
      const [red, green, blue] = ctx.getImageData(
        Math.round(at(placed[k], 'x') + r.left + x - s.left),
        Math.round(at(placed[k], 'y') + r.top + y - s.top),
        1,
        1,
      ).data;
      const bg = ctx.getImageData(1, 1, 1, 1).data;
      return {
        px: [red, green, blue],
        screen: [...screen.slice(0, 3)],
        bg: [...bg.slice(0, 3)],
        width: at(doc.documentElement, 'width'),
        bmpWidth: bmp.width,
      };
    });
    check.px.forEach((v, i) =>
      assert.ok(Math.abs(v - check.screen[i]) <= 3, `PNG pixel ${check.px} vs the cell on screen ${check.screen}`),
    );
    assert.deepEqual(check.bg, [255, 255, 255]);
    assert.ok(Math.abs(check.bmpWidth - check.width) <= 1);
    // The download: twice the device's pixels (devicePixelRatio 1 here).
    assert.ok(Math.abs(pngW - 2 * check.bmpWidth) <= 2 && pngH > 100, `PNG ${pngW}×${pngH} at 2×`);

    const json = JSON.parse((await fetchDownload('.jsonButton')).bytes.toString('utf8'));
    assert.deepEqual(json.tokens, ['the', 'bank', 'of', 'the', 'river', 'flooded']);
    assert.equal(json.attentions.length, 1);
    assert.equal(json.attentions[0].length, 4);
    json.attentions[0].forEach((m, k) =>
      m.forEach((row, i) => row.forEach((v, j) => near(v, ref.heads[k].weights.data[i * T + j], `json head ${k} (${i}, ${j})`))),
    );
    assert.match(json.source, /4 heads, d_k = 12, seeded Xavier-uniform/);
    assert.deepEqual(problems, []);
  } finally {
    await page.close();
  }
});

test('JSON export follows the heatmap: with norm="columns" it holds the column softmax', async () => {
  const { page, problems } = await open('examples/index.html');
  try {
    await widgetsDrawn(page);
    await page.evaluate(() => document.getElementById('fig-heatmap').setAttribute('norm', 'columns'));
    await drawn(page, { scope: '#fig-heatmap', norm: 'columns' });
    const json = await page.evaluate(() => document.getElementById('fig-heatmap').exportJSON());
    const columns = core.softmax(single('the train left the station on time').steps.scaled, { axis: 'columns' });
    const T = columns.rows;
    json.attentions[0][0].forEach((row, i) =>
      row.forEach((v, j) => assert.ok(Math.abs(v - columns.data[i * T + j]) < 1e-6, `(${i}, ${j})`)),
    );
    assert.match(json.source, /softmax down each column/);
    assert.deepEqual(problems, []);
  } finally {
    await page.close();
  }
});

test("import: a model's attention (layers × heads × T × T) draws in heatmap, lines and heads; bad input is named", async () => {
  const { page, problems } = await open('examples/index.html');
  try {
    await widgetsDrawn(page);
    const w = page.locator('#fig-heads');
    // Two "layers" of three heads, computed by the core (multiHead with two seeds), in HF's shape.
    const text = 'the cat sat on the mat';
    const layers = [multi(text, { heads: 3, seed: 11 }), multi(text, { heads: 3, seed: 12 })];
    const T = 6;
    const rows = (m) => Array.from({ length: T }, (_, i) => Array.from(m.data.subarray(i * T, (i + 1) * T)));
    const hf = {
      tokens: ['[CLS]', 'the', 'cat', 'sat', 'on', '<b>mat</b>'],
      attentions: layers.map((l) => l.heads.map((h) => rows(h.weights))),
    };
    await w.locator('.importButton').click();
    await w.locator('.import-text').fill(JSON.stringify(hf));
    await w.locator('.import-go').click();
    // The import draws at once and says so (the figure's state, and so data-drawn, stays the same).
    await w.locator('.imported', { hasText: 'Imported: 2 layers' }).waitFor();
    await drawn(page, { scope: '#fig-heads' });
    let s = await shown(page, 'fig-heads');
    assert.equal(s.message, '');
    assert.equal(s.heads.length, 3);
    s.heads.forEach((h, k) => assertCells(h, layers[0].heads[k].weights, `imported layer 1 head ${k + 1}`));
    assert.match(await w.locator('.imported').textContent(), /Imported: 2 layers × 3 heads, 6 tokens/);
    await w.locator('#layer').selectOption({ value: '1' });
    await drawn(page, { scope: '#fig-heads', layer: 1 });
    s = await shown(page, 'fig-heads');
    s.heads.forEach((h, k) => assertCells(h, layers[1].heads[k].weights, `imported layer 2 head ${k + 1}`));

    await w.locator('#view').selectOption('heatmap');
    await w.locator('#head').selectOption({ value: '2' });
    await drawn(page, { scope: '#fig-heads', view: 'heatmap', layer: 1, head: 2 });
    s = await shown(page, 'fig-heads');
    assert.deepEqual(s.rows, hf.tokens, 'tokens shown as text');
    assertCells(s.map, layers[1].heads[2].weights, 'imported heatmap');
    assert.equal(await page.evaluate(() => document.getElementById('fig-heads').shadowRoot.querySelectorAll('b').length), 0);
    await w.locator('#view').selectOption('lines');
    await drawn(page, { scope: '#fig-heads', view: 'lines' });
    assertLinks((await shown(page, 'fig-heads')).lines, layers[1].heads[2].weights, 'imported lines');
    assert.equal(await w.locator('#view option[value=steps]').isDisabled(), true);
    assert.equal(await w.locator('#sentence').isDisabled(), true);

    // Bad inputs: each message names the problem.
    const bad = async (input, pattern) => {
      await w.locator('.import-text').fill(input);
      await w.locator('.import-go').click();
      await w.locator('.import-message', { hasText: pattern }).waitFor();
      await drawn(page, { scope: '#fig-heads' });
      const m = await shown(page, 'fig-heads');
      assert.match(m.message, pattern);
      assert.match(await w.locator('.import-message').textContent(), pattern);
    };
    await bad('{"tokens": ["a", "b"], "attentions": [[[[1, 0], [0.5, 0.5]]]', /not valid JSON/);
    const wrongShape = structuredClone(hf);
    wrongShape.attentions[0][1].pop();
    await bad(JSON.stringify(wrongShape), /attentions\[0\]\[1\] has 5 rows but there are 6 tokens/);
    const notSoftmax = structuredClone(hf);
    notSoftmax.attentions[1][0][4] = notSoftmax.attentions[1][0][4].map((v) => v * 0.82);
    await bad(JSON.stringify(notSoftmax), /attentions\[1\]\[0\] row 4 sums to 0\.82\d*, not 1/);

    // Back to the word vectors.
    await w.locator('.clear-import').click();
    await w.locator('.clear-import').waitFor({ state: 'hidden' });
    await w.locator('#view').selectOption('heatmap');
    await drawn(page, { scope: '#fig-heads', view: 'heatmap' });
    s = await shown(page, 'fig-heads');
    assertCells(s.map, single('the bank of the river flooded').steps.weights, 'back to vectors');
    assert.deepEqual(problems, []);
  } finally {
    await page.close();
  }
});

test('a widget with src= draws a JSON file of attention without fetching the word vectors', async () => {
  const { page, problems, requests } = await open('examples/index.html');
  try {
    await widgetsDrawn(page);
    const text = 'a model would say this';
    const ref = multi(text, { heads: 2, seed: 3 });
    const T = ref.heads[0].weights.rows;
    const rows = (m) => Array.from({ length: T }, (_, i) => Array.from(m.data.subarray(i * T, (i + 1) * T)));
    // HF's tuple of layers, each with a batch of one: layers × 1 × heads × T × T.
    const body = JSON.stringify({ tokens: text.split(' '), attentions: [[ref.heads.map((h) => rows(h.weights))]] });
    await page.route('**/examples/model.json', (route) => route.fulfill({ status: 200, contentType: 'application/json', body }));
    await page.evaluate(() => {
      const el = document.createElement('attention-figure');
      el.id = 'fig-src';
      el.setAttribute('view', 'heads');
      el.setAttribute('src', 'model.json');
      document.querySelector('article').append(el);
    });
    await widgetsDrawn(page);
    const s = await shown(page, 'fig-src');
    s.heads.forEach((h, k) => assertCells(h, ref.heads[k].weights, `src head ${k + 1}`));
    assert.equal(requests.filter((p) => p.endsWith('/vectors-first.bin')).length, 1, 'no second vectors fetch');
    // A missing file is reported.
    await page.evaluate(() => document.getElementById('fig-src').setAttribute('src', 'missing.json'));
    await page.waitForFunction(() => !document.getElementById('fig-src').shadowRoot.getElementById('message').hidden);
    await drawn(page, { scope: '#fig-src' });
    assert.match((await shown(page, 'fig-src')).message, /Could not load the attention file missing\.json \(HTTP 404\)/);
    assert.deepEqual(
      problems.filter((p) => !/missing\.json|404/.test(p)),
      [],
    );
  } finally {
    await page.close();
  }
});

test("works under a header CSP without 'unsafe-inline' styles too (constructed stylesheets only)", async () => {
  const html = (await readFile(join(root, 'examples', 'index.html'), 'utf8')).replace(
    "style-src 'self' 'unsafe-inline'",
    "style-src 'self'",
  );
  const policy = "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; style-src 'self'";
  const page = await browser.newPage({ acceptDownloads: true });
  const problems = [];
  page.on('console', (m) => m.type() === 'error' && problems.push(`console: ${m.text()}`));
  page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
  try {
    await page.route('**/examples/strict.html', (r) =>
      r.fulfill({ status: 200, contentType: 'text/html', body: html, headers: { 'Content-Security-Policy': policy } }),
    );
    await page.goto(`${url}examples/strict.html`);
    await widgetsDrawn(page);
    assert.equal(
      await page.evaluate(() => getComputedStyle(document.getElementById('fig-heads').shadowRoot.querySelector('.af')).borderTopStyle),
      'solid',
      'styles applied',
    );
    assertCells((await shown(page, 'fig-heatmap')).map, single('the train left the station on time').steps.weights, 'strict heatmap');
    for (const button of ['.svgButton', '.pngButton', '.jsonButton']) {
      const [download] = await Promise.all([page.waitForEvent('download'), page.locator(`#fig-heads ${button}`).click()]);
      assert.ok((await readFile(await download.path())).length > 100, button);
    }
    assert.deepEqual(problems, []);
  } finally {
    await page.close();
  }
});

test("the widget folder's compute module (attention-figure/core) works on its own, one file and its wasm", async () => {
  // Under the example page's strict CSP: import attention.js by URL, compute, compare with node's core.
  const { page, problems, requests } = await open('examples/index.html');
  try {
    await widgetsDrawn(page);
    const before = requests.length;
    // Seed 003's worked example (../shared/SOURCES.md).
    const X = [
      [1, 0, 1, 0],
      [0, 2, 0, 2],
      [1, 1, 1, 1],
    ];
    const head = {
      Wq: [
        [1, 0, 1],
        [1, 0, 0],
        [0, 0, 1],
        [0, 1, 1],
      ],
      Wk: [
        [0, 0, 1],
        [1, 1, 0],
        [0, 1, 0],
        [1, 1, 0],
      ],
      Wv: [
        [0, 2, 0],
        [0, 3, 0],
        [1, 0, 3],
        [1, 1, 0],
      ],
    };
    const got = await page.evaluate(
      async ({ X, head }) => {
        const { loadAttention } = await import(new URL('../widget/attention.js', location.href).href);
        return Array.from((await loadAttention()).attention(X, head).output.data);
      },
      { X, head },
    );
    const want = core.attention(X, head).output.data;
    got.forEach((v, i) => near(v, want[i], `output[${i}]`));
    // Only the module itself and the build of the core the widgets run (this Chromium runs relaxed
    // SIMD; from the cache or again) were fetched: no shared chunk, no second build.
    assert.deepEqual([...new Set(requests.slice(before))].sort(), ['/widget/attention.js', '/widget/attention_wasm_relaxed.wasm']);
    assert.deepEqual(problems, []);
  } finally {
    await page.close();
  }
});

test('payload: widget JS + wasm ≤ 150 KiB gzip, no eval / new Function, typed package', async () => {
  const dir = join(site, 'widget');
  const files = await readdir(dir);
  // The trained model's module (attention_model_wasm.js + .wasm) is fetched only when a reader or
  // source="model" asks for the model (tests/web/model.test.mjs checks that), so it is not payload.
  const onDemand = ['attention_model_wasm.js', 'attention_model_wasm.wasm'];
  for (const f of [...onDemand, 'model.bin']) assert.ok(files.includes(f), `${f} is in the widget folder`);
  const payload = files.filter((f) => !onDemand.includes(f) && ((f.endsWith('.js') && f !== 'attention.js') || f.endsWith('.wasm')));
  assert.ok(payload.includes('attention-widget.js'), payload.join());
  // The core's two builds are both in the folder, and nothing else wasm: a reader fetches one of them
  // (the relaxed one where relaxed SIMD validates), so the payload counts one, the larger.
  assert.deepEqual(payload.filter((f) => f.endsWith('.wasm')).sort(), [FIXED_CORE, RELAXED_CORE]);
  let gz = 0;
  for (const f of payload.filter((f) => f.endsWith('.js'))) {
    const bytes = await readFile(join(dir, f));
    gz += gzipSync(bytes, { level: 9 }).length;
    assert.doesNotMatch(bytes.toString('utf8'), /new Function|\beval\(/, f);
  }
  const wasm = await Promise.all([FIXED_CORE, RELAXED_CORE].map(async (f) => gzipSync(await readFile(join(dir, f)), { level: 9 }).length));
  gz += Math.max(...wasm);
  assert.doesNotMatch(await readFile(join(dir, 'attention_model_wasm.js'), 'utf8'), /new Function|\beval\(/);
  assert.ok(gz <= 150 * 1024, `widget payload ${(gz / 1024).toFixed(1)} KiB gzip`);
  assert.doesNotMatch(await readFile(join(site, 'app.js'), 'utf8'), /new Function|\beval\(/);
  const pkg = JSON.parse(await readFile(join(dir, 'package.json'), 'utf8'));
  for (const target of [pkg.exports['.'].default, pkg.exports['.'].types, pkg.exports['./core'].default, pkg.exports['./core'].types]) {
    assert.ok(files.includes(target.replace('./', '')), `${target} is in the package`);
  }
  const types = await readFile(join(dir, 'attention-widget.d.ts'), 'utf8');
  for (const name of ['exportSVG', 'exportPNG', 'exportJSON', 'importAttention', 'shareURL', "'attention-figure': AttentionFigureElement"])
    assert.ok(types.includes(name), name);
});

test('no shared module parses strings as HTML; examples have no inline script', async () => {
  const walk = async (dir) =>
    (await readdir(dir, { withFileTypes: true }))
      .flatMap((e) => (e.isDirectory() ? [] : [join(dir, e.name)]))
      .concat(
        ...(await Promise.all(
          (await readdir(dir, { withFileTypes: true })).filter((e) => e.isDirectory()).map((e) => walk(join(dir, e.name))),
        )),
      );
  const files = (await walk(join(root, 'web'))).filter((f) => f.endsWith('.js'));
  assert.ok(files.some((f) => f.endsWith('figure.js')) && files.some((f) => f.endsWith('attention-widget.js')));
  for (const f of files) {
    assert.doesNotMatch(
      await readFile(f, 'utf8'),
      /\.(innerHTML|outerHTML)\b|insertAdjacentHTML|document\.write|createContextualFragment|DOMParser|\beval\(|new Function/,
      f,
    );
  }
  for (const f of ['index.html', 'dark.html']) {
    const html = await readFile(join(root, 'examples', f), 'utf8');
    assert.doesNotMatch(html, /<script(?![^>]*\bsrc=)[^>]*>/, `${f}: inline script`);
    assert.match(html, /Content-Security-Policy" content="default-src 'self'; script-src 'self' 'wasm-unsafe-eval'/);
  }
});

// End-to-end tests of the built page (build/site) in headless Debian chromium.
// Build first: the wasm module (build/wasm), then `node scripts/build-site.mjs`.
// Run: node --test tests/web/
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  RELAXED_CORE,
  assertColours,
  assertLabels,
  assertWeights,
  coreFetches,
  drawn,
  figureState,
  openWatched,
  root,
  settled,
  startSession,
  withoutRelaxedSimd,
} from './harness.mjs';

const DEFAULT = ['the', 'train', 'left', 'the', 'station', 'on', 'time'];
const TOLERANCE = 1e-6;

let browser, url, core, vectors, session;

before(async () => {
  session = await startSession();
  ({ browser, url, core, vectors } = session);
});

after(() => session?.stop());

/** A fresh page on the site, its heatmap drawn; problems collects console errors, page errors and dialogs. */
async function open(viewport = { width: 1280, height: 900 }) {
  const { page, problems } = await openWatched(browser, url, { viewport });
  await drawn(page);
  return { page, problems };
}

/**
 * What the page shows once it drew the state `expected` (harness drawn, e.g. { sentence }): the heatmap
 * as its canvas reports it (weights, window, label nodes, each cell's pixel colour), the row and column
 * labels (markers stripped), and the message.
 */
async function grid(page, expected = {}) {
  await drawn(page, expected);
  await settled(page);
  const { map, message } = await figureState(page, null);
  // A label's lookup marker: ? unknown, * stemmed, + composed from character n-grams.
  const strip = (l) => l.text.replace(/[?*+]$/, '');
  return { map, message, cells: map?.cells ?? [], rows: map?.rowLabels.map(strip) ?? [], cols: map?.colLabels.map(strip) ?? [] };
}

/** Where cell (row, col) of the page's heatmap is on screen (its centre, CSS px). */
const cellCentre = (page, row, col) =>
  page.evaluate(
    ([row, col]) => {
      const canvas = document.querySelector('#heatmap canvas.cells');
      const w = canvas.attentionWeights,
        r = canvas.getBoundingClientRect();
      return { x: r.left + (col - w.colStart + 0.5) * w.cell, y: r.top + (row - w.rowStart + 0.5) * w.cell };
    },
    [row, col],
  );

/** The grid's active cell as assistive technology sees it (aria-activedescendant), and the ring drawn on it. */
const activeCell = (page) =>
  page.evaluate(() => {
    const grid = document.activeElement;
    if (!grid?.classList.contains('hm-grid')) return null;
    const cell = document.getElementById(grid.getAttribute('aria-activedescendant'));
    const ring = grid.closest('.hm-plot').querySelector('.ring');
    const canvas = grid.querySelector('canvas.cells'),
      w = canvas.attentionWeights;
    const rr = ring.getBoundingClientRect(),
      cr = canvas.getBoundingClientRect();
    return {
      row: Number(cell.parentElement.getAttribute('aria-rowindex')) - 2,
      col: Number(cell.getAttribute('aria-colindex')) - 2,
      text: cell.textContent,
      role: cell.getAttribute('role'),
      ring:
        ring.getAttribute('visibility') === 'visible'
          ? {
              row: w.rowStart + Math.floor((rr.top + rr.height / 2 - cr.top) / w.cell),
              col: w.colStart + Math.floor((rr.left + rr.width / 2 - cr.left) / w.cell),
            }
          : null,
    };
  });

function reference(text) {
  const { tokens, X } = vectors.embed(text, 64);
  const { weights } = core.parameterFree(X, Math.sqrt(vectors.dim), { temperature: 1 });
  return { tokens, weights };
}

/** The page drew the whole T×T matrix of `text` with the wasm core's weights, labels and colours. */
function assertMatchesWasm(shown, text) {
  const { tokens, weights } = reference(text);
  const T = tokens.length;
  assert.deepEqual(
    shown.rows,
    tokens.map((t) => t.text),
  );
  assert.deepEqual(
    shown.cols,
    tokens.map((t) => t.text),
  );
  assert.equal(shown.cells.length, T * T);
  assert.equal(new Set(shown.cells.map((c) => c.row * T + c.col)).size, T * T, 'every (row, col) appears once');
  assertWeights(shown.map, weights, 'page', TOLERANCE);
  assertLabels(shown.map, tokens, 'page');
  assertColours(shown.map, 'page');
}

test('default page shows the 7×7 heatmap of the default sentence, without errors', async () => {
  const { page, problems } = await open();
  try {
    assert.equal(await page.inputValue('#sentence'), DEFAULT.join(' '));
    const shown = await grid(page);
    assert.equal(shown.cells.length, 49);
    assert.deepEqual(shown.rows, DEFAULT);
    assert.deepEqual(shown.cols, DEFAULT);
    assertMatchesWasm(shown, DEFAULT.join(' '));
    // Rows sum to 1 and the weights are not all equal (the vectors do something).
    for (let r = 0; r < 7; r++) {
      const sum = shown.cells.filter((c) => c.row === r).reduce((a, c) => a + c.weight, 0);
      assert.ok(Math.abs(sum - 1) < 1e-5, `row ${r} sums to ${sum}`);
    }
    assert.ok(new Set(shown.cells.map((c) => c.weight)).size > 7, 'weights vary');
    // The first chunk draws it: the status says how much of the table is here, and that the rest comes when needed.
    assert.match(
      await page.textContent('#status'),
      new RegExp(`^Word vectors: 2,0\\d\\d words loaded .*the rest when a view needs them.*, ${vectors.dim} dimensions`),
    );
    assert.equal(await page.locator('#legend svg.legend').count(), 1);
    assert.deepEqual(problems, []);
  } finally {
    await page.close();
  }
});

test('typing another sentence redraws it with the weights the wasm core computes', async () => {
  const { page, problems } = await open();
  try {
    const text = 'he cashed a check at the bank';
    await page.fill('#sentence', text);
    const shown = await grid(page, { sentence: text });
    assert.equal(shown.cells.length, 49);
    assert.deepEqual(shown.rows, ['he', 'cashed', 'a', 'check', 'at', 'the', 'bank']);
    assertMatchesWasm(shown, text);
    // A longer one, with punctuation, changes the size of the grid.
    const longer = 'The bank of the river flooded, so the bank closed early.';
    await page.fill('#sentence', longer);
    const shown2 = await grid(page, { sentence: longer });
    assert.equal(shown2.cells.length, 13 * 13);
    assertMatchesWasm(shown2, longer);
    assert.deepEqual(problems, []);
  } finally {
    await page.close();
  }
});

test('the page source never parses strings as HTML', async () => {
  // The tokenizer splits markup into single characters, so the browser test below cannot catch every
  // misuse on its own: also refuse the HTML-parsing DOM APIs in the page's code outright.
  const files = (await readdir(join(root, 'web'))).filter((f) => f.endsWith('.js'));
  assert.ok(files.includes('app.js'), 'web/app.js exists');
  for (const file of files) {
    const source = await readFile(join(root, 'web', file), 'utf8');
    assert.doesNotMatch(
      source,
      /\.(innerHTML|outerHTML)\b|insertAdjacentHTML|document\.write|createContextualFragment|DOMParser/,
      `web/${file}`,
    );
  }
});

test('markup typed into the box is shown as text, never parsed', async () => {
  const { page, problems } = await open();
  try {
    const text = '<img src=x onerror=alert(1)>';
    await page.fill('#sentence', text);
    // Drawn: a stray <img> would now be in the document (counted below), however long its error takes.
    await drawn(page, { sentence: text });
    // The labels are SVG text nodes holding the typed characters as text.
    assert.equal(await page.evaluate(() => document.querySelector('#heatmap svg text.row-label').firstChild.nodeType), 3);
    const shown = await grid(page);
    assert.deepEqual(shown.rows, core.tokenize(text));
    assert.ok(shown.rows.includes('<') && shown.rows.includes('img') && shown.rows.includes('onerror'));
    assertMatchesWasm(shown, text);
    assert.equal(await page.locator('img').count(), 0);
    assert.equal(await page.evaluate(() => document.getElementsByTagName('img').length), 0);
    assert.deepEqual(problems, []);
  } finally {
    await page.close();
  }
});

test('empty, too long and unknown input give readable messages and markers', async () => {
  const { page, problems } = await open();
  try {
    await page.fill('#sentence', '');
    let shown = await grid(page, { sentence: '' });
    assert.equal(shown.cells.length, 0);
    assert.match(shown.message, /Type a sentence/);

    await page.fill('#sentence', 'the cat sat');
    shown = await grid(page, { sentence: 'the cat sat' });
    assert.equal(shown.cells.length, 9);
    assert.equal(shown.message, '');

    // Past 1,024 tokens the figure draws the first 1,024 and says so.
    const words = Array.from({ length: 2000 }, (_, i) => DEFAULT[i % DEFAULT.length]).join(' ');
    await page.fill('#sentence', words);
    shown = await grid(page, { sentence: words });
    assert.equal(shown.message, 'That is 2,000 tokens; the figure shows the first 1,024.');
    assert.equal(shown.map.T, 1024);
    const first = core.tokenize(words).slice(0, 1024).join(' ');
    const long = vectors.embed(first, 1024);
    assertWeights(shown.map, core.parameterFree(long.X, Math.sqrt(vectors.dim), { temperature: 1 }).weights, '1,024 tokens');
    assertLabels(shown.map, long.tokens, '1,024 tokens');

    await page.fill('#sentence', DEFAULT.join(' '));
    shown = await grid(page, { sentence: DEFAULT.join(' ') });
    assert.equal(shown.cells.length, 49);
    assert.equal(shown.message, '');

    // A symbol none of whose n-grams was trained: still unknown with the n-gram rows (a rare word is not, issue 24).
    const text = 'the • left';
    await page.fill('#sentence', text);
    shown = await grid(page, { sentence: text });
    assert.deepEqual(shown.rows, ['the', '•', 'left']);
    assertMatchesWasm(shown, text);
    assert.equal(shown.map.rowLabels[1].text, '•?');
    assert.match(shown.map.rowLabels[1].cls, /\bunknown\b/);
    assert.equal(shown.map.rowLabels.filter((l) => /\bunknown\b/.test(l.cls)).length, 1);
    assert.match(await page.textContent('#notes'), /‘•’ is not in the vocabulary: it uses a zero vector/);
    // A zero vector scores 0 against every key, so its row is uniform.
    for (const c of shown.cells.filter((c) => c.row === 1)) {
      assert.ok(Math.abs(c.weight - 1 / 3) < 1e-6, `• → ${c.col}: ${c.weight}`);
    }
    assert.deepEqual(problems, []);
  } finally {
    await page.close();
  }
});

test('keyboard: one tab stop, arrow keys move the active cell; its weight is announced and shown; hover and tap too', async () => {
  const { page, problems } = await open();
  try {
    const readout = () => page.textContent('#readout');
    const ref = reference(DEFAULT.join(' ')).weights;
    const weight = (r, c) => ref.data[r * 7 + c].toFixed(4);
    // The last control before the figure is the "More options" button (its panel closed).
    await page.focus('#more');
    await page.keyboard.press('Tab');
    let cell = await activeCell(page);
    assert.ok(cell, 'Tab lands on the heatmap grid');
    assert.equal(await page.evaluate(() => document.activeElement.getAttribute('role')), 'grid');
    assert.deepEqual({ row: cell.row, col: cell.col, ring: cell.ring }, { row: 0, col: 0, ring: { row: 0, col: 0 } });
    assert.equal(cell.role, 'gridcell');
    // A word's cell with itself says so (the diagonal is drawn apart, hatched).
    assert.equal(cell.text, `the → the: ${weight(0, 0)} (itself, hatched)`);
    assert.ok((await readout()).includes(`the → the: ${weight(0, 0)}`), await readout());

    await page.keyboard.press('ArrowRight');
    await page.keyboard.press('ArrowDown');
    await drawn(page, { word: 1 });
    cell = await activeCell(page);
    assert.deepEqual({ row: cell.row, col: cell.col, ring: cell.ring }, { row: 1, col: 1, ring: { row: 1, col: 1 } });
    assert.equal(cell.text, `train → train: ${weight(1, 1)} (itself, hatched)`);
    assert.ok((await readout()).includes(`train → train: ${weight(1, 1)}`), await readout());

    await page.keyboard.press('ArrowRight');
    await page.keyboard.press('ArrowRight');
    await page.keyboard.press('ArrowRight');
    cell = await activeCell(page);
    assert.deepEqual({ row: cell.row, col: cell.col, ring: cell.ring }, { row: 1, col: 4, ring: { row: 1, col: 4 } });
    assert.ok((await readout()).includes(`train → station: ${weight(1, 4)}`), await readout());
    // The row of the active cell is the selected word.
    assert.equal(await page.inputValue('#word'), '1');
    // End and Home: last and first key; past the edge the cell stays put.
    await page.keyboard.press('End');
    assert.deepEqual(await activeCell(page).then((c) => [c.row, c.col]), [1, 6]);
    await page.keyboard.press('ArrowRight');
    assert.deepEqual(await activeCell(page).then((c) => [c.row, c.col]), [1, 6]);
    await page.keyboard.press('Control+Home');
    await drawn(page, { word: 0 });
    assert.deepEqual(await activeCell(page).then((c) => [c.row, c.col]), [0, 0]);
    // One tab stop for the whole grid: the next Tab leaves it (for the table disclosure below).
    await page.keyboard.press('Tab');
    assert.equal(await page.evaluate(() => document.activeElement.tagName), 'SUMMARY');
    assert.equal(
      await page.evaluate(() => [...document.querySelectorAll('#heatmap [tabindex="0"]')].filter((n) => n.checkVisibility()).length),
      1,
    );

    // Hovering shows a cell too (and moves the ring there).
    const at = await cellCentre(page, 6, 2);
    await page.mouse.move(at.x, at.y);
    await page.locator('#readout', { hasText: new RegExp(`^time → left: ${weight(6, 2)}`) }).waitFor();
    // A click selects it: its row becomes the chosen word.
    await page.mouse.down();
    await page.mouse.up();
    await drawn(page, { word: 6 });
    cell = await activeCell(page);
    assert.deepEqual([cell.row, cell.col], [6, 2]);
    assert.equal(await page.inputValue('#word'), '6');
    assert.deepEqual(problems, []);
  } finally {
    await page.close();
  }
});

test('phone width with touch: the heatmap fits, a tap reads a cell', async () => {
  const context = await browser.newContext({ viewport: { width: 390, height: 844 }, hasTouch: true, isMobile: true, deviceScaleFactor: 2 });
  const page = await context.newPage();
  const problems = [];
  page.on('pageerror', (e) => problems.push(e.message));
  page.on('console', (m) => m.type() === 'error' && problems.push(m.text()));
  try {
    await page.goto(url);
    await drawn(page);
    const fit = await page.evaluate(() => ({
      plot: document.querySelector('#heatmap .hm-plot').getBoundingClientRect().right,
      view: document.getElementById('heatmap').getBoundingClientRect().right,
      scroll: document.documentElement.scrollWidth - document.documentElement.clientWidth,
    }));
    assert.ok(fit.plot <= fit.view + 1, `heatmap ${fit.plot}px within its ${fit.view}px box`);
    assert.ok(fit.scroll <= 1, `the page scrolls sideways by ${fit.scroll}px`);
    // Canvas pixels follow the device pixel ratio (crisp), and still hold the right colours.
    const { map } = await figureState(page, null);
    assert.equal(map.ratio, 2);
    assertColours(map, 'phone heatmap');
    await page.locator('#heatmap canvas.cells').scrollIntoViewIfNeeded();
    const at = await cellCentre(page, 4, 1);
    await page.touchscreen.tap(at.x, at.y);
    const ref = reference(DEFAULT.join(' ')).weights;
    await drawn(page, { word: 4 });
    await page.locator('#readout', { hasText: new RegExp(`^station → train: ${ref.data[4 * 7 + 1].toFixed(4)}`) }).waitFor();
    assert.equal(await page.inputValue('#word'), '4');
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});

test('a vectors file that fails to load gives a readable message', async () => {
  const page = await browser.newPage();
  const pageErrors = [];
  page.on('pageerror', (e) => pageErrors.push(e.message));
  try {
    // Neither the first chunk nor the whole table: nothing to draw, and the page says why.
    await page.route('**/vectors*.bin', (route) => route.fulfill({ status: 404, body: 'Not found' }));
    await page.goto(url);
    const message = page.locator('#message');
    await message.waitFor({ state: 'visible', timeout: 20_000 });
    assert.match(await message.textContent(), /Could not load .*vectors\.bin: HTTP 404/);
    assert.equal(await page.locator('#heatmap canvas').count(), 0);
    // The page itself stays usable: typing does not throw.
    await page.fill('#sentence', 'the train');
    await drawn(page, { sentence: 'the train' });
    assert.deepEqual(pageErrors, []);
  } finally {
    await page.close();
  }
});

test('when the shards and the whole table fail, the first chunk still draws its words and the page says what is missing', async () => {
  const page = await browser.newPage();
  const pageErrors = [];
  page.on('pageerror', (e) => pageErrors.push(e.message));
  try {
    await page.route('**/vectors-shards/**', (route) => route.fulfill({ status: 404, body: 'Not found' }));
    await page.route('**/vectors.bin', (route) => route.fulfill({ status: 404, body: 'Not found' }));
    await page.goto(url);
    await drawn(page);
    // The default sentence's numbers are the whole table's: the chunk holds the very same bytes.
    assertMatchesWasm(await grid(page), DEFAULT.join(' '));
    // A rare word is not in the chunk, its shard fails and then the whole table: a readable error,
    // nothing stale drawn.
    const message = page.locator('#message');
    await page.fill('#sentence', 'the photosynthesis left the station');
    await drawn(page, { sentence: 'the photosynthesis left the station' });
    await settled(page);
    assert.match(
      await message.textContent(),
      /“photosynthesis” is not among the word vectors loaded so far .*could not load \(.*vectors\.bin: HTTP 404/,
    );
    assert.equal(await page.locator('#heatmap canvas').count(), 0);
    // The chunk's words still draw, under a note of what is missing.
    await page.fill('#sentence', 'the train left the station');
    await drawn(page, { sentence: 'the train left the station' });
    assert.match(await message.textContent(), /Could not load the whole word-vector table \(.*vectors\.bin: HTTP 404.*loaded so far/);
    assert.deepEqual(pageErrors, []);
  } finally {
    await page.close();
  }
});

test('the core and the first chunk are fetched once (app.js takes over what load-early.js started); vectors.bin only for the compare view', async () => {
  const { page, problems } = await openWatched(browser, url);
  const fetched = () => page.evaluate(() => performance.getEntriesByType('resource').map((r) => r.name.split('/').pop()));
  try {
    await drawn(page);
    // The rest of the lesson (walkthrough, by-hand sheet) is built too: none of it needs the whole table.
    await page.waitForFunction(() => document.documentElement.classList.contains('explainer-ready'), null, { timeout: 20_000 });
    const left = await page.evaluate(() => Object.keys(window.attentionEarly ?? { missing: true }));
    // Both early loads were taken over (loader.js deletes what it takes), and nothing was fetched twice.
    // This Chromium runs relaxed SIMD, so the core is its relaxed build, once, and never the fixed one.
    assert.deepEqual(left, []);
    let names = await fetched();
    assert.deepEqual(coreFetches(names.map((n) => `/${n}`)), { fixed: 0, relaxed: 1 }, names.join(', '));
    assert.equal(names.filter((n) => n === 'vectors-first.bin').length, 1, names.join(', '));
    assert.equal(names.filter((n) => n === 'vectors.bin').length, 0, names.join(', '));
    assertMatchesWasm(await grid(page), DEFAULT.join(' '));
    // The compare view's nearest words search every word: it brings the whole table, once.
    await page.evaluate(() => window.attentionStore.set({ view: 'compare', sentence2: 'the bus left the station on time' }));
    await drawn(page, { view: 'compare', sentence2: 'the bus left the station on time' });
    await page.waitForFunction(() => document.querySelector('#figure .neighbour'), null, { timeout: 30_000 });
    names = await fetched();
    assert.equal(names.filter((n) => n === 'vectors.bin').length, 1, names.join(', '));
    assert.match(
      await page.textContent('#status'),
      new RegExp(`^Vocabulary: ${vectors.size.toLocaleString('en-US')} words, ${vectors.dim} dimensions`),
    );
    assert.deepEqual(problems, []);
  } finally {
    await page.close();
  }
});

test('when the early loads fail, the page loads the core and the word vectors itself', async () => {
  // load-early.js runs, but its compile and its fetch both fail (as a browser without streaming
  // compilation, or a server that sends the wasm with the wrong type, would make them).
  const { page, problems } = await openWatched(browser, url, {
    viewport: { width: 1280, height: 900 },
    before: (page) =>
      page.route('**/load-early.js', (route) =>
        route.fulfill({
          contentType: 'text/javascript',
          body: `window.attentionEarly = {
        '${RELAXED_CORE}': { url: new URL('${RELAXED_CORE}', document.baseURI).href, result: Promise.reject(new Error('no compile')) },
        'vectors-first.bin': { url: new URL('vectors-first.bin', document.baseURI).href, result: Promise.reject(new Error('no fetch')) },
      };
      for (const early of Object.values(window.attentionEarly)) early.result.catch(() => {});`,
        }),
      ),
  });
  try {
    await drawn(page);
    assertMatchesWasm(await grid(page), DEFAULT.join(' '));
    assert.deepEqual(problems, []);
  } finally {
    await page.close();
  }
});

test('the parts below the figure load after it; when their code cannot load, the figure stays and the page says so', async () => {
  // The walkthrough's chunk (chunks/walkthrough-*.js, built by esbuild's splitting) answers 404.
  const { page, problems } = await openWatched(browser, url, {
    viewport: { width: 1280, height: 900 },
    before: (page) => page.route(/\/chunks\/walkthrough-[^/]*\.js$/, (route) => route.fulfill({ status: 404, body: 'Not found' })),
  });
  try {
    await drawn(page);
    assertMatchesWasm(await grid(page), DEFAULT.join(' '));
    await page.waitForFunction(() => /could not load/.test(document.getElementById('explainer').textContent));
    assert.equal(await page.textContent('#explainer'), 'The step-by-step sections could not load: reload the page to try again.');
    // The figure keeps working: a new sentence draws.
    await page.fill('#sentence', 'the bus left the station');
    await drawn(page, { sentence: 'the bus left the station' });
    assertMatchesWasm(await grid(page), 'the bus left the station');
    assert.deepEqual(
      problems.filter((p) => !/walkthrough-|404|Failed to fetch dynamically imported module/.test(p)),
      [],
    );
  } finally {
    await page.close();
  }
});

test('a browser without relaxed SIMD loads the fixed build of the core, once, and draws the same weights', async () => {
  const { page, problems, requests } = await openWatched(browser, url, { before: withoutRelaxedSimd });
  try {
    await drawn(page);
    assertMatchesWasm(await grid(page), DEFAULT.join(' '));
    assert.equal(await page.evaluate(() => Object.keys(window.attentionEarly).length), 0, 'the early compile was taken over');
    assert.deepEqual(coreFetches(requests), { fixed: 1, relaxed: 0 }, requests.join(' '));
    assert.deepEqual(problems, []);
  } finally {
    await page.close();
  }
});

for (const [what, answer] of [
  ['answers 404', { status: 404, body: 'Not found' }],
  ['is not wasm', { status: 200, contentType: 'application/wasm', body: 'not a wasm module' }],
]) {
  test(`when the relaxed build ${what}, the page falls back to the fixed build and draws`, async () => {
    const { page, problems, requests } = await openWatched(browser, url, {
      before: (page) => page.route(`**/${RELAXED_CORE}`, (route) => route.fulfill(answer)),
    });
    try {
      await drawn(page);
      assertMatchesWasm(await grid(page), DEFAULT.join(' '));
      // The relaxed build was tried (early, and again by the glue), then the fixed one, once.
      const fetched = coreFetches(requests);
      assert.equal(fetched.fixed, 1, requests.join(' '));
      assert.ok(fetched.relaxed >= 1, requests.join(' '));
      // Chromium reports the 404 itself as a console error; nothing else may go wrong.
      assert.deepEqual(
        problems.filter((p) => !/Failed to load resource: the server responded with a status of 404/.test(p)),
        [],
      );
    } finally {
      await page.close();
    }
  });
}

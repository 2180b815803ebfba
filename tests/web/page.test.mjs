// End-to-end tests of the built page (build/site) in headless Debian chromium.
// Build first: the wasm module (build/wasm), then `node scripts/build-site.mjs`.
// Run: node --test tests/web/
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { openWatched, root, site, startSession } from './harness.mjs';

const DEFAULT = ['the', 'train', 'left', 'the', 'station', 'on', 'time'];
const TOLERANCE = 1e-6;

let browser, url, core, vectors, session;

before(async () => {
  session = await startSession();
  ({ browser, url, core, vectors } = session);
});

after(() => session?.stop());

/** A fresh page on the site, its heatmap drawn; problems collects console errors, page errors and dialogs. */
async function open() {
  const { page, problems } = await openWatched(browser, url, { viewport: { width: 1280, height: 900 } });
  await page.waitForSelector('svg.heatmap .cell', { timeout: 20_000 });
  return { page, problems };
}

/** What the page shows: row and column labels (markers stripped), and every cell. */
const grid = (page) => page.evaluate(() => {
  const strip = (t) => t.textContent.replace(/[?*]$/, '');
  return {
    rows: [...document.querySelectorAll('svg.heatmap [role=rowheader]')].map(strip),
    cols: [...document.querySelectorAll('svg.heatmap [role=columnheader]')].map(strip),
    cells: [...document.querySelectorAll('svg.heatmap .cell')].map((c) => ({
      row: Number(c.getAttribute('data-row')),
      col: Number(c.getAttribute('data-col')),
      weight: c.getAttribute('data-weight'),
    })),
    message: document.getElementById('message').hidden ? '' : document.getElementById('message').textContent,
  };
});

function reference(text) {
  const { tokens, X } = vectors.embed(text, 64);
  const { weights } = core.parameterFree(X, Math.sqrt(vectors.dim), { temperature: 1 });
  return { tokens, weights };
}

function assertMatchesWasm(shown, text) {
  const { tokens, weights } = reference(text);
  const T = tokens.length;
  assert.deepEqual(shown.rows, tokens.map((t) => t.text));
  assert.deepEqual(shown.cols, tokens.map((t) => t.text));
  assert.equal(shown.cells.length, T * T);
  const seen = new Set();
  for (const { row, col, weight } of shown.cells) {
    assert.ok(row >= 0 && row < T && col >= 0 && col < T, `cell (${row}, ${col}) outside ${T}×${T}`);
    seen.add(row * T + col);
    assert.match(weight, /^\d/, `cell (${row}, ${col}) data-weight ${weight}`);
    const want = weights.data[row * T + col];
    assert.ok(Math.abs(Number(weight) - want) <= TOLERANCE, `cell (${row}, ${col}): page ${weight}, wasm ${want}`);
  }
  assert.equal(seen.size, T * T, 'every (row, col) appears once');
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
      const sum = shown.cells.filter((c) => c.row === r).reduce((a, c) => a + Number(c.weight), 0);
      assert.ok(Math.abs(sum - 1) < 1e-5, `row ${r} sums to ${sum}`);
    }
    assert.ok(new Set(shown.cells.map((c) => c.weight)).size > 7, 'weights vary');
    assert.match(await page.textContent('#status'), new RegExp(`${vectors.size.toLocaleString('en-US')} words, ${vectors.dim} dimensions`));
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
    const shown = await grid(page);
    assert.equal(shown.cells.length, 49);
    assert.deepEqual(shown.rows, ['he', 'cashed', 'a', 'check', 'at', 'the', 'bank']);
    assertMatchesWasm(shown, text);
    // A longer one, with punctuation, changes the size of the grid.
    const longer = 'The bank of the river flooded, so the bank closed early.';
    await page.fill('#sentence', longer);
    const shown2 = await grid(page);
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
    assert.doesNotMatch(source, /\.(innerHTML|outerHTML)\b|insertAdjacentHTML|document\.write|createContextualFragment|DOMParser/, `web/${file}`);
  }
});

test('markup typed into the box is shown as text, never parsed', async () => {
  const { page, problems } = await open();
  try {
    const text = '<img src=x onerror=alert(1)>';
    await page.fill('#sentence', text);
    await page.waitForTimeout(300); // give a stray <img> time to fire onerror
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
    let shown = await grid(page);
    assert.equal(shown.cells.length, 0);
    assert.match(shown.message, /Type a sentence/);

    await page.fill('#sentence', 'the cat sat');
    shown = await grid(page);
    assert.equal(shown.cells.length, 9);
    assert.equal(shown.message, '');

    const words = Array.from({ length: 2000 }, (_, i) => DEFAULT[i % DEFAULT.length]).join(' ');
    await page.fill('#sentence', words);
    shown = await grid(page);
    assert.equal(shown.cells.length, 0);
    assert.match(shown.message, /2,000 tokens/);
    assert.match(shown.message, /at most 64/);

    await page.fill('#sentence', DEFAULT.join(' '));
    shown = await grid(page);
    assert.equal(shown.cells.length, 49);
    assert.equal(shown.message, '');

    const text = 'the qwzxv left';
    await page.fill('#sentence', text);
    shown = await grid(page);
    assert.deepEqual(shown.rows, ['the', 'qwzxv', 'left']);
    assertMatchesWasm(shown, text);
    const label = page.locator('svg.heatmap [role=rowheader]').nth(1);
    assert.equal(await label.textContent(), 'qwzxv?');
    assert.match(await label.getAttribute('class'), /\bunknown\b/);
    assert.equal(await page.locator('svg.heatmap [role=rowheader].unknown').count(), 1);
    assert.match(await page.textContent('#notes'), /‘qwzxv’ is not in the vocabulary: it uses a zero vector/);
    // A zero vector scores 0 against every key, so its row is uniform.
    for (const c of shown.cells.filter((c) => c.row === 1)) {
      assert.ok(Math.abs(Number(c.weight) - 1 / 3) < 1e-6, `qwzxv → ${c.col}: ${c.weight}`);
    }
    assert.deepEqual(problems, []);
  } finally {
    await page.close();
  }
});

test('keyboard: tabbing into the grid and arrow keys show the focused weight', async () => {
  const { page, problems } = await open();
  try {
    const readout = () => page.textContent('#readout');
    const focused = () => page.evaluate(() => {
      const a = document.activeElement;
      return a?.classList.contains('cell')
        ? { row: +a.dataset.row, col: +a.dataset.col, weight: a.dataset.weight } : null;
    });
    // The last control before the figure is the heatmap options' "softmax along" select.
    await page.focus('#norm');
    await page.keyboard.press('Tab');
    let cell = await focused();
    assert.deepEqual({ row: cell?.row, col: cell?.col }, { row: 0, col: 0 });
    assert.ok((await readout()).includes(`the → the: ${Number(cell.weight).toFixed(4)}`), await readout());

    await page.keyboard.press('ArrowRight');
    await page.keyboard.press('ArrowDown');
    cell = await focused();
    assert.deepEqual({ row: cell.row, col: cell.col }, { row: 1, col: 1 });
    assert.ok((await readout()).includes(`train → train: ${Number(cell.weight).toFixed(4)}`), await readout());

    await page.keyboard.press('ArrowRight');
    await page.keyboard.press('ArrowRight');
    await page.keyboard.press('ArrowRight');
    cell = await focused();
    assert.deepEqual({ row: cell.row, col: cell.col }, { row: 1, col: 4 });
    const want = reference(DEFAULT.join(' ')).weights.data[1 * 7 + 4];
    assert.ok((await readout()).includes(`train → station: ${want.toFixed(4)}`), await readout());
    // Only one cell is in the tab order (roving tabindex).
    assert.equal(await page.locator('svg.heatmap .cell[tabindex="0"]').count(), 1);

    // Hovering shows a cell too.
    await page.hover('svg.heatmap .cell[data-row="6"][data-col="2"]');
    assert.match(await readout(), /^time → left: \d\.\d{4}/);
    assert.deepEqual(problems, []);
  } finally {
    await page.close();
  }
});

test('a vectors file that fails to load gives a readable message', async () => {
  const page = await browser.newPage();
  const pageErrors = [];
  page.on('pageerror', (e) => pageErrors.push(e.message));
  try {
    await page.route('**/vectors.bin', (route) => route.fulfill({ status: 404, body: 'Not found' }));
    await page.goto(url);
    const message = page.locator('#message');
    await message.waitFor({ state: 'visible', timeout: 20_000 });
    assert.match(await message.textContent(), /Could not load .*vectors\.bin: HTTP 404/);
    assert.equal(await page.locator('svg.heatmap .cell').count(), 0);
    // The page itself stays usable: typing does not throw.
    await page.fill('#sentence', 'the train');
    assert.deepEqual(pageErrors, []);
  } finally {
    await page.close();
  }
});

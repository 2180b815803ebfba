// Browser tests of by-hand practice (web/lib/byhand/practice.js) and the class set (classset.js): the
// page's exercise is node's for the same seed, the seed survives the URL, the keyboard path, the marks
// (right, wrong, right from the learner's own wrong upstream) in aria-invalid and the live status, the
// real-maths mode, and the printed class set (Chromium's PDF: 2N pages, each sheet's seed and code on
// its sheet and its key, read back with poppler's pdfinfo and pdftotext). Screenshots of a half-filled
// exercise with one wrong cell and its hint (1280×800 and 390×844, light and dark) and of the class set's
// first sheet and key go to build/screenshots/.
// Build first: bash scripts/build.sh. Run: node --test tests/web/practice.test.mjs
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { drawn, embedShown, root, startSession } from './harness.mjs';

const SHOTS = join(root, 'build', 'screenshots');
const AXE = await readFile(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
let session, browser, url, larger;

before(async () => {
  session = await startSession();
  ({ browser, url } = session);
  // The exercise API is in the larger module (the page loads it on demand too).
  larger = await session.api.loadAttentionWithModel({
    wasmBinary: await readFile(join(root, 'build', 'wasm', 'attention_model_wasm.wasm')),
  });
  await mkdir(SHOTS, { recursive: true });
});
after(() => session?.stop());

async function open(query, { width = 1280, height = 800 } = {}) {
  const page = await browser.newPage({ viewport: { width, height } });
  // axe, served from the page's own origin (as a11y.test.mjs does) for the audit below.
  await page.route('**/__axe.min.js', (route) => route.fulfill({ contentType: 'text/javascript; charset=utf-8', body: AXE }));
  const problems = [];
  page.on('console', (m) => m.type() === 'error' && problems.push(`console: ${m.text()}`));
  page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
  await page.goto(`${url}${query}`);
  return { page, problems };
}

/** Waits until the practice sheet shows the exercise of `seed` in `math`. */
const ready = (page, seed, math = 'shortcuts') => page.waitForSelector(`#practice[data-ready="${seed}:${math}"]`, { timeout: 30_000 });

/** The number of checks the sheet has run (each change of a cell runs one). */
const checks = (page) => page.evaluate(() => Number(document.getElementById('practice').dataset.checked ?? 0));

/** Types `text` into a cell and presses Enter (which moves on; leaving the cell checks it), then waits for that check. */
async function enter(page, id, text) {
  const before = await checks(page);
  await page.fill(`#${id}`, text);
  await page.press(`#${id}`, 'Enter');
  await page.waitForFunction((n) => Number(document.getElementById('practice').dataset.checked ?? 0) > n, before);
}

/** A core matrix as rows of numbers, and what a page table of it shows (its <td data-row data-col>s). */
const rowsOf = (m) => Array.from({ length: m.rows }, (_, r) => Array.from(m.data.subarray(r * m.cols, (r + 1) * m.cols)));
const tableRows = (page, name) =>
  page.$$eval(`table[data-name="${name}"] tbody tr`, (trs) =>
    trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => Number(td.textContent.replace('−', '-')))),
  );
const mark = (page, id) =>
  page.$eval(`#${id}`, (input) => ({ invalid: input.getAttribute('aria-invalid'), verdict: input.parentElement.dataset.verdict ?? null }));
const at = (m, r, c) => m.data[r * m.cols + c];
const status = (page) => page.textContent('#practice-status');

test('the page draws the exercise node draws for the same seed, and the seed round-trips through the URL', async () => {
  const { page, problems } = await open('?exercise=1234#by-hand');
  await ready(page, 1234);
  const e = larger.exercise(1234);
  assert.deepEqual(await tableRows(page, 'practice-X'), rowsOf(e.X));
  assert.deepEqual(await tableRows(page, 'practice-Wq'), rowsOf(e.Wq));
  assert.deepEqual(await tableRows(page, 'practice-Wk'), rowsOf(e.Wk));
  assert.deepEqual(await tableRows(page, 'practice-Wv'), rowsOf(e.Wv));
  assert.match(await page.textContent('#practice-meta'), new RegExp(`Exercise 1234 · code ${e.code}`));
  assert.equal(await page.locator('.practice-steps input').count(), 116);
  // "Print this exercise": its sheet and key, with its seed and code, in the print-only worksheet.
  await page.evaluate(() => (window.print = () => (window.__printed = true)));
  await page.click('#practice-print');
  await page.waitForFunction(() => window.__printed === true);
  assert.equal(await page.getAttribute('#worksheet', 'data-sheets'), '1');
  assert.deepEqual(await page.$$eval('#worksheet .sheet-label', (ps) => ps.map((p) => p.textContent.trim())), [
    `Seed 1234 · code ${e.code}\u2003Name: ____________________`,
    `Seed 1234 · code ${e.code}`,
  ]);

  // New exercise: a new seed in the URL; that URL opens the same exercise.
  await page.click('#practice-new');
  await page.waitForFunction(() => document.getElementById('practice').dataset.ready?.split(':')[0] !== '1234');
  const fresh = Number(new URL(page.url()).searchParams.get('exercise'));
  await ready(page, fresh);
  const firstX = await tableRows(page, 'practice-X');
  assert.deepEqual(firstX, rowsOf(larger.exercise(fresh).X));
  await page.click('#practice-math-real');
  await ready(page, fresh, 'real');
  assert.equal(new URL(page.url()).searchParams.get('math'), 'real');
  const again = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  await again.goto(page.url());
  await ready(again, fresh, 'real');
  assert.deepEqual(await tableRows(again, 'practice-X'), firstX);
  assert.ok(await again.isChecked('#practice-math-real'));
  // A change of the figure rewrites the URL from its state (app.js writeURL): the practice's keys stay.
  await again.selectOption('#view', 'lines');
  await again.waitForFunction(() => new URLSearchParams(location.search).get('view') === 'lines');
  const kept = new URL(again.url()).searchParams;
  assert.deepEqual([kept.get('exercise'), kept.get('math')], [String(fresh), 'real']);
  assert.equal(await again.textContent('.practice-step[data-step="scaled"] caption'), 'S = KᵀQ ÷ √3');
  await again.close();
  assert.deepEqual(problems, []);
  await page.close();
});

test('the keyboard path: Enter and arrows move, each cell is checked on leaving it, with its hint and expected value', async () => {
  const { page, problems } = await open('?exercise=1#by-hand');
  await ready(page, 1);
  const e = larger.exercise(1);
  const key = larger.exerciseAnswer(e);
  await page.focus('#practice-Q-0-0');
  await enter(page, 'practice-Q-0-0', String(at(key.Q, 0, 0)));
  assert.equal(await page.evaluate(() => document.activeElement.id), 'practice-Q-0-1', 'Enter moves to the next cell');
  assert.deepEqual(await mark(page, 'practice-Q-0-0'), { invalid: 'false', verdict: 'right' });
  assert.match(await status(page), /^✓ Right: Q₁₁ = row 1 of W_Q · column 1 of X\.$/);
  assert.match(await page.textContent('#practice-progress'), /1 of 116 cells right/);

  await enter(page, 'practice-Q-0-1', String(at(key.Q, 0, 1) + 1));
  assert.deepEqual(await mark(page, 'practice-Q-0-1'), { invalid: 'true', verdict: 'wrong' });
  assert.match(await status(page), /Not yet: Q₁₂ = row 1 of W_Q · column 2 of X\./);
  assert.ok(await page.isHidden('#practice-expected'));
  await page.click('#practice-show');
  assert.equal(await page.textContent('#practice-expected'), `Q₁₂ = ${String(at(key.Q, 0, 1)).replace('-', '−')}.`);
  assert.match(await page.textContent('#practice-progress'), /1 of 116 cells right/);

  // Arrows: down a row, down out of Q into K's first row, up back; right along an empty row.
  await page.focus('#practice-Q-1-1');
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('ArrowDown');
  assert.equal(await page.evaluate(() => document.activeElement.id), 'practice-K-0-1');
  await page.keyboard.press('ArrowUp');
  assert.equal(await page.evaluate(() => document.activeElement.id), 'practice-Q-2-1');
  await page.keyboard.press('ArrowRight');
  assert.equal(await page.evaluate(() => document.activeElement.id), 'practice-Q-2-2');
  await page.keyboard.press('Shift+Enter');
  assert.equal(await page.evaluate(() => document.activeElement.id), 'practice-Q-2-1');

  // Text that is no number: marked, and said so.
  await enter(page, 'practice-Q-2-1', 'abc');
  assert.deepEqual(await mark(page, 'practice-Q-2-1'), { invalid: 'true', verdict: 'unreadable' });
  assert.match(await status(page), /“abc” is not a number or a fraction/);
  assert.deepEqual(problems, []);
  await page.close();
});

test('a cell right from the learner own wrong upstream is accepted, and the hint names the cell that is off', async () => {
  const { page, problems } = await open('?exercise=1#by-hand');
  await ready(page, 1);
  const e = larger.exercise(1);
  const key = larger.exerciseAnswer(e);
  // One K of column 1 off (in a row where Q's column 1 is not 0, so it changes KᵀQ₁₁), the rest of
  // column 1 of K and of Q right.
  const d = [0, 1, 2].find((r) => at(key.Q, r, 0) !== 0);
  const wrongK = at(key.K, d, 0) + 1;
  await enter(page, `practice-K-${d}-0`, String(wrongK));
  for (const r of [0, 1, 2].filter((r) => r !== d)) await enter(page, `practice-K-${r}-0`, String(at(key.K, r, 0)));
  for (const r of [0, 1, 2]) await enter(page, `practice-Q-${r}-0`, String(at(key.Q, r, 0)));
  const entries = [{ step: 'K', row: d, col: 0, value: wrongK }];
  const reference = larger.checkExerciseCell(e, { step: 'scores', row: 0, col: 0 }, 0, { entries });
  assert.notEqual(reference.expectedFromYours, reference.expected, 'the wrong K changes KᵀQ₁₁');
  await enter(page, 'practice-scores-0-0', String(reference.expectedFromYours));
  assert.deepEqual(await mark(page, 'practice-scores-0-0'), { invalid: 'false', verdict: 'right-from-yours' });
  const off = `K${'₁₂₃'[d]}₁`;
  assert.match(
    await status(page),
    new RegExp(`Right from your own numbers: KᵀQ₁₁ = column 1 of K · column 1 of Q; but your ${off} is off\\.`),
  );
  assert.match(await page.textContent('#practice-progress'), /6 of 116 cells right \(1 from your own numbers\)/);
  // Mending that K makes the forgiven cell wrong: its value no longer follows from anything.
  await enter(page, `practice-K-${d}-0`, String(at(key.K, d, 0)));
  assert.deepEqual(await mark(page, 'practice-scores-0-0'), { invalid: 'true', verdict: 'wrong' });
  // The key's value is right again.
  await enter(page, 'practice-scores-0-0', String(at(key.scores, 0, 0)));
  assert.deepEqual(await mark(page, 'practice-scores-0-0'), { invalid: 'false', verdict: 'right' });
  // A as a fraction: P ÷ Σ.
  const A = `${at(key.powers, 0, 0)}/${at(key.sums, 0, 0)}`;
  await enter(page, 'practice-A-0-0', A);
  assert.deepEqual(await mark(page, 'practice-A-0-0'), { invalid: 'false', verdict: 'right' });
  assert.deepEqual(problems, []);
  await page.close();
});

/** Half of the sheet filled from the key (Q, K, V and KᵀQ), one K cell wrong, its hint and expected value shown. */
async function halfFilled(page, e) {
  const key = larger.exerciseAnswer(e);
  await page.evaluate(
    (values) => {
      for (const [id, v] of values) document.getElementById(id).value = v;
    },
    ['Q', 'K', 'V', 'scores'].flatMap((step) => {
      const m = key[step];
      return rowsOf(m).flatMap((row, r) => row.map((v, c) => [`practice-${step}-${r}-${c}`, String(v)]));
    }),
  );
  await page.focus('#practice-K-1-2');
  await enter(page, 'practice-K-1-2', String(at(key.K, 1, 2) + 2));
  await page.click('#practice-show');
  await page.$eval('#practice-feedback', (el) => el.scrollIntoView({ block: 'center' }));
}

test('screenshots: a half-filled exercise with one wrong cell and its hint, desktop and phone, light and dark', async () => {
  const e = larger.exercise(26);
  for (const [width, height] of [
    [1280, 800],
    [390, 844],
  ])
    for (const theme of ['light', 'dark']) {
      const { page, problems } = await open(`?exercise=26&theme=${theme}#by-hand`, { width, height });
      await ready(page, 26);
      await halfFilled(page, e);
      assert.deepEqual(await mark(page, 'practice-K-1-2'), { invalid: 'true', verdict: 'wrong' });
      assert.match(await page.textContent('#practice-progress'), /51 of 116 cells right/);
      assert.match(await status(page), /Not yet: K₂₃ = row 2 of W_K · column 3 of X\./);
      // Nothing sticks out sideways on the phone.
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
      assert.ok(overflow <= 0, `the page scrolls sideways by ${overflow}px at ${width}px`);
      await page.screenshot({ path: join(SHOTS, `practice-${width}x${height}-${theme}.png`) });
      // The sheet with its marks and hint passes axe (serious and critical rules, contrast included).
      await page.addScriptTag({ url: `${url}__axe.min.js` });
      const violations = await page.evaluate(async () => {
        const result = await window.axe.run(document.getElementById('practice'), { resultTypes: ['violations'] });
        return result.violations
          .filter((v) => v.impact === 'serious' || v.impact === 'critical')
          .map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
      });
      assert.deepEqual(violations, [], `axe at ${width}px, ${theme}`);
      assert.deepEqual(problems, []);
      await page.close();
    }
});

test('the class set prints N sheets and N keys: one PDF of 2N pages, each sheet and key with its seed and code', async () => {
  const { page, problems } = await open('#by-hand');
  await page.waitForSelector('#classset-print');
  await page.evaluate(() => {
    window.__printed = 0;
    window.print = () => window.__printed++; // the test makes the PDF itself, below
  });
  const N = 3,
    start = 500;
  await page.fill('#classset-count', String(N));
  await page.fill('#classset-start', String(start));
  await page.click('#classset-print');
  await page.waitForFunction((n) => document.getElementById('worksheet').dataset.sheets === String(n) && window.__printed === 1, N);
  const dir = await mkdtemp(join(tmpdir(), 'classset-'));
  try {
    const pdf = join(dir, 'classset.pdf');
    await page.pdf({ path: pdf, preferCSSPageSize: true, printBackground: true });
    const info = execFileSync('pdfinfo', [pdf], { encoding: 'utf8' });
    assert.equal(Number(/Pages:\s+(\d+)/.exec(info)[1]), 2 * N, info);
    const pages = execFileSync('pdftotext', ['-layout', pdf, '-'], { encoding: 'utf8' }).split('\f');
    for (let k = 0; k < N; k++) {
      const e = larger.exercise(start + k);
      const label = `Seed ${start + k} · code ${e.code}`;
      const [sheet, keyPage] = [pages[2 * k], pages[2 * k + 1]];
      assert.match(sheet, /Self-attention by hand: worksheet/);
      assert.ok(sheet.includes(label), `sheet ${k + 1} names ${label}`);
      assert.match(sheet, /Name:/);
      assert.match(keyPage, /Self-attention by hand: answer key/);
      assert.ok(keyPage.includes(label), `key ${k + 1} names ${label}`);
      assert.match(keyPage, /Where the shortcuts differ from the real maths/);
      assert.match(keyPage, /A with the real maths/);
      // The key's column sums are the core's.
      const a = larger.exerciseAnswer(e);
      for (const s of a.sums.data) assert.ok(keyPage.includes(String(s)), `key ${k + 1} has Σ = ${s}`);
    }
    execFileSync('pdftoppm', ['-png', '-r', '70', '-f', '1', '-l', '2', pdf, join(SHOTS, 'classset')]);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
  // Back on screen after the print: the worksheet is print-only.
  assert.ok(await page.isHidden('#worksheet'));
  assert.deepEqual(problems, []);
  await page.close();
});

test('a bad class-set request is refused with a readable message', async () => {
  const { page, problems } = await open('#by-hand');
  await page.waitForSelector('#classset-print');
  await page.fill('#classset-count', '0');
  await page.click('#classset-print');
  await page.waitForSelector('.classset .x-message:not([hidden])');
  assert.match(await page.textContent('.classset .x-message'), /from 1 to 60/);
  assert.deepEqual(problems, []);
  await page.close();
});

test('predict, then reveal: a guess at a by-hand column, scored in one line against the core’s', async () => {
  const { scoreGuess } = await import('../../web/lib/predict/predict.js');
  // The scoring itself: a pick, and weights (the share that landed where they were put).
  assert.deepEqual(scoreGuess({ pick: 1 }, [0.2, 0.5, 0.3]), { top: 1, onPick: 0.5, right: true });
  assert.deepEqual(scoreGuess({ pick: 0 }, [0.2, 0.5, 0.3]), { top: 1, onPick: 0.2, right: false });
  const w = scoreGuess({ weights: [0.5, 0.25, 0.25] }, [0.2, 0.5, 0.3]);
  assert.ok(Math.abs(w.overlap - 0.7) < 1e-12); // 0.2 + 0.25 + 0.25
  assert.equal(w.right, false);

  const { page, problems } = await open('#by-hand');
  await page.waitForSelector('#predict-reveal');
  await page.waitForSelector('table[data-name="hand-weights"]');
  // The page's sheet is the worked example: A's first column from the core, in node.
  const { hand } = await import('../../web/lib/compute/hand.js').then(async ({ HAND_DEFAULT }) => {
    const m = (rows) => session.api.matrix(rows.map((r) => r.map(Number)));
    const W = { Wq: m(HAND_DEFAULT.Wq), Wk: m(HAND_DEFAULT.Wk), Wv: m(HAND_DEFAULT.Wv) };
    return { hand: session.core.attentionByColumns(m(HAND_DEFAULT.X), W, { handShortcuts: true }) };
  });
  const column = [0, 1, 2, 3].map((i) => hand.weights.data[i * 4]);
  const top = column.indexOf(Math.max(...column));
  // Before the guess, A and Z are covered: out of reach (inert), not only blurred.
  const covered = () =>
    page.$$eval('.hand-results .matrix-wrap', (boxes) => boxes.filter((b) => b.inert).map((b) => b.querySelector('table').dataset.name));
  assert.deepEqual((await covered()).sort(), ['exact-output', 'exact-weights', 'hand-output', 'hand-weights']);
  await page.check(`#predict-pick-${top}`);
  await page.click('#predict-reveal');
  await page.waitForSelector('#predict[data-revealed="0"]');
  assert.deepEqual(await covered(), [], 'revealed: A and Z uncovered');
  assert.equal(await page.textContent('#predict-result'), `Right: x${top + 1} gets ${column[top].toFixed(2)} of x1’s attention, the most.`);
  assert.equal(await page.locator('#predict .predict-bars li').count(), 4);
  // Weights of a quarter each: the overlap with the real column.
  await page.selectOption('#predict-mode', 'weights');
  await page.click('#predict-reveal');
  await page.waitForSelector('#predict[data-revealed="0"]');
  const overlap = column.reduce((s, a) => s + Math.min(a, 0.25), 0);
  assert.match(
    await page.textContent('#predict-result'),
    new RegExp(`^${Math.round(overlap * 100)} % of the weight landed where you put it`),
  );
  // Weights that do not sum to 1 are refused, in words.
  await page.fill('#predict-w-0', '0.9');
  await page.click('#predict-reveal');
  await page.waitForFunction(() => /sum to 1/.test(document.getElementById('predict-result').textContent));
  assert.deepEqual(problems, []);
  await page.close();
});

test('predict, then reveal on the figure: the plot is covered until the guess, scored against the row the figure draws', async () => {
  const sentence = 'the train left the station on time';
  const { page, problems } = await open(`?sentence=${encodeURIComponent(sentence)}&word=1`);
  try {
    await drawn(page, { sentence, word: 1 });
    await page.click('#predict-row-start');
    assert.equal(await page.evaluate(() => document.getElementById('plot').inert), true, 'the plot is out of reach while guessing');
    assert.equal(await page.inputValue('#predict-row-query'), '1', 'the selected word is the one asked about');
    const { X } = embedShown(session, sentence);
    const weights = session.core.parameterFree(X, Math.sqrt(session.vectors.dim)).weights;
    const real = Array.from(weights.data.subarray(7, 14));
    await page.check('#predict-row-pick-4');
    await page.click('#predict-row-reveal');
    await page.waitForSelector('#predict-row-card .predict-bars');
    const top = real.indexOf(Math.max(...real));
    const verdict = await page.textContent('#predict-row-result');
    if (top === 4) assert.equal(verdict, `Right: station (5) gets ${real[4].toFixed(2)} of train (2)’s attention, the most.`);
    else assert.ok(verdict.startsWith(`You picked station (5), which gets ${real[4].toFixed(2)} of train (2)’s attention`), verdict);
    assert.equal(await page.evaluate(() => document.getElementById('plot').inert), false, 'revealed: the plot is back');
    assert.deepEqual(problems, []);
  } finally {
    await page.close();
  }
});

// Browser tests of the page's explainer (below the figure) and of the heatmap options: each view
// renders, reacts to an input change, and shows the numbers the wasm core computes (the same module,
// run in node, is the reference). Seed 003's preset must show the seed's own numbers. The explainer
// draws a step only while it is on screen, so a test scrolls to a step and waits for it to show the
// latest redraw (its data-drawn) before reading it.
// Build first: bash scripts/build.sh. Run: node --test tests/web/
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { assertColours, assertWeights, drawn, figureState, onScreen, readHeatmaps, startSession } from './harness.mjs';
import { HEAD_SHARPNESS, multiHeadWeights } from '../../web/lib/rng.js';

const TOL = 1e-6;
const DEFAULT = 'the train left the station on time';
let browser, url, core, vectors, api, session;

before(async () => {
  session = await startSession();
  ({ browser, url, core, vectors, api } = session);
});

after(() => session?.stop());

async function open(query = '', width = 1280) {
  const page = await browser.newPage({ viewport: { width, height: 900 } });
  const problems = [];
  page.on('console', (m) => m.type() === 'error' && problems.push(`console: ${m.text()}`));
  page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
  await page.goto(url + query);
  await page.waitForSelector('html.explainer-ready', { timeout: 20_000 });
  return { page, problems };
}

/** Opens the figure's "More options" panel (score, temperature, mask, softmax, diagonal, heads). */
const moreOptions = async (page) => {
  if ((await page.getAttribute('#more', 'aria-expanded')) !== 'true') await page.click('#more');
};

/** The step (section id) that holds each of the explainer's tables. */
const STEP_OF = {
  X: 'step-inputs',
  Q: 'step-qkv',
  K: 'step-qkv',
  V: 'step-qkv',
  scores: 'step-scores',
  softmax: 'step-softmax',
  weighted: 'step-weighted',
  'output-row': 'expansion',
  weights: 'step-repeat',
  output: 'step-repeat',
  neuron: 'vectors',
  concat: 'multihead',
  Wo: 'multihead',
  'mh-output': 'multihead',
};

/** A matrix table of the explainer by its data-name (its step scrolled into view first): the core values it carries, by (row, col). */
const readTable = async (page, name, scope = '') => {
  if (STEP_OF[name] && !scope.includes('by-hand')) await onScreen(page, STEP_OF[name]);
  return readTableNow(page, name, scope);
};
const readTableNow = (page, name, scope = '') =>
  page.evaluate(
    ([n, sc]) => {
      const t = document.querySelector(`${sc} table[data-name="${n}"]`);
      if (!t) return null;
      const cells = [...t.querySelectorAll('td[data-row]')].map((td) => ({
        r: +td.dataset.row,
        c: +td.dataset.col,
        v: Number(td.dataset.value),
        text: td.textContent,
      }));
      return { rows: +t.dataset.rows, cols: +t.dataset.cols, cells };
    },
    [name, scope],
  );

function assertTable(shown, mat, where, tol = TOL) {
  assert.ok(shown, `${where}: table missing`);
  assert.equal(shown.rows, mat.rows, `${where}: rows`);
  assert.equal(shown.cols, mat.cols, `${where}: cols`);
  assert.ok(shown.cells.length > 0, `${where}: no cells`);
  for (const { r, c, v } of shown.cells) {
    const want = mat.data[r * mat.cols + c];
    assert.ok(want === v || Math.abs(v - want) <= tol, `${where} (${r}, ${c}): page ${v}, wasm ${want}`);
  }
}
const rowsOf = (shown) => {
  const out = [];
  for (const { r, c, v } of shown.cells) (out[r] ??= [])[c] = v;
  return out;
};
const stage = async (page, title) => {
  await onScreen(page, 'step-softmax');
  return page.$$eval(`table[data-name="softmax"] tr[data-stage="${title}"] td`, (tds) =>
    tds.map((t) => ({ v: Number(t.dataset.value), text: t.textContent })),
  );
};

test('seed 003 preset: the walkthrough shows the seed’s keys, queries, values, scores, softmax and outputs', async () => {
  const { page, problems } = await open();
  try {
    await page.click('#x-preset');
    await drawn(page, { input: 'seed003' });
    await onScreen(page, 'step-scores');
    await page.waitForFunction(() => document.querySelector('table[data-name="scores"]')?.dataset.rows === '3');
    assert.deepEqual(rowsOf(await readTable(page, 'K')), [
      [0, 1, 1],
      [4, 4, 0],
      [2, 3, 1],
    ]);
    assert.deepEqual(rowsOf(await readTable(page, 'Q')), [
      [1, 0, 2],
      [2, 2, 2],
      [2, 1, 3],
    ]);
    assert.deepEqual(rowsOf(await readTable(page, 'V')), [
      [1, 2, 3],
      [2, 8, 0],
      [2, 6, 3],
    ]);
    assert.deepEqual(rowsOf(await readTable(page, 'scores')), [
      [2, 4, 4],
      [4, 16, 12],
      [4, 12, 10],
    ]);
    // Softmax row 1, as the seed prints it (6.3379e-02, 4.6831e-01, 4.6831e-01).
    const w = await stage(page, 'weight α');
    assert.deepEqual(
      w.map((x) => x.text),
      ['0.0634', '0.4683', '0.4683'],
    );
    assert.ok(Math.abs(w[0].v - 0.063379) < 1e-5 && Math.abs(w[1].v - 0.46831) < 1e-5);
    const weights = rowsOf(await readTable(page, 'weights'));
    const seed = [
      [6.3379e-2, 4.6831e-1, 4.6831e-1],
      [6.0337e-6, 9.8201e-1, 1.7986e-2],
      [2.9539e-4, 8.8054e-1, 1.1917e-1],
    ];
    seed.forEach((row, r) =>
      row.forEach((x, c) =>
        assert.ok(Math.abs(weights[r][c] - x) <= 5e-5 * Math.max(1, x * 10), `weights (${r}, ${c}) ${weights[r][c]} vs ${x}`),
      ),
    );
    const out = rowsOf(await readTable(page, 'output'));
    [
      [1.936621, 6.683105, 1.595068],
      [1.999994, 7.963992, 0.053976],
      [1.999705, 7.759892, 0.358389],
    ].forEach((row, r) => row.forEach((x, c) => assert.ok(Math.abs(out[r][c] - x) < 1e-5, `output (${r}, ${c}) ${out[r][c]} vs ${x}`)));
    await onScreen(page, 'shapes');
    assert.equal(await page.textContent('td[data-shape="X (inputs)"]'), '3×4');
    assert.equal(await page.textContent('td[data-shape="QKᵀ (scores), weights"]'), '3×3');
    // The formulas are MathML.
    assert.ok((await page.locator('#step-softmax math mfrac').count()) >= 1);
    // Scaling by √3 instead (the figure's score, which the walkthrough follows): softmax row 1 = [0.136126, 0.431937, 0.431937].
    await moreOptions(page);
    await page.selectOption('#score', 'scaled');
    await drawn(page, { input: 'seed003', score: 'scaled' });
    await onScreen(page, 'step-softmax');
    await page.waitForFunction(
      () => document.querySelector('table[data-name="softmax"] tr[data-stage="weight α"] td')?.textContent === '0.1361',
    );
    assert.deepEqual(
      (await stage(page, 'weight α')).map((x) => x.text),
      ['0.1361', '0.4319', '0.4319'],
    );
    // Query 2 via the picker: step 5 follows.
    await page.click('.picker button[data-index="1"]');
    await drawn(page, { input: 'seed003', word: 1 });
    assert.deepEqual(
      (await stage(page, 'raw score')).map((x) => x.v),
      [4, 16, 12],
    );
    assert.deepEqual(problems, []);
  } finally {
    await page.close();
  }
});

test('walkthrough on the sentence: parameter-free, identity and edited weights all equal the core', async () => {
  const { page, problems } = await open();
  try {
    const { tokens, X } = vectors.embed(DEFAULT, 64);
    const free = core.parameterFree(X, Math.sqrt(vectors.dim), { temperature: 1 });
    assertTable(await readTable(page, 'X', '#walkthrough'), X, 'X');
    assertTable(await readTable(page, 'scores'), free.scores, 'scores', 1e-5);
    assertTable(await readTable(page, 'weights'), free.weights, 'weights');
    assertTable(await readTable(page, 'output'), free.output, 'output');
    assert.equal((await stage(page, 'weight α')).length, tokens.length);

    // Identity weights, d_k = 4.
    await page.selectOption('#x-mode', 'identity');
    await drawn(page, { weights: 'identity' });
    const I = Array.from({ length: vectors.dim }, (_, r) => Array.from({ length: 4 }, (_, c) => (r === c ? 1 : 0)));
    let want = core.attention(X, { Wq: I, Wk: I, Wv: I }, { score: 'scaled_dot', temperature: 1 });
    assertTable(await readTable(page, 'Q'), want.Q, 'Q (identity)');
    assertTable(await readTable(page, 'weights'), want.weights, 'weights (identity)');
    await onScreen(page, 'shapes');
    assert.equal(await page.textContent('td[data-shape="W_Q, W_K"]'), `${vectors.dim}×4`);

    // Edit W_Q[1, 2] = 2: recomputed by the core, mode becomes "edited".
    const cell = page.locator('#walkthrough table[data-name="W_Q"] input[data-row="0"][data-col="1"]');
    await cell.fill('2');
    await drawn(page, { weights: 'edited' });
    assert.equal(await page.inputValue('#x-mode'), 'edited');
    const Wq = I.map((r) => [...r]);
    Wq[0][1] = 2;
    want = core.attention(X, { Wq, Wk: I, Wv: I }, { score: 'scaled_dot', temperature: 1 });
    assertTable(await readTable(page, 'weights'), want.weights, 'weights (edited)');

    // Text in a cell: flagged in place, message, and the last good numbers stay.
    const before = await readTable(page, 'weights');
    await cell.fill('abc');
    // The cell says it is wrong (the walkthrough marks it as it redraws).
    await page.locator('#walkthrough table[data-name="W_Q"] input[data-row="0"][data-col="1"][aria-invalid="true"]').waitFor();
    await drawn(page, { weights: 'edited' });
    assert.equal(await cell.getAttribute('aria-invalid'), 'true');
    assert.match(await page.textContent('#walkthrough .x-message'), /W_Q\[1, 2\] is not a number/);
    assert.deepEqual(await readTable(page, 'weights'), before);
    await cell.fill('2');
    await page.locator('#walkthrough table[data-name="W_Q"] input[data-row="0"][data-col="1"]:not([aria-invalid])').waitFor();
    await drawn(page, { weights: 'edited' });
    assert.equal(await cell.getAttribute('aria-invalid'), null);
    assert.equal(await page.locator('#walkthrough .x-message').isHidden(), true);

    // The figure's sentence and temperature drive the walkthrough.
    await page.selectOption('#x-mode', 'free');
    await drawn(page, { weights: 'free' });
    await moreOptions(page);
    await page.fill('#sentence', 'he cashed a check at the bank');
    await page.locator('#temperature').fill('0.5');
    await drawn(page, { weights: 'free', sentence: 'he cashed a check at the bank', temperature: 0.5 });
    const e2 = vectors.embed('he cashed a check at the bank', 64);
    const free2 = core.parameterFree(e2.X, Math.sqrt(vectors.dim), { temperature: 0.5 });
    assertTable(await readTable(page, 'weights'), free2.weights, 'weights (new sentence, τ 0.5)');
    assert.deepEqual(problems, []);
  } finally {
    await page.close();
  }
});

test('weighted sum written out: live weights, largest first; query and key vectors view', async () => {
  const { page, problems } = await open('?word=1');
  try {
    const { X } = vectors.embed(DEFAULT, 64);
    const free = core.parameterFree(X, Math.sqrt(vectors.dim), { temperature: 1 });
    const row = Array.from(free.weights.data.subarray(7, 14));
    await onScreen(page, 'expansion');
    const terms = await page.$$eval('#expansion math.expansion mn', (ns) => ns.map((n) => n.textContent));
    // The ones after Σ: 1 is the query index inside α's subscript, then 7 weights.
    const weights = terms.slice(1).map(Number);
    assert.equal(weights.length, 7);
    assert.deepEqual(
      weights,
      [...row].sort((a, b) => b - a).map((w) => Number(w.toFixed(4))),
    );
    assert.match(await page.textContent('#expansion math.expansion'), /A\(train\)/);
    // Neuron view (drawn while on screen): score, scaled and weight for query "train" against every key.
    await onScreen(page, 'vectors');
    const neuron = await page.$$eval('table[data-name="neuron"] tbody tr', (trs) =>
      trs.map((tr) => [...tr.querySelectorAll('td[data-value]')].map((td) => Number(td.dataset.value))),
    );
    assert.equal(neuron.length, 7);
    neuron.forEach(([score, scaled, w], j) => {
      assert.ok(Math.abs(score - free.scores.data[7 + j]) < 1e-5);
      assert.ok(Math.abs(scaled - free.scaled.data[7 + j]) < 1e-6);
      assert.ok(Math.abs(w - free.weights.data[7 + j]) < 1e-6);
    });
    assert.equal(await page.locator('#vectors svg.vbars').count(), 15); // q, 7 keys and 7 products q∘k
    const productLabels = await page.$$eval('#vectors svg.vbars[aria-label^="q∘k"]', (ss) => ss.map((s) => s.getAttribute('aria-label')));
    assert.equal(productLabels.length, 7);
    assert.match(productLabels[4], /^q∘k of train and station: /);
    // Step 6: every α·v_j entry is the core's (queryTerms), first 8 of each row shown.
    const expected = core.queryTerms(free, 1).weighted;
    await onScreen(page, 'step-weighted');
    const shown = await page.$$eval('table[data-name="weighted"] tbody tr', (trs) =>
      trs.map((tr) => [...tr.querySelectorAll('td.v')].map((td) => Number(td.dataset.value))),
    );
    assert.equal(shown.length, 7);
    shown.forEach((cells, j) => {
      assert.equal(cells.length, 8);
      cells.forEach((v, c) => assert.ok(Math.abs(v - expected.data[j * expected.cols + c]) < 1e-6, `α·v[${j}][${c}]`));
    });
    // Clicking the heatmap's cell for another query moves the walkthrough with it.
    await page.evaluate(() => scrollTo(0, 0));
    const at = await page.evaluate(() => {
      const canvas = document.querySelector('#heatmap canvas.cells'),
        w = canvas.attentionWeights,
        r = canvas.getBoundingClientRect();
      return { x: r.left + (1 + 0.5) * w.cell, y: r.top + (4 + 0.5) * w.cell };
    });
    await page.mouse.click(at.x, at.y);
    await drawn(page, { word: 4 });
    await page.waitForFunction(() => document.querySelector('.picker button.on')?.dataset.index === '4');
    await onScreen(page, 'expansion');
    assert.match(await page.textContent('#expansion math.expansion'), /A\(station\)/);
    assert.deepEqual(problems, []);
  } finally {
    await page.close();
  }
});

test('multi-head: 1–8 heads, per-head maps, concat and W_O equal core.multiHead; a head can be focused', async () => {
  const { page, problems } = await open();
  try {
    const { X } = vectors.embed(DEFAULT, 64);
    // Drawn once on screen (the section is redrawn only while visible).
    await onScreen(page, 'multihead');
    // The same heads as the figure's heads view (4 by default), set by the page's one Heads control.
    await page.waitForFunction(() => document.querySelectorAll('#multihead .head-box').length === 4);
    await page.click('#multihead .heads-link');
    await drawn(page, { view: 'heads' });
    assert.equal(await page.evaluate(() => document.activeElement.id), 'heads');
    assert.equal(await page.inputValue('#view'), 'heads');
    await page.fill('#heads', '3');
    await page.press('#heads', 'Enter');
    await drawn(page, { view: 'heads', heads: 3 });
    await onScreen(page, 'multihead');
    await page.waitForFunction(() => document.querySelectorAll('#multihead .head-box').length === 3);
    // The figure's heads view shows the very same three heads.
    assert.equal(await page.locator('#heatmap > .heatmap.compact').count(), 3);
    const w = multiHeadWeights(vectors.dim, 3, 1, HEAD_SHARPNESS);
    const want = core.multiHead(X, { heads: w.heads, Wo: w.Wo }, { temperature: 1 });
    assertTable(await readTable(page, 'concat'), want.concat, 'concat');
    assertTable(await readTable(page, 'mh-output'), want.output, 'multi-head output');
    assertTable(await readTable(page, 'Wo'), w.Wo, 'W_O');
    await page.click('#multihead .head-box[data-head="2"]');
    await drawn(page, { view: 'heads', heads: 3, head: 2 });
    await onScreen(page, 'multihead');
    const [focused] = await page.evaluate(readHeatmaps, { selector: '#multihead .heatmap.focused' });
    assert.equal(focused.cells.length, 49);
    assertWeights(focused, want.heads[2].weights, 'focused head 3');
    assertColours(focused, 'focused head 3');
    const boxes = await page.evaluate(readHeatmaps, { selector: '#multihead .head-box .head-map' });
    assert.equal(boxes.length, 3);
    boxes.forEach((map, k) => {
      assertWeights(map, want.heads[k].weights, `head box ${k + 1}`);
      assertColours(map, `head box ${k + 1}`);
    });
    assert.equal(await page.getAttribute('#multihead .head-box[data-head="2"]', 'aria-pressed'), 'true');
    assert.deepEqual(problems, []);
  } finally {
    await page.close();
  }
});

test('heatmap options: dot and cosine scores, column softmax, the diagonal apart or in the scale — numbers and colours from the core', async () => {
  const { page, problems } = await open();
  try {
    const { X } = vectors.embed(DEFAULT, 64);
    const map = async () => (await figureState(page, null)).map;
    const check = async (weights, where) => {
      const m = await map();
      assert.equal(m.cells.length, 49, where);
      assertWeights(m, weights, where);
      assertColours(m, where);
      return m;
    };
    const offMax = (m) => Math.max(...m.cells.filter((c) => c.row !== c.col).map((c) => c.weight));
    // The diagonal starts apart: hatched, and the colour scale's top is the largest weight between two different words.
    const first = await check(core.parameterFree(X, Math.sqrt(vectors.dim), { temperature: 1 }).weights, 'default');
    assert.equal(first.hideDiagonal, true);
    assert.equal(first.max, offMax(first));
    assert.equal((await page.$$eval('#legend .tick-label', (t) => t.map((x) => x.textContent)))[4], offMax(first).toFixed(2));
    assert.match(await page.textContent('#option-note'), /\|x\|²/);
    // Same words, new temperature: the heatmap repaints in place (same canvas node) with the core's numbers.
    await moreOptions(page);
    await page.evaluate(() => {
      window.firstHeatmap = document.querySelector('#heatmap canvas.cells');
    });
    await page.locator('#temperature').fill('0.4');
    await drawn(page, { temperature: 0.4 });
    assert.equal(await page.evaluate(() => window.firstHeatmap === document.querySelector('#heatmap canvas.cells')), true);
    const cold = core.parameterFree(X, Math.sqrt(vectors.dim), { temperature: 0.4 }).weights;
    await check(cold, 'τ 0.4');
    // The grid's active cell says the same: train → station.
    await page.focus('#heatmap .hm-grid');
    for (const key of ['ArrowDown', 'ArrowRight', 'ArrowRight', 'ArrowRight', 'ArrowRight']) await page.keyboard.press(key);
    await drawn(page, { temperature: 0.4, word: 1 });
    const label = await page.evaluate(
      () => document.getElementById(document.activeElement.getAttribute('aria-activedescendant')).textContent,
    );
    assert.equal(label, `train → station: ${cold.data[11].toFixed(4)}`);
    await page.locator('#temperature').fill('1');
    await page.selectOption('#score', 'dot');
    await drawn(page, { temperature: 1, score: 'dot' });
    assert.match(page.url(), /score=dot/);
    await check(core.parameterFree(X, 1, { temperature: 1 }).weights, 'unscaled');
    await page.selectOption('#score', 'cosine');
    await drawn(page, { score: 'cosine' });
    const cosine = core.parameterFree(X, 1, { score: 'cosine' });
    await check(cosine.weights, 'cosine');
    assert.match(await page.textContent('#option-note'), /Cosine scores divide each dot product by both vectors’ lengths/);
    await page.selectOption('#score', 'scaled');
    await page.selectOption('#norm', 'columns');
    await drawn(page, { score: 'scaled', norm: 'columns' });
    const scaled = core.parameterFree(X, Math.sqrt(vectors.dim), { temperature: 1 });
    const cols = core.softmax(scaled.scaled, { axis: 'columns' });
    const shown = await check(cols, 'column softmax');
    const colSum = shown.cells.filter((c) => c.col === 3).reduce((a, c) => a + c.weight, 0);
    assert.ok(Math.abs(colSum - 1) < 1e-5, `column 3 sums to ${colSum}`);
    assert.match(await page.textContent('#option-note'), /Softmax down each column/);
    // The diagonal back in the scale: plain viridis everywhere, the top is the largest weight of all.
    await page.check('#diagonal');
    await drawn(page, { norm: 'columns', diagonal: 'scale' });
    assert.match(page.url(), /diagonal=scale/);
    const d = await check(cols, 'diagonal in the scale');
    assert.equal(d.hideDiagonal, false);
    assert.equal(d.max, Math.max(...d.cells.map((c) => c.weight)));
    assert.deepEqual(problems, []);
  } finally {
    await page.close();
  }
});

test('by hand: column convention, shortcuts beside exact values, editable cells, blank worksheet', async () => {
  const { page, problems } = await open();
  try {
    const read = async () => {
      const X = await page.$$eval('#by-hand table[data-name="X"].edit tbody tr', (trs) =>
        trs.map((tr) => [...tr.querySelectorAll('input')].map((i) => Number(i.value))),
      );
      const W = {};
      for (const [k, n] of [
        ['Wq', 'W_Q'],
        ['Wk', 'W_K'],
        ['Wv', 'W_V'],
      ]) {
        W[k] = await page.$$eval(`#by-hand table[data-name="${n}"] tbody tr`, (trs) =>
          trs.map((tr) => [...tr.querySelectorAll('input')].map((i) => Number(i.value))),
        );
      }
      return { X, W };
    };
    const check = async () => {
      const { X, W } = await read();
      assert.equal(X.length, 6);
      assert.equal(X[0].length, 4);
      assert.equal(W.Wq.length, 3);
      const hand = core.attentionByColumns(X, W, { handShortcuts: true });
      const exact = core.attentionByColumns(X, W, {});
      assertTable(await readTable(page, 'hand-scores'), exact.scores, 'KᵀQ');
      assertTable(await readTable(page, 'hand-scaled'), hand.scaled, 'floor(x/2)');
      assertTable(await readTable(page, 'hand-weights'), hand.weights, 'A by hand');
      assertTable(await readTable(page, 'exact-weights'), exact.weights, 'A exact');
      assertTable(await readTable(page, 'exact-output'), exact.output, 'Z exact');
      // Columns of A sum to 1.
      const A = rowsOf(await readTable(page, 'hand-weights'));
      for (let c = 0; c < 4; c++) assert.ok(Math.abs(A.reduce((a, r) => a + r[c], 0) - 1) < 1e-5);
      return hand;
    };
    const h1 = await check();
    // floor(x/2) of the scores, exactly.
    const S = rowsOf(await readTable(page, 'hand-scores'));
    assert.deepEqual(
      rowsOf(await readTable(page, 'hand-scaled')),
      S.map((r) => r.map((x) => Math.floor(x / 2))),
    );
    const x = page.locator('#by-hand table[data-name="X"] input[data-row="0"][data-col="0"]');
    await x.fill('3');
    const h2 = await check();
    assert.notDeepEqual(Array.from(h1.output.data), Array.from(h2.output.data));
    await x.fill('NaN');
    await page.locator('#by-hand table[data-name="X"] input[data-row="0"][data-col="0"][aria-invalid="true"]').waitFor();
    assert.equal(await x.getAttribute('aria-invalid'), 'true');
    assert.match(await page.textContent('#by-hand .x-message'), /X\[1, 1\] is not a number/);
    await x.fill('3');
    // Keyboard: arrow down moves to the cell below.
    await x.focus();
    await page.keyboard.press('ArrowDown');
    assert.equal(await page.evaluate(() => document.activeElement.getAttribute('aria-label')), 'X row 2, column 1');

    // The worksheet: printed alone, page 1 the givens filled and a blank cell for every number to work
    // out (with the 3^x block and the column-sum row), page 2 the answer key from the core.
    await x.fill('1');
    const { X, W } = await read();
    const hand = core.attentionByColumns(X, W, { handShortcuts: true });
    const terms = core.softmaxBase3Terms(hand.scaled, { axis: 'columns' });
    await page.evaluate(() => {
      window.print = () => {};
    }); // the dialog itself cannot be driven headless
    await page.click('#print-worksheet');
    await page.emulateMedia({ media: 'print' });
    const sheet = await page.evaluate(() => {
      const cells = (page, name) =>
        [...document.querySelectorAll(`#worksheet .sheet-page:nth-child(${page}) table[data-name="${name}"] td:not(.corner)`)].map(
          (td) => td.textContent,
        );
      return {
        display: ['figure-box', 'walkthrough', 'by-hand', 'worksheet'].map((id) => getComputedStyle(document.getElementById(id)).display),
        pages: document.querySelectorAll('#worksheet .sheet-page').length,
        givenX: cells(1, 'ws-X'),
        givenWq: cells(1, 'ws-Wq'),
        blank: ['ws-Q', 'ws-scores', 'ws-scaled', 'ws-powers', 'ws-sums', 'ws-A', 'ws-Z'].map((n) => cells(1, n)),
        keyPowers: cells(2, 'ws-powers'),
        keySums: cells(2, 'ws-sums'),
        keyA: cells(2, 'ws-A'),
        keyScaled: cells(2, 'ws-scaled'),
      };
    });
    assert.deepEqual(sheet.display, ['none', 'none', 'none', 'block']);
    assert.equal(sheet.pages, 2);
    assert.deepEqual(sheet.givenX, X.flat().map(String));
    assert.deepEqual(sheet.givenWq, W.Wq.flat().map(String));
    for (const cells of sheet.blank) assert.ok(cells.length > 0 && cells.every((t) => t === ''), 'blank cells on the sheet');
    assert.deepEqual(sheet.keyScaled, Array.from(hand.scaled.data, String));
    assert.deepEqual(sheet.keyPowers, Array.from(terms.powers.data, String));
    assert.deepEqual(sheet.keySums, Array.from(terms.sums, String));
    // A as fraction = decimal, e.g. 729/918 = .7941 with the example's numbers.
    sheet.keyA.forEach((text, k) => {
      const [r, c] = [Math.floor(k / 4), k % 4];
      const want = `${terms.powers.data[k]}/${terms.sums[c]} = ${hand.weights.data[r * 4 + c].toFixed(4).replace(/^0\./, '.')}`;
      assert.equal(text, want, `A[${r}][${c}]`);
    });
    assert.ok(sheet.keyA.includes('729/918 = .7941'), sheet.keyA.join(' | '));
    const pdf = await page.pdf({ preferCSSPageSize: true, path: '/tmp/test-ws.pdf' });
    assert.equal(pdf.toString('latin1').match(/\/Count (\d+)/)?.[1], '2', 'the worksheet and its answer key: two pages');
    assert.deepEqual(problems, []);
  } finally {
    await page.close();
  }
});

test('what the reader edits lives in the store: each edit a new frozen object, the sheet drawn from the store’s numbers', async () => {
  const { page, problems } = await open();
  try {
    // Edited weights: the first edit makes them "edited"; the next replaces the store's edits object and
    // leaves the one before as it was.
    await page.selectOption('#x-mode', 'identity');
    await onScreen(page, 'step-weights');
    const cell = (name, r, c) => page.locator(`#walkthrough table[data-name="${name}"] input[data-row="${r}"][data-col="${c}"]`);
    await cell('W_Q', 0, 1).fill('2');
    await page.waitForFunction(() => window.attentionWalkthrough.store.sources.edits?.Wq[0][1] === '2');
    assert.equal(await page.evaluate(() => window.attentionWalkthrough.store.state.weights), 'edited');
    const first = await page.evaluateHandle(() => window.attentionWalkthrough.store.sources.edits);
    await cell('W_K', 1, 1).fill('0.5');
    await page.waitForFunction((old) => window.attentionWalkthrough.store.sources.edits !== old, first);
    const seen = await page.evaluate((old) => {
      const store = window.attentionWalkthrough.store,
        now = store.sources.edits;
      return {
        oldK: old.Wk[1][1],
        oldFrozen: Object.isFrozen(old) && Object.isFrozen(old.Wk) && Object.isFrozen(old.Wk[1]),
        nowQ: now.Wq[0][1],
        nowK: now.Wk[1][1],
        sharedV: now.Wv === old.Wv,
        drawnFrom: store.result.edits === now,
      };
    }, first);
    assert.deepEqual(seen, { oldK: '1', oldFrozen: true, nowQ: '2', nowK: '0.5', sharedV: true, drawnFrom: true });

    // The by-hand sheet: typing keeps the reader's cell (the cells are not rebuilt under it) and its
    // numbers are the store's.
    const x = page.locator('#by-hand table[data-name="X"] input[data-row="0"][data-col="0"]');
    await x.evaluate((el) => (el.dataset.mark = 'typed in'));
    await x.fill('3');
    await page.waitForFunction(() => window.attentionWalkthrough.store.handResult?.values.X[0][0] === '3');
    assert.equal(await x.getAttribute('data-mark'), 'typed in', 'the same cell, not a rebuilt one');
    assert.equal(await page.evaluate(() => document.activeElement.getAttribute('aria-label')), 'X row 1, column 1');

    // Numbers sent to the store from elsewhere redraw the cells and the results from them.
    await page.evaluate(() => {
      const store = window.attentionWalkthrough.store,
        hand = store.sources.hand;
      store.setHand({ ...hand, Wv: hand.Wv.map((row, r) => row.map((v, c) => (r === 2 && c === 5 ? '4' : v))) });
    });
    const wv = page.locator('#by-hand table[data-name="W_V"] input[data-row="2"][data-col="5"]');
    await page.waitForFunction(
      () => document.querySelector('#by-hand table[data-name="W_V"] input[data-row="2"][data-col="5"]').value === '4',
    );
    assert.equal(await x.inputValue(), '3', 'the rebuilt cells hold the store’s numbers');
    const numbers = (rows) => rows.map((row) => row.map(Number));
    const hand = await page.evaluate(() => window.attentionWalkthrough.store.sources.hand);
    const want = core.attentionByColumns(numbers(hand.X), { Wq: numbers(hand.Wq), Wk: numbers(hand.Wk), Wv: numbers(hand.Wv) }, {});
    assert.equal(hand.Wv[2][5], '4');
    assertTable(await readTable(page, 'exact-output', '#by-hand'), want.output, 'Z exact, from the store’s numbers');

    // "Back to the example numbers" is one more replacement through the store.
    await page.click('#hand-reset');
    await page.waitForFunction(
      () => document.querySelector('#by-hand table[data-name="X"] input[data-row="0"][data-col="0"]').value === '1',
    );
    assert.equal(await wv.inputValue(), '1');
    assert.equal(await page.evaluate(() => window.attentionWalkthrough.store.handResult.ok), true);
    assert.deepEqual(problems, []);
  } finally {
    await page.close();
  }
});

test('phone width: the explainer fits (no page-wide horizontal scroll) and the RNN note is there', async () => {
  const { page, problems } = await open('', 390);
  try {
    for (const width of [390, 320]) {
      await page.setViewportSize({ width, height: 900 });
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
      assert.ok(overflow <= 1, `${width}px: page scrolls sideways by ${overflow}px`);
    }
    assert.match(await page.textContent('#rnn'), /C\(i\)/);
    assert.ok((await page.locator('#rnn math').count()) >= 4);
    assert.deepEqual(problems, []);
  } finally {
    await page.close();
  }
});

/** The query and key vectors table (step "vectors", on screen): where its cells are, against its scroll box and the viewport. */
const neuronLayout = async (page) => {
  await onScreen(page, 'vectors');
  return page.evaluate(() => {
    const table = document.querySelector('#vectors table[data-name="neuron"]');
    const wrap = table.parentElement;
    const box = (el) => {
      const r = el.getBoundingClientRect();
      return { left: r.left, right: r.right, top: r.top, width: r.width, height: r.height, visible: el.checkVisibility() };
    };
    const rows = [...table.querySelectorAll('tbody tr')].map((tr) =>
      [...tr.children].map((c) => ({ ...box(c), text: c.textContent, value: c.dataset.value })),
    );
    return {
      viewport: document.documentElement.clientWidth,
      display: getComputedStyle(table).display,
      wrap: { ...box(wrap), clientWidth: wrap.clientWidth, scrollWidth: wrap.scrollWidth },
      tableScrollWidth: table.scrollWidth,
      head: [...table.querySelectorAll('thead th')].map((th) => ({ ...box(th), text: th.textContent })),
      rows,
      sparks: [...table.querySelectorAll('svg.vbars')].map(box),
    };
  });
};

for (const width of [390, 320]) {
  test(`phone width ${width}px: the query/key table fits its box, score and weight on screen, still a table to assistive tech`, async () => {
    const { page, problems } = await open('', width);
    try {
      const t = await neuronLayout(page);
      assert.ok(t.tableScrollWidth <= t.wrap.clientWidth + 1, `table ${t.tableScrollWidth}px wide in a ${t.wrap.clientWidth}px box`);
      assert.ok(t.wrap.scrollWidth <= t.wrap.clientWidth + 1, `the box scrolls sideways by ${t.wrap.scrollWidth - t.wrap.clientWidth}px`);
      assert.equal(t.rows.length, 7);
      const inside = (c, where) => {
        assert.ok(c.visible && c.width > 0 && c.height > 0, `${where}: not shown`);
        assert.ok(
          c.left >= t.wrap.left - 1 && c.right <= t.wrap.right + 1 && c.right <= t.viewport,
          `${where}: ${c.left}–${c.right}px, box ${t.wrap.left}–${t.wrap.right}px`,
        );
      };
      t.head.forEach((c) => inside(c, `header “${c.text}”`));
      assert.equal(t.head.length, 6);
      t.rows.forEach((cells, j) => {
        assert.equal(cells.length, 6, `row ${j}: cells`);
        cells.forEach((c, k) => inside(c, `row ${j} cell ${k}`));
        // Score, scaled and weight: numbers shown in full.
        for (const c of cells.slice(3)) assert.match(c.text, /^−?\d+(\.\d+)?$/, `row ${j}: “${c.text}”`);
      });
      assert.equal(t.sparks.length, 14);
      t.sparks.forEach((s, k) => inside(s, `sparkline ${k}`));
      // Whatever the layout, the browser still exposes a table: column and row headers and cells.
      const cdp = await page.context().newCDPSession(page);
      const { nodes } = await cdp.send('Accessibility.getFullAXTree');
      const byId = new Map(nodes.map((n) => [n.nodeId, n]));
      const table = nodes.find((n) => n.role?.value === 'table' && /Keys for the query/.test(n.name?.value ?? ''));
      assert.ok(table, 'an accessible table named by its caption');
      const roles = {};
      const count = (n) => {
        if (!n.ignored) roles[n.role?.value] = (roles[n.role?.value] ?? 0) + 1;
        for (const c of n.childIds ?? []) if (byId.has(c)) count(byId.get(c));
      };
      count(table);
      assert.ok(
        roles.row === 8 && roles.columnheader === 6 && roles.rowheader === 7 && roles.cell === 35,
        `roles in the table: ${JSON.stringify(roles)}`,
      );
      assert.deepEqual(problems, []);
    } finally {
      await page.close();
    }
  });
}

test('desktop width: the query/key table keeps one line per key', async () => {
  const { page, problems } = await open('', 1280);
  try {
    const t = await neuronLayout(page);
    assert.equal(t.display, 'table');
    assert.ok(t.wrap.scrollWidth <= t.wrap.clientWidth + 1);
    t.rows.forEach((cells, j) => {
      const mid = (c) => c.top + c.height / 2;
      cells.forEach((c, k) => assert.ok(Math.abs(mid(c) - mid(cells[0])) <= 1, `row ${j} cell ${k} off its row`));
      for (let k = 1; k < cells.length; k++)
        assert.ok(cells[k].left >= cells[k - 1].right - 1, `row ${j}: cell ${k} left of cell ${k - 1}`);
    });
    // Header cells over their columns.
    t.head.forEach((c, k) =>
      assert.ok(
        Math.abs(c.left - t.rows[0][k].left) <= 1 && Math.abs(c.right - t.rows[0][k].right) <= 1,
        `header ${k} (“${c.text}”) not over its column`,
      ),
    );
    assert.deepEqual(problems, []);
  } finally {
    await page.close();
  }
});

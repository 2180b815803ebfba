// Browser tests of long inputs and of moving around the canvas views: a 300-token sentence is drawn
// through a labelled window (heatmap, lines, steps, heads) with an overview of the whole matrix; the
// overview, the grid's arrow keys and the buttons move the window, and what is then drawn (weights,
// labels, pixel colours) is still the wasm core's; the table alternative is built only when opened;
// a burst of typing on a long input costs one recompute per frame; canvases follow the theme.
// Build first: bash scripts/build.sh. Run: node --test tests/web/
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { assertColours, assertLabels, assertWeights, drawn, figureState, openWatched, readHeatmaps, startSession } from './harness.mjs';
import { HEAD_SHARPNESS, multiHeadWeights } from '../../web/lib/rng.js';

const WORDS = 'the train left the station on time and he cashed a check at the bank of the river'.split(' ');
const LONG = Array.from({ length: 300 }, (_, i) => WORDS[i % WORDS.length]).join(' ');
let session, browser, url, core, vectors;

before(async () => {
  session = await startSession();
  ({ browser, url, core, vectors } = session);
});

after(() => session?.stop());

function reference(text, options = {}) {
  const { tokens, X } = vectors.embed(text, 1024);
  return { tokens, X, steps: core.parameterFree(X, Math.sqrt(vectors.dim), { temperature: 1, ...options }) };
}

/** The page opened on the long sentence (and `query`: more URL parameters), its view drawn. */
async function openLong(query = '', viewport = { width: 1280, height: 900 }) {
  const opened = await openWatched(browser, `${url}?sentence=${encodeURIComponent(LONG)}${query}`, { viewport });
  await drawn(opened.page, { sentence: LONG });
  return opened;
}

/**
 * Runs `input` (a key, a click), then waits until every canvas matching `selector` drew again: each
 * draw hands its canvas a new attentionWeights (or attentionLines) object, so the old one is marked first.
 */
async function redrawn(page, selector, input) {
  await page.evaluate(
    (sel) => document.querySelectorAll(sel).forEach((c) => ((c.attentionWeights ?? c.attentionLines).__old = true)),
    selector,
  );
  await input();
  await page.waitForFunction(
    (sel) => [...document.querySelectorAll(sel)].every((c) => !(c.attentionWeights ?? c.attentionLines).__old),
    selector,
    { timeout: 20_000 },
  );
}
const MAP = '#heatmap > .heatmap:not(.compact) canvas.cells';

/** The main heatmap, checked against the reference: weights, labels, colours. */
async function checkedMap(page, ref, where) {
  const { map, message } = await figureState(page, null);
  assert.equal(message, '', `${where}: no message`);
  assertWeights(map, ref.steps.weights, where);
  assertLabels(map, ref.tokens, where);
  assertColours(map, where);
  return map;
}

test('a 300-token sentence: the heatmap shows a labelled 48-row window around the chosen word, with an overview', async () => {
  const { page, problems } = await openLong('&word=150');
  try {
    const ref = reference(LONG);
    const map = await checkedMap(page, ref, 'window');
    assert.equal(map.T, 300);
    assert.equal(map.rows, 48);
    assert.ok(map.cols >= 8 && map.cols <= 48, `${map.cols} columns`);
    assert.ok(map.rowStart <= 150 && 150 < map.rowStart + map.rows, `word 151 in rows ${map.rowStart}…`);
    assert.ok(map.colStart <= 150 && 150 < map.colStart + map.cols, `word 151 in columns ${map.colStart}…`);
    const nav = await page.evaluate(() => ({
      visible: document.querySelector('#heatmap .hm-overview').checkVisibility(),
      text: document.querySelector('#heatmap .hm-window-text').textContent,
      label: document.querySelector('#heatmap .hm-overview').getAttribute('aria-label'),
    }));
    assert.equal(nav.visible, true, 'the overview is shown');
    const where = `rows ${map.rowStart + 1}–${map.rowStart + map.rows} and columns ${map.colStart + 1}–${map.colStart + map.cols}`;
    assert.equal(nav.text, `Showing ${where} of 300 × 300.`);
    assert.match(nav.label, new RegExp(`Overview of all 300 × 300 weights; the frame is the window shown, ${where}\\.`));
    // The chosen word's label is marked.
    assert.match(map.rowLabels.find((l) => l.index === 150).cls, /\bselected\b/);
    assert.deepEqual(problems, []);
  } finally {
    await page.close();
  }
});

test('the overview moves the window: keys, a click and a drag; labels and cells follow', async () => {
  const { page, problems } = await openLong('&word=10');
  try {
    const ref = reference(LONG);
    const first = await checkedMap(page, ref, 'start');
    assert.equal(first.rowStart, 0);
    await page.focus('#heatmap .hm-overview');
    await redrawn(page, MAP, () => page.keyboard.press('PageDown'));
    let map = await checkedMap(page, ref, 'Page Down');
    assert.equal(map.rowStart, 48, 'Page Down moves a window of rows');
    assert.notDeepEqual(
      map.rowLabels.map((l) => l.index),
      first.rowLabels.map((l) => l.index),
    );
    await redrawn(page, MAP, () => page.keyboard.press('ArrowRight'));
    map = await checkedMap(page, ref, 'Arrow Right');
    assert.equal(map.colStart, first.colStart + Math.max(1, Math.floor(map.cols / 4)));
    await redrawn(page, MAP, () => page.keyboard.press('End'));
    map = await checkedMap(page, ref, 'End');
    assert.deepEqual([map.rowStart, map.colStart], [300 - map.rows, 300 - map.cols]);
    // A click centres the window on the point clicked.
    const box = await page.locator('#heatmap .hm-overview').boundingBox();
    await redrawn(page, MAP, () => page.mouse.click(box.x + box.width / 2, box.y + box.height / 2));
    map = await checkedMap(page, ref, 'click');
    assert.ok(Math.abs(map.rowStart + map.rows / 2 - 150) <= 2, `rows centred on 150: ${map.rowStart}`);
    assert.ok(Math.abs(map.colStart + map.cols / 2 - 150) <= 2, `columns centred on 150: ${map.colStart}`);
    // A drag carries it along.
    await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
    await page.mouse.down();
    await redrawn(page, MAP, () => page.mouse.move(box.x + box.width * 0.2, box.y + box.height * 0.25, { steps: 4 }));
    await page.mouse.up();
    await drawn(page);
    map = await checkedMap(page, ref, 'drag');
    assert.ok(Math.abs(map.rowStart + map.rows / 2 - 75) <= 2, `rows follow the drag: ${map.rowStart}`);
    assert.ok(Math.abs(map.colStart + map.cols / 2 - 60) <= 2, `columns follow the drag: ${map.colStart}`);
    assert.deepEqual(problems, []);
  } finally {
    await page.close();
  }
});

test('arrow keys in the grid scroll the window past its edge; the active cell stays in view and is announced', async () => {
  const { page, problems } = await openLong('&word=0');
  try {
    const ref = reference(LONG);
    const T = 300;
    const active = () =>
      page.evaluate(() => {
        const grid = document.activeElement;
        const cell = document.getElementById(grid.getAttribute('aria-activedescendant'));
        return {
          row: Number(cell.parentElement.getAttribute('aria-rowindex')) - 2,
          col: Number(cell.getAttribute('aria-colindex')) - 2,
          text: cell.textContent,
        };
      });
    await page.focus('#heatmap .hm-grid');
    let map = await checkedMap(page, ref, 'start');
    const rows = map.rows;
    await redrawn(page, MAP, async () => {
      for (let k = 0; k < rows + 5; k++) await page.keyboard.press('ArrowDown');
    });
    await drawn(page, { word: rows + 5 });
    let cell = await active();
    assert.equal(cell.row, rows + 5);
    map = await checkedMap(page, ref, 'scrolled down');
    assert.equal(map.rowStart, 6, 'the window scrolled just enough');
    const w = ref.steps.weights.data[cell.row * T + cell.col];
    assert.equal(cell.text, `${ref.tokens[cell.row].text} → ${ref.tokens[cell.col].text}: ${w.toFixed(4)}`);
    assert.match(await page.textContent('#readout'), new RegExp(`: ${w.toFixed(4)}`));
    await redrawn(page, MAP, () => page.keyboard.press('Control+End'));
    await drawn(page, { word: T - 1 });
    cell = await active();
    assert.deepEqual([cell.row, cell.col], [T - 1, T - 1]);
    map = await checkedMap(page, ref, 'last cell');
    assert.deepEqual([map.rowStart + map.rows, map.colStart + map.cols], [T, T]);
    await page.keyboard.press('PageUp');
    await drawn(page, { word: T - 1 - rows });
    assert.equal((await active()).row, T - 1 - rows);
    assert.deepEqual(problems, []);
  } finally {
    await page.close();
  }
});

test('lines, steps and heads views window a long input around the chosen word, and scroll', async () => {
  const { page, problems } = await openLong('&view=lines&word=200');
  try {
    const ref = reference(LONG);
    const T = 300;
    const lines = () =>
      page.evaluate(() => {
        const l = document.querySelector('canvas.links').attentionLines;
        return {
          ...l,
          data: Array.from(l.data),
          words: [...document.querySelectorAll('svg.lines .word.query')].map((w) => [Number(w.dataset.index), w.textContent]),
        };
      });
    const checkLines = (l, where) => {
      assert.equal(l.T, T);
      assert.equal(l.rows, 48, where);
      l.words.forEach(([index, text], k) => {
        assert.equal(index, l.start + k, where);
        assert.equal(text, ref.tokens[index].text, where);
      });
      for (let r = 0; r < l.rows; r++)
        for (let c = 0; c < l.rows; c++) {
          assert.ok(
            Math.abs(l.data[r * l.rows + c] - ref.steps.weights.data[(l.start + r) * T + l.start + c]) < 1e-6,
            `${where} (${r}, ${c})`,
          );
        }
    };
    let l = await lines();
    checkLines(l, 'lines');
    assert.ok(l.start <= 200 && 200 < l.start + 48, `word 201 in the window from ${l.start}`);
    assert.deepEqual(l.isolated, { side: 'query', index: 200 });
    assert.match(await page.textContent('#heatmap .pager'), new RegExp(`Showing words ${l.start + 1}–${l.start + 48} of 300\\.`));
    await redrawn(page, '#heatmap canvas.links', () => page.click('#heatmap .pager .later'));
    const later = await lines();
    checkLines(later, 'later words');
    assert.equal(later.start, Math.min(l.start + 48, T - 48));
    // Arrow keys on a word scroll past the window's edge too.
    await page.focus('svg.lines .word.query');
    await redrawn(page, '#heatmap canvas.links', () => page.keyboard.press('ArrowUp'));
    await drawn(page, { word: later.start - 1 });
    l = await lines();
    assert.equal(l.start, later.start - 1);
    assert.deepEqual(l.isolated, { side: 'query', index: later.start - 1 });

    // Steps: the keys around the chosen word, with the core's numbers.
    await page.selectOption('#view', 'steps');
    await drawn(page, { view: 'steps' });
    const steps = await page.evaluate(() =>
      [...document.querySelectorAll('.steps-row')].map((r) => [Number(r.dataset.key), Number(r.querySelector('.weight').dataset.value)]),
    );
    const query = Number(await page.inputValue('#word'));
    assert.equal(steps.length, 48);
    assert.ok(
      steps.some(([j]) => j === query),
      "the query's own key is in the window",
    );
    for (const [j, w] of steps) assert.ok(Math.abs(w - ref.steps.weights.data[query * T + j]) < 1e-6, `steps key ${j}`);
    await page.click('#heatmap .pager .earlier');
    // The steps' rows are SVG (no canvas): wait for the first row to be the window's new first key.
    const want = Math.max(0, steps[0][0] - 48);
    await page.waitForFunction((want) => Number(document.querySelector('.steps-row').dataset.key) === want, want, { timeout: 20_000 });
    const earlier = await page.evaluate(() => Number(document.querySelector('.steps-row').dataset.key));
    assert.equal(earlier, want);

    // Heads: every head shows the same window; moving one (its grid's keys) moves them all.
    await page.selectOption('#view', 'heads');
    await drawn(page, { view: 'heads' });
    const mh = multiHeadWeights(vectors.dim, 4, 1, HEAD_SHARPNESS);
    const heads = core.multiHead(ref.X, { heads: mh.heads, Wo: mh.Wo }, { temperature: 1 }).heads;
    const readHeads = () => page.evaluate(readHeatmaps, { selector: '#heatmap > .heatmap.compact' });
    let maps = await readHeads();
    assert.equal(maps.length, 4);
    maps.forEach((m, k) => {
      assert.equal(m.rows, 64);
      assertWeights(m, heads[k].weights, `head ${k + 1}`);
      assertColours(m, `head ${k + 1}`);
    });
    await page.focus('#heatmap .heatmap[data-head="2"] .hm-grid');
    await redrawn(page, '#heatmap > .heatmap.compact canvas.cells', async () => {
      await page.keyboard.press('PageDown');
      await page.keyboard.press('PageDown');
    });
    await drawn(page);
    maps = await readHeads();
    assert.ok(maps[2].rowStart > maps[2].rows / 2, `head 3 scrolled: ${maps[2].rowStart}`);
    maps.forEach((m, k) => {
      assert.deepEqual([m.rowStart, m.colStart], [maps[2].rowStart, maps[2].colStart], `head ${k + 1} follows`);
      assertWeights(m, heads[k].weights, `scrolled head ${k + 1}`);
    });
    assert.deepEqual(problems, []);
  } finally {
    await page.close();
  }
});

test("the table alternative is built only when opened, holds the window's weights and follows it", async () => {
  const { page, problems } = await openLong('&word=40');
  try {
    const ref = reference(LONG);
    const T = 300;
    const table = () =>
      page.evaluate(() => {
        const t = document.querySelector('#heatmap details.hm-table table');
        return (
          t && {
            caption: t.caption.textContent,
            rows: [...t.querySelectorAll('tbody th')].map((th) => th.textContent),
            cells: [...t.querySelectorAll('td[data-row]')].map((td) => [
              Number(td.dataset.row),
              Number(td.dataset.col),
              Number(td.dataset.value),
              td.textContent,
            ]),
          }
        );
      });
    assert.equal(await table(), null, 'no table until it is asked for');
    await page.click('#heatmap details.hm-table summary');
    // (The disclosure's toggle event, which builds the table, comes after the click.)
    await page.waitForSelector('#heatmap details.hm-table table');
    const map = (await figureState(page, null)).map;
    let t = await table();
    assert.equal(t.cells.length, map.rows * map.cols);
    assert.deepEqual(
      t.rows,
      ref.tokens.slice(map.rowStart, map.rowStart + map.rows).map((x) => x.text),
    );
    assert.match(
      t.caption,
      new RegExp(`rows ${map.rowStart + 1}–${map.rowStart + map.rows} and columns ${map.colStart + 1}–${map.colStart + map.cols} of 300`),
    );
    for (const [r, c, v, text] of t.cells) {
      const want = ref.steps.weights.data[r * T + c];
      assert.ok(Math.abs(v - want) < 1e-6, `table (${r}, ${c})`);
      assert.equal(text, want.toFixed(4));
    }
    // The window moves: the open table follows it.
    await page.focus('#heatmap .hm-overview');
    await redrawn(page, MAP, () => page.keyboard.press('PageDown'));
    await page.waitForFunction(
      () =>
        Number(document.querySelector('#heatmap details.hm-table td[data-row]')?.dataset.row) ===
        document.querySelector('#heatmap > .heatmap:not(.compact) canvas.cells').attentionWeights.rowStart,
    );
    t = await table();
    const moved = (await figureState(page, null)).map;
    assert.equal(t.cells[0][0], moved.rowStart);
    // Closed again: the table is dropped.
    await page.click('#heatmap details.hm-table summary');
    await page.waitForFunction(() => !document.querySelector('#heatmap details.hm-table').open);
    await page.waitForFunction(() => !document.querySelector('#heatmap details.hm-table table'));
    assert.deepEqual(problems, []);
  } finally {
    await page.close();
  }
});

test('typing on a long input stays responsive: a burst of keys costs one recompute, at the next frame', async () => {
  const { page, problems } = await openLong();
  try {
    const calls = await page.evaluate(async () => {
      const M = window.__attnModule;
      let n = 0;
      // The figure's one call into the core per change (core.selfAttention: embed and attend), counted
      // when it drew all 300+ tokens (the explainer below follows the first 128 on its own).
      const proto = M.Sentence.prototype,
        f = proto.embedAndAttend;
      proto.embedAndAttend = function (...args) {
        const out = f.apply(this, args);
        if ((out.tokens?.length ?? 0) > 128) n++;
        return out;
      };
      const input = document.getElementById('sentence');
      for (let k = 0; k < 20; k++) {
        input.value += k % 2 ? 'a' : ' ';
        input.dispatchEvent(new Event('input', { bubbles: true }));
      }
      const during = n;
      await new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0)));
      proto.embedAndAttend = f;
      return { during, after: n };
    });
    assert.deepEqual(calls, { during: 0, after: 1 });
    // And what it then draws is the final text.
    const text = await page.inputValue('#sentence');
    await drawn(page, { sentence: text });
    await checkedMap(page, reference(text), 'after the burst');
    assert.deepEqual(problems, []);
  } finally {
    await page.close();
  }
});

test('canvases follow the theme: the gaps between cells take the figure background, light and dark', async () => {
  for (const theme of ['light', 'dark']) {
    const { page, problems } = await openWatched(browser, `${url}?theme=${theme}`);
    try {
      await drawn(page);
      const { gap, bg } = await page.evaluate(() => {
        const canvas = document.querySelector('#heatmap canvas.cells'),
          w = canvas.attentionWeights;
        const x = Math.round(w.cell * w.ratio) - 1,
          y = Math.round(0.5 * w.cell * w.ratio);
        return {
          gap: [...canvas.getContext('2d').getImageData(x, y, 1, 1).data.slice(0, 3)],
          bg: getComputedStyle(canvas.closest('.af')).backgroundColor,
        };
      });
      assert.equal(`rgb(${gap.join(', ')})`, bg, `${theme}: the gap between two cells`);
      assert.equal(bg, theme === 'dark' ? 'rgb(23, 25, 30)' : 'rgb(255, 255, 255)');
      // Switching the theme repaints.
      const other = theme === 'dark' ? 'light' : 'dark';
      await redrawn(page, MAP, () => page.evaluate((t) => window.attentionFigure.setTheme(t), other));
      const after = await page.evaluate(() => {
        const canvas = document.querySelector('#heatmap canvas.cells'),
          w = canvas.attentionWeights;
        return [
          ...canvas
            .getContext('2d')
            .getImageData(Math.round(w.cell * w.ratio) - 1, Math.round(0.5 * w.cell * w.ratio), 1, 1)
            .data.slice(0, 3),
        ];
      });
      assert.deepEqual(after, other === 'dark' ? [23, 25, 30] : [255, 255, 255]);
      assert.deepEqual(problems, []);
    } finally {
      await page.close();
    }
  }
});

test('the walkthrough follows the figure’s own numbers for a long sentence (one computation) and windows its per-key tables', async () => {
  const { page, problems } = await openLong('&word=100');
  try {
    await page.waitForSelector('html.explainer-ready', { timeout: 20_000 });
    const T = core.tokenize(LONG).length;
    // The same 300 words as the figure, not a shorter copy: the query picker is a menu, on word 101.
    assert.equal(await page.inputValue('#walkthrough .picker-menu'), '100');
    assert.equal(await page.locator('#walkthrough .picker-menu option').count(), T);
    assert.equal(await page.locator('#walkthrough .x-note').isHidden(), true);
    const ref = reference(LONG);
    await page.evaluate(() => document.getElementById('step-softmax').scrollIntoView());
    await page.waitForFunction(
      () => document.getElementById('step-softmax').dataset.drawn === document.getElementById('explainer').dataset.generation,
    );
    const cells = await page.$$eval('table[data-name="softmax"] tr[data-stage="weight α"] td', (tds) =>
      tds.map((t) => [Number(t.dataset.key), Number(t.dataset.value)]),
    );
    assert.equal(cells.length, 16, 'a window of 16 keys');
    assert.ok(
      cells.some(([j]) => j === 100),
      'around the query',
    );
    for (const [j, v] of cells) assert.ok(Math.abs(v - ref.steps.weights.data[100 * T + j]) < 1e-6, `α(101, ${j + 1})`);
    assert.match(await page.textContent('#step-softmax'), new RegExp(`Keys \\d+–\\d+ of ${T} are shown`));
    // Picking another word in the walkthrough's menu selects it in the figure too (one state).
    await page.selectOption('#walkthrough .picker-menu', '150');
    await drawn(page, { word: 150 });
    await page.waitForFunction(() => document.getElementById('word').value === '150');
    assert.match(page.url(), /word=150/);
    assert.deepEqual(problems, []);
  } finally {
    await page.close();
  }
});

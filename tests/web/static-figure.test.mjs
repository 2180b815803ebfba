// The static first figure (scripts/static-figure.mjs, written by scripts/build-site.mjs into index.html's
// #figure and the examples' widgets): with JavaScript disabled its heatmap, caption and table show, light
// and dark, at 1280×800 and 390×844 (screenshots in build/static-figure/); it holds the same numbers as
// the live figure that replaces it; and the element's box is the same size before and after, with no
// layout shift counted (PerformanceObserver 'layout-shift'). Build first: bash scripts/build.sh.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { drawn, launch, root, site } from './harness.mjs';
import { startServer } from '../../scripts/serve.mjs';

const shots = join(root, 'build', 'static-figure');
const SIZES = [
  [1280, 800],
  [390, 844],
];
const PAGES = [
  { name: 'page', path: '', host: '#figure', drawnScope: null },
  { name: 'example', path: 'examples/index.html', host: '#fig-heatmap', drawnScope: '#fig-heatmap' },
  { name: 'example-dark', path: 'examples/dark.html', host: '#fig-heatmap', drawnScope: '#fig-heatmap' },
];
let server, url, browser;

before(async () => {
  ({ server, url } = await startServer(site, 0));
  browser = await launch();
  await mkdir(shots, { recursive: true });
});
after(async () => {
  await browser?.close();
  await new Promise((done) => server?.close(done));
});

/** The static figure's parts as the reader sees them: visibility, box, the table's numbers. */
const readStatic = (host) => {
  const box = document.querySelector(host);
  const fig = box.querySelector('.attention-static');
  const shown = (el) => {
    if (!el) return false;
    const r = el.getBoundingClientRect();
    return r.width > 0 && r.height > 0 && getComputedStyle(el).visibility === 'visible';
  };
  const table = fig?.querySelector('table');
  return {
    svg: shown(fig?.querySelector('svg')),
    title: fig?.querySelector('svg > title')?.textContent ?? null,
    cells: fig?.querySelectorAll('svg rect').length ?? 0,
    caption: shown(fig?.querySelector('figcaption')) ? fig.querySelector('figcaption').textContent : null,
    table: shown(table),
    header: table ? [...table.querySelectorAll('thead th')].slice(1).map((th) => th.textContent) : [],
    rows: table
      ? [...table.querySelectorAll('tbody tr')].map((tr) => [...tr.querySelectorAll('td')].map((td) => Number(td.textContent)))
      : [],
    state: fig?.dataset.state ?? null,
    height: box.getBoundingClientRect().height,
    width: box.getBoundingClientRect().width,
  };
};

/** Holds the word vectors' first chunk back until the returned release() is called. */
async function holdVectors(page) {
  let release;
  const held = new Promise((r) => (release = r));
  await page.route('**/vectors-first.bin', async (route) => {
    await held;
    await route.continue();
  });
  return release;
}

for (const { name, path, host, drawnScope } of PAGES) {
  test(`${name}: with JavaScript disabled the static figure, its caption and its table show (light and dark, two sizes)`, async () => {
    for (const [width, height] of SIZES) {
      for (const colorScheme of ['light', 'dark']) {
        const context = await browser.newContext({ javaScriptEnabled: false, viewport: { width, height }, colorScheme });
        try {
          const page = await context.newPage();
          await page.goto(url + path);
          const s = await page.evaluate(readStatic, host);
          assert.ok(s.svg && s.table && s.caption, `${name} ${width}×${height} ${colorScheme}: ${JSON.stringify(s).slice(0, 300)}`);
          assert.equal(s.title, 'Self-attention weights: “the train left the station on time”');
          assert.deepEqual(s.header, ['the', 'train', 'left', 'the', 'station', 'on', 'time']);
          assert.equal(s.rows.length, 7);
          for (const row of s.rows) assert.ok(Math.abs(row.reduce((a, b) => a + b, 0) - 1) < 5e-4, `a row sums to 1: ${row}`);
          assert.equal(s.cells, 49);
          await page.locator(host).scrollIntoViewIfNeeded();
          await page.screenshot({ path: join(shots, `${name}-nojs-${width}x${height}-${colorScheme}.png`) });
        } finally {
          await context.close();
        }
      }
    }
  });

  test(`${name}: the live figure holds the static one's numbers and takes its box without a layout shift`, async () => {
    for (const [width, height] of SIZES) {
      const still = await browser.newContext({ javaScriptEnabled: false, viewport: { width, height } });
      const stillPage = await still.newPage();
      await stillPage.goto(url + path);
      const staticView = await stillPage.evaluate(readStatic, host);
      await still.close();

      const context = await browser.newContext({ viewport: { width, height } });
      try {
        const page = await context.newPage();
        await page.addInitScript(() => {
          window.layoutShifts = [];
          new PerformanceObserver((list) => {
            for (const e of list.getEntries())
              if (!e.hadRecentInput) window.layoutShifts.push({ value: e.value, nodes: e.sources.map((s) => s.node) });
          }).observe({ type: 'layout-shift', buffered: true });
        });
        await page.goto(url + path);
        await drawn(page, { scope: drawnScope, sentence: 'the train left the station on time', view: 'heatmap' });
        const live = await page.evaluate((host) => {
          const box = document.querySelector(host);
          const scope = box.shadowRoot ?? box;
          const w = scope.querySelector('#heatmap canvas.cells').attentionWeights;
          const r = box.getBoundingClientRect();
          // Which shifts moved the box itself or anything outside it (none may), apart from the total.
          const outside = window.layoutShifts.filter((s) => s.nodes.some((n) => !n || n === box || !box.contains(n))).length;
          return {
            height: r.height,
            width: r.width,
            T: w.T,
            data: Array.from(w.data),
            shifts: window.layoutShifts.map((s) => s.value),
            outside,
          };
        }, host);
        assert.equal(live.T, 7);
        const liveRows = Array.from({ length: 7 }, (_, i) => live.data.slice(i * 7, i * 7 + 7).map((x) => Number(x.toFixed(4))));
        assert.deepEqual(staticView.rows, liveRows, `${name} ${width}: the static table's weights are the live figure's, to 4 decimals`);
        assert.ok(
          Math.abs(live.height - staticView.height) < 1 && Math.abs(live.width - staticView.width) < 1,
          `${name} ${width}×${height}: the box before (${staticView.width}×${staticView.height}) and after (${live.width}×${live.height})`,
        );
        const cls = live.shifts.reduce((a, b) => a + b, 0);
        console.log(
          `${name} ${width}×${height}: box ${staticView.height.toFixed(1)} → ${live.height.toFixed(1)} px, CLS ${cls.toFixed(4)}`,
        );
        assert.equal(live.outside, 0, `${name} ${width}: nothing outside the figure moves (shifts ${live.shifts.join(', ')})`);
        // The live figure settles (controls, toolbar) hidden behind the static one: no shift at all.
        assert.equal(cls, 0, `${name} ${width}: cumulative layout shift ${cls}`);
      } finally {
        await context.close();
      }
    }
  });
}

for (const { name, path, host, drawnScope } of PAGES) {
  test(`${name}: the static figure stays in view until the live one has drawn, then gives way`, async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    try {
      const page = await context.newPage();
      // The live figure cannot draw before the word vectors' first chunk arrives: hold it back.
      const release = await holdVectors(page);
      await page.goto(url + path);
      // The module has run (the live figure exists, hidden), the static one is still what shows.
      await page.waitForFunction(
        (host) => (document.querySelector(host).shadowRoot ?? document.querySelector(host)).querySelector('.af'),
        host,
      );
      const during = await page.evaluate((host) => {
        const box = document.querySelector(host);
        const live = (box.shadowRoot ?? box).querySelector('.af');
        const still = box.querySelector('.attention-static');
        return {
          live: getComputedStyle(live).visibility,
          still: still ? still.getBoundingClientRect().height > 0 && getComputedStyle(still).visibility : null,
        };
      }, host);
      assert.deepEqual(during, { live: 'hidden', still: 'visible' });
      release();
      await drawn(page, { scope: drawnScope, sentence: 'the train left the station on time' });
      const afterDraw = await page.evaluate((host) => {
        const box = document.querySelector(host);
        const live = (box.shadowRoot ?? box).querySelector('.af');
        const still = box.querySelector('.attention-static');
        return { live: getComputedStyle(live).visibility, still: still && still.getBoundingClientRect().height > 0 ? 'shown' : 'gone' };
      }, host);
      assert.deepEqual(afterDraw, { live: 'visible', still: 'gone' });
    } finally {
      await context.close();
    }
  });
}

test('a link with a state of its own does not show the default static figure (load-early.js knows every state name)', async () => {
  const { STATE_KEYS, LEGACY, paramOf } = await import('../../web/lib/state.js');
  const early = await readFile(join(root, 'web', 'load-early.js'), 'utf8');
  const names = new RegExp(early.match(/var linked =\s*\/(.*)\/;/)[1]);
  for (const key of [...STATE_KEYS.map(paramOf), ...Object.keys(LEGACY), 'embed'])
    assert.ok(names.test(`?${key}=1`), `load-early.js reads ${key}`);
  assert.ok(!names.test('?cold=1'), 'a parameter that is no state leaves the static figure');
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  try {
    const page = await context.newPage();
    // The live figure waits for the vectors: held back, the static figure is still in the document.
    const release = await holdVectors(page);
    await page.goto(`${url}?sentence=the+cat+sat`);
    assert.equal(await page.evaluate(() => getComputedStyle(document.querySelector('.attention-static')).display), 'none');
    release();
    await drawn(page, { sentence: 'the cat sat' });
    assert.equal(await page.evaluate(() => document.querySelector('.attention-static')), null);
  } finally {
    await context.close();
  }
});

test('the command prints a static figure for any sentence and options, and names what it cannot draw', async () => {
  const run = promisify(execFile);
  const script = join(root, 'scripts', 'static-figure.mjs');
  const { stdout } = await run(process.execPath, [script, '--sentence', '<b>bank</b> & river', '--mask', 'causal', '--temperature', '0.5']);
  assert.match(
    stdout,
    /^<figure class="attention-static" data-state="sentence=%3Cb%3Ebank%3C%2Fb%3E\+%26\+river&#38;view=heatmap&#38;temperature=0.5&#38;mask=causal">/,
  );
  assert.ok(!stdout.includes('<b>'), 'user text is escaped, never markup');
  assert.match(stdout, /causal mask/);
  // Causal: nothing above the diagonal.
  const rows = [...stdout.matchAll(/<tr><th scope="row">[^<]*<\/th>((?:<td>[^<]*<\/td>)+)<\/tr>/g)].map((m) =>
    [...m[1].matchAll(/<td>([^<]*)<\/td>/g)].map((x) => Number(x[1])),
  );
  rows.forEach((row, i) => row.forEach((w, j) => j > i && assert.equal(w, 0)));
  for (const [args, message] of [
    [['--view', 'heads'], /not view="heads"/],
    [['--source', 'encoder'], /not encoder/],
    [['--colour', 'red'], /unknown option --colour/],
    [['--sentence', '   '], /Type a sentence/],
  ])
    await assert.rejects(run(process.execPath, [script, ...args]), (err) => message.test(err.stderr));
});

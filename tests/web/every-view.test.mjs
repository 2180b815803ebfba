// Every view, at two sizes (1280×800 light, 390×844 dark): Share gives a link that reopens the view
// with the same numbers, each export (SVG, PNG, JSON) downloads with its caption, the iframe snippet's
// height fits the embedded page at an article's width, and axe-core (WCAG 2.0/2.1 A and AA) finds
// nothing; the same audit at every stop of the guided tour. Every wait is for the drawn state it then
// checks (harness drawn()). Build first: bash scripts/build.sh.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { readFile } from 'node:fs/promises';
import { drawn, onScreen, openWatched, startSession } from './harness.mjs';
// The views: the registry's list, so a new view is checked here with no change to this file.
import { VIEWS, isAvailable } from '../../web/lib/views/registry.js';
import { DEFAULTS } from '../../web/lib/state.js';

const NAMES = VIEWS.map((v) => v.name);
/** What a view needs in the URL besides its name: one that cannot show word vectors (every layer) is opened on the trained encoder. */
const NEEDS = Object.fromEntries(VIEWS.map((v) => [v.name, isAvailable(v, DEFAULTS) ? {} : { source: 'encoder' }]));
const SIZES = [
  { name: '1280×800 light', viewport: { width: 1280, height: 800 }, theme: 'light' },
  { name: '390×844 dark', viewport: { width: 390, height: 844 }, theme: 'dark' },
];
const TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'];
const AXE = await readFile(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

let browser, url, session;

before(async () => {
  session = await startSession();
  ({ browser, url } = session);
});

after(() => session?.stop());

/** A page of the site in its own context (size, colour scheme, downloads), axe served from the site's origin. */
async function openPage(path, { viewport, theme }) {
  const context = await browser.newContext({ viewport, colorScheme: theme, acceptDownloads: true });
  const watched = await openWatched(context, `${url}${path}`, {
    viewport,
    before: (page) => page.route('**/__axe.min.js', (route) => route.fulfill({ contentType: 'text/javascript; charset=utf-8', body: AXE })),
  });
  return { ...watched, close: () => context.close() };
}

/**
 * Every WCAG 2.0/2.1 A and AA violation axe finds in the page, one line per node. The walkthrough draws
 * a step only while it is on screen, so each step is first scrolled into view until it shows the latest
 * redraw (harness onScreen); then back to where the page was.
 */
async function audit(page, where, { walkthrough = true } = {}) {
  const steps = walkthrough ? await page.evaluate(() => [...document.querySelectorAll('#explainer .step[id]')].map((s) => s.id)) : [];
  if (steps.length) {
    const y = await page.evaluate(() => scrollY);
    for (const id of steps) await onScreen(page, id);
    await page.evaluate((y) => scrollTo(0, y), y);
  }
  if (!(await page.evaluate(() => Boolean(window.axe)))) await page.addScriptTag({ url: `${url}__axe.min.js` });
  const violations = await page.evaluate(async (tags) => {
    const result = await window.axe.run(document, { runOnly: { type: 'tag', values: tags }, resultTypes: ['violations'] });
    return result.violations.map((v) => ({
      id: v.id,
      impact: v.impact,
      nodes: v.nodes.map((n) => `${n.target.join(' >>> ')}: ${n.failureSummary.replace(/\s+/g, ' ')}`),
    }));
  }, TAGS);
  return violations.flatMap((v) => v.nodes.slice(0, 3).map((n) => `${where}: ${v.id} (${v.impact}, ${v.nodes.length} nodes) ${n}`));
}

/**
 * In the page: the numbers the figure drew — every canvas's weights (heatmap cells, lines), the
 * printed numbers of its SVGs (steps, compare) — and the numbers of its JSON export.
 */
function drawnNumbers() {
  const plot = document.querySelector('#plot');
  const canvases = [...plot.querySelectorAll('canvas')].map((c) => {
    const w = c.attentionWeights ?? c.attentionLines;
    return w ? { T: w.T, data: Array.from(w.data) } : null;
  });
  const printed = [...plot.querySelectorAll('svg text')].map((t) => t.textContent).filter((t) => /\d/.test(t));
  const json = window.attentionFigure.exportJSON();
  return { canvases: canvases.filter(Boolean), printed, json: { tokens: json.tokens, attentions: json.attentions, rollout: json.rollout } };
}

/** A link's state parameters (what data-drawn holds): all but the page's own (theme, embed, controls). */
const stateOf = (link) => Object.fromEntries([...new URL(link).searchParams].filter(([k]) => !['theme', 'embed', 'controls'].includes(k)));

/** Waits for a state to be drawn, then for the explainer built after the figure's first paint (full page only). */
async function ready(page, expected) {
  await drawn(page, { timeout: 60_000, ...expected });
  // The compare view draws its second side's nearest words once they are computed (fetched on demand):
  // both sides' lists, five before and five after attention each, before its numbers are read.
  if (expected.view === 'compare')
    await page.waitForFunction(() => document.querySelectorAll('svg.compare-side text.neighbour').length === 20, null, { timeout: 60_000 });
  if (!new URL(page.url()).searchParams.has('embed'))
    await page.waitForFunction(() => document.documentElement.classList.contains('explainer-ready'), null, { timeout: 60_000 });
}

for (const view of NAMES) {
  for (const size of SIZES) {
    test(`${view} at ${size.name}: share, export, embed, axe`, async (t) => {
      const params = new URLSearchParams({ view, theme: size.theme, ...NEEDS[view] });
      const { page, problems, close } = await openPage(`index.html?${params}`, size);
      const opened = [];
      try {
        await ready(page, { view, ...NEEDS[view] });
        const numbers = await page.evaluate(drawnNumbers);
        assert.ok(numbers.canvases.length + numbers.printed.length > 0, `${view}: the figure drew numbers`);
        let link = null,
          snippet = null;

        await t.test('share: the link reopens the view with the same numbers', async () => {
          await page.click('.shareButton');
          await page.locator('.panel.share').waitFor({ state: 'visible' });
          link = await page.inputValue('.share-url');
          snippet = await page.inputValue('.share-snippet');
          assert.ok(link, 'a link');
          assert.equal(new URL(link).searchParams.get('view'), view);
          const other = await openPage(new URL(link).pathname.slice(1) + new URL(link).search, size);
          opened.push(other);
          await ready(other.page, stateOf(link));
          assert.deepEqual(await other.page.evaluate(drawnNumbers), numbers, `${view}: the link draws the same numbers`);
          assert.deepEqual(other.problems, []);
        });

        await t.test('export: SVG, PNG and JSON download with their caption', async () => {
          const { title, caption } = await page.evaluate(() => window.attentionFigure.exportJSON());
          assert.ok(title && caption, `${view}: the JSON has a title and a caption`);
          for (const kind of ['svg', 'png', 'json']) {
            const [download] = await Promise.all([page.waitForEvent('download'), page.click(`.${kind}Button`)]);
            assert.match(download.suggestedFilename(), new RegExp(`\\.${kind}$`), kind);
            const body = await readFile(await download.path());
            assert.ok(body.length > 0, `${view}: ${kind} is not empty`);
            if (kind === 'png') assert.deepEqual([...body.subarray(1, 4)], [0x50, 0x4e, 0x47], 'a PNG');
            if (kind === 'svg') {
              const text = body.toString('utf8');
              const escape = (s) => s.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');
              assert.ok(text.includes(escape(title)), `${view}: the SVG holds the title “${title}”`);
              assert.ok(/<desc[^>]*>[^<]+</.test(text), `${view}: the SVG holds a caption (desc)`);
            }
            if (kind === 'json') {
              const json = JSON.parse(body.toString('utf8'));
              assert.equal(json.title, title);
              assert.equal(json.caption, caption);
            }
          }
        });

        await t.test('embed: the iframe snippet is tall enough for the page at an article width', async () => {
          if (snippet === null) {
            await page.click('.shareButton');
            snippet = await page.inputValue('.share-snippet');
          }
          const src = /<iframe src="([^"]+)"/.exec(snippet)?.[1].replaceAll('&amp;', '&').replaceAll('&quot;', '"');
          const height = Number(/ height="(\d+)"/.exec(snippet)?.[1]);
          assert.ok(src && height > 0, snippet);
          assert.equal(new URL(src).searchParams.get('embed'), '1');
          const frame = await openPage(new URL(src).pathname.slice(1) + new URL(src).search, {
            viewport: { width: 700, height },
            theme: size.theme,
          });
          opened.push(frame);
          await ready(frame.page, { view, ...NEEDS[view] });
          const needs = await frame.page.evaluate(() => Math.ceil(document.documentElement.getBoundingClientRect().height));
          assert.ok(needs <= height, `${view}: the embedded page is ${needs} px tall at 700 px wide, the snippet's frame ${height} px`);
          assert.deepEqual(frame.problems, []);
        });

        await t.test('axe: nothing in WCAG 2.0/2.1 A and AA', async () => {
          assert.deepEqual(await audit(page, `${view} ${size.name}`), []);
        });
        assert.deepEqual(problems, []);
      } finally {
        for (const o of opened) await o.close();
        await close();
      }
    });
  }
}

test('axe at every stop of the guided tour, at both sizes', async () => {
  const { STOPS } = await import('../../web/lib/tour.js');
  const found = [];
  for (const size of SIZES) {
    const { page, problems, close } = await openPage(`index.html?theme=${size.theme}`, size);
    try {
      await ready(page, {});
      await page.click('#tour-start');
      for (let k = 0; k < STOPS.length; k++) {
        if (k > 0) await page.click('.tour-next');
        await page.waitForFunction((k) => document.querySelector('.tour')?.dataset.stop === String(k), k);
        const { state } = STOPS[k];
        await ready(page, { tour: k, view: state.view, source: state.source });
        found.push(...(await audit(page, `tour stop ${k + 1} (${size.name})`)));
      }
      assert.deepEqual(problems, []);
    } finally {
      await close();
    }
  }
  assert.deepEqual(found, []);
});

// axe-core over the page and the widget's example pages (light and dark), in every view, with the
// panels a reader opens (More options, Share / embed, Import) open too: no serious or critical
// violation. axe runs in the page, inside the widgets' open shadow roots too. The examples carry a
// strict Content-Security-Policy (script-src 'self'), which refuses an inline script, so axe is
// served from the site's own origin (a route) rather than injected inline: the policy stays in force.
// Build first: bash scripts/build.sh.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { readFile } from 'node:fs/promises';
import { drawn, openWatched, startSession } from './harness.mjs';

const AXE = await readFile(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
const VIEWS = ['heatmap', 'lines', 'steps', 'heads'];

let browser, url, session;

before(async () => {
  session = await startSession();
  ({ browser, url } = session);
});

after(() => session?.stop());

/** Opens `path` with axe served at /__axe.min.js (same origin, so a 'self' script policy allows it). */
async function openWithAxe(path, colorScheme) {
  const context = await browser.newContext({ viewport: { width: 1100, height: 900 }, colorScheme });
  const watched = await openWatched(context, `${url}${path}`, {
    before: (page) => page.route('**/__axe.min.js', (route) => route.fulfill({ contentType: 'text/javascript; charset=utf-8', body: AXE })),
  });
  await watched.page.addScriptTag({ url: `${url}__axe.min.js` });
  return { ...watched, close: () => context.close() };
}

/** axe's serious and critical violations, one line each: rule, impact, where, why. */
async function audit(page, where) {
  const violations = await page.evaluate(async () => {
    const result = await window.axe.run(document, { resultTypes: ['violations'] });
    return result.violations.map((v) => ({
      id: v.id,
      impact: v.impact,
      nodes: v.nodes.map((n) => `${n.target.join(' >>> ')}: ${n.failureSummary.replace(/\s+/g, ' ')}`),
    }));
  });
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .flatMap((v) => v.nodes.slice(0, 3).map((n) => `${where}: ${v.id} (${v.impact}) ${n}`));
}

/** Waits until every figure on the page (the page's, or each widget's) shows a drawn view. */
const figuresDrawn = (page) =>
  page.waitForFunction(
    () => {
      const roots = [document, ...[...document.querySelectorAll('attention-figure')].map((w) => w.shadowRoot)];
      const figures = roots.filter(Boolean).flatMap((r) => [...r.querySelectorAll('#plot')]);
      return figures.length > 0 && figures.every((p) => !p.hidden && p.querySelector('#heatmap')?.children.length > 0);
    },
    null,
    { timeout: 30_000 },
  );

for (const theme of ['light', 'dark']) {
  test(`axe: the page (${theme}), every view, with its panels open`, async () => {
    const found = [];
    for (const view of VIEWS) {
      const { page, problems, close } = await openWithAxe(`index.html?view=${view}&theme=${theme}`, theme);
      try {
        await drawn(page, { timeout: 30_000, view });
        await figuresDrawn(page);
        await page.waitForFunction(() => document.documentElement.classList.contains('explainer-ready'), null, { timeout: 30_000 });
        found.push(...(await audit(page, `page ${view}`)));
        // The panels a reader opens: every control of the figure on screen.
        await page.click('#more');
        await page.click('.shareButton');
        await page.click('.importButton');
        for (const panel of ['.panel.share', '.panel.import']) await page.locator(panel).waitFor({ state: 'visible' });
        found.push(...(await audit(page, `page ${view}, panels open`)));
        assert.deepEqual(problems, [], view);
      } finally {
        await close();
      }
    }
    assert.deepEqual(found, []);
  });
}

for (const [file, theme] of [
  ['index.html', 'light'],
  ['dark.html', 'dark'],
]) {
  test(`axe: the widget examples (${file}, ${theme}), every view`, async () => {
    const found = [];
    for (const view of VIEWS) {
      const { page, problems, close } = await openWithAxe(`examples/${file}`, theme);
      try {
        await page.evaluate((view) => document.querySelectorAll('attention-figure').forEach((w) => w.setAttribute('view', view)), view);
        for (const id of await page.evaluate(() => [...document.querySelectorAll('attention-figure')].map((w) => w.id)))
          await drawn(page, { timeout: 30_000, scope: `#${id}`, view });
        await figuresDrawn(page);
        found.push(...(await audit(page, `${file} ${view}`)));
        // The third figure has every control: open its panels.
        const w = page.locator('#fig-heads');
        await w.locator('.shareButton').click();
        await w.locator('.importButton').click();
        for (const panel of ['.panel.share', '.panel.import']) await w.locator(panel).waitFor({ state: 'visible' });
        found.push(...(await audit(page, `${file} ${view}, panels open`)));
        assert.deepEqual(await page.evaluate(() => window.__cspViolations), [], `${file} ${view}: the policy allowed axe`);
        assert.deepEqual(problems, [], view);
      } finally {
        await close();
      }
    }
    assert.deepEqual(found, []);
  });
}

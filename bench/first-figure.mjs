// The first figure against the browser's floor, in headless Debian chromium: first contentful paint of
// index.html (whose first paint is now the static figure build-site.mjs writes into it) against a plain
// HTML page holding only the same static 7×7 figure (SVG, caption, table; no script), loaded cold (a
// fresh browser context each) and interleaved, NAVIGATIONS each; and beside it the time until the page's
// figure is live (its 'attention-figure:first-draw' User Timing mark: the live figure has replaced the
// static one), and then how long a word typed takes to be drawn (the figure follows the reader's input).
// Prints JSON rows. Needs build/site (bash scripts/build.sh).
// Usage: node bench/first-figure.mjs [--smoke]
import { readFile, rm, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { launchChromium } from '../scripts/chromium.mjs';
import { startServer } from '../scripts/serve.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const site = join(root, 'build', 'site');
const smoke = process.argv.includes('--smoke');
const NAVIGATIONS = smoke ? 1 : 9;
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const n = s.length;
  return n % 2 ? s[(n - 1) / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
};

// The floor: the page's own static figure, cut out of the built index.html, alone in a plain page.
const index = await readFile(join(site, 'index.html'), 'utf8');
const figure = index.match(/<figure class="attention-static"[\s\S]*?<\/figure>/)?.[0];
if (!figure) throw new Error('build/site/index.html has no static figure: run node scripts/build-site.mjs');
const floorFile = join(site, 'first-figure-floor.html');
await writeFile(
  floorFile,
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>floor</title><link rel="icon" href="data:,"></head><body>${figure}</body></html>`,
);

const { server, url } = await startServer(site, 0);
const browser = await launchChromium();
const fcp = () => performance.getEntriesByName('first-contentful-paint')[0]?.startTime ?? null;
const times = { floor: [], page: [], live: [], typed: [] };
try {
  for (let i = 0; i < NAVIGATIONS; i++) {
    for (const kind of ['floor', 'page']) {
      const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
      const page = await context.newPage();
      await page.goto(`${url}${kind === 'floor' ? 'first-figure-floor.html' : ''}?cold=${i}`);
      await page.waitForFunction(fcp, null, { timeout: 20_000 });
      times[kind].push(await page.evaluate(fcp));
      if (kind === 'page') {
        await page.waitForFunction(() => performance.getEntriesByName('attention-figure:first-draw').length, null, { timeout: 20_000 });
        times.live.push(await page.evaluate(() => performance.getEntriesByName('attention-figure:first-draw')[0].startTime));
        // Live means typing changes it: one more word, and the figure draws the new sentence.
        times.typed.push(
          await page.evaluate(async () => {
            const input = document.getElementById('sentence');
            const t0 = performance.now();
            input.value += ' again';
            input.dispatchEvent(new Event('input', { bubbles: true }));
            const af = document.querySelector('#figure .af');
            await new Promise((done) => {
              const check = () =>
                new URLSearchParams(af.dataset.drawn).get('sentence').endsWith(' again') ? done() : setTimeout(check, 2);
              check();
            });
            return performance.now() - t0;
          }),
        );
      }
      await context.close();
    }
  }
} finally {
  await browser.close();
  server.close();
  await rm(floorFile, { force: true });
}
const row = (name, xs, note) => ({ name, median_ms: Number(median(xs).toFixed(1)), runs: xs.map((x) => Number(x.toFixed(1))), note });
const rows = [
  row('floor FCP', times.floor, 'plain HTML, the same static 7×7 figure, no script'),
  row('page FCP', times.page, 'index.html: its static first figure'),
  row('page live', times.live, 'the live figure drawn in its place (first-draw mark)'),
  row('a word typed', times.typed, 'then one more word typed: until the figure drew it'),
];
const ratio = median(times.page) / median(times.floor);
console.log(JSON.stringify({ navigations: NAVIGATIONS, rows, page_over_floor: Number(ratio.toFixed(2)) }, null, 1));

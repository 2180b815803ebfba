// The page in headless Debian chromium (flags as tests/web/page.test.mjs): time from navigation to the
// first drawn heatmap cell, and the recompute + redraw time per keystroke for sentences of T = 16, 64,
// 128 tokens. Needs build/site (bash scripts/build.sh). Usage: node bench/browser.mjs [--smoke]
import { access } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { startServer } from '../scripts/serve.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const site = join(root, 'build', 'site');
const smoke = process.argv.includes('--smoke');
const NAVIGATIONS = smoke ? 1 : 7;
const KEYSTROKES = smoke ? 3 : 25;
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const n = s.length;
  return n % 2 ? s[(n - 1) / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
};

await access(join(site, 'index.html')).catch(() => {
  throw new Error(`${site}/index.html is missing: run bash scripts/build.sh first`);
});
const { server, url } = await startServer(site, 0);
const browser = await chromium.launch({
  executablePath: '/usr/bin/chromium',
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--disable-background-networking',
    '--disable-component-update', '--no-first-run', '--disable-sync'],
});
const out = { label: 'chromium', version: browser.version(), navigations: [], keystrokes: [] };
try {
  // Navigation → the page's first figure drawn (its User Timing mark), then the frame that shows it. A fresh context each
  // time (cold HTTP cache, cold wasm compile) against the localhost server.
  for (let i = 0; i < NAVIGATIONS; i++) {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    await page.addInitScript(() => {
      // The page marks the end of its first figure draw (web/lib/figure.js); then wait for the frame.
      new PerformanceObserver((list, observer) => {
        const mark = list.getEntries().find((e) => e.name === 'attention-figure:first-draw');
        if (!mark) return;
        window.__cellAt = mark.startTime;
        requestAnimationFrame(() => setTimeout(() => (window.__paintedAt = performance.now()), 0));
        observer.disconnect();
      }).observe({ type: 'mark', buffered: true });
    });
    await page.goto(url);
    try {
      await page.waitForFunction(() => window.__paintedAt !== undefined, null, { timeout: 30_000 });
    } catch (err) {
      // Record the failure (and what the page shows) rather than lose the whole run.
      const shown = await page.evaluate(() => ({ drawn: performance.getEntriesByName('attention-figure:first-draw').length,
        text: document.body.innerText.slice(0, 200) })).catch(() => ({}));
      out.navigations.push({ error: err.message.split('\n')[0], ...shown });
      process.stderr.write(`  chromium   navigation ${i}: no heatmap painted (${err.message.split('\n')[0]}); page shows ${JSON.stringify(shown)}\n`);
      await context.close();
      continue;
    }
    const t = await page.evaluate(() => {
      const nav = performance.getEntriesByType('navigation')[0];
      // Where the time went: each resource's fetch (start → end of response), relative to navigation.
      const resources = performance.getEntriesByType('resource').map((r) => ({
        name: r.name.split('/').pop(), start_ms: r.startTime, end_ms: r.responseEnd, bytes: r.encodedBodySize }));
      return { cell_ms: window.__cellAt, painted_ms: window.__paintedAt, dom_content_loaded_ms: nav.domContentLoadedEventEnd,
        response_end_ms: nav.responseEnd, resources };
    });
    out.navigations.push(t);
    await context.close();
  }
  // Keystrokes: the sentence holds T tokens; each "keystroke" appends a letter to the last word (the
  // token count stays T) and fires the input event the page listens to. The page recomputes and redraws
  // synchronously in that handler; `sync_ms` ends after a forced style + layout, `frame_ms` after the next
  // animation frame (paint included, but also the wait for the frame).
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  await page.goto(url);
  await page.waitForFunction(() => performance.getEntriesByName('attention-figure:first-draw').length > 0, null, { timeout: 20_000 });
  const words = 'the train left the station on time and a man ran after it with his bag'.split(' ');
  for (const T of [16, 64, 128]) {
    const sentence = Array.from({ length: T }, (_, i) => words[i % words.length]).join(' ');
    const r = await page.evaluate(async ({ sentence, T, n }) => {
      const input = document.getElementById('sentence');
      const fire = (value) => {
        input.value = value;
        input.dispatchEvent(new Event('input', { bubbles: true }));
      };
      fire(sentence);
      await new Promise((done) => requestAnimationFrame(() => setTimeout(done, 0)));
      const sync = [], frame = [];
      let value = sentence;
      for (let k = 0; k < n; k++) {
        value = k % 2 ? value.slice(0, -1) : value + 's';  // "bag" ↔ "bags": still T tokens
        const t0 = performance.now();
        fire(value);
        void document.body.offsetHeight;  // style + layout now
        const t1 = performance.now();
        await new Promise((done) => requestAnimationFrame(() => setTimeout(done, 0)));
        sync.push(t1 - t0);
        frame.push(performance.now() - t0);
      }
      // The heatmap canvas records what it drew: T tokens, a window of rows × cols cells.
      const drawn = [...document.querySelectorAll('canvas')].map((c) => c.attentionWeights).find(Boolean);
      const cells = drawn && drawn.T === T ? drawn.rows * drawn.cols : 0;
      const message = document.getElementById('message');
      const shown = message && !message.hidden ? message.textContent : '';
      return { T, sync, frame, cells, message: shown };
    }, { sentence, T, n: KEYSTROKES });
    out.keystrokes.push({ T, sync_ms: median(r.sync), frame_ms: median(r.frame), cells: r.cells,
      drawn: r.cells > 0 && !r.message, message: r.message });
    process.stderr.write(`  chromium   keystroke T=${T}: ${median(r.sync).toFixed(2)} ms sync, ${median(r.frame).toFixed(2)} ms to next frame, ${r.cells} cells in the window${r.message ? ` (page says: ${r.message})` : ''}\n`);
  }
  await context.close();
  const ok = out.navigations.filter((n) => !n.error);
  const cell = median(ok.map((n) => n.cell_ms)), painted = median(ok.map((n) => n.painted_ms));
  out.first_heatmap_ms = cell;
  out.first_heatmap_painted_ms = painted;
  process.stderr.write(`  chromium   navigation → first heatmap cell ${cell.toFixed(1)} ms, painted ${painted.toFixed(1)} ms (median of ${ok.length} of ${NAVIGATIONS})\n`);
} finally {
  await browser.close();
  await new Promise((done) => server.close(done));
}
process.stdout.write(JSON.stringify(out) + '\n');

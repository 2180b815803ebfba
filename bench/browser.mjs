// The page in headless Debian chromium (flags as tests/web/page.test.mjs): time from navigation to the
// first drawn heatmap (in a fresh browser context; in a tab already open with the HTTP cache off; and on
// a revisit, the HTTP cache on), and the recompute + redraw time per keystroke for sentences of T = 16, 64,
// 128 tokens; and, on the emulated link, the bytes an own sentence with rare words (words in neither the table
// nor the composed list: the n-gram rows of issue 24) costs. Needs build/site (bash scripts/build.sh).
// Usage: node bench/browser.mjs [--smoke] [--rare-only]
import { access } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { launchChromium } from '../scripts/chromium.mjs';
import { startServer } from '../scripts/serve.mjs';
import { paramOf } from '../web/lib/state.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const site = join(root, 'build', 'site');
const smoke = process.argv.includes('--smoke');
const NAVIGATIONS = smoke ? 1 : 7;
const KEYSTROKES = smoke ? 3 : 25;
// A reader's own sentence with words outside the first chunk (zebra, grazed → graze, savanna, dusk).
const CUSTOM = 'the zebra grazed near the savanna at dusk';
// Own sentences with one to three words that neither the table nor the composed list has (issue 24 §7: a
// typical own sentence with rare words ≤ 600 KB gzip on the 10 Mbit/s link): their vectors are composed from
// fastText's n-gram rows (vectors-ngrams/), fetched only for them.
const RARE = ['the debcargo tool builds packages', 'a json parser for the gtk toolkit', 'debcargo writes json for qt and gtk'];
const rareOnly = process.argv.includes('--rare-only');
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const n = s.length;
  return n % 2 ? s[(n - 1) / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
};

await access(join(site, 'index.html')).catch(() => {
  throw new Error(`${site}/index.html is missing: run bash scripts/build.sh first`);
});
const { server, url } = await startServer(site, 0);
const browser = await launchChromium();
const out = { label: 'chromium', version: browser.version(), navigations: [], keystrokes: [] };

/**
 * Loads url in page and returns when the first figure was drawn (ms since navigation), from the
 * figure's User Timing marks: cell_ms, its first draw; frame_ms, when the frame that paints it begins;
 * plus each resource's fetch. The harness stays out of the way while the page loads: node only asks
 * for the marks after 0.5 s and then every 0.25 s (an early page.evaluate would run Playwright's
 * injected script on the page's main thread, in the middle of the load it measures).
 */
async function firstHeatmap(page, target) {
  await page.goto(target, { waitUntil: 'commit' });
  const deadline = Date.now() + 30_000;
  await new Promise((done) => setTimeout(done, 500));
  for (;;) {
    const t = await page.evaluate(() => {
      const [drawn] = performance.getEntriesByName('attention-figure:first-draw');
      const [frame] = performance.getEntriesByName('attention-figure:first-frame');
      if (!drawn || !frame) return null;
      const nav = performance.getEntriesByType('navigation')[0];
      // Where the time went: each resource's fetch (start → end of response), relative to navigation.
      const resources = performance.getEntriesByType('resource').map((r) => ({
        name: r.name.split('/').pop(),
        start_ms: r.startTime,
        end_ms: r.responseEnd,
        bytes: r.encodedBodySize,
      }));
      return {
        cell_ms: drawn.startTime,
        frame_ms: frame.startTime,
        dom_content_loaded_ms: nav.domContentLoadedEventEnd,
        response_end_ms: nav.responseEnd,
        resources,
      };
    });
    if (t) return t;
    if (Date.now() > deadline) {
      const shown = await page.evaluate(() => document.body.innerText.slice(0, 200)).catch(() => '');
      return { error: 'timed out after 30 s', text: shown };
    }
    await new Promise((done) => setTimeout(done, 250));
  }
}
try {
  // Navigation → the page's first figure drawn (its User Timing mark), then the frame that shows it.
  // Cold: a fresh context each time (new renderer process, empty HTTP cache, nothing compiled).
  // Warm browser: one tab navigated again and again with the HTTP cache switched off (so every file is
  // fetched and the core compiled again), as a reader whose browser is already running would see it.
  const cold = async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    return { context, page: await context.newPage() };
  };
  // Revisit: a reader coming back, the HTTP cache on. serve.mjs, like a static host, answers an unchanged
  // file with 304, so the files come from the cache (and the core's compiled code with them).
  const warmContext = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const warmPage = await warmContext.newPage();
  const cdp = await warmContext.newCDPSession(warmPage);
  await cdp.send('Network.enable');
  await cdp.send('Network.setCacheDisabled', { cacheDisabled: true });
  const revisitContext = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const revisitPage = await revisitContext.newPage();
  // A reader on a real connection: a fresh context with Chromium's network emulation, 10 Mbit/s down,
  // 5 up, 40 ms latency (the issue's link), so what the first figure waits for is bytes and round trips.
  const link = async () => {
    const { context, page } = await cold();
    const net = await context.newCDPSession(page);
    await net.send('Network.enable');
    await net.send('Network.emulateNetworkConditions', {
      offline: false,
      latency: 40,
      downloadThroughput: 10e6 / 8,
      uploadThroughput: 5e6 / 8,
    });
    return { context, page };
  };
  for (const kind of rareOnly ? [] : ['cold', 'link', 'warm', 'revisit']) {
    const again = kind === 'warm' || kind === 'revisit';
    for (let i = 0; i < NAVIGATIONS + (again ? 1 : 0); i++) {
      const { context, page } = again
        ? { context: null, page: kind === 'warm' ? warmPage : revisitPage }
        : kind === 'link'
          ? await link()
          : await cold();
      const t = await firstHeatmap(page, `${url}?load=${i}`);
      // The warm tab's (and the revisits') first load is a cold one; keep only the later ones.
      if (again && i === 0) continue;
      if (t.error)
        process.stderr.write(
          `  chromium   ${kind} navigation ${i}: no heatmap painted (${t.error}); page shows ${JSON.stringify(t.text)}\n`,
        );
      out.navigations.push({ kind, ...t });
      await context?.close();
    }
  }
  await warmContext.close();
  await revisitContext.close();
  // A reader on that link who pastes a sentence of their own, with words outside the first chunk, as soon
  // as the first figure is drawn: how long until it draws, and how many bytes the page had received by
  // then (CDP's encodedDataLength of every response: gzip, as scripts/serve.mjs sends it), with the
  // word-vector shards and without them (refused, so the page falls back to the whole vectors.bin),
  // alternated.
  out.custom = [];
  for (let i = 0; i < (smoke || rareOnly ? 0 : 5); i++) {
    for (const shards of [true, false]) {
      const { context, page } = await link();
      if (!shards) await page.route('**/vectors-shards/**', (route) => route.abort());
      let received = 0;
      const net = await context.newCDPSession(page);
      await net.send('Network.enable');
      net.on('Network.dataReceived', (e) => (received += e.encodedDataLength));
      const first = await firstHeatmap(page, `${url}?custom=${i}`);
      const live = await page.evaluate(async (text) => {
        const input = document.getElementById('sentence');
        const t0 = performance.now();
        input.value = text;
        input.dispatchEvent(new Event('input', { bubbles: true }));
        const T = text.split(' ').length;
        await new Promise((done) => {
          const check = () => (document.querySelector('#heatmap canvas.cells')?.attentionWeights?.T === T ? done() : setTimeout(check, 5));
          check();
        });
        const whole = performance.getEntriesByType('resource').some((r) => r.name.endsWith('/vectors.bin'));
        return { ms: performance.now() - t0, whole };
      }, CUSTOM);
      const row = { shards, first_ms: first.cell_ms, live_ms: live.ms, received_bytes: received, vectors_bin_done: live.whole };
      out.custom.push(row);
      process.stderr.write(
        `  chromium   link, own sentence ${shards ? 'with shards   ' : 'without shards'}: drawn ${live.ms.toFixed(0)} ms after pasting (first figure at ${first.cell_ms?.toFixed(0)} ms), ${(received / 1024).toFixed(0)} KiB gzip received by then${live.whole ? ' (vectors.bin included)' : ''}\n`,
      );
      await context.close();
    }
  }
  // The same reader pasting a sentence with rare words: everything the page received from the first
  // figure's end until the sentence is drawn with their composed vectors (gzip), the n-gram shards' part
  // of it and how many there were, and the time. The first figure's own bytes are counted apart.
  out.rare = [];
  for (const text of RARE) {
    for (let i = 0; i < (smoke ? 1 : 3); i++) {
      const { context, page } = await link();
      let received = 0,
        before = 0;
      const ngramShards = new Map(); // url → gzip bytes
      const net = await context.newCDPSession(page);
      await net.send('Network.enable');
      const urls = new Map();
      net.on('Network.responseReceived', (e) => urls.set(e.requestId, e.response.url));
      net.on('Network.dataReceived', (e) => {
        received += e.encodedDataLength;
        const u = urls.get(e.requestId) ?? '';
        if (u.includes('/vectors-ngrams/')) ngramShards.set(u, (ngramShards.get(u) ?? 0) + e.encodedDataLength);
      });
      const first = await firstHeatmap(page, `${url}?rare=${i}`);
      before = received;
      const live = await page.evaluate(
        async ({ text, key }) => {
          const input = document.getElementById('sentence');
          const t0 = performance.now();
          input.value = text;
          input.dispatchEvent(new Event('input', { bubbles: true }));
          // Drawn with this sentence: the figure is not busy and says it drew it (its data-drawn state).
          await new Promise((done) => {
            const check = () => {
              const el = document.querySelector('.af');
              const ok = el?.getAttribute('aria-busy') === 'false' && new URLSearchParams(el.dataset.drawn ?? '').get(key) === text;
              ok ? done() : setTimeout(check, 5);
            };
            check();
          });
          return { ms: performance.now() - t0 };
        },
        { text, key: paramOf('sentence') },
      );
      const ngramBytes = [...ngramShards.values()].reduce((a, b) => a + b, 0);
      const row = {
        text,
        first_ms: first.cell_ms,
        first_bytes: before,
        live_ms: live.ms,
        sentence_bytes: received - before,
        ngram_shards: ngramShards.size,
        ngram_bytes: ngramBytes,
      };
      out.rare.push(row);
      process.stderr.write(
        `  chromium   link, own sentence with rare words "${text}": drawn ${live.ms.toFixed(0)} ms after pasting, ${(row.sentence_bytes / 1024).toFixed(0)} KiB gzip received for it (${ngramShards.size} n-gram shards, ${(ngramBytes / 1024).toFixed(0)} KiB); first figure ${(before / 1024).toFixed(0)} KiB\n`,
      );
      await context.close();
    }
  }
  if (rareOnly) {
    process.stdout.write(JSON.stringify(out) + '\n');
    await browser.close();
    await new Promise((done) => server.close(done));
    process.exit(0);
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
    const r = await page.evaluate(
      async ({ sentence, T, n }) => {
        const input = document.getElementById('sentence');
        const fire = (value) => {
          input.value = value;
          input.dispatchEvent(new Event('input', { bubbles: true }));
        };
        fire(sentence);
        await new Promise((done) => requestAnimationFrame(() => setTimeout(done, 0)));
        const sync = [],
          frame = [];
        let value = sentence;
        for (let k = 0; k < n; k++) {
          value = k % 2 ? value.slice(0, -1) : value + 's'; // "bag" ↔ "bags": still T tokens
          const t0 = performance.now();
          fire(value);
          void document.body.offsetHeight; // style + layout now
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
      },
      { sentence, T, n: KEYSTROKES },
    );
    out.keystrokes.push({
      T,
      sync_ms: median(r.sync),
      frame_ms: median(r.frame),
      cells: r.cells,
      drawn: r.cells > 0 && !r.message,
      message: r.message,
    });
    process.stderr.write(
      `  chromium   keystroke T=${T}: ${median(r.sync).toFixed(2)} ms sync, ${median(r.frame).toFixed(2)} ms to next frame, ${r.cells} cells in the window${r.message ? ` (page says: ${r.message})` : ''}\n`,
    );
  }
  await context.close();
  for (const kind of ['cold', 'link', 'warm', 'revisit']) {
    const ok = out.navigations.filter((n) => n.kind === kind && !n.error);
    const cell = ok.length ? median(ok.map((n) => n.cell_ms)) : NaN,
      frame = ok.length ? median(ok.map((n) => n.frame_ms)) : NaN;
    const key = kind === 'cold' ? 'first_heatmap' : `first_heatmap_${kind}`;
    out[`${key}_ms`] = cell;
    out[`${key}_frame_ms`] = frame;
    process.stderr.write(
      `  chromium   ${kind} navigation → first heatmap drawn ${cell.toFixed(1)} ms, its frame at ${frame.toFixed(1)} ms (median of ${ok.length} of ${NAVIGATIONS})\n`,
    );
  }
} finally {
  await browser.close();
  await new Promise((done) => server.close(done));
}
process.stdout.write(JSON.stringify(out) + '\n');

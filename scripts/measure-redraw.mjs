#!/usr/bin/env node
// Measures recompute + redraw time of every view of the page in headless chromium, for sentences of
// T = 8, 16, 32 and 64 tokens: the figure's four views (heatmap, lines, steps, heads) and the
// explainer below it (walkthrough, weighted sum, query/key vectors, multi-head), plus the by-hand sheet.
// Each sample changes the input (alternating two sentences of the same length, so the core really
// recomputes) or the temperature (same words: views repaint in place), redraws synchronously, then forces style + layout (offsetHeight) before stopping the
// clock. Prints the median and 90th percentile in ms. A measurement, not a test: nothing is asserted.
// Needs the built site: bash scripts/build.sh.   Run: node scripts/measure-redraw.mjs [runs=30]
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { startServer } from './serve.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const runs = Number(process.argv[2] ?? 30);
const words = 'the train left the station on time and he cashed a check at the bank of the river'.split(' ');
const sentence = (T, shift) => Array.from({ length: T }, (_, i) => words[(i + shift) % words.length]).join(' ');

const { server, url } = await startServer(join(root, 'build', 'site'), 0);
const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--headless', '--no-sandbox', '--disable-gpu'] });
try {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  await page.goto(url);
  await page.waitForSelector('html.explainer-ready', { timeout: 30_000 });
  const rows = [];
  for (const T of [8, 16, 32, 64]) {
    const a = sentence(T, 0), b = sentence(T, 3);
    const result = await page.evaluate(({ a, b, runs }) => {
      const fig = window.attentionFigure, ex = window.attentionExplainer, hand = window.attentionByHand;
      const stats = (xs) => {
        const s = [...xs].sort((p, q) => p - q);
        return { median: s[Math.floor(s.length / 2)], p90: s[Math.floor(s.length * 0.9)] };
      };
      const time = (fn) => {
        const out = [];
        for (let k = 0; k < runs + 3; k++) {
          const t0 = performance.now();
          fn(k);
          void document.body.offsetHeight; // style + layout
          if (k >= 3) out.push(performance.now() - t0); // 3 warm-up runs
        }
        return stats(out);
      };
      const res = {};
      for (const view of ['heatmap', 'lines', 'steps', 'heads']) {
        fig.set({ view, sentence: a, word: 1 });
        res[`${view}: new sentence`] = time((k) => fig.set({ sentence: k % 2 ? a : b, word: 1 }));
        res[`${view}: temperature`] = time((k) => fig.set({ temperature: k % 2 ? 0.8 : 1.2 }));
        fig.set({ temperature: 1 });
      }
      fig.set({ view: 'heatmap', sentence: a });
      ex.sync(fig.state);
      res['explainer: new sentence'] = time((k) => ex.sync({ ...fig.state, sentence: k % 2 ? a : b }));
      res['explainer: temperature'] = time((k) => ex.sync({ ...fig.state, temperature: k % 2 ? 0.8 : 1.2 }));
      res['page: heatmap + explainer'] = time((k) => {
        fig.set({ sentence: k % 2 ? a : b });
        ex.sync(fig.state);
      });
      res['by hand (edit a cell)'] = time(() => hand.render());
      return res;
    }, { a, b, runs });
    for (const [view, { median, p90 }] of Object.entries(result)) rows.push([T, view, median, p90]);
    // The explainer's multi-head and vector views redraw only on screen: scroll there, let the
    // IntersectionObserver report it, then time the explainer again.
    for (const id of ['vectors', 'multihead']) {
      await page.evaluate((i) => document.getElementById(i).scrollIntoView(), id);
      await page.waitForTimeout(200);
      const t = await page.evaluate(({ a, b, runs }) => {
        const fig = window.attentionFigure, ex = window.attentionExplainer, out = [];
        for (let k = 0; k < runs + 3; k++) {
          const t0 = performance.now();
          ex.sync({ ...fig.state, sentence: k % 2 ? a : b });
          void document.body.offsetHeight;
          if (k >= 3) out.push(performance.now() - t0);
        }
        out.sort((p, q) => p - q);
        return { median: out[Math.floor(out.length / 2)], p90: out[Math.floor(out.length * 0.9)] };
      }, { a, b, runs });
      rows.push([T, `explainer, #${id} on screen`, t.median, t.p90]);
    }
    await page.evaluate(() => window.scrollTo(0, 0));
    await page.waitForTimeout(200);
  }
  console.log(`recompute + redraw, ms (median / p90 of ${runs} runs), headless chromium, ${new Date().toISOString()}`);
  console.log('   T  view                                median     p90');
  for (const [T, view, median, p90] of rows) console.log(`${String(T).padStart(4)}  ${view.padEnd(34)} ${median.toFixed(2).padStart(7)} ${p90.toFixed(2).padStart(7)}`);
} finally {
  await browser.close();
  server.close();
}

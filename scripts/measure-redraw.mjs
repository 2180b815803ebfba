#!/usr/bin/env node
// Measures recompute + redraw time of every view of the page in headless chromium, for sentences of
// T = 8 … 128 tokens and a long input (1,000 tokens): the figure's four views (heatmap, lines, steps,
// heads) and each step of the explainer below it (walkthrough steps, shapes, weighted sum, query/key
// vectors, multi-head) while it is on screen, plus the by-hand sheet.
// Each sample changes the input (alternating two sentences of the same length, so the core really
// recomputes) or the temperature (same words: views repaint in place), redraws synchronously, then
// forces style + layout (offsetHeight) before stopping the clock. Canvas rasterisation happens after
// that, off the main thread, and is not counted (nor was SVG painting, before). Prints the median and
// 90th percentile in ms, and the core's share (figure.timing.compute) where the page reports it.
// A measurement, not a test: nothing is asserted. "refused" marks an input the page does not draw.
// Needs the built site: bash scripts/build.sh.
// Run: node scripts/measure-redraw.mjs [runs=30] [--site=build/site] [--sizes=8,16,32,64,128,1000]
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { launchChromium } from './chromium.mjs';
import { startServer } from './serve.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const flags = Object.fromEntries(
  process.argv
    .slice(2)
    .filter((a) => a.startsWith('--'))
    .map((a) => a.slice(2).split('=')),
);
const runs = Number(process.argv.slice(2).find((a) => !a.startsWith('--')) ?? 30);
const sizes = (flags.sizes ?? '8,16,32,64,128,1000').split(',').map(Number);
const site = resolve(flags.site ?? join(root, 'build', 'site'));
const words = 'the train left the station on time and he cashed a check at the bank of the river'.split(' ');
const sentence = (T, shift) => Array.from({ length: T }, (_, i) => words[(i + shift) % words.length]).join(' ');
const SECTIONS = [
  'step-inputs',
  'step-qkv',
  'shapes',
  'step-scores',
  'step-softmax',
  'step-weighted',
  'expansion',
  'step-repeat',
  'vectors',
  'multihead',
];

// In the page: time `kind` of change over runs (+3 warm-up), each followed by a forced style + layout.
// (No eval: the page may run under a Content-Security-Policy.) a, b: the two sentences alternated.
function timeInPage({ runs, kind, a, b }) {
  const fig = window.attentionFigure,
    ex = window.attentionExplainer,
    hand = window.attentionByHand;
  const changes = {
    sentence: (k) => fig.set({ sentence: k % 2 ? a : b, word: 1 }),
    temperature: (k) => fig.set({ temperature: k % 2 ? 0.8 : 1.2 }),
    page: (k) => {
      fig.set({ sentence: k % 2 ? a : b });
      ex.sync(fig.state);
    },
    explainer: (k) => ex.sync({ ...fig.state, sentence: k % 2 ? a : b }),
    hand: () => hand.render(),
  };
  const change = changes[kind];
  const out = [],
    core = [];
  for (let k = 0; k < runs + 3; k++) {
    const t0 = performance.now();
    change(k);
    void document.body.offsetHeight; // style + layout
    if (k >= 3) {
      out.push(performance.now() - t0);
      if (fig.timing && kind !== 'explainer' && kind !== 'hand') core.push(fig.timing.compute);
    }
  }
  const at = (xs, f) => [...xs].sort((p, q) => p - q)[Math.floor(xs.length * f)];
  // Refused: the figure (or the explainer) shows a message about the length instead of the view.
  const message = document.getElementById('message');
  const figureRefused = !message.hidden && /tokens/.test(message.textContent) && !message.classList.contains('note');
  const exMessage = document.querySelector('#walkthrough .x-message');
  const refused = kind === 'hand' ? false : kind === 'explainer' ? Boolean(exMessage && !exMessage.hidden) : figureRefused;
  return { median: at(out, 0.5), p90: at(out, 0.9), core: core.length ? at(core, 0.5) : null, refused };
}

const { server, url } = await startServer(site, 0);
const browser = await launchChromium();
try {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  await page.goto(url);
  await page.waitForSelector('html.explainer-ready', { timeout: 30_000 });
  const rows = [];
  const time = async (T, label, kind, a, b) => {
    rows.push([T, label, await page.evaluate(timeInPage, { runs, kind, a, b })]);
  };
  for (const T of sizes) {
    const a = sentence(T, 0),
      b = sentence(T, 3);
    await page.evaluate(() => window.scrollTo(0, 0));
    for (const view of ['heatmap', 'lines', 'steps', 'heads']) {
      await page.evaluate(({ view, a }) => window.attentionFigure.set({ view, sentence: a, word: 1, temperature: 1 }), { view, a });
      await time(T, `${view}: new sentence`, 'sentence', a, b);
      await time(T, `${view}: temperature`, 'temperature', a, b);
    }
    await page.evaluate(
      ({ a }) => {
        window.attentionFigure.set({ view: 'heatmap', sentence: a, temperature: 1 });
        window.attentionExplainer.sync(window.attentionFigure.state);
      },
      { a },
    );
    await time(T, 'page: heatmap + explainer', 'page', a, b);
    // Each explainer step while it is on screen (whatever else is on screen with it redraws too).
    for (const id of SECTIONS) {
      await page.evaluate((i) => document.getElementById(i).scrollIntoView({ block: 'start' }), id);
      await page.waitForTimeout(250); // the IntersectionObserver reports it
      await time(T, `explainer, #${id} on screen`, 'explainer', a, b);
    }
    await page.evaluate(() => document.getElementById('by-hand').scrollIntoView({ block: 'start' }));
    await page.waitForTimeout(250);
    await time(T, 'by hand (edit a cell)', 'hand', a, b);
  }
  console.log(
    `recompute + redraw, ms (median / p90 of ${runs} runs; core = the wasm core's median share), headless chromium, ${site}, ${new Date().toISOString()}`,
  );
  console.log('   T  view                                    median     p90    core');
  const f = (x) => (x === null || x === undefined ? '' : x.toFixed(2)).padStart(7);
  for (const [T, view, r] of rows) {
    console.log(
      `${String(T).padStart(4)}  ${view.padEnd(38)} ${r.refused ? '   refused (message shown)' : `${f(r.median)} ${f(r.p90)} ${f(r.core)}`}`,
    );
  }
} finally {
  await browser.close();
  server.close();
}

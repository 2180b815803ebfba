// Helpers shared by the browser tests (page, widget, explainer, hostile input, CSP): the wasm core in
// node as the reference, a Chromium launcher, a hostile corpus, a watcher that records
// every console error, page error, dialog, CSP violation and injected element, and a check that what a
// figure shows after an input is either a readable message or the right heatmap.
// (Not a test file itself: node --test only runs *.test.mjs here.)
import assert from 'node:assert/strict';
import { access, readFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { chromium } from 'playwright-core';
import { startServer } from '../../scripts/serve.mjs';

export const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const site = join(root, 'build', 'site');

/** Inputs a reader (or an attacker) might type. Markup payloads set window.__pwned if they ever run. */
export const HOSTILE = [
  // expect 'message': nothing to draw (Unicode spaces such as U+00A0 and U+2003 separate words too).
  { name: 'empty', text: '', expect: 'message' },
  { name: 'whitespace only', text: ' \t  \u00a0\u2003 \n ', expect: 'message' },
  { name: '10,000 words', text: Array.from({ length: 10_000 }, (_, i) => ['the', 'train', 'left', 'station'][i % 4]).join(' ') },
  { name: 'one 5,000-character word', text: 'a'.repeat(5_000) },
  { name: 'emoji', text: 'I ❤️ trains 🚂🚃 👩‍👩‍👧 🏳️‍🌈' },
  { name: 'combining marks', text: 'cafe\u0301 n\u0303o Z\u0351\u0352\u0353\u0354a\u0300\u0301\u0302\u0303\u0304lgo' },
  { name: 'right-to-left', text: 'שלום עולם مرحبا بالعالم \u202eevil\u202c' },
  { name: '<script>', text: '<script>window.__pwned = "script"</script>' },
  { name: '"><img onerror>', text: '"><img src=x onerror="window.__pwned=\'img\'">' },
  { name: 'markup soup', text: '</text><svg onload="window.__pwned=1"><foreignObject><iframe srcdoc="x"></iframe>&lt;&amp;' },
  { name: 'control characters', text: 'a\u0000b\u0007c\u001bd\u007fe\ufffe\ud800' },
];

/** Element tags that must never appear from typed text. */
const DANGEROUS = ['script', 'img', 'iframe', 'object', 'embed', 'foreignObject', 'image', 'a'];

export function launch() {
  return chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--disable-background-networking',
      '--disable-component-update', '--no-first-run', '--disable-sync'],
  });
}

/**
 * What every browser test file starts once: the reference core in node, the built site (build/site)
 * on a free localhost port, and Chromium. stop() ends all three.
 */
export async function startSession() {
  try {
    await access(join(site, 'index.html'));
  } catch {
    throw new Error(`${join(site, 'index.html')} is missing: build first (bash scripts/build.sh)`);
  }
  const ref = await reference();
  const { server, url } = await startServer(site, 0);
  const browser = await launch();
  return {
    ...ref, url, browser,
    async stop() {
      await browser.close();
      await new Promise((done) => server.close(done));
      ref.vectors.delete();
    },
  };
}

/** The wasm core and vectors in node: the reference for what a figure must show. */
export async function reference() {
  const api = await import(pathToFileURL(join(root, 'build', 'wasm', 'attention.js')).href);
  const core = await api.loadAttention({ wasmBinary: await readFile(join(root, 'build', 'wasm', 'attention_wasm.wasm')) });
  const vectors = core.loadVectors(new Uint8Array(await readFile(join(root, 'data', 'vectors.bin'))));
  return { api, core, vectors };
}

/**
 * A new page that records problems. csp: a Content-Security-Policy header added to every HTML
 * response (the real files are served unchanged otherwise). The page's own wasm module is exposed to
 * tests as window.__attnModule (caught when Embind publishes memoryStats on it).
 */
export async function openWatched(browser, url, { csp, viewport = { width: 1200, height: 900 } } = {}) {
  const page = await browser.newPage({ viewport });
  const problems = [];
  page.on('console', (m) => m.type() === 'error' && problems.push(`console: ${m.text()}`));
  page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
  page.on('dialog', (d) => {
    problems.push(`dialog: ${d.type()} ${d.message()}`);
    d.dismiss().catch(() => {});
  });
  page.on('requestfailed', (r) => problems.push(`requestfailed: ${r.url()}`));
  await page.addInitScript(() => {
    window.__cspViolations = [];
    document.addEventListener('securitypolicyviolation', (e) =>
      window.__cspViolations.push(`${e.violatedDirective}: ${e.blockedURI} ${e.sourceFile}:${e.lineNumber}`));
    Object.defineProperty(Object.prototype, 'memoryStats', {
      configurable: true,
      set(value) {
        Object.defineProperty(this, 'memoryStats', { value, writable: true, configurable: true, enumerable: true });
        window.__attnModule = this;
      },
    });
  });
  if (csp) {
    await page.route('**/*', async (route) => {
      const response = await route.fetch();
      const headers = { ...response.headers() };
      if ((headers['content-type'] ?? '').startsWith('text/html')) headers['content-security-policy'] = csp;
      await route.fulfill({ response, headers });
    });
  }
  const response = await page.goto(url);
  return { page, problems, response };
}

/** Tags of every element in the document and in open shadow roots, counted. */
export function elementCensus(page) {
  return page.evaluate((dangerous) => {
    const counts = {};
    const visit = (node) => {
      for (const el of node.querySelectorAll('*')) {
        if (dangerous.includes(el.localName) || dangerous.includes(el.tagName)) counts[el.localName] = (counts[el.localName] ?? 0) + 1;
        if (el.shadowRoot) visit(el.shadowRoot);
      }
    };
    visit(document);
    return { counts, pwned: window.__pwned ?? null, csp: window.__cspViolations ?? [] };
  }, DANGEROUS);
}

/**
 * What a figure shows, inside `host` (a CSS selector of a widget, or null for the page): the message,
 * and every heatmap cell's row, column, weight and aria-label.
 */
export function figureState(page, host) {
  return page.evaluate((host) => {
    const scope = host ? document.querySelector(host).shadowRoot : document;
    const message = scope.getElementById('message');
    const svg = scope.querySelector('svg.heatmap:not(.compact)');
    return {
      message: message && !message.hidden ? message.textContent.trim() : '',
      cells: svg ? [...svg.querySelectorAll('.cell')].map((c) => ({
        row: +c.dataset.row, col: +c.dataset.col, weight: Number(c.dataset.weight), label: c.getAttribute('aria-label') ?? '',
      })) : [],
    };
  }, host);
}

/** Waits for the figure to settle after an input: a message shown, or a heatmap with cells. */
export async function settled(page, host) {
  await page.waitForFunction((host) => {
    const scope = host ? document.querySelector(host)?.shadowRoot : document;
    if (!scope) return false;
    const message = scope.getElementById('message');
    return (message && !message.hidden && message.textContent.trim()) || scope.querySelector('svg.heatmap .cell');
  }, host, { timeout: 10_000 });
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0))));
}

/**
 * After `text` was entered, the figure shows either a readable message (when the core cannot embed
 * the text: no words, too many) or exactly the reference's tokens and weights.
 */
export function assertShows(state, text, { core, vectors }, { expect, temperature = 1, tolerance = 1e-6 } = {}) {
  let ref;
  try {
    if (expect === 'message') throw new Error('nothing to draw');
    const { tokens, X } = vectors.embed(text, 64);
    ref = { tokens, weights: core.parameterFree(X, Math.sqrt(vectors.dim), { temperature }).weights };
  } catch (e) {
    assert.equal(state.cells.length, 0, `no heatmap for an input the core refuses (${e.message})`);
    assert.ok(state.message.length > 0, 'a message says why nothing is drawn');
    assert.doesNotMatch(state.message, /undefined|NaN|\[object|Something went wrong|internal error/i, state.message);
    return null;
  }
  const T = ref.tokens.length;
  assert.equal(state.message, '', 'no message beside a drawn figure');
  assert.equal(state.cells.length, T * T, `${T}×${T} cells`);
  for (const { row, col, weight, label } of state.cells) {
    const want = ref.weights.data[row * T + col];
    assert.ok(Math.abs(weight - want) <= tolerance, `(${row}, ${col}): shown ${weight}, wasm ${want}`);
    assert.ok(label.startsWith(`${ref.tokens[row].text} → ${ref.tokens[col].text}: `), `cell label ${JSON.stringify(label.slice(0, 80))}`);
  }
  return ref;
}

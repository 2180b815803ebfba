// Helpers shared by the browser tests (page, widget, explainer, hostile input, CSP): the wasm core in
// node as the reference, a Chromium launcher, an engine without relaxed SIMD and a count of the core's
// fetches, a hostile corpus, a watcher that records
// every console error, page error, dialog, CSP violation and injected element, a reader of what a
// canvas heatmap drew (its weights, labels and the colour of every cell's pixels), and a check that
// what a figure shows after an input is either a readable message or the right heatmap (word
// vectors, or the trained language model of data/model.bin).
// (Not a test file itself: node --test only runs *.test.mjs here.)
import assert from 'node:assert/strict';
import { interpolateViridis } from 'd3-scale-chromatic';
import { access, readFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { startServer } from '../../scripts/serve.mjs';
import { launchChromium } from '../../scripts/chromium.mjs';
import { labelOf } from '../../web/lib/format.js';
import { labelled } from '../../web/lib/compute/model.js';
import { FIXED_CORE, RELAXED_CORE } from '../../web/lib/core-file.js';
import { DEFAULTS, paramOf as paramName } from '../../web/lib/state.js';

export { FIXED_CORE, RELAXED_CORE };

/** The figure's token cap (web/lib/core.js MAX_TOKENS): longer text is cut to its first MAX_TOKENS tokens. */
export const MAX_TOKENS = 1024;

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

export const launch = launchChromium;

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
    ...ref,
    url,
    browser,
    async stop() {
      await browser.close();
      await new Promise((done) => server.close(done));
      ref.vectors.delete();
    },
  };
}

/**
 * The trained language model in node (the larger wasm module, loadAttentionWithModel, and
 * data/model.bin, or `file`: encoder.bin): the reference for what a figure with a trained source must show. shown(text) is
 * the run of what the figure draws of `text` — its first `context` tokens — with total, the text's
 * token count.
 */
export async function modelReference(api, file = 'model.bin') {
  const core = await api.loadAttentionWithModel({ wasmBinary: await readFile(join(root, 'build', 'wasm', 'attention_model_wasm.wasm')) });
  const model = core.loadModel(new Uint8Array(await readFile(join(root, 'data', file))));
  // What the figure shows: the run of the sentence as the model can read it (cut at a whole word when its
  // tokens, or a pieces model's pieces, pass the context), and the sentence's word count.
  const shown = (text) => ({ run: model.run(text, { fit: true }), total: core.tokenize(text).length });
  return { core, model, shown };
}

/** The wasm core and vectors (with the composed ones attached) in node: the reference for what a figure must show. */
export async function reference() {
  const api = await import(pathToFileURL(join(root, 'build', 'wasm', 'attention.js')).href);
  const core = await api.loadAttention({ wasmBinary: await readFile(join(root, 'build', 'wasm', 'attention_wasm.wasm')) });
  const vectors = core.loadVectors(new Uint8Array(await readFile(join(root, 'data', 'vectors.bin'))));
  // The page attaches the composed vectors (data/vectors-composed.bin, issue 24) a sentence's words need,
  // and for a word in neither list fastText's n-gram rows (data/vectors-ngrams.bin), in one table.
  const { mergeVectors } = await import('../../web/lib/vectors-format.js');
  const bytes = async (name) => new Uint8Array(await readFile(join(root, 'data', name)));
  vectors.attachComposed(mergeVectors([await bytes('vectors-composed.bin'), await bytes('vectors-ngrams.bin')]));
  return { api, core, vectors };
}

/**
 * A new page that records problems, and the URL of every request (requests). csp: a
 * Content-Security-Policy header added to every HTML response (the real files are served unchanged
 * otherwise). before(page): runs before the page loads (routes, more listeners). The page's own wasm
 * module is exposed to tests as window.__attnModule (caught when Embind publishes memoryStats on it).
 */
export async function openWatched(browser, url, { csp, viewport = { width: 1200, height: 900 }, before } = {}) {
  const page = await browser.newPage({ viewport });
  const problems = [];
  const requests = [];
  page.on('request', (r) => requests.push(r.url()));
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
      window.__cspViolations.push(`${e.violatedDirective}: ${e.blockedURI} ${e.sourceFile}:${e.lineNumber}`),
    );
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
  await before?.(page);
  const response = await page.goto(url);
  return { page, problems, response, requests };
}

/**
 * Makes a page's engine behave as one without relaxed SIMD (before(page) of openWatched, or before a
 * goto): WebAssembly.validate says no to any module holding f32x4.relaxed_madd (0xfd 0x85 0x02), as
 * web/lib/core-file.js's probe does. Chromium ships relaxed SIMD and its V8 flags no longer turn it
 * off (--js-flags=--no-experimental-wasm-relaxed-simd is ignored), so the answer is stubbed instead.
 */
export const withoutRelaxedSimd = (page) =>
  page.addInitScript(() => {
    const validate = WebAssembly.validate;
    WebAssembly.validate = function (source) {
      const b = ArrayBuffer.isView(source) ? new Uint8Array(source.buffer, source.byteOffset, source.byteLength) : new Uint8Array(source);
      for (let i = 0; i + 2 < b.length; i++) if (b[i] === 0xfd && b[i + 1] === 0x85 && b[i + 2] === 0x02) return false;
      return validate.call(WebAssembly, source);
    };
  });

/** How many of `urls` (request URLs or paths) fetched each build of the small core: { fixed, relaxed }. */
export function coreFetches(urls) {
  const count = (file) => urls.filter((u) => new URL(u, 'http://x/').pathname.endsWith(`/${file}`)).length;
  return { fixed: count(FIXED_CORE), relaxed: count(RELAXED_CORE) };
}

/** Scrolls a step of the explainer into view and waits until it shows the latest redraw (and `ready`, a selector inside it, when given). */
export async function onScreen(page, id, ready) {
  await page.evaluate((id) => document.getElementById(id).scrollIntoView({ block: 'start' }), id);
  if (ready) await page.waitForSelector(`#${id} ${ready}`, { timeout: 10_000 });
  await page.waitForFunction(
    (id) => {
      const drawn = document.getElementById(id).dataset.drawn;
      return drawn !== undefined && drawn === document.getElementById('explainer').dataset.generation;
    },
    id,
    { timeout: 10_000 },
  );
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
 * In the page (pass to page.evaluate): every heatmap matching `selector` inside `host` (a CSS
 * selector of a widget, or null for the document) as { T, rowStart, colStart, rows, cols, max,
 * hideDiagonal, head, cells: [{ row, col, weight, rgb }], rowLabels, colLabels: [{ index, text, cls }],
 * panel }. weight is what the canvas says it drew (canvas.attentionWeights); rgb is the colour of a
 * pixel inside that cell, read back from the canvas (getImageData), so a test can check one against the other.
 */
export function readHeatmaps({ host = null, selector }) {
  const scope = host ? document.querySelector(host).shadowRoot : document;
  return [...scope.querySelectorAll(selector)].map((el) => {
    const canvas = el.querySelector('canvas.cells');
    const w = canvas?.attentionWeights;
    if (!w) return null;
    const pixels = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height).data;
    const edge = (k) => Math.round(k * w.cell * w.ratio);
    const lo = w.gap >> 1,
      hi = w.gap - lo;
    const cells = [];
    for (let r = 0; r < w.rows; r++) {
      for (let c = 0; c < w.cols; c++) {
        // A pixel just inside the cell's corner (its centre may hold the printed value).
        const x0 = edge(c) + lo,
          x1 = edge(c + 1) - hi,
          y0 = edge(r) + lo,
          y1 = edge(r + 1) - hi;
        const x = x0 + Math.min(2, (x1 - x0) >> 1),
          y = y0 + Math.min(2, (y1 - y0) >> 1);
        const p = (y * canvas.width + x) * 4;
        cells.push({
          row: w.rowStart + r,
          col: w.colStart + c,
          weight: w.data[r * w.cols + c],
          rgb: [pixels[p], pixels[p + 1], pixels[p + 2]],
        });
      }
    }
    const labels = (cls) =>
      [...el.querySelectorAll(`svg text.${cls}`)].map((t) => ({
        index: Number(t.dataset.index),
        text: t.textContent,
        cls: t.getAttribute('class'),
      }));
    return {
      T: w.T,
      rowStart: w.rowStart,
      colStart: w.colStart,
      rows: w.rows,
      cols: w.cols,
      max: w.max,
      hideDiagonal: w.hideDiagonal,
      head: el.dataset.head === undefined ? null : Number(el.dataset.head),
      ratio: w.ratio,
      cells,
      rowLabels: labels('row-label'),
      colLabels: labels('col-label'),
      panel: getComputedStyle(el).getPropertyValue('--af-panel').trim(),
    };
  });
}

const rgbOf = (hex) => [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16));

/**
 * Every cell of a heatmap read by readHeatmaps is painted in the colour of the weight it claims:
 * viridis(weight / max) (d3-scale-chromatic, in node) within 3 levels per channel (the page uses a
 * 256-step table of the same scale), or the panel colour for a hidden diagonal.
 */
export function assertColours(map, where) {
  for (const { row, col, weight, rgb } of map.cells) {
    const want = map.hideDiagonal && row === col ? rgbOf(map.panel) : rgbOf(interpolateViridis(map.max > 0 ? weight / map.max : 0));
    assert.ok(
      rgb.every((v, k) => Math.abs(v - want[k]) <= 3),
      `${where} (${row}, ${col}): pixel rgb(${rgb}) but weight ${weight} of ${map.max} is rgb(${want})`,
    );
  }
}

/** Every cell of a heatmap holds the reference weight (a T×T core Matrix), to `tolerance`. */
export function assertWeights(map, weights, where, tolerance = 1e-6) {
  const T = weights.rows;
  assert.equal(map.T, T, `${where}: ${map.T} tokens, want ${T}`);
  assert.equal(map.cells.length, map.rows * map.cols, `${where}: one cell per row and column of the window`);
  assert.ok(
    map.rowStart >= 0 && map.rowStart + map.rows <= T && map.colStart >= 0 && map.colStart + map.cols <= T,
    `${where}: window inside the matrix`,
  );
  for (const { row, col, weight } of map.cells) {
    const want = weights.data[row * T + col];
    assert.ok(Math.abs(weight - want) <= tolerance, `${where} (${row}, ${col}): shown ${weight}, wasm ${want}`);
  }
}

/** The window's labels are the reference tokens at those positions (as the page labels them). */
export function assertLabels(map, tokens, where) {
  assert.deepEqual(
    map.rowLabels.map((l) => l.index),
    Array.from({ length: map.rows }, (_, k) => map.rowStart + k),
    `${where}: row labels`,
  );
  assert.deepEqual(
    map.colLabels.map((l) => l.index),
    Array.from({ length: map.cols }, (_, k) => map.colStart + k),
    `${where}: column labels`,
  );
  for (const l of [...map.rowLabels, ...map.colLabels]) assert.equal(l.text, labelOf(tokens[l.index]), `${where}: label ${l.index}`);
}

/** What a figure shows, inside `host` (a CSS selector of a widget, or null for the page): its message and its main heatmap. */
export async function figureState(page, host) {
  const [message, maps] = await Promise.all([
    page.evaluate((host) => {
      const scope = host ? document.querySelector(host).shadowRoot : document;
      const m = scope.getElementById('message');
      return m && !m.hidden ? { text: m.textContent.trim(), kind: m.className } : { text: '', kind: '' };
    }, host),
    page.evaluate(readHeatmaps, { host, selector: '#heatmap > .heatmap:not(.compact)' }),
  ]);
  return { message: message.text, messageKind: message.kind, map: maps[0] ?? null };
}

/**
 * A state value as toParams (web/lib/state.js) writes it, or null for a value it leaves out; read back
 * through URLSearchParams as data-drawn is (a lone surrogate becomes U+FFFD).
 */
const paramOf = (v) =>
  v === null || v === undefined ? null : new URLSearchParams([['v', typeof v === 'boolean' ? (v ? '1' : '0') : String(v)]]).get('v');
const DEFAULT_PARAMS = Object.fromEntries(Object.entries(DEFAULTS).map(([k, v]) => [paramName(k), paramOf(v)]));

/**
 * Waits until the figure in `scope` (a CSS selector of an <attention-figure>, or null for the page's
 * own figure, `.af`) has drawn a state with every `expected` value, e.g. drawn(page, { scope:
 * '#fig-heads', sentence: 'the river bank was quiet', view: 'steps', word: 2 }): it is not busy
 * (aria-busy="false") and its data-drawn (the drawn state's URL parameters, written by figure.js
 * render() once that state's figure is drawn) holds those values (a value left out of the URL is its
 * default; null: not set). Then two frames pass, for a redraw the figure deferred to the next frame.
 * Returns the drawn parameters as an object. A test calls this after every input and before it reads
 * what the input changed: the page's other parts redraw in the same store update as the figure.
 */
export async function drawn(page, { scope = null, timeout = 20_000, ...expected } = {}) {
  // Keys are state keys (offMode) or their URL names (off-mode).
  const want = Object.fromEntries(Object.entries(expected).map(([k, v]) => [paramName(k), paramOf(v)]));
  const read = ({ scope }) => {
    const el = document.querySelector(scope ?? '.af');
    return el ? { busy: el.getAttribute('aria-busy'), drawn: el.dataset.drawn ?? null } : null;
  };
  try {
    await page.waitForFunction(
      ({ scope, want, defaults }) => {
        const el = document.querySelector(scope ?? '.af');
        if (!el || el.getAttribute('aria-busy') !== 'false' || el.dataset.drawn === undefined) return false;
        const p = new URLSearchParams(el.dataset.drawn);
        return Object.entries(want).every(([k, v]) => (p.get(k) ?? defaults[k] ?? null) === v);
      },
      { scope, want, defaults: DEFAULT_PARAMS },
      { timeout },
    );
  } catch (e) {
    const now = await page.evaluate(read, { scope }).catch(() => null);
    throw new Error(`drawn(${scope ?? 'page'}): wanted ${JSON.stringify(want)}, the figure says ${JSON.stringify(now)}: ${e.message}`);
  }
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
  const { drawn: params } = await page.evaluate(read, { scope });
  return Object.fromEntries(new URLSearchParams(params));
}

/** Waits for the figure to settle after an input: nothing on its way (aria-busy), and a message shown or a drawn heatmap. */
export async function settled(page, host) {
  await page.waitForFunction(
    (host) => {
      const scope = host ? document.querySelector(host)?.shadowRoot : document;
      if (!scope || scope.querySelector('[aria-busy="true"]')) return false;
      const message = scope.getElementById('message');
      return (message && !message.hidden && message.textContent.trim()) || scope.querySelector('#heatmap canvas.cells')?.attentionWeights;
    },
    host,
    { timeout: 10_000 },
  );
  // Two frames: a redraw the figure deferred to the next frame (long input) has run.
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(() => setTimeout(r, 0)))));
}

/** The core's embedding of what the figure draws of `text`: its first MAX_TOKENS tokens. { tokens, X, total } */
export function embedShown({ core, vectors }, text) {
  const all = core.tokenize(text);
  const shown = all.length > MAX_TOKENS ? all.slice(0, MAX_TOKENS).join(' ') : text;
  return { ...vectors.embed(shown, MAX_TOKENS), total: all.length };
}

/**
 * After `text` was entered, the figure shows either a readable message (when the core cannot embed
 * the text: no words) or exactly the reference's tokens and weights, in the right colours — with a
 * note saying how many tokens it left out when the text is longer than MAX_TOKENS.
 */
/**
 * The same for a figure showing the trained model's layer 0, head 0: a readable message when the
 * model has no words to read, else its tokens and weights — with a note when the text is longer
 * than the model's context (the figure shows the first `context` tokens).
 */
export function assertShowsModel(state, text, modelRef, { expect, tolerance = 1e-6 } = {}) {
  let shown;
  try {
    if (expect === 'message') throw new Error('nothing to draw');
    shown = modelRef.shown(text);
  } catch (e) {
    assert.equal(state.map, null, `no heatmap for an input the model refuses (${e.message})`);
    assert.ok(state.message.length > 0, 'a message says why nothing is drawn');
    assert.doesNotMatch(state.message, /undefined|NaN|\[object|Something went wrong|internal error/i, state.message);
    return null;
  }
  const { context, vocabulary } = modelRef.model;
  const cut = shown.run.fitted?.cut;
  const count = (n) => n.toLocaleString('en-US');
  if (vocabulary === 'pieces' && cut) {
    // A pieces model cuts at a whole word, counted in pieces (the run's own fit says where).
    assert.equal(
      state.message,
      `That is ${count(cut.totalWords)} words (${count(cut.totalPieces)} pieces); the trained decoder reads at most ${count(context)} pieces, so the figure shows the first ${count(cut.words)} words (${count(cut.pieces)} pieces).`,
    );
  } else if (vocabulary !== 'pieces' && shown.total > context) {
    assert.match(
      state.message,
      new RegExp(
        `That is ${count(shown.total)} tokens; the trained decoder reads at most ${context}, so the figure shows the first ${context}\\.`,
      ),
      state.message,
    );
  } else {
    assert.equal(state.message, '', 'no message beside a drawn figure');
  }
  assert.ok(state.map, 'a heatmap is drawn');
  const weights = shown.run.layers[0].heads[0].weights;
  assertWeights(state.map, weights, 'model heatmap', tolerance);
  // The tokens as the page labels them (the bare "▁" piece's empty label made visible): the page's own rule.
  assertLabels(state.map, labelled(shown.run.tokens), 'model heatmap');
  assertColours(state.map, 'model heatmap');
  return { tokens: shown.run.tokens, weights };
}

export function assertShows(state, text, ref, { expect, temperature = 1, tolerance = 1e-6 } = {}) {
  const { core, vectors } = ref;
  let shown;
  try {
    if (expect === 'message') throw new Error('nothing to draw');
    shown = embedShown(ref, text);
  } catch (e) {
    assert.equal(state.map, null, `no heatmap for an input the core refuses (${e.message})`);
    assert.ok(state.message.length > 0, 'a message says why nothing is drawn');
    assert.doesNotMatch(state.message, /undefined|NaN|\[object|Something went wrong|internal error/i, state.message);
    return null;
  }
  const weights = core.parameterFree(shown.X, Math.sqrt(vectors.dim), { temperature }).weights;
  if (shown.total > MAX_TOKENS) {
    assert.match(
      state.message,
      new RegExp(`That is ${shown.total.toLocaleString('en-US')} tokens; the figure shows the first 1,024\\.`),
      state.message,
    );
  } else {
    assert.equal(state.message, '', 'no message beside a drawn figure');
  }
  assert.ok(state.map, 'a heatmap is drawn');
  assertWeights(state.map, weights, 'heatmap', tolerance);
  assertLabels(state.map, shown.tokens, 'heatmap');
  assertColours(state.map, 'heatmap');
  return { tokens: shown.tokens, weights };
}

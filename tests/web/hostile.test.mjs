// Hostile input typed into the page and into the <attention-figure> widget: empty, whitespace only,
// 10,000 words, one 5,000-character word, emoji, combining marks, right-to-left text, <script> and
// "><img onerror> payloads. Each gives a clear message or the correct heatmap, injects no element, runs
// no payload, raises no console error or uncaught exception, and the figure still works afterwards.
// Also: 1,000 recomputes through the page leave its wasm heap where it was.
// Build first: bash scripts/build.sh. Helpers (reusable for any figure): hostile-corpus.mjs.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { HOSTILE, assertShows, elementCensus, figureState, openWatched, settled, startSession } from './harness.mjs';

const DEFAULT = 'the train left the station on time';
let browser, url, ref;

before(async () => {
  ref = await startSession();
  ({ browser, url } = ref);
});

after(() => ref?.stop());

/** Types every hostile input into the figure's sentence box (inside `host`, or the page's). */
async function runCorpus(page, problems, host) {
  const box = page.locator(host ? `${host} #sentence` : '#sentence');
  await settled(page, host);
  const baseline = await elementCensus(page);
  for (const { name, text, expect } of HOSTILE) {
    if (text.length <= 80) {
      await box.fill('');
      await box.pressSequentially(text); // real key events, one character at a time
    } else {
      await box.fill(text);
    }
    await settled(page, host);
    const state = await figureState(page, host);
    try {
      assertShows(state, await box.inputValue(), ref, { expect });
    } catch (e) {
      e.message = `${host ?? 'page'}, input "${name}": ${e.message}`;
      throw e;
    }
    const census = await elementCensus(page);
    assert.deepEqual(census.counts, baseline.counts, `${name}: no element injected`);
    assert.equal(census.pwned, null, `${name}: no payload ran`);
    assert.deepEqual(census.csp, [], `${name}: no CSP violation`);
    assert.deepEqual(problems, [], `${name}: no console error, page error or dialog`);
  }
  // Still works: the default sentence draws its 7×7 heatmap again.
  await box.fill(DEFAULT);
  await settled(page, host);
  const drawn = assertShows(await figureState(page, host), DEFAULT, ref);
  assert.equal(drawn?.tokens.length, 7);
  assert.deepEqual(problems, []);
  // The census does see an injected element (so the checks above can fail).
  await page.evaluate(
    (host) => (host ? document.querySelector(host).shadowRoot : document.body).append(document.createElement('img')),
    host,
  );
  assert.notDeepEqual((await elementCensus(page)).counts, baseline.counts);
}

test('the page: hostile input gives a message or the right heatmap, never markup or errors', async () => {
  const { page, problems } = await openWatched(browser, url);
  try {
    await runCorpus(page, problems, null);
  } finally {
    await page.close();
  }
});

test('the widget: the same hostile corpus in <attention-figure>', async () => {
  const { page, problems } = await openWatched(browser, `${url}examples/index.html`);
  try {
    await runCorpus(page, problems, '#fig-heatmap');
  } finally {
    await page.close();
  }
});

test('1,000 recomputes through the page leave its wasm heap where it was', async () => {
  const { page, problems } = await openWatched(browser, url);
  try {
    await settled(page, null);
    const result = await page.evaluate(async () => {
      const M = window.__attnModule;
      if (!M) throw new Error("the page's wasm module was not seen");
      // Count the page's calls into the core, so the 1,000 are real recomputes.
      let calls = 0;
      for (const name of ['parameterFree', 'multiHead', 'attention']) {
        const f = M[name];
        M[name] = (...args) => {
          calls++;
          return f(...args);
        };
      }
      const input = document.getElementById('sentence');
      const sentences = [
        'the train left the station on time',
        'he cashed a check at the bank',
        'qwzxv 🚂 <b>x</b>',
        'The bank of the river flooded, so the bank closed early.',
        'x',
        'a',
      ];
      const type = (i) => {
        input.value = sentences[i % sentences.length] + (i % 7 ? '' : ' again');
        input.dispatchEvent(new Event('input', { bubbles: true }));
      };
      const frame = () => new Promise((r) => setTimeout(r, 0));
      const stats = () => ({ ...M.memoryStats(), emvalHandles: M.count_emval_handles?.() ?? null });
      for (let i = 0; i < 60; i++) type(i); // warm-up
      // Until the vectors of the sentences' rarer words are here, a sentence with one waits instead of
      // calling the core: let them arrive.
      for (let i = 0; i < sentences.length + 1; i++) {
        type(i);
        while (document.querySelector('[aria-busy="true"]')) await new Promise((r) => setTimeout(r, 20));
      }
      await frame();
      const before = stats();
      const callsBefore = calls;
      for (let i = 0; i < 1000; i++) {
        type(i);
        if (i % 50 === 49) await frame();
      }
      await frame();
      return { before, after: stats(), recomputes: calls - callsBefore };
    });
    console.log(
      `page wasm heap over ${result.recomputes} recomputes: before ${JSON.stringify(result.before)}, after ${JSON.stringify(result.after)}`,
    );
    assert.ok(result.recomputes >= 1000, `${result.recomputes} calls into the core`);
    assert.equal(result.after.mallocBytes, result.before.mallocBytes, 'bytes in use by malloc');
    assert.equal(result.after.heapBytes, result.before.heapBytes, 'heap size');
    assert.equal(result.after.emvalHandles, result.before.emvalHandles, 'live Embind handles');
    assert.deepEqual(
      problems.filter((p) => !/Throttling navigation/.test(p)),
      [],
    );
  } finally {
    await page.close();
  }
});

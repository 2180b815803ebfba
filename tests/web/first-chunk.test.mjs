// The word vectors' first chunk (build/site/vectors-first.bin, made by scripts/build-site.mjs): the
// most frequent words and the example sentences' words, with the same bytes as the whole table; the
// page draws its first figure from it before vectors.bin has arrived, and a sentence with a word
// outside it waits for the whole table instead of showing other numbers.
// Build first: bash scripts/build.sh. Run: node --test tests/web/
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { assertWeights, figureState, openWatched, site, startSession } from './harness.mjs';

let session, browser, url, core, vectors, first;
before(async () => {
  session = await startSession();
  ({ browser, url, core, vectors } = session);
  first = core.loadVectors(new Uint8Array(await readFile(join(site, 'vectors-first.bin'))));
});
after(() => {
  first?.delete();
  return session?.stop();
});

test('the first chunk: the 2,000 most frequent words and the examples’ words, each vector exactly the whole table’s', () => {
  assert.ok(first.size >= 2000 && first.size < 2100, `${first.size} words`);
  assert.equal(first.dim, vectors.dim);
  for (const text of [
    'the train left the station on time',
    'he cashed a check at the bank',
    'the boat drifted to the bank of the river',
    'the bank of the river flooded',
  ]) {
    const a = first.embed(text),
      b = vectors.embed(text);
    assert.ok(
      a.tokens.every((t) => t.lookup === 'known'),
      text,
    );
    assert.deepEqual(Array.from(a.X.data), Array.from(b.X.data), text);
  }
  // A rarer word is not in it (so the page must wait for the whole table).
  assert.equal(first.embed('zebra').tokens[0].lookup, 'unknown');
  assert.equal(vectors.embed('zebra').tokens[0].lookup, 'known');
});

test('the first figure draws from the first chunk while vectors.bin is still on its way; an unknown word waits for it', async () => {
  let release;
  const held = new Promise((r) => (release = r));
  const { page, problems } = await openWatched(browser, url, {
    viewport: { width: 1280, height: 900 },
    before: (page) =>
      page.route('**/vectors.bin', async (route) => {
        await held; // the whole table arrives only when the test says so
        await route.continue();
      }),
  });
  try {
    await page.waitForFunction(() => document.querySelector('#heatmap canvas.cells')?.attentionWeights, null, { timeout: 20_000 });
    const { X } = vectors.embed('the train left the station on time', 64);
    assertWeights((await figureState(page, null)).map, core.parameterFree(X, Math.sqrt(vectors.dim)).weights, 'from the first chunk');
    // A word outside the chunk: the figure says it is loading, and draws nothing of the old sentence.
    await page.fill('#sentence', 'the zebra left the station');
    await page.waitForFunction(() => document.getElementById('loading') && !document.getElementById('loading').hidden);
    assert.equal(await page.locator('#heatmap canvas.cells').count(), 0);
    release();
    await page.waitForFunction(() => document.querySelector('#heatmap canvas.cells')?.attentionWeights?.T === 5, null, { timeout: 20_000 });
    const zebra = vectors.embed('the zebra left the station', 64);
    assertWeights(
      (await figureState(page, null)).map,
      core.parameterFree(zebra.X, Math.sqrt(vectors.dim)).weights,
      'after the whole table',
    );
    assert.deepEqual(problems, []);
  } finally {
    release();
    await page.close();
  }
});

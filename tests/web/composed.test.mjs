// Issue 24 on the page: a word neither the table nor its stems have gets the vector composed from its
// character n-grams (data/vectors-composed.bin, fetched as shards only for such a word), the figure draws
// what the core computes with that table attached, and the word's note says how its vector was made.
// Build first: bash scripts/build.sh. Run: node --test tests/web/composed.test.mjs
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { assertWeights, drawn, figureState, openWatched, root, startSession } from './harness.mjs';
import { shardOf } from '../../web/lib/vectors-format.js';

let session, browser, url, core, composedTable;
before(async () => {
  session = await startSession();
  ({ browser, url, core } = session);
  composedTable = core
    .loadVectors(new Uint8Array(await readFile(join(root, 'data', 'vectors.bin'))))
    .attachComposed(new Uint8Array(await readFile(join(root, 'data', 'vectors-composed.bin'))));
});
after(() => {
  composedTable?.delete();
  return session?.stop();
});

test('a composed word: its shards only, the core’s numbers, and a note naming its pieces', async () => {
  const composedFetched = [];
  const { page, problems } = await openWatched(browser, url, {
    viewport: { width: 1280, height: 900 },
    before: (page) =>
      page.on('request', (r) => {
        const m = r.url().match(/vectors-composed\/(\d+)\.bin$/);
        if (m) composedFetched.push(Number(m[1]));
      }),
  });
  try {
    await drawn(page);
    assert.deepEqual(composedFetched, [], 'the default sentence fetches no composed shard');
    const text = "you've met a paranoid murphy's dog";
    const expected = composedTable.embed(text, 64);
    assert.deepEqual(
      expected.tokens.map((t) => t.lookup),
      ['stemmed', 'known', 'known', 'composed', 'composed', 'known'],
    );
    await page.fill('#sentence', text);
    await drawn(page, { sentence: text });
    assertWeights((await figureState(page, null)).map, core.parameterFree(expected.X, Math.sqrt(composedTable.dim)).weights, 'composed');
    // Only the composed shards of the unknown words and their stems were fetched.
    const needed = new Set();
    for (const w of ['paranoid', "murphy's"]) for (const s of [w, ...core.stemCandidates(w)]) needed.add(shardOf(s));
    assert.deepEqual(
      [...new Set(composedFetched)].sort((a, b) => a - b),
      [...needed].sort((a, b) => a - b),
    );
    const notes = await page.$$eval('#notes li', (items) => items.map((li) => li.textContent));
    const paranoid = notes.find((n) => n.startsWith('‘paranoid’'));
    assert.match(
      paranoid,
      /its vector is composed from its pieces: <pa, par, ara, ran, ano, noi, oid, id>, … \(the mean of 26 character n-grams’ vectors/,
    );
    assert.match(
      notes.find((n) => n.startsWith('‘murphy’s’')) ?? notes.find((n) => n.startsWith("‘murphy's’")),
      /it uses the vector of ‘murphy’, composed from its pieces: <mu, mur, urp, rph, phy, hy>, <mur, murp, …/,
    );
    assert.ok(
      notes.some((n) => n.startsWith('‘you’ve’') || n.startsWith("‘you've’")),
      'the contraction has its stem note',
    );
    assert.deepEqual(problems, []);
  } finally {
    await page.close();
  }
});

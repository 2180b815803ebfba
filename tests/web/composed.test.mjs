// Issue 24 on the page: a word neither the table nor its stems have gets the vector composed from its
// character n-grams (data/vectors-composed.bin, fetched as shards only for such a word), the figure draws
// what the core computes with that table attached, and the word's note says how its vector was made.
// Build first: bash scripts/build.sh. Run: node --test tests/web/composed.test.mjs
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { assertWeights, drawn, figureState, openWatched, root, startSession } from './harness.mjs';
import { mergeVectors, ngramBucket, ngramShardOf, shardOf } from '../../web/lib/vectors-format.js';

let session, browser, url, core, composedTable, ngramTable;
before(async () => {
  session = await startSession();
  ({ browser, url, core } = session);
  const bytes = async (name) => new Uint8Array(await readFile(join(root, 'data', name)));
  composedTable = core.loadVectors(await bytes('vectors.bin')).attachComposed(await bytes('vectors-composed.bin'));
  // The page's table once every shard is here: the composed list and fastText's n-gram rows in one attached table.
  ngramTable = core
    .loadVectors(await bytes('vectors.bin'))
    .attachComposed(mergeVectors([await bytes('vectors-composed.bin'), await bytes('vectors-ngrams.bin')]));
});
after(() => {
  composedTable?.delete();
  ngramTable?.delete();
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

test('a word in neither list: composed from its n-gram rows, only its shards fetched, and its note', async () => {
  const fetched = { composed: [], ngrams: [] };
  const { page, problems } = await openWatched(browser, url, {
    viewport: { width: 1280, height: 900 },
    before: (page) =>
      page.on('request', (r) => {
        const m = r.url().match(/vectors-(composed|ngrams)\/(\d+)\.bin$/);
        if (m) fetched[m[1]].push(m[1] === 'composed' ? Number(m[2]) : `n${Number(m[2])}`);
      }),
  });
  try {
    await drawn(page);
    assert.deepEqual(fetched, { composed: [], ngrams: [] }, 'the default sentence fetches no composed or n-gram shard');
    const text = 'the debcargo tool builds packages';
    const expected = ngramTable.embed(text, 64);
    const debcargo = expected.tokens[1];
    assert.equal(debcargo.lookup, 'composed');
    assert.equal(debcargo.matched, 'debcargo');
    assert.equal(debcargo.pieces.length, 26);
    assert.ok(debcargo.found.length > 13 && debcargo.found.length <= 26, `found ${debcargo.found.length}`);
    assert.ok(debcargo.found.every((g) => debcargo.pieces.includes(g)));
    // Without the n-gram rows it had no vector: this is the last resort's doing.
    assert.equal(composedTable.embed(text, 64).tokens[1].lookup, 'unknown');
    await page.fill('#sentence', text);
    await drawn(page, { sentence: text });
    assertWeights((await figureState(page, null)).map, core.parameterFree(expected.X, Math.sqrt(ngramTable.dim)).weights, 'n-grams');
    // First the composed list's shards of the word and its stems, then only the shards of its n-grams' buckets.
    const listShards = new Set(['debcargo', ...core.stemCandidates('debcargo')].map(shardOf));
    assert.deepEqual([...new Set(fetched.composed)].sort(), [...listShards].sort());
    const ngramShards = new Set(core.subwordPieces('debcargo').map((g) => ngramShardOf(ngramBucket(g))));
    assert.deepEqual([...new Set(fetched.ngrams)].sort(), [...ngramShards].sort());
    const notes = await page.$$eval('#notes li', (items) => items.map((li) => li.textContent));
    assert.match(
      notes.find((n) => n.startsWith('‘debcargo’')) ?? '',
      new RegExp(
        `its vector is composed from its pieces: <de, deb, ebc, bca, car, arg, rgo, go>, … \\(${debcargo.found.length} of its 26 character n-grams were trained; the mean of all 26`,
      ),
    );
    assert.deepEqual(problems, []);
  } finally {
    await page.close();
  }
});

test('a word with no trained n-gram is spelled out from its letters’ rows, fetched in a last round', async () => {
  const ngramsFetched = [];
  const { page, problems } = await openWatched(browser, url, {
    viewport: { width: 1280, height: 900 },
    before: (page) =>
      page.on('request', (r) => {
        const m = r.url().match(/vectors-ngrams\/(\d+)\.bin$/);
        if (m) ngramsFetched.push(`n${Number(m[1])}`);
      }),
  });
  try {
    await drawn(page);
    const text = 'the qt toolkit';
    const expected = ngramTable.embed(text, 64);
    const qt = expected.tokens[1];
    assert.deepEqual([qt.lookup, qt.spelled, qt.found, qt.pieces], ['composed', true, ['<q>', '<t>'], ['<q>', '<t>']]);
    await page.fill('#sentence', text);
    await drawn(page, { sentence: text });
    assertWeights((await figureState(page, null)).map, core.parameterFree(expected.X, Math.sqrt(ngramTable.dim)).weights, 'spelled');
    // Its n-grams' shards (none of them has its rows), then its letters'.
    const wanted = new Set([...core.subwordPieces('qt'), '<q>', '<t>'].map((g) => ngramShardOf(ngramBucket(g))));
    assert.deepEqual([...new Set(ngramsFetched)].sort(), [...wanted].sort());
    // The note says it is spelled out, not fastText's vector.
    const notes = await page.$$eval('#notes li', (items) => items.map((li) => li.textContent));
    assert.match(
      notes.find((n) => n.startsWith('‘qt’')) ?? '',
      /its vector is spelled out from its letters: <q>, <t> \(none of its character n-grams was trained/,
    );
    assert.deepEqual(problems, []);
  } finally {
    await page.close();
  }
});

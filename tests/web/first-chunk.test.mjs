// The word vectors' first chunk (build/site/vectors-first.bin, made by scripts/build-site.mjs): the words
// of the sentences a reader meets first, with the same bytes as the whole table; then the frequent words
// (vectors-common.bin), fetched once the first figure has drawn. The page draws its first figure from the
// first chunk alone, a sentence with a word outside both fetches only the shards of its words, and the
// whole table is fetched only for a text that spans too many.
// Build first: bash scripts/build.sh. Run: node --test tests/web/
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { assertWeights, drawn, figureState, openWatched, root, site, startSession } from './harness.mjs';
import { SHARDS, mergeVectors, shardFile, shardOf, subsetVectors, vectorsLayout } from '../../web/lib/vectors-format.js';

const EXAMPLES = [
  'the train left the station on time',
  'he cashed a check at the bank',
  'the boat drifted to the bank of the river',
  'the bank of the river flooded',
];

let session, browser, url, core, vectors, firstOnly, first;
before(async () => {
  session = await startSession();
  ({ browser, url, core, vectors } = session);
  const firstBytes = new Uint8Array(await readFile(join(site, 'vectors-first.bin')));
  firstOnly = core.loadVectors(firstBytes);
  // What the page draws from once the frequent words are in: the two merged.
  first = core.loadVectors(mergeVectors([firstBytes, new Uint8Array(await readFile(join(site, 'vectors-common.bin')))]));
});
after(() => {
  firstOnly?.delete();
  first?.delete();
  return session?.stop();
});

/** Waits until the page's store has merged the frequent words into its table (store.js #loadCommon). */
const commonMerged = (page) => page.waitForFunction(() => window.attentionStore.sources.vectorsMerge >= 1, null, { timeout: 30_000 });

test('the first chunk: the examples’ words, each vector exactly the whole table’s; the frequent words the 2,000 most frequent', async () => {
  assert.equal(firstOnly.dim, vectors.dim);
  assert.ok(firstOnly.size < 100, `${firstOnly.size} words: the sentences' words, not the frequent ones`);
  for (const text of EXAMPLES) {
    const a = firstOnly.embed(text),
      b = vectors.embed(text);
    assert.ok(
      a.tokens.every((t) => t.lookup === 'known'),
      text,
    );
    assert.deepEqual(Array.from(a.X.data), Array.from(b.X.data), text);
  }
  // With the frequent words: the 2,000 most frequent, every word once, the same bytes.
  const whole = vectorsLayout(new Uint8Array(await readFile(join(root, 'data', 'vectors.bin'))));
  assert.ok(first.size >= 2000 && first.size < 2100, `${first.size} words`);
  for (const word of whole.words.slice(0, 2000)) assert.equal(first.embed(word).tokens[0].lookup, 'known', word);
  assert.deepEqual(Array.from(first.embed('of time and money').X.data), Array.from(vectors.embed('of time and money').X.data));
  // A rarer word is in neither (so the page must fetch its shard).
  assert.equal(first.embed('zebra').tokens[0].lookup, 'unknown');
  assert.equal(vectors.embed('zebra').tokens[0].lookup, 'known');
});

test('the frequent words are fetched after the first figure has drawn, never before', async () => {
  const { page, problems } = await openWatched(browser, url, { viewport: { width: 1280, height: 900 } });
  try {
    await drawn(page);
    await commonMerged(page);
    const [mark, common] = await page.evaluate(() => [
      performance.getEntriesByName('attention-figure:first-draw')[0].startTime,
      performance.getEntriesByType('resource').filter((r) => r.name.endsWith('/vectors-common.bin')),
    ]);
    assert.equal(common.length, 1, 'fetched once');
    assert.ok(common[0].startTime >= mark, `asked at ${common[0].startTime} ms, the first figure drew at ${mark} ms`);
    assert.deepEqual(problems, []);
  } finally {
    await page.close();
  }
});

test('the first figure draws from the first chunk; a word outside it fetches only its shards; vectors.bin only for a text of many shards', async () => {
  let release;
  const held = new Promise((r) => (release = r));
  const shardsFetched = [];
  let wholeAsked = 0;
  const { page, problems } = await openWatched(browser, url, {
    viewport: { width: 1280, height: 900 },
    before: (page) => {
      page.on('request', (r) => {
        const m = r.url().match(/vectors-shards\/(\d+)\.bin$/);
        if (m) shardsFetched.push(Number(m[1]));
      });
      return page.route('**/vectors.bin', async (route) => {
        wholeAsked++;
        await held; // the whole table arrives only when the test says so
        await route.continue();
      });
    },
  });
  try {
    await drawn(page);
    await commonMerged(page); // the table the typed words are looked up in: first chunk + frequent words
    const { X } = vectors.embed('the train left the station on time', 64);
    assertWeights((await figureState(page, null)).map, core.parameterFree(X, Math.sqrt(vectors.dim)).weights, 'from the first chunk');
    assert.deepEqual(shardsFetched, [], 'the default sentence needs no shard');
    // Words outside the chunk — one in the table, one found through a stem, one in no table (composed from
    // fastText's n-gram rows) — are looked up exactly as the whole table does, from the shards of those words
    // and their stems alone.
    const text = 'the zebra grazed near zorblaxian stations';
    const expected = vectors.embed(text, 64);
    assert.deepEqual(
      expected.tokens.map((t) => t.lookup),
      ['known', 'known', 'stemmed', 'known', 'composed', 'known'],
    );
    await page.fill('#sentence', text);
    await drawn(page, { sentence: text });
    assertWeights((await figureState(page, null)).map, core.parameterFree(expected.X, Math.sqrt(vectors.dim)).weights, 'from the shards');
    const needed = new Set();
    for (const t of expected.tokens)
      if (!first.embed(t.text).tokens.every((u) => u.lookup === 'known'))
        for (const w of [t.text, ...core.stemCandidates(t.text)]) needed.add(shardOf(w));
    assert.deepEqual(
      [...new Set(shardsFetched)].sort((a, b) => a - b),
      [...needed].sort((a, b) => a - b),
    );
    assert.ok(needed.size <= 12, `${needed.size} shards`);
    // Typing more sentences of such words never asks for the whole table.
    await page.fill('#sentence', 'a zebra grazed in the savanna at dusk');
    await drawn(page, { sentence: 'a zebra grazed in the savanna at dusk' });
    assert.equal(wholeAsked, 0, 'vectors.bin not asked for');
    // A text whose rarer words would need most of the shards waits for the whole table instead.
    const rare = vectorsLayout(new Uint8Array(await readFile(join(root, 'data', 'vectors.bin'))))
      .words.slice(15000)
      .filter((w) => /^[a-z]+$/.test(w))
      .slice(0, 80);
    // Every time the store tells its subscribers (it recomputed), on the page's clock.
    await page.evaluate(() => {
      window.__told = [];
      window.attentionStore.subscribe(() => window.__told.push(performance.now()));
    });
    await page.fill('#sentence', rare.join(' '));
    await page.waitForFunction(
      () =>
        document.querySelector('[aria-busy="true"]') &&
        /^Loading the word vectors of “\w+”, “\w+”, “\w+” and more…$/.test(document.getElementById('loading').textContent),
    );
    const shardsBefore = new Set(shardsFetched).size;
    // Past the pause after typing (store.js TYPING_PAUSE_MS, 250 ms after the last keystroke) the store
    // recomputes for the word being typed: once it has, the last word's shards are not fetched either.
    await page.waitForFunction(() => window.__told.some((t) => t >= window.attentionStore.typedAt + 250), null, { timeout: 20_000 });
    assert.equal(new Set(shardsFetched).size, shardsBefore, 'no shard fetched for it');
    assert.equal(wholeAsked, 1, 'vectors.bin asked for once');
    // Meanwhile the last figure stays, under that message, rather than a blank.
    assert.equal(await page.evaluate(() => document.querySelector('#heatmap canvas.cells')?.attentionWeights?.T), 8);
    // The whole table then takes over: the same numbers.
    release();
    await page.waitForFunction(() => performance.getEntriesByName(new URL('vectors.bin', location.href).href).length === 1, null, {
      timeout: 20_000,
    });
    await page.fill('#sentence', 'the zebra left the station');
    await drawn(page, { sentence: 'the zebra left the station' });
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

test('the shards partition the whole table, each row with its very bytes; a shard is a file the core loads', async () => {
  const whole = new Uint8Array(await readFile(join(root, 'data', 'vectors.bin')));
  const seen = new Map();
  for (let id = 0; id < SHARDS; id++) {
    const bytes = new Uint8Array(await readFile(join(site, shardFile(id))));
    const shard = core.loadVectors(bytes);
    try {
      for (const word of vectorsLayout(bytes).words) {
        assert.equal(shardOf(word), id, word);
        assert.ok(!seen.has(word), `${word} in two shards`);
        seen.set(word, id);
      }
    } finally {
      shard.delete();
    }
  }
  assert.equal(seen.size, vectorsLayout(whole).count);
  // Merged with the first chunk, as the page does: the same vectors as the whole table.
  const merged = core.loadVectors(
    mergeVectors([
      new Uint8Array(await readFile(join(site, 'vectors-first.bin'))),
      subsetVectors(whole, (i, w) => shardOf(w) === shardOf('zebra')),
    ]),
  );
  try {
    assert.deepEqual(Array.from(merged.embed('the zebra').X.data), Array.from(vectors.embed('the zebra').X.data));
  } finally {
    merged.delete();
  }
});

test('typing rare words fetches their shards as each word is finished, not those of every prefix on the way', async () => {
  const text = 'a zebra grazed near the savanna';
  const shardsFetched = new Set();
  const { page, problems } = await openWatched(browser, url, {
    viewport: { width: 1280, height: 900 },
    before: (page) =>
      page.on('request', (r) => {
        const m = r.url().match(/vectors-shards\/(\d+)\.bin$/);
        if (m) shardsFetched.add(Number(m[1]));
      }),
  });
  try {
    await drawn(page);
    await commonMerged(page); // the table the typed words are looked up in: first chunk + frequent words
    await page.fill('#sentence', '');
    await page.locator('#sentence').pressSequentially(text, { delay: 30 });
    await drawn(page, { sentence: text });
    const expected = vectors.embed(text, 64);
    assertWeights((await figureState(page, null)).map, core.parameterFree(expected.X, Math.sqrt(vectors.dim)).weights, 'typed');
    // The shards of the finished words, and the shards only some prefix on the way would have needed.
    const shardsOf = (t) => [t.text, ...core.stemCandidates(t.text)].map(shardOf);
    const needed = new Set(first.embed(text).tokens.flatMap((t) => (t.lookup === 'known' ? [] : shardsOf(t))));
    const prefixesOnly = new Set();
    for (let n = 1; n < text.length; n++)
      for (const t of first.embed(text.slice(0, n)).tokens)
        if (t.lookup !== 'known') for (const id of shardsOf(t)) if (!needed.has(id)) prefixesOnly.add(id);
    for (const id of needed) assert.ok(shardsFetched.has(id), `shard ${id} fetched`);
    const wasted = [...prefixesOnly].filter((id) => shardsFetched.has(id));
    // A keystroke that stalls past the pause (a busy machine) may fetch one prefix's shards; every prefix would be many.
    assert.ok(prefixesOnly.size >= 10, `${prefixesOnly.size} shards needed by prefixes alone`);
    assert.ok(wasted.length <= 3, `shards of prefixes fetched: ${wasted.length} of ${prefixesOnly.size}`);
    console.log(
      `# typed “${text}”: ${shardsFetched.size} shards fetched (${needed.size} needed, ${wasted.length} of ${prefixesOnly.size} prefix-only)`,
    );
    assert.deepEqual(problems, []);
  } finally {
    await page.close();
  }
});

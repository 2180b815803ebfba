// Browser tests of the trained encoder as a source (data/encoder.bin): its maps are the core's and
// see both sides (the decoder's do not), fill-the-blank hides a word and lists the core's guesses
// beside that run's attention, and the every-layer view shows each layer × head and the rollout,
// opens a map in the heatmap, and scrolls by layer on a phone. Every number is compared with the same
// encoder run by the wasm core in node (harness modelReference).
// Build first: bash scripts/build.sh. Run: node --test tests/web/
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { assertLabels, assertWeights, drawn, figureState, modelReference, openWatched, readHeatmaps, startSession } from './harness.mjs';

const SENTENCE = 'the train left the station on time';
let session, browser, url, encoder, decoder;

before(async () => {
  session = await startSession();
  ({ browser, url } = session);
  encoder = await modelReference(session.api, 'encoder.bin');
  decoder = await modelReference(session.api, 'model.bin');
});

after(() => {
  encoder?.model.delete();
  decoder?.model.delete();
  return session?.stop();
});

/** The page at `query`, once its trained model has drawn (the guesses box shows with it). */
async function open(query, viewport = { width: 1280, height: 900 }) {
  const opened = await openWatched(browser, `${url}${query}`, { viewport });
  await drawn(opened.page, { timeout: 30_000, source: new URLSearchParams(query).get('source') });
  await opened.page.waitForFunction(() => !document.getElementById('predictions').hidden && !document.getElementById('plot').hidden, null, {
    timeout: 30_000,
  });
  return opened;
}

/** Whether any weight above the diagonal is positive: a word looking at a later word. */
const looksAhead = (m) => m.cells.some((c) => c.col > c.row && c.weight > 1e-6);

/** The guesses as listed: word and probability per row. */
const guessesShown = (page) =>
  page.$$eval('#predictions .prediction-list li', (items) =>
    items.map((li) => ({ word: li.dataset.word, probability: Number(li.dataset.probability) })),
  );

test('encoder and decoder on the same sentence: the core’s maps, both sides against only the past, each said in one line', async () => {
  const { page, problems } = await open(`?source=encoder&layer=1&head=2`);
  try {
    assert.equal(encoder.model.kind, 'encoder');
    const run = encoder.model.run(SENTENCE);
    let { map } = await figureState(page, null);
    assertWeights(map, run.layers[1].heads[2].weights, 'encoder L2 H3');
    assertLabels(map, run.tokens, 'encoder');
    assert.ok(looksAhead(map), 'the encoder looks at later words');
    const note = await page.textContent('#option-note');
    assert.match(note, /^Encoder: each word attends to the whole sentence/);
    assert.match(await page.textContent('#status'), /^Trained encoder: .*layers × .*heads/);

    await page.click('#more');
    await page.selectOption('#source', 'decoder');
    await drawn(page, { timeout: 30_000, source: 'decoder', layer: 1, head: 2 });
    await page.waitForFunction(() => /^Decoder:/.test(document.getElementById('option-note').textContent), null, { timeout: 30_000 });
    ({ map } = await figureState(page, null));
    const drun = decoder.model.run(SENTENCE);
    assertWeights(map, drun.layers[1].heads[2].weights, 'decoder L2 H3');
    assert.equal(looksAhead(map), false, 'the decoder never looks ahead');
    assert.equal(new URL(page.url()).searchParams.get('source'), 'decoder');
    assert.deepEqual(problems, []);
  } finally {
    await page.close();
  }
});

test('fill the blank: pressing a word hides it; the heatmap is the masked run and the guesses are the core’s top 5', async () => {
  const { page, problems } = await open('?source=encoder');
  try {
    const buttons = page.locator('#predictions .blank-word');
    assert.deepEqual(await buttons.allTextContents(), SENTENCE.split(' '));
    assert.match(await page.textContent('#predictions .predictions-title'), /Choose a word to hide/);
    await buttons.nth(4).click(); // "station"
    await drawn(page, { source: 'encoder', blank: 4, word: 4 });
    await page.waitForFunction(() => document.querySelectorAll('#predictions .prediction-list li').length === 5, null, {
      timeout: 20_000,
    });
    const params = new URL(page.url()).searchParams;
    assert.deepEqual([params.get('blank'), params.get('word')], ['4', '4'], 'the blank is in the URL and selected');
    assert.equal(await buttons.nth(4).getAttribute('aria-pressed'), 'true');

    const filled = encoder.model.fill(SENTENCE, 4, { top: 5 });
    assert.equal(filled.run.tokens[4].text, '[MASK]');
    const { map } = await figureState(page, null);
    assertWeights(map, filled.run.layers[0].heads[0].weights, 'masked run L1 H1');
    assert.equal(map.rowLabels[4].text, '[MASK]');
    const shown = await guessesShown(page);
    assert.deepEqual(
      shown.map((g) => g.word),
      filled.guesses.map((g) => g.word),
    );
    shown.forEach((g, k) => assert.ok(Math.abs(g.probability - filled.guesses[k].probability) < 1e-6, `guess ${k + 1}`));
    assert.ok(
      shown.every((g) => g.word !== '<unk>' && g.word !== '[MASK]'),
      'no <unk> or [MASK] among the guesses',
    );
    assert.match(await page.textContent('#predictions .predictions-title'), /guesses for word 5 \(it was “station”\)/);
    assert.match(await page.textContent('#story'), /^“\[MASK\]”/);

    // Pressed again, the word comes back.
    await buttons.nth(4).click();
    await drawn(page, { source: 'encoder', blank: null });
    await page.waitForFunction(() => !new URL(location.href).searchParams.has('blank'));
    const back = await figureState(page, null);
    assertWeights(back.map, encoder.model.run(SENTENCE).layers[0].heads[0].weights, 'unmasked again');
    assert.deepEqual(problems, []);
  } finally {
    await page.close();
  }
});

test('every layer: each layer × head and the rollout are the core’s, captioned; a map’s button opens it in the heatmap', async () => {
  const { page, problems } = await open('?source=encoder&view=model');
  try {
    const run = encoder.model.run(SENTENCE);
    const L = run.layers.length,
      H = run.layers[0].heads.length;
    const maps = await page.evaluate(readHeatmaps, { host: null, selector: '.model-map > .heatmap' });
    const where = await page.$$eval('.model-map', (boxes) => boxes.map((b) => ({ layer: b.dataset.layer, head: Number(b.dataset.head) })));
    assert.equal(maps.length, L * H + 1, `${L} layers × ${H} heads and the rollout`);
    where.forEach((w, k) => {
      const want = w.layer === 'rollout' ? run.rollout : run.layers[Number(w.layer)].heads[w.head].weights;
      assertWeights(maps[k], want, `map ${k} (layer ${w.layer}, head ${w.head})`);
    });
    assert.equal(where.at(-1).layer, 'rollout', 'the rollout is the last row');
    // One colour scale for every map.
    assert.equal(new Set(maps.map((m) => m.max)).size, 1);
    const titles = await page.$$eval('.model-row-title', (hs) => hs.map((h) => h.textContent));
    assert.deepEqual(titles, [...Array.from({ length: L }, (_, l) => `Layer ${l + 1}`), 'Rollout (all layers)']);
    // Captions come from the file (measured); the button names the map for a screen reader.
    const label = await page.getAttribute('.model-map[data-layer="1"][data-head="2"] .open-map', 'aria-label');
    assert.match(label, /^Open Layer 2 · head 3 in the heatmap/);

    await page.click('.model-map[data-layer="1"][data-head="2"] .open-map');
    await drawn(page, { source: 'encoder', view: 'heatmap', layer: 1, head: 2 });
    await page.waitForFunction(() => new URL(location.href).searchParams.get('view') === 'heatmap');
    const params = new URL(page.url()).searchParams;
    assert.deepEqual([params.get('layer'), params.get('head')], ['1', '2']);
    const { map } = await figureState(page, null);
    assertWeights(map, run.layers[1].heads[2].weights, 'opened L2 H3');
    // The view menu offers "every layer" with a trained source only.
    assert.equal(await page.locator('#view option[value=model]').isDisabled(), false);
    await page.click('#more');
    await page.selectOption('#source', 'vectors');
    await drawn(page, { source: 'vectors' });
    await page.waitForFunction(() => document.querySelector('#view option[value=model]').disabled);
    assert.deepEqual(problems, []);
  } finally {
    await page.close();
  }
});

test('phone: the every-layer view scrolls each layer sideways, the page does not', async () => {
  const context = await browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true, deviceScaleFactor: 2 });
  const page = await context.newPage();
  try {
    await page.goto(`${url}?source=encoder&view=model`);
    await drawn(page, { timeout: 30_000, source: 'encoder', view: 'model' });
    await page.waitForFunction(() => document.querySelectorAll('.model-map canvas.cells').length > 4, null, { timeout: 30_000 });
    const sizes = await page.evaluate(() => ({
      page: [document.documentElement.scrollWidth, document.documentElement.clientWidth],
      rows: [...document.querySelectorAll('.model-maps')].map((r) => [r.scrollWidth, r.clientWidth]),
    }));
    assert.ok(sizes.page[0] <= sizes.page[1], `the page is ${sizes.page[0]} px wide in ${sizes.page[1]}`);
    assert.ok(
      sizes.rows.slice(0, -1).every(([scroll, client]) => scroll > client),
      `each layer's row scrolls: ${JSON.stringify(sizes.rows)}`,
    );
    // The maps keep readable labels (12 px) rather than shrink.
    const font = await page.$eval('.model-map svg.hm-labels', (svg) => parseFloat(getComputedStyle(svg).fontSize));
    assert.ok(font >= 12, `labels at ${font} px`);
  } finally {
    await context.close();
  }
});

test('a hidden word of many pieces: when no whole-word guess is likely, the title says so and why; a one-piece word gets its guesses', async () => {
  const text = "my grandmother's recipe needs three ripe bananas";
  const title = (page) => page.textContent('#predictions .predictions-title');
  for (const [word, likely] of [
    [1, false], // grandmother's: five pieces, each scored on its own
    [4, true], // three: one piece
  ]) {
    const filled = encoder.model.fill(text, word, { top: 5 });
    // The model's own numbers decide which title applies: a guess of 0.1 % or more is a guess.
    assert.equal(filled.masked.length > 1 && filled.guesses[0].probability < 0.001, !likely, `word ${word}: ${filled.guesses[0].word}`);
    const { page, problems } = await open(`?source=encoder&sentence=${encodeURIComponent(text)}&blank=${word}`);
    try {
      await page.waitForFunction(() => document.querySelectorAll('#predictions .prediction-list li').length === 5, null, {
        timeout: 20_000,
      });
      assert.deepEqual(
        (await guessesShown(page)).map((g) => g.word),
        filled.guesses.map((g) => g.word),
      );
      if (likely) assert.match(await title(page), /^Fill the blank\. The encoder’s 5 best guesses for word 5 \(it was “three”\)/);
      else
        assert.match(
          await title(page),
          /^Fill the blank\. No guess of the encoder’s for word 2 \(it was “grandmother's”, 5 pieces\) is likely: it scores each hidden piece on its own/,
        );
      assert.deepEqual(problems, []);
    } finally {
      await page.close();
    }
  }
});

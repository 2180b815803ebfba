// Browser tests of the page on subword ("pieces") models: a copy of build/site, made in a temporary
// directory, whose encoder.bin and model.bin are the seeded stand-in pieces models
// (tests/reference/pieces_*.bin). Pieces are labelled the BertViz way ("tra", "##in"); units=words draws
// every map merged to words, equal to the core's mergePieces of the piece maps; the new key round-trips
// through the URL; a blank on a word of several pieces hides all of them and lists whole-word guesses;
// a long sentence is cut at a whole word inside the context's pieces; the heads ranking, which the core
// cannot give a pieces encoder yet, does not break the page. The words models' page offers no units.
// Every number is compared with the same model run by the wasm core in node.
// Build first: bash scripts/build.sh. Run: node --test tests/web/pieces.test.mjs
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFile, cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServer } from '../../scripts/serve.mjs';
import {
  HOSTILE,
  assertLabels,
  assertWeights,
  drawn,
  elementCensus,
  figureState,
  openWatched,
  readHeatmaps,
  root,
  settled,
  site,
  startSession,
} from './harness.mjs';
import { fromParams, toParams } from '../../web/lib/state.js';
import { joinPieces, labelled } from '../../web/lib/compute/model.js';

const SENTENCE = 'the train left the station on time'; // 13 pieces in the stand-ins' vocabulary
const LEFT = 2; // "left": le ##f ##t, three pieces
let session, browser, dir, server, url, core, encoder, decoder;

before(async () => {
  session = await startSession(); // the real site and Chromium
  ({ browser } = session);
  dir = await mkdtemp(join(tmpdir(), 'pieces-site-'));
  await cp(site, dir, { recursive: true });
  await copyFile(join(root, 'tests', 'reference', 'pieces_encoder.bin'), join(dir, 'encoder.bin'));
  await copyFile(join(root, 'tests', 'reference', 'pieces_decoder.bin'), join(dir, 'model.bin'));
  // The widget reads its own copies.
  await copyFile(join(dir, 'encoder.bin'), join(dir, 'widget', 'encoder.bin'));
  await copyFile(join(dir, 'model.bin'), join(dir, 'widget', 'model.bin'));
  await writeFile(
    join(dir, 'examples', 'pieces.html'),
    `<!doctype html><meta charset="utf-8"><link rel="icon" href="data:,"><script type="module" src="../widget/attention-widget.js"></script>
<attention-figure id="fig" sentence="${SENTENCE}" source="encoder" units="words" view="heatmap"></attention-figure>`,
  );
  ({ server, url } = await startServer(dir, 0));
  core = await session.api.loadAttentionWithModel({ wasmBinary: await readFile(join(root, 'build', 'wasm', 'attention_model_wasm.wasm')) });
  encoder = core.loadModel(new Uint8Array(await readFile(join(dir, 'encoder.bin'))));
  decoder = core.loadModel(new Uint8Array(await readFile(join(dir, 'model.bin'))));
});

after(async () => {
  encoder?.delete();
  decoder?.delete();
  if (server) await new Promise((done) => server.close(done));
  await session?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

/** The pieces page at `query`, once its trained model has drawn (the guesses box shows with it). */
async function open(query, { base = url, viewport = { width: 1280, height: 900 }, before } = {}) {
  const opened = await openWatched(browser, `${base}${query}`, { viewport, before });
  const params = new URLSearchParams(query);
  await drawn(opened.page, { timeout: 30_000, source: params.get('source'), units: params.get('units') ?? 'pieces' });
  await opened.page.waitForFunction(() => !document.getElementById('predictions').hidden && !document.getElementById('plot').hidden, null, {
    timeout: 30_000,
  });
  return opened;
}

/** The tokens of a run as the page labels them (the bare "▁" piece made visible). */
const tokensOf = (run) => labelled(run.tokens);
/** Word-level tokens: the words' texts, as the page's word maps label them. */
const wordTokens = (labels) => labels.map((text) => ({ text, lookup: 'known' }));

/**
 * A figure's word-level map: head `head` of layer `layer` of `run` merged to words by the core
 * (mergePieces), labelled by `words` (the sentence's, unless a blank hides one).
 */
function assertWordMap(map, run, [layer, head], what, words = SENTENCE.split(' ')) {
  const wordOf = run.tokens.map((t) => t.word);
  assertWeights(map, encoder.mergePieces(run.layers[layer].heads[head].weights, wordOf), what);
  assertLabels(map, wordTokens(words), what);
}

test('the stand-ins read pieces, and the page labels them the BertViz way', () => {
  assert.equal(encoder.vocabulary, 'pieces');
  assert.equal(decoder.vocabulary, 'pieces');
  const texts = encoder.run(SENTENCE).tokens.map((t) => t.text);
  assert.deepEqual(texts, ['the', 'tra', '##in', 'le', '##f', '##t', 'the', 'st', '##ation', 'on', 't', '##im', '##e']);
  // The bare word-start piece has an empty label: the page draws it as "▁"; other labels stay.
  assert.deepEqual(
    labelled([{ text: '' }, { text: '##in' }, { text: 'tra' }]).map((t) => t.text),
    ['▁', '##in', 'tra'],
  );
  // A word from its pieces' labels, byte pieces decoded (the stand-ins spell "▁" in bytes).
  assert.equal(joinPieces(['st', '##ation']), 'station');
  assert.equal(joinPieces(['<0xE2>', '<0x96>', '<0x81>', '<0xC3>', '<0xA9>', '##cl', '##a', '##ir']), 'éclair');
});

test('pieces drawn: the heatmap, every layer and the decoder label each piece (“##” continues a word)', async () => {
  const { page, problems } = await open('?source=encoder&layer=1&head=1');
  try {
    const run = encoder.run(SENTENCE);
    const { map } = await figureState(page, null);
    assertWeights(map, run.layers[1].heads[1].weights, 'encoder L2 H2');
    assertLabels(map, tokensOf(run), 'encoder pieces');
    assert.ok(
      map.colLabels.some((l) => l.text === '##ation'),
      'a continuing piece is labelled ##',
    );
    assert.match(await page.textContent('#option-note'), /subword pieces: “##” marks a piece that continues a word/);
    assert.match(await page.textContent('#status'), /706-piece vocabulary.*context 32 pieces/);
    assert.equal(await page.isVisible('#units'), true, 'units are offered for a pieces model');
    assert.deepEqual(problems, []);
  } finally {
    await page.close();
  }
  const decoded = await open('?source=decoder&view=model');
  try {
    const run = decoder.run(SENTENCE);
    const maps = await decoded.page.evaluate(readHeatmaps, { host: null, selector: '.model-map > .heatmap' });
    assert.equal(maps.length, run.layers.length * run.layers[0].heads.length + 1);
    assertWeights(maps[0], run.layers[0].heads[0].weights, 'decoder L1 H1');
    assertLabels(maps[0], tokensOf(run), 'decoder pieces');
    // The next-piece guesses are labelled as pieces too.
    const shown = await decoded.page.$$eval('#predictions .after .predicted', (els) => els.map((e) => e.textContent));
    assert.deepEqual(
      shown,
      run.predictions.map((p) => p.labels[0] || '▁'),
    );
    assert.deepEqual(decoded.problems, []);
  } finally {
    await decoded.page.close();
  }
});

test('units=words: every map is the core’s merge of the drawn piece maps, labelled by the words, and says its rule', async () => {
  const { page, problems } = await open('?source=encoder');
  try {
    const run = encoder.run(SENTENCE);
    const wordOf = run.tokens.map((t) => t.word);
    const pieceMap = (await figureState(page, null)).map;
    assertWeights(pieceMap, run.layers[0].heads[0].weights, 'pieces first');

    await page.selectOption('#units', 'words');
    await drawn(page, { source: 'encoder', units: 'words' });
    const { map } = await figureState(page, null);
    // The merge of the piece map the page drew a moment ago, by the core (mergePieces), to float precision.
    const merged = encoder.mergePieces(
      { rows: pieceMap.T, cols: pieceMap.T, data: Float32Array.from(pieceMap.cells.map((c) => c.weight)) },
      wordOf,
    );
    assertWeights(map, merged, 'words L1 H1', 1e-6);
    assertLabels(map, wordTokens(SENTENCE.split(' ')), 'word labels');
    assert.match(
      await page.textContent('#option-note'),
      /Word-level: a word’s weight on another is the sum over that word’s pieces, averaged over its own pieces\./,
    );
    assert.equal(new URL(page.url()).searchParams.get('units'), 'words');

    // Its exports carry the words and the merged maps, and say how they were merged.
    const exported = await page.evaluate(async () => {
      const fig = window.attentionFigure;
      const svg = new DOMParser().parseFromString(fig.exportSVG(), 'image/svg+xml');
      const png = await fig.exportPNG(1);
      return { json: fig.exportJSON(), texts: [...svg.querySelectorAll('text')].map((t) => t.textContent), png: png.size };
    });
    assert.deepEqual(exported.json.tokens, SENTENCE.split(' '));
    assert.equal(exported.json.settings.units, 'words');
    assert.match(exported.json.source, /context 32 pieces; .*word-level: a word’s weight on another is the sum over that word’s pieces/);
    const json0 = exported.json.attentions[0][0].flat();
    merged.data.forEach((v, k) => assert.ok(Math.abs(json0[k] - v) <= 1e-6, `JSON cell ${k}`));
    for (const word of SENTENCE.split(' ')) assert.ok(exported.texts.includes(word), `the SVG labels “${word}”`);
    assert.ok(!exported.texts.some((t) => t.startsWith('##')), 'and no piece');
    assert.ok(exported.png > 1000, 'a PNG');

    // Every layer × head and the rollout, merged.
    await page.selectOption('#view', 'model');
    await drawn(page, { source: 'encoder', units: 'words', view: 'model' });
    const maps = await page.evaluate(readHeatmaps, { host: null, selector: '.model-map > .heatmap' });
    const where = await page.$$eval('.model-map', (boxes) => boxes.map((b) => ({ layer: b.dataset.layer, head: Number(b.dataset.head) })));
    where.forEach((w, k) => {
      const piece = w.layer === 'rollout' ? run.rollout : run.layers[Number(w.layer)].heads[w.head].weights;
      assertWeights(maps[k], encoder.mergePieces(piece, wordOf), `words map ${k} (layer ${w.layer}, head ${w.head})`);
    });

    // The steps stay on pieces, and say so.
    await page.selectOption('#view', 'steps');
    await drawn(page, { source: 'encoder', units: 'words', view: 'steps' });
    const rows = await page.$$eval('#heatmap svg.steps .steps-row', (r) => r.length);
    assert.equal(rows, run.tokens.length, 'one row per piece');
    assert.match(await page.textContent('#option-note'), /This view stays on pieces/);
    assert.deepEqual(problems, []);
  } finally {
    await page.close();
  }
});

test('units round-trips through the URL and the state; a words model offers none', async () => {
  for (const units of ['pieces', 'words']) {
    const state = fromParams(new URLSearchParams(`source=encoder&units=${units}`));
    assert.equal(state.units, units);
    assert.equal(fromParams(toParams(state)).units, units);
  }
  assert.equal(fromParams(new URLSearchParams('source=encoder&units=letters')).units, 'pieces', 'an unknown value');
  assert.equal(toParams(fromParams(new URLSearchParams('source=encoder'))).has('units'), false, 'the default is left out');

  const { page, problems } = await open('?source=encoder&units=words&view=heatmap&layer=1&head=0&word=4');
  try {
    assert.equal(await page.inputValue('#units'), 'words');
    const run = encoder.run(SENTENCE);
    const { map } = await figureState(page, null);
    assertWordMap(map, run, [1, 0], 'opened on words');
    assert.equal(map.rowLabels[4].text, 'station');
    // Its share link keeps it.
    assert.equal(new URL(page.url()).searchParams.get('units'), 'words');
    // A view that stays on pieces (the steps) offers no choice; back on the heatmap, the choice is there again.
    await page.selectOption('#view', 'steps');
    await drawn(page, { view: 'steps' });
    assert.equal(await page.isVisible('#units'), false, 'the steps view stays on pieces');
    await page.selectOption('#view', 'heatmap');
    await drawn(page, { view: 'heatmap' });
    assert.equal(await page.isVisible('#units'), true);
    assert.deepEqual(problems, []);
  } finally {
    await page.close();
  }
  // The widget's attribute of the same name.
  const widget = await openWatched(browser, `${url}examples/pieces.html`, { viewport: { width: 1000, height: 900 } });
  try {
    await drawn(widget.page, { scope: '#fig', timeout: 30_000, source: 'encoder', units: 'words' });
    const { map } = await figureState(widget.page, '#fig');
    const run = encoder.run(SENTENCE);
    assertWordMap(map, run, [0, 0], 'widget units="words"');
    // Set from a script, the attribute switches it back to pieces.
    await widget.page.evaluate(() => document.getElementById('fig').setAttribute('units', 'pieces'));
    await drawn(widget.page, { scope: '#fig', source: 'encoder', units: 'pieces' });
    assertLabels((await figureState(widget.page, '#fig')).map, tokensOf(run), 'widget pieces');
    assert.deepEqual(widget.problems, []);
  } finally {
    await widget.page.close();
  }
  // A words encoder (the engine's fixture, tests/reference/words_encoder.bin, served as encoder.bin): no units to choose.
  const wordsEncoder = await readFile(join(root, 'tests', 'reference', 'words_encoder.bin'));
  const words = await open('?source=encoder', {
    base: session.url,
    before: (page) =>
      page.route(/\/encoder\.bin$/, (route) => route.fulfill({ body: wordsEncoder, contentType: 'application/octet-stream' })),
  });
  try {
    assert.equal(await words.page.isVisible('#units'), false);
    assert.deepEqual(words.problems, []);
  } finally {
    await words.page.close();
  }
});

test('fill the blank on a word of three pieces: any of its pieces hides them all; the guesses are whole words', async () => {
  const { page, problems } = await open('?source=encoder');
  try {
    const buttons = page.locator('#predictions .blank-word');
    assert.deepEqual(
      await buttons.allTextContents(),
      encoder.run(SENTENCE).tokens.map((t) => t.text),
    );
    await buttons.nth(4).click(); // "##f", the middle piece of "left"
    await drawn(page, { source: 'encoder', blank: LEFT, word: 3 });
    await page.waitForFunction(() => document.querySelectorAll('#predictions .prediction-list li').length === 5, null, { timeout: 20_000 });
    const filled = encoder.fill(SENTENCE, LEFT, { top: 5 });
    assert.deepEqual(filled.masked, [3, 4, 5]);
    const pressed = await buttons.evaluateAll((bs) => bs.map((b) => b.getAttribute('aria-pressed')));
    assert.deepEqual(
      pressed.map((p, i) => [i, p]).filter(([, p]) => p === 'true'),
      filled.masked.map((i) => [i, 'true']),
      'every piece of the word is pressed',
    );
    const { map } = await figureState(page, null);
    assertWeights(map, filled.run.layers[0].heads[0].weights, 'masked run L1 H1');
    for (const t of filled.masked) assert.equal(map.rowLabels[t].text, '[MASK]', `piece ${t} hidden`);
    const shown = await page.$$eval('#predictions .after .prediction-list li', (items) =>
      items.map((li) => ({
        word: li.dataset.word,
        probability: Number(li.dataset.probability),
        text: li.querySelector('.predicted').textContent,
      })),
    );
    assert.deepEqual(
      shown.map((g) => g.word),
      filled.guesses.map((g) => g.word),
    );
    shown.forEach((g, k) => {
      assert.ok(Math.abs(g.probability - filled.guesses[k].probability) < 1e-6, `guess ${k + 1}`);
      // A whole word, its pieces named after it.
      assert.equal(g.text, `${filled.guesses[k].word}${filled.guesses[k].labels.join(' ')}`);
      assert.equal(filled.guesses[k].labels.length, 3);
    });
    // The stand-in's guesses are all below 0.1 %: the title says none is likely (guesses.js), else it lists them.
    assert.match(
      await page.textContent('#predictions .predictions-title'),
      filled.guesses[0].probability < 0.001
        ? /No guess of the encoder’s for word 3 \(it was “left”, 3 pieces\) is likely/
        : /guesses for word 3 \(it was “left”\)/,
    );
    assert.match(await page.textContent('#option-note'), /Word 3 \(“left”, 3 pieces\) is hidden/);

    // As words, the blank is one [MASK] word; its button is the word's.
    await page.selectOption('#units', 'words');
    await drawn(page, { source: 'encoder', blank: LEFT, units: 'words' });
    const words = await figureState(page, null);
    assertWordMap(words.map, filled.run, [0, 0], 'masked words', SENTENCE.split(' ').with(LEFT, '[MASK]'));
    assert.deepEqual(await buttons.allTextContents(), SENTENCE.split(' '));
    assert.equal(await buttons.nth(LEFT).getAttribute('aria-pressed'), 'true');

    // The heads ranking: the core's when it gives one for a pieces encoder (helper B's head_effects);
    // while it refuses, a line says why and the page goes on.
    await page.click('#predictions .effects-button');
    await page.waitForSelector('#predictions .effects-body p');
    let effects = null;
    try {
      effects = encoder.headEffects(SENTENCE, { position: LEFT });
    } catch (e) {
      assert.ok(e instanceof session.api.AttentionError, e.message);
      assert.match(await page.textContent('#predictions .effects-body'), /cannot be ranked for this model yet/);
    }
    if (effects) {
      const drops = await page.$$eval('#predictions .effect', (bs) => bs.map((b) => Number(b.dataset.drop)));
      assert.deepEqual(
        drops,
        effects.heads.map((e) => e.drop),
      );
    }
    assert.equal(await page.isVisible('#plot'), true);

    // With a head switched off, before → after still lists whole words.
    await page.goto(`${url}?source=encoder&blank=${LEFT}&off=1.1`);
    await drawn(page, { source: 'encoder', blank: LEFT, off: '1.1' });
    const before = await page.$$eval('#predictions .before .prediction-list li', (items) => items.map((li) => li.dataset.word));
    assert.deepEqual(
      before,
      encoder.fill(SENTENCE, LEFT, { top: 5 }).guesses.map((g) => g.word),
    );
    const afterOff = await page.$$eval('#predictions .after .prediction-list li', (items) => items.map((li) => li.dataset.word));
    assert.deepEqual(
      afterOff,
      encoder
        .fill(SENTENCE, LEFT, { top: 200, off: { heads: [[0, 0]] } })
        .guesses.slice(0, 5)
        .map((g) => g.word),
    );
    assert.deepEqual(problems, []);
  } finally {
    await page.close();
  }
});

test('a sentence over the context is cut at a whole word, counted in pieces, and the note says so', async () => {
  // "the" is one piece and "station" two: 20 pairs are 60 pieces; the stand-ins' context holds 32.
  const long = Array.from({ length: 20 }, () => 'the station').join(' ');
  const { page, problems } = await open(`?source=encoder&sentence=${encodeURIComponent(long)}`);
  try {
    const fitted = encoder.run(long, { fit: true });
    const { words, pieces, totalWords, totalPieces } = fitted.fitted.cut;
    assert.deepEqual([words, pieces, totalWords, totalPieces], [21, 31, 40, 60]);
    const { map, message } = await figureState(page, null);
    assert.equal(map.T, pieces);
    assertWeights(map, fitted.layers[0].heads[0].weights, 'cut run');
    // The cut text tokenises to itself: the same as running it whole.
    assertWeights(map, encoder.run(fitted.fitted.text).layers[0].heads[0].weights, 'the cut text itself');
    assert.equal(
      message,
      `That is 40 words (60 pieces); the trained encoder reads at most 32 pieces, so the figure shows the first 21 words (31 pieces).`,
    );
    assert.deepEqual(problems, []);
  } finally {
    await page.close();
  }
});

test('while a model loads the last figure stays and a quiet line says what loads; then the model draws', async () => {
  let release;
  const gate = new Promise((done) => (release = done));
  const { page, problems } = await openWatched(browser, `${url}?sentence=${encodeURIComponent(SENTENCE)}`, {
    viewport: { width: 1280, height: 900 },
    // The encoder's file waits until the test lets it through.
    before: (p) => p.route('**/encoder.bin', async (route) => (await gate, route.continue())),
  });
  try {
    await drawn(page, { source: 'vectors' });
    const vectorsMap = (await figureState(page, null)).map;
    await page.click('#more');
    await page.selectOption('#source', 'encoder');
    await page.waitForFunction(() => !document.getElementById('loading').hidden);
    const during = await page.evaluate(() => ({
      busy: document.querySelector('.af').getAttribute('aria-busy'),
      plot: !document.getElementById('plot').hidden,
      loading: document.getElementById('loading').textContent,
    }));
    assert.deepEqual(during, { busy: 'true', plot: true, loading: 'Loading the trained encoder (under 1 MB, once)…' });
    assert.equal((await figureState(page, null)).map.T, vectorsMap.T, 'the word-vector figure is still there');
    release();
    await drawn(page, { source: 'encoder' });
    assert.equal(await page.isHidden('#loading'), true);
    assertWeights((await figureState(page, null)).map, encoder.run(SENTENCE).layers[0].heads[0].weights, 'the encoder, loaded');
    assert.deepEqual(problems, []);
  } finally {
    release();
    await page.close();
  }
});

test('hostile text on a pieces encoder: the core’s cut run or its message, nothing injected, no error', async () => {
  const { page, problems } = await open('?source=encoder');
  try {
    const box = page.locator('#sentence');
    const baseline = await elementCensus(page);
    for (const { name, text } of HOSTILE) {
      await box.fill(text);
      const sentence = await box.inputValue();
      await drawn(page, { source: 'encoder', sentence });
      await settled(page, null);
      const { map, message } = await figureState(page, null);
      let want = null;
      try {
        want = encoder.run(sentence, { fit: true });
      } catch (e) {
        // No words, or one word longer than the whole context: the page says what the core says.
        assert.ok(message, `${name}: a message for “${e.message}”`);
      }
      if (want) assertWeights(map, want.layers[0].heads[0].weights, name);
      if (want) assertLabels(map, tokensOf(want), name);
      const census = await elementCensus(page);
      assert.deepEqual(census.counts, baseline.counts, `${name}: no element injected`);
      assert.equal(census.pwned, null, `${name}: no payload ran`);
      assert.deepEqual(problems, [], `${name}: no console error, page error or dialog`);
    }
  } finally {
    await page.close();
  }
});

test('predict, then reveal, asks about the rows the figure draws: the words with units=words', async () => {
  const { page, problems } = await open('?source=encoder&units=words&word=1');
  try {
    await page.click('#predict-row-start');
    const queries = await page.$$eval('#predict-row-query option', (os) => os.map((o) => o.textContent));
    assert.deepEqual(
      queries,
      SENTENCE.split(' ').map((w, i) => `${w} (${i + 1})`),
    );
    assert.equal(await page.inputValue('#predict-row-query'), '1');
    assert.deepEqual(problems, []);
  } finally {
    await page.close();
  }
});

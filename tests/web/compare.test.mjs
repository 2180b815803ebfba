// The compare view (issue 15): one word in two sentences. In node, the comparison (web/lib/views/compare/)
// against the core run directly: the second sentence's weights, the word's nearest words before and
// after attention (the core's search), and the difference map. In the browser: the view draws
// those numbers, its difference map equals the two figures' own weights subtracted, the state goes
// through the URL and the widget's attributes, the exports hold it, and on a phone the sides stack.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { DEFAULTS, apply, fromParams, toParams } from '../../web/lib/state.js';
import { compute, wordOf } from '../../web/lib/compute.js';
import { compareLine, compareOf } from '../../web/lib/views/compare/comparison.js';
import { drawn, figureState, modelReference, openWatched, startSession } from './harness.mjs';

let session, browser, url, core, vectors, api;
const CHECK = 'he cashed a check at the bank',
  RIVER = 'the boat drifted to the bank of the river';
// Where a bare view=compare opens (views/compare/index.js): "bank" is token 6 on every source.
const OPENING = 'he put his money in the bank';
const TRAIN = 'the train left the station on time',
  BUS = 'the bus left the station on time';

before(async () => {
  session = await startSession();
  ({ browser, url, core, vectors, api } = session);
});
after(() => session?.stop());

/** The figure's weights and outputs for a sentence, by the core directly (parameter-free, √d). */
function figure(text) {
  const { tokens, X } = vectors.embed(text, 1024);
  return { tokens, X, ...core.parameterFree(X, Math.sqrt(vectors.dim), { temperature: 1 }) };
}
const row = (m, i) => m.data.subarray(i * m.cols, (i + 1) * m.cols);
const nearest = (m, i, word) => vectors.nearest(row(m, i), 5, { exclude: [word] }).map(({ word, similarity }) => ({ word, similarity }));

/** The compare view's computation in node, with the page's compute. */
const nodeCompare = () => ({ compareOf, compareLine });

test('the comparison in node: the second sentence, the nearest words before and after, the difference', () => {
  const lib = nodeCompare();
  const sources = { core, vectors, lm: null, imported: null, edits: null };
  for (const [s1, s2, word] of [
    [CHECK, RIVER, 'bank'],
    [TRAIN, BUS, 'station'],
    [CHECK, RIVER, 'check'],
  ]) {
    const state = apply(DEFAULTS, { sentence: s1, sentence2: s2, view: 'compare', word: s1.split(' ').indexOf(word) });
    const c = lib.compareOf(state, sources, compute(state, sources));
    const a = figure(s1),
      b = figure(s2),
      i = s1.split(' ').indexOf(word),
      j = s2.split(' ').indexOf(word);
    assert.equal(c.ok, true);
    assert.deepEqual([c.i, c.j, c.text], [i, j, word]);
    assert.deepEqual(Array.from(c.rows[0]), Array.from(row(a.weights, i)));
    if (j >= 0) assert.deepEqual(Array.from(c.rows[1]), Array.from(row(b.weights, j)));
    const words = (list) => list.words.map(({ word, similarity }) => ({ word, similarity }));
    assert.deepEqual(words(c.before[0]), nearest(a.X, i, word), `${word}: before, sentence 1`);
    assert.deepEqual(words(c.after[0]), nearest(a.output, i, word), `${word}: after, sentence 1`);
    if (j >= 0) {
      assert.deepEqual(words(c.before[1]), nearest(b.X, j, word), `${word}: before, sentence 2`);
      assert.deepEqual(words(c.after[1]), nearest(b.output, j, word), `${word}: after, sentence 2`);
    }
    // For the notes: what the numbers say, whatever they are.
    console.log(
      `# ${word} in “${s1}” / “${s2}”: before ${c.before[0].words.map((n) => `${n.word} ${n.similarity.toFixed(3)}`).join(', ')}; ` +
        `after ${c.after[0].words.map((n) => `${n.word} ${n.similarity.toFixed(3)}`).join(', ')}` +
        (j >= 0 ? ` | second: after ${c.after[1].words.map((n) => `${n.word} ${n.similarity.toFixed(3)}`).join(', ')}` : ''),
    );
    console.log(`# ${lib.compareLine(c)}`);
    if (s1.split(' ').length === s2.split(' ').length) {
      c.difference.data.forEach((v, k) => assert.equal(v, Math.fround(a.weights.data[k] - b.weights.data[k])));
      assert.deepEqual(c.changed, [1]);
    } else assert.equal(c.difference, null);
  }
  // The word is not in the second sentence: said, not guessed.
  const state = apply(DEFAULTS, { sentence: CHECK, sentence2: TRAIN, view: 'compare', word: 3 });
  const c = lib.compareOf(state, sources, compute(state, sources));
  assert.equal(c.j, -1);
  // A bare view=compare opens on "bank".
  const opening = fromParams(new URLSearchParams('view=compare'));
  assert.equal(lib.compareOf(opening, sources, compute(opening, sources)).text, 'bank');
  assert.match(lib.compareLine(c), /“check” is not in the second sentence/);
});

test('before the whole table is here the lists say they are loading, then (if it failed) why, and the story waits', () => {
  const lib = nodeCompare();
  // The first chunk and the whole table give the same rows, so the whole table can stand in for it here.
  const partial = { core, vectors, vectorsPartial: true, vectorsShards: new Set(), imported: null, edits: null };
  const state = apply(DEFAULTS, { sentence: TRAIN, sentence2: BUS, view: 'compare', word: 4 });
  const waiting = lib.compareOf(state, partial, compute(state, partial));
  assert.equal(waiting.ok, true);
  assert.equal(waiting.waiting, true);
  for (const lists of [waiting.before, waiting.after])
    for (const list of lists) assert.deepEqual(list, { words: [], note: 'loading the whole word-vector table…' });
  assert.equal(lib.compareLine(waiting), '');
  // A failure is said, even though the sentence's own numbers (and so its result) did not change.
  const failed = { ...partial, vectorsError: new Error('vectors.bin: HTTP 404 Not Found') };
  const c = lib.compareOf(state, failed, compute(state, failed), waiting);
  assert.match(c.before[0].note, /could not load \(vectors\.bin: HTTP 404/);
  // The whole table: the lists, no longer waiting.
  const whole = { ...partial, vectorsPartial: false };
  const done = lib.compareOf(state, whole, compute(state, whole), c);
  assert.equal(done.waiting, undefined);
  assert.equal(done.before[0].words.length, 5);
  assert.match(lib.compareLine(done), /the nearest words to “station” move toward/);
});

test('with a trained model: its input and the chosen layer’s output at the word, through its own embedding', async () => {
  const lib = nodeCompare();
  for (const [kind, file] of [
    ['encoder', 'encoder.bin'],
    ['decoder', 'model.bin'],
  ]) {
    const ref = await modelReference(api, file);
    try {
      const sources = {
        core,
        vectors,
        trained: { decoder: null, encoder: null, [kind]: { core: ref.core, model: ref.model } },
        trainedError: { decoder: null, encoder: null },
        imported: null,
        edits: null,
      };
      // A bare view=compare opens on "bank" with the model too (every word before it is one piece).
      const opening = fromParams(new URLSearchParams(`view=compare&source=${kind}`));
      assert.equal(lib.compareOf(opening, sources, compute(opening, sources)).text, 'bank', `${kind}: the opening's word`);
      // The compare view works token by token: a pieces model's "bank" is the piece labelled bank.
      const bank = (text) => ref.model.run(text).tokens.findIndex((t) => t.text === 'bank');
      const [i, j] = [bank(CHECK), bank(RIVER)];
      for (const layer of [0, ref.model.layers - 1]) {
        const state = apply(DEFAULTS, { source: kind, layer, head: 1, sentence: CHECK, sentence2: RIVER, view: 'compare', word: i });
        const c = lib.compareOf(state, sources, compute(state, sources));
        assert.equal(c.ok, true, c.message);
        const a = ref.model.run(CHECK),
          b = ref.model.run(RIVER);
        assert.deepEqual([c.i, c.j, c.text], [i, j, 'bank']);
        assert.deepEqual(Array.from(c.rows[0]), Array.from(row(a.layers[layer].heads[1].weights, i)));
        assert.deepEqual(Array.from(c.rows[1]), Array.from(row(b.layers[layer].heads[1].weights, j)));
        const near = (run, m, t) =>
          ref.model
            .nearest(row(m, t), 5, { exclude: [run.tokens[t].id], finalNorm: true })
            .map(({ word, similarity }) => ({ word, similarity }));
        const words = (list) => list.words.map(({ word, similarity }) => ({ word, similarity }));
        assert.deepEqual(words(c.before[0]), near(a, a.input, i));
        assert.deepEqual(words(c.before[1]), near(b, b.input, j));
        assert.deepEqual(words(c.after[0]), near(a, a.layers[layer].output, i));
        assert.deepEqual(words(c.after[1]), near(b, b.layers[layer].output, j));
        assert.match(c.stages.after, new RegExp(`^after (the last layer \\(${layer + 1}|layer ${layer + 1}) of ${ref.model.layers}`));
        assert.match(lib.compareLine(c), new RegExp(`^After .*in the trained ${kind}, the nearest words to “bank” move toward`));
        console.log(
          `# ${kind} layer ${layer + 1}: bank (cheque) ${c.after[0].words.map((n) => `${n.word} ${n.similarity.toFixed(3)}`).join(', ')}` +
            ` | bank (river) ${c.after[1].words.map((n) => `${n.word} ${n.similarity.toFixed(3)}`).join(', ')}`,
        );
      }
      // A blank hides the word: the view says how to get it back rather than compare a [MASK].
      if (kind === 'encoder') {
        const state = apply(DEFAULTS, { source: kind, sentence: CHECK, sentence2: RIVER, view: 'compare', word: 6, blank: 6 });
        const c = lib.compareOf(state, sources, compute(state, sources));
        assert.equal(c.ok, false);
        assert.match(c.message, /“bank” hidden/);
      }
    } finally {
      ref.model.delete();
    }
  }
});

test('state: the compare view and its second sentence go through the URL; a bare view=compare opens on the bank pair', () => {
  const state = apply(DEFAULTS, { sentence: TRAIN, sentence2: BUS, view: 'compare', word: 4 });
  const params = toParams(state);
  assert.equal(params.get('view'), 'compare');
  assert.equal(params.get('sentence2'), BUS);
  assert.deepEqual(fromParams(new URLSearchParams(params.toString())), state);
  const bare = fromParams(new URLSearchParams('view=compare'));
  assert.deepEqual([bare.sentence, bare.sentence2, bare.word], [OPENING, RIVER, 6]);
  // Switching to the view from the untouched default sentence, too; a sentence of the reader's stays.
  assert.equal(apply(DEFAULTS, { view: 'compare' }).sentence, OPENING);
  assert.equal(apply({ ...DEFAULTS, sentence: 'my own words' }, { view: 'compare' }).sentence, 'my own words');
});

/** What the compare view draws: each side's rows (key, weight) and nearest words, and the difference map. */
const readCompare = (page, host = null) =>
  page.evaluate((host) => {
    const scope = host ? document.querySelector(host).shadowRoot : document;
    const sides = [...scope.querySelectorAll('svg.compare-side')].map((svg) => ({
      rows: [...svg.querySelectorAll('g.compare-row')].map((g) => [Number(g.dataset.key), Number(g.dataset.value)]),
      neighbours: [...svg.querySelectorAll('text.neighbour')].map((t) => [t.dataset.word, Number(t.dataset.similarity)]),
      box: svg.getBoundingClientRect().toJSON(),
    }));
    const canvas = scope.querySelector('.compare-diff canvas.cells');
    const map = canvas?.attentionWeights;
    return {
      sides,
      map: map && { ...map, data: Array.from(map.data) },
      story: scope.getElementById('story').textContent,
      mapHidden: scope.querySelector('.compare-diff')?.hidden,
    };
  }, host);

test('the page draws the comparison; its difference map is the two figures’ own weights subtracted', async () => {
  const { page, problems } = await openWatched(browser, `${url}?sentence=${encodeURIComponent(TRAIN)}&view=heatmap`, {
    viewport: { width: 1280, height: 900 },
  });
  try {
    // The two figures, as the page draws them.
    await drawn(page, { sentence: TRAIN, view: 'heatmap' });
    const w1 = (await figureState(page, null)).map;
    await page.fill('#sentence', BUS);
    await drawn(page, { sentence: BUS, view: 'heatmap' });
    const w2 = (await figureState(page, null)).map;
    await page.fill('#sentence', TRAIN);
    // The compare view, on a sentence of the reader's own (the untouched default would open on the bank pair).
    await page.selectOption('#view', 'compare');
    await page.fill('#sentence', TRAIN);
    await page.fill('#sentence2', BUS);
    await page.selectOption('#word', '4');
    await drawn(page, { view: 'compare', sentence: TRAIN, sentence2: BUS, word: 4 });
    // The nearest words search the whole table, which comes after the view's first drawing.
    await page.waitForFunction(() => document.querySelectorAll('svg.compare-side text.neighbour').length === 20, null, { timeout: 20_000 });
    const shown = await readCompare(page);
    const cell = (m, r, c) => m.cells.find((x) => x.row === r && x.col === c).weight;
    shown.map.data.forEach((v, n) => {
      const r = Math.floor(n / 7),
        c = n % 7;
      assert.ok(Math.abs(v - (cell(w1, r, c) - cell(w2, r, c))) < 1e-6, `difference (${r}, ${c})`);
    });
    const a = figure(TRAIN),
      b = figure(BUS);
    assert.deepEqual(
      shown.sides[0].rows.map(([, w]) => w),
      Array.from(row(a.weights, 4)),
    );
    assert.deepEqual(
      shown.sides[1].rows.map(([, w]) => w),
      Array.from(row(b.weights, 4)),
    );
    const want = [...nearest(a.X, 4, 'station'), ...nearest(a.output, 4, 'station')].map((n) => [n.word, n.similarity]);
    assert.deepEqual(shown.sides[0].neighbours, want);
    assert.match(shown.story, /^After attention, the nearest words to “station” move toward/);
    assert.match(page.url(), /view=compare/);
    assert.match(page.url(), /sentence2=the\+bus/);
    // Side by side on a desktop.
    assert.ok(Math.abs(shown.sides[0].box.top - shown.sides[1].box.top) < 1 && shown.sides[1].box.left > shown.sides[0].box.right);
    // The exports hold it: JSON with both sentences, the nearest words and the difference; SVG with both sides and the map.
    const json = await page.evaluate(() => window.attentionFigure.exportJSON());
    assert.equal(json.compare.word, 'station');
    assert.deepEqual(json.compare.tokens2, BUS.split(' '));
    assert.equal(json.compare.nearest.after[1].length, 5);
    assert.equal(json.compare.difference.length, 7);
    const svg = await page.evaluate(() => window.attentionFigure.exportSVG());
    assert.equal((svg.match(/data-word=/g) ?? []).length, 20);
    assert.ok((svg.match(/<rect[^>]*data-row=/g) ?? []).length >= 49, 'the difference map’s cells');
    // A sentence pair of different lengths: no difference map, and the view says why it is gone.
    await page.fill('#sentence2', 'the bus left');
    await drawn(page, { view: 'compare', sentence2: 'the bus left' });
    await page.waitForFunction(() => document.querySelector('.compare-diff')?.hidden === true);
    assert.deepEqual(problems, []);
  } finally {
    await page.close();
  }
});

test('the page with the trained encoder: the lists are the model’s own nearest words, the story says which layer', async () => {
  const ref = await modelReference(api, 'encoder.bin');
  // "bank" as the encoder reads each sentence (a pieces model: the piece labelled bank).
  const bank = (text) => ref.model.run(text).tokens.findIndex((t) => t.text === 'bank');
  const { page, problems } = await openWatched(browser, `${url}?view=compare&source=encoder&layer=2&head=0&word=${bank(OPENING)}`, {
    viewport: { width: 1280, height: 900 },
  });
  try {
    await drawn(page, { view: 'compare', source: 'encoder', layer: 2, head: 0 });
    await page.waitForFunction(() => document.querySelectorAll('svg.compare-side text.neighbour').length === 20, null, { timeout: 30_000 });
    const shown = await readCompare(page);
    // Each side: bank's row of layer 3, head 1, and its nearest words in the input, then after layer 3.
    [
      [OPENING, bank(OPENING)],
      [RIVER, bank(RIVER)],
    ].forEach(([text, t], k) => {
      const run = ref.model.run(text);
      const near = (m) =>
        ref.model.nearest(row(m, t), 5, { exclude: [run.tokens[t].id], finalNorm: true }).map((n) => [n.word, n.similarity]);
      assert.deepEqual(
        shown.sides[k].rows.map(([, w]) => w),
        Array.from(row(run.layers[2].heads[0].weights, t)),
      );
      assert.deepEqual(shown.sides[k].neighbours, [...near(run.input), ...near(run.layers[2].output)]);
    });
    assert.match(shown.story, /^After the last layer \(3 of 3\), in the trained encoder, the nearest words to “bank” move toward/);
    // The encoder's fill-the-blank buttons belong to one sentence: not offered beside two.
    assert.equal(await page.evaluate(() => document.getElementById('predictions').hidden), true);
    assert.deepEqual(problems, []);
  } finally {
    await page.close();
    ref.model.delete();
  }
});

test('phone: the two sides stack; the widget takes view="compare" and sentence2', async () => {
  const { page, problems } = await openWatched(browser, `${url}?view=compare`, { viewport: { width: 390, height: 844 } });
  try {
    await drawn(page, { view: 'compare' });
    await page.waitForFunction(() => document.querySelectorAll('svg.compare-side text.neighbour').length === 20, null, { timeout: 20_000 });
    const shown = await readCompare(page);
    assert.ok(shown.sides[1].box.top >= shown.sides[0].box.bottom - 1, 'stacked');
    assert.ok(
      shown.sides.every((s) => s.box.right <= 390),
      'within the screen',
    );
    assert.equal(await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth), 0);
    await page.goto(`${url}examples/index.html`);
    await page.evaluate(
      ({ a, b }) => {
        const el = document.createElement('attention-figure');
        el.id = 'fig-compare';
        el.setAttribute('view', 'compare');
        el.setAttribute('sentence', a);
        el.setAttribute('sentence2', b);
        el.setAttribute('word', '6');
        document.querySelector('article').append(el);
      },
      { a: CHECK, b: RIVER },
    );
    await drawn(page, { scope: '#fig-compare', view: 'compare', sentence: CHECK, sentence2: RIVER, word: 6 });
    await page.waitForFunction(
      () => document.querySelector('#fig-compare')?.shadowRoot.querySelectorAll('svg.compare-side text.neighbour').length === 20,
      null,
      { timeout: 20_000 },
    );
    const w = await readCompare(page, '#fig-compare');
    const a = figure(CHECK);
    assert.deepEqual(
      w.sides[0].rows.map(([, x]) => x),
      Array.from(row(a.weights, 6)),
    );
    assert.equal(w.mapHidden, true, 'sentences of different lengths: no difference map');
    assert.deepEqual(
      problems.filter((p) => !/examples/.test(p)),
      [],
    );
  } finally {
    await page.close();
  }
});

// Browser tests of the figure's "trained model" source (data/model.bin, run by the wasm core through
// loadModel): on the page and in the <attention-figure> widget, every layer and head, the rollout,
// the heads grid with captions, the steps view, the next-word guesses, the explainer's query/key view
// and its LN₁(x), learnt W_Q, W_K, W_V, biases and W_O, the 32-token context, switching back to word
// vectors, URL state, a failed load, and hostile text.
// Every number is compared with the same model run by the wasm core in node (harness modelReference).
// Build first: bash scripts/build.sh. Run: node --test tests/web/
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  HOSTILE,
  RELAXED_CORE,
  assertColours,
  assertLabels,
  assertShowsModel,
  assertWeights,
  coreFetches,
  drawn,
  elementCensus,
  figureState,
  modelReference,
  onScreen as stepOnScreen,
  openWatched,
  readHeatmaps,
  settled,
  startSession,
} from './harness.mjs';
import { DEFAULTS, fromParams, toParams } from '../../web/lib/state.js';

const SENTENCE = 'the train left the station on time';
const TOLERANCE = 1e-6;
let session, browser, url, core, vectors, lm;

before(async () => {
  session = await startSession();
  ({ browser, url, core, vectors } = session);
  lm = await modelReference(session.api);
});

after(() => {
  lm?.model.delete();
  return session?.stop();
});

const near = (a, b, where) => assert.ok(Math.abs(Number(a) - b) <= TOLERANCE, `${where}: shown ${a}, wasm ${b}`);

/** Inside a widget (host: CSS selector) or the page (null): waits until the figure draws the trained model. */
const modelDrawn = (page, host = null) =>
  page.waitForFunction(
    (host) => {
      const scope = host ? document.querySelector(host)?.shadowRoot : document;
      const p = scope?.getElementById('predictions');
      return p && !p.hidden && scope.getElementById('plot') && !scope.getElementById('plot').hidden;
    },
    host,
    { timeout: 20_000 },
  );

/** The page (URL query `query`) with the trained model drawn. */
async function openModel(query = '?source=model', viewport = { width: 1280, height: 900 }) {
  const opened = await openWatched(browser, `${url}${query}`, { viewport });
  const source = new URLSearchParams(query).get('source');
  await drawn(opened.page, { source: source === 'model' ? 'decoder' : source }); // ('model' is the decoder's old name)
  await modelDrawn(opened.page);
  return opened;
}

/** The heads grid's maps: weights as drawn (readHeatmaps) plus which layer and head each is, its title and caption. */
async function headMaps(page, host = null) {
  const maps = await page.evaluate(readHeatmaps, { host, selector: '#heatmap > .heatmap' });
  const info = await page.evaluate((host) => {
    const scope = host ? document.querySelector(host).shadowRoot : document;
    return [...scope.querySelectorAll('#heatmap > .heatmap')].map((el) => ({
      layer: Number(el.dataset.layer),
      head: Number(el.dataset.head),
      title: el.querySelector('text.head-title')?.textContent,
      caption: el.querySelector('.hm-caption')?.textContent ?? '',
    }));
  }, host);
  return maps.map((map, k) => ({ ...map, ...info[k] }));
}

/** The steps view's numbers (each cell's data-value) and output row. */
const readSteps = (page) =>
  page.evaluate(() => {
    const svg = document.querySelector('#heatmap svg.steps');
    return (
      svg && {
        query: Number(svg.dataset.query),
        rows: [...svg.querySelectorAll('.steps-row')].map((r) =>
          ['score', 'scaled', 'weight'].map((k) => r.querySelector(`.${k}`).dataset.value),
        ),
        output: JSON.parse(svg.querySelector('.output').dataset.values),
        note: svg.querySelector('.steps-note').textContent,
      }
    );
  });

/** Opens the page figure's "More options" panel, where the source and the other settings are. */
const moreOptions = async (page) => {
  if ((await page.getAttribute('#more', 'aria-expanded')) !== 'true') await page.click('#more');
};

/** What the page shows beside the figure: caption, option note, predictions, hidden settings, message. */
const aside = (page, host = null) =>
  page.evaluate((host) => {
    const scope = host ? document.querySelector(host).shadowRoot : document;
    const text = (id) => scope.getElementById(id)?.textContent ?? '';
    return {
      caption: scope.getElementById('head-caption').hidden ? '' : text('head-caption'),
      optionNote: text('option-note'),
      predictions: [...scope.querySelectorAll('#predictions li')].map((li) => ({
        word: li.dataset.word,
        probability: Number(li.dataset.probability),
        text: li.textContent,
      })),
      predictionsShown: !scope.getElementById('predictions').hidden && !scope.getElementById('plot').hidden,
      // Settings that do not apply are hidden, not greyed out.
      hidden: ['temperature', 'mask', 'score', 'norm', 'heads'].filter((id) => scope.getElementById(id).closest('.field').hidden),
      headHidden: scope.getElementById('head').closest('.field').hidden,
      layerRow: !scope.getElementById('layer').closest('.layers').hidden,
      message: scope.getElementById('message').hidden ? '' : text('message'),
      status: text('status'),
    };
  }, host);

/** A matrix of the wasm core (T×T weights) drawn whole in the main heatmap, in the right colours. */
function assertMap(map, weights, tokens, where) {
  assert.ok(map, `${where}: no heatmap`);
  assert.equal(map.cells.length, weights.rows * weights.cols, `${where}: every cell`);
  assertWeights(map, weights, where, TOLERANCE);
  assertLabels(map, tokens, where);
  assertColours(map, where);
}

test('choosing "trained model" loads it once, then every layer and head, and the rollout, are the core\'s', async () => {
  const { page, problems } = await openWatched(browser, url);
  const requests = [];
  page.on('request', (r) => requests.push(new URL(r.url()).pathname));
  try {
    await drawn(page);
    assert.equal(requests.filter((p) => /model/.test(p)).length, 0, 'nothing of the model is fetched before it is chosen');
    await moreOptions(page);
    await page.selectOption('#source', 'decoder');
    await drawn(page, { source: 'decoder' });
    await modelDrawn(page);
    assert.deepEqual(requests.filter((p) => /model/.test(p)).sort(), [
      '/attention_model_wasm.js',
      '/attention_model_wasm.wasm',
      '/model.bin',
    ]);

    const { run } = lm.shown(SENTENCE);
    const L = run.layers.length,
      H = run.layers[0].heads.length;
    assert.deepEqual([L, H], [2, 4]);
    for (let l = 0; l < L; l++) {
      await page.selectOption('#layer', { value: String(l) });
      for (let k = 0; k < H; k++) {
        await page.selectOption('#head', { value: String(k) });
        await drawn(page, { source: 'decoder', layer: l, head: k });
        const { map, message } = await figureState(page, null);
        assert.equal(message, '');
        assertMap(map, run.layers[l].heads[k].weights, run.tokens, `layer ${l + 1} head ${k + 1}`);
        assert.ok(
          map.cells.filter((c) => c.col > c.row).every((c) => c.weight === 0),
          'causal: nothing above the diagonal',
        );
        const a = await aside(page);
        assert.equal(a.caption, `Layer ${l + 1}, head ${k + 1}, measured on held-out text: ${run.captions[l][k]}.`);
        assert.equal(a.headHidden, false);
      }
    }
    await page.selectOption('#layer', { value: 'rollout' });
    await drawn(page, { source: 'decoder', layer: 'rollout' });
    const { map } = await figureState(page, null);
    assertMap(map, run.rollout, run.tokens, 'rollout');
    const a = await aside(page);
    assert.match(
      a.caption,
      /^Attention rollout \(Abnar & Zuidema 2020\): how much each position draws on each input token through all layers/,
    );
    assert.match(a.caption, /0\.5·I/);
    assert.equal(a.headHidden, true, 'the rollout has no head to pick');
    assert.match(a.optionNote, /the rollout is zero above the diagonal/);
    // What does not apply to the model is hidden, and the note says so.
    assert.deepEqual(a.hidden, ['temperature', 'mask', 'score', 'norm', 'heads']);
    assert.match(a.optionNote, /The word-vector settings are hidden while it is shown/);
    assert.match(
      a.status,
      new RegExp(
        `Trained decoder: ${lm.model.vocabularySize.toLocaleString('en-US')}-piece vocabulary, 2 layers × 4 heads, d_model 64, context 128 pieces`,
      ),
    );
    // The next-word guesses: the core's top 5, best first.
    assert.equal(a.predictionsShown, true);
    assert.deepEqual(
      a.predictions.map((p) => p.word),
      run.predictions.map((p) => p.word),
    );
    a.predictions.forEach((p, k) => near(p.probability, run.predictions[k].probability, `prediction ${k}`));
    // A next piece shows its label ("of" for the stored "▁of").
    assert.match(
      a.predictions[0].text,
      new RegExp(`${run.predictions[0].labels.join('')}${(100 * run.predictions[0].probability).toFixed(1)}%`),
    );
    // Choosing again does not fetch again.
    await moreOptions(page);
    await page.selectOption('#source', 'vectors');
    await page.selectOption('#source', 'decoder');
    await drawn(page, { source: 'decoder' });
    await modelDrawn(page);
    assert.equal(requests.filter((p) => p === '/model.bin').length, 1);
    assert.deepEqual(problems, []);
  } finally {
    await page.close();
  }
});

test("heads grid (captioned), lines and steps views follow the model's layer and head", async () => {
  const { page, problems } = await openModel('?source=model&view=heads&layer=1');
  try {
    const { run } = lm.shown(SENTENCE);
    let maps = await headMaps(page);
    assert.equal(maps.length, 4);
    maps.forEach((m, k) => {
      assert.deepEqual([m.layer, m.head], [1, k]);
      assert.equal(m.title, `layer 2 · head ${k + 1}`);
      assert.equal(m.caption, run.captions[1][k]);
      assertWeights(m, run.layers[1].heads[k].weights, `grid layer 2 head ${k + 1}`);
      assertColours(m, `grid layer 2 head ${k + 1}`);
    });
    // The rollout in the heads view: every head of every layer (what the rollout combines).
    await page.selectOption('#layer', { value: 'rollout' });
    await drawn(page, { view: 'heads', layer: 'rollout' });
    maps = await headMaps(page);
    assert.equal(maps.length, 8);
    maps.forEach((m, n) => {
      const l = Math.floor(n / 4),
        k = n % 4;
      assert.deepEqual([m.layer, m.head, m.caption], [l, k, run.captions[l][k]]);
      assertWeights(m, run.layers[l].heads[k].weights, `grid (rollout) layer ${l + 1} head ${k + 1}`);
    });

    await page.selectOption('#layer', { value: '0' });
    await drawn(page, { view: 'heads', layer: 0 });
    // The head menu belongs to the single-head views (the heads view shows them all).
    assert.equal(await page.locator('#head').isVisible(), false);
    await page.selectOption('#view', 'lines');
    await page.selectOption('#head', { value: '2' });
    await drawn(page, { view: 'lines', layer: 0, head: 2 });
    const lines = await page.evaluate(() => {
      const l = document.querySelector('#heatmap canvas.links').attentionLines;
      return { ...l, data: Array.from(l.data) };
    });
    const w = run.layers[0].heads[2].weights,
      T = w.rows;
    assert.equal(lines.T, T);
    lines.data.forEach((v, n) => near(v, w.data[n], `lines ${Math.floor(n / T)}→${n % T}`));
    assert.equal(lines.drawn, lines.data.filter((v) => v > 0).length);

    await page.selectOption('#layer', { value: '1' });
    await page.selectOption('#head', { value: '3' });
    await page.selectOption('#word', { value: '4' });
    await page.selectOption('#view', 'steps');
    await drawn(page, { view: 'steps', layer: 1, head: 3, word: 4 });
    const steps = await readSteps(page);
    const ref = run.layers[1].heads[3];
    assert.equal(steps.query, 4);
    assert.equal(steps.rows.length, T);
    steps.rows.forEach(([score, scaled, weight], j) => {
      near(score, ref.scores.data[4 * T + j], `score 4→${j}`);
      const want = ref.scaled.data[4 * T + j];
      if (want === -Infinity) assert.equal(scaled, '-Infinity', `scaled 4→${j} is masked`);
      else near(scaled, want, `scaled 4→${j}`);
      near(weight, ref.weights.data[4 * T + j], `weight 4→${j}`);
    });
    steps.output.forEach((v, c) => near(v, ref.output.data[4 * ref.output.cols + c], `output[${c}]`));
    assert.match(steps.note, /÷ √16 \(layer 2, head 4\); causal/);
    // The rollout has no scores: the steps view says so instead of drawing.
    await page.selectOption('#layer', { value: 'rollout' });
    await drawn(page, { view: 'steps', layer: 'rollout' });
    assert.match((await aside(page)).message, /The rollout has no scores of its own/);
    assert.deepEqual(problems, []);
  } finally {
    await page.close();
  }
});

test("the explainer's query/key view and walkthrough follow the model's layer and head, and go back to the vectors", async () => {
  const { page, problems } = await openModel('?source=model&layer=1&head=2&word=4');
  try {
    await page.waitForSelector('html.explainer-ready', { timeout: 20_000 });
    const { run } = lm.shown(SENTENCE);
    const onScreen = (id) => stepOnScreen(page, id);
    const neuron = async () => {
      await onScreen('vectors');
      return page.$$eval('table[data-name="neuron"] tbody tr', (trs) =>
        trs.map((tr) => [...tr.querySelectorAll('td[data-value]')].map((td) => Number(td.dataset.value))),
      );
    };
    const check = async (l, k) => {
      const steps = run.layers[l].heads[k],
        T = steps.weights.rows;
      const rows = await neuron();
      assert.equal(rows.length, T);
      rows.forEach(([score, scaled, weight], j) => {
        near(score, steps.scores.data[4 * T + j], `q·k 4→${j}`);
        if (steps.scaled.data[4 * T + j] === -Infinity) assert.equal(scaled, -Infinity);
        else near(scaled, steps.scaled.data[4 * T + j], `scaled 4→${j}`);
        near(weight, steps.weights.data[4 * T + j], `weight 4→${j}`);
      });
      // q∘k row by row: the model's q of "station" times each key, entry by entry (summing to q·k).
      const products = await page.$$eval('#vectors svg.vbars[aria-label^="q∘k"]', (ss) => ss.map((s) => s.getAttribute('aria-label')));
      assert.equal(products.length, T);
      const dk = steps.Q.cols;
      const q = steps.Q.data.subarray(4 * dk, 5 * dk),
        kOf = (j) => steps.K.data.subarray(j * dk, (j + 1) * dk);
      const shownProducts = products[1]
        .replace(/^[^:]+: /, '')
        .split(', ')
        .map((t) => Number(t.replace('−', '-')));
      shownProducts.forEach((v, c) => assert.ok(Math.abs(v - q[c] * kOf(1)[c]) < 1e-4, `q∘k[1][${c}]`));
      assert.match(await page.textContent('#vectors p'), new RegExp(`layer ${l + 1}, head ${k + 1} of the trained model`));
      // Steps 3 and 4: Q and the scores are the model's too.
      await onScreen('step-scores');
      const scores = await page.$$eval('table[data-name="scores"] td[data-row]', (tds) =>
        tds.map((td) => [+td.dataset.row, +td.dataset.col, Number(td.dataset.value)]),
      );
      for (const [r, c, v] of scores) near(v, steps.scores.data[r * T + c], `scores (${r}, ${c})`);
      assert.match(
        await page.textContent('#explainer .x-note'),
        new RegExp(`follows the figure’s trained model: layer ${l + 1}, head ${k + 1}`),
      );
    };
    await check(1, 2);
    // Another head in the figure: the explainer follows.
    await page.evaluate(() => scrollTo(0, 0));
    await page.selectOption('#layer', { value: '0' });
    await page.selectOption('#head', { value: '1' });
    await drawn(page, { layer: 0, head: 1 });
    await check(0, 1);
    assert.equal(await page.isDisabled('#x-mode'), true, 'the model brings its own weights');
    // The multi-head section shows the layer's four heads with their captions.
    await onScreen('multihead');
    const boxes = await page.evaluate(readHeatmaps, { selector: '#multihead .head-box .head-map' });
    assert.equal(boxes.length, 4);
    boxes.forEach((m, k) => assertWeights(m, run.layers[0].heads[k].weights, `explainer head ${k + 1}`));
    assert.deepEqual(await page.$$eval('#multihead .head-box .hm-caption', (ps) => ps.map((p) => p.textContent)), run.captions[0]);

    // Back to word vectors: figure and explainer are the parameter-free ones again.
    await page.evaluate(() => scrollTo(0, 0));
    await moreOptions(page);
    await page.selectOption('#source', 'vectors');
    await drawn(page, { source: 'vectors' });
    await settled(page, null);
    const { tokens, X } = vectors.embed(SENTENCE, 64);
    const free = core.parameterFree(X, Math.sqrt(vectors.dim), { temperature: 1 });
    assertMap((await figureState(page, null)).map, free.weights, tokens, 'back to vectors');
    const back = await aside(page);
    assert.deepEqual(back.hidden, ['heads'], 'the word-vector settings are back (heads only shows with the heads view)');
    assert.equal(back.predictionsShown, false);
    assert.equal(back.layerRow, false);
    assert.doesNotMatch(back.optionNote, /trained model|lower-triangular/);
    const rows = await neuron();
    rows.forEach(([score, scaled, weight], j) => {
      near(score, free.scores.data[4 * 7 + j], `vectors q·k 4→${j}`);
      near(weight, free.weights.data[4 * 7 + j], `vectors weight 4→${j}`);
    });
    assert.equal(await page.isDisabled('#x-mode'), false);
    assert.deepEqual(problems, []);
  } finally {
    await page.close();
  }
});

test("the explainer shows the model's own LN₁(x), learnt W_Q, W_K, W_V, biases and W_O, from the core", async () => {
  const { page, problems } = await openModel('?source=model&layer=1&head=2&word=4');
  try {
    await page.waitForSelector('html.explainer-ready', { timeout: 20_000 });
    const { run } = lm.shown(SENTENCE);
    const onScreen = (id, ready) => stepOnScreen(page, id, ready);
    /** The cells a table shows: [row, col, value] from data-row, data-col, data-value; and its full shape. */
    const cells = (scope, name) =>
      page.$eval(`${scope} table[data-name="${name}"]`, (t) => ({
        rows: Number(t.dataset.rows),
        cols: Number(t.dataset.cols),
        cells: [...t.querySelectorAll('td[data-row]')].map((td) => [+td.dataset.row, +td.dataset.col, Number(td.dataset.value)]),
      }));
    const same = async (scope, name, mat, where) => {
      const shown = await cells(scope, name);
      assert.deepEqual([shown.rows, shown.cols], [mat.rows, mat.cols], `${where}: shape`);
      assert.ok(shown.cells.length > 0, `${where}: cells shown`);
      for (const [r, c, v] of shown.cells) near(v, mat.data[r * mat.cols + c], `${where} (${r}, ${c})`);
      return shown;
    };
    const vector = (v) => ({ rows: 1, cols: v.length, data: v });
    const check = async (l, k) => {
      const w = lm.model.attentionWeights(l);
      // Step 1: x entering the layer, and LN₁(x), the matrix the heads read.
      await onScreen('step-inputs', 'table[data-name="LN-x"]');
      await same('#step-inputs', 'X', l === 0 ? run.input : run.layers[l - 1].output, `L${l + 1} x`);
      const ln = await same('#step-inputs', 'LN-x', run.layers[l].attentionInput, `L${l + 1} LN₁(x)`);
      assert.deepEqual(
        await page.$$eval('#step-inputs table[data-name="LN-x"] tbody th', (ths) => ths.map((th) => th.textContent)),
        run.tokens.map((t) => t.text),
        'LN₁(x) rows are the words',
      );
      assert.ok(ln.cells.length < 7 * 64, 'a 7×64 matrix is windowed');
      // Step 2: the head's learnt projections and biases.
      await onScreen('step-weights', 'table[data-name="W_Q"]');
      const hw = w.heads[k];
      for (const [name, mat] of [
        ['W_Q', hw.Wq],
        ['W_K', hw.Wk],
        ['W_V', hw.Wv],
        ['b_Q', vector(hw.bq)],
        ['b_K', vector(hw.bk)],
        ['b_V', vector(hw.bv)],
      ]) {
        await same('#step-weights', name, mat, `L${l + 1}.H${k + 1} ${name}`);
      }
      assert.match(await page.textContent('#step-weights'), new RegExp(`layer ${l + 1}, head ${k + 1}`));
      assert.equal(await page.locator('#step-weights input').count(), 0, 'learnt weights are not editable');
      // Multi-head: concat, the learnt W_O and b_O, and concat·W_O + b_O.
      await onScreen('multihead', 'table[data-name="Wo"]');
      await same('#multihead', 'concat', run.layers[l].concat, `L${l + 1} concat`);
      await same('#multihead', 'Wo', w.Wo, `L${l + 1} W_O`);
      await same('#multihead', 'b_O', vector(w.bo), `L${l + 1} b_O`);
      await same('#multihead', 'mh-output', run.layers[l].multiHeadOutput, `L${l + 1} concat·W_O + b_O`);
      await same('#multihead', 'after-attention', run.layers[l].afterAttention, `L${l + 1} x + output`);
    };
    await check(1, 2);
    const text = await page.textContent('#explainer');
    assert.doesNotMatch(text, /does not hand out|not exported|not shown or editable/);
    // Another layer and head in the figure: the explainer follows.
    await page.evaluate(() => scrollTo(0, 0));
    await page.selectOption('#layer', { value: '0' });
    await page.selectOption('#head', { value: '1' });
    await drawn(page, { layer: 0, head: 1 });
    await check(0, 1);
    // "Show whole matrices": every one of W_Q's 64×16 cells.
    await page.check('#x-full');
    await drawn(page, { full: true });
    await onScreen('step-weights', 'table[data-name="W_Q"]');
    const whole = await same('#step-weights', 'W_Q', lm.model.attentionWeights(0).heads[1].Wq, 'whole W_Q');
    assert.equal(whole.cells.length, 64 * 16);
    assert.deepEqual(problems, []);
  } finally {
    await page.close();
  }
});

test("a text longer than the model's 128 pieces is cut at a whole word with a note; a rare word is read as its pieces", async () => {
  const { page, problems } = await openModel();
  try {
    const words = 'the trains stopped at two stations while a zorblaxian engineer repaired the bridge'.split(' ');
    const text = Array.from({ length: 100 }, (_, i) => words[i % words.length]).join(' ');
    await page.fill('#sentence', text);
    await drawn(page, { sentence: text });
    await settled(page, null);
    const state = await figureState(page, null);
    assertShowsModel(state, text, lm);
    const { run } = lm.shown(text);
    const { cut } = run.fitted;
    assert.ok(cut && cut.totalWords === 100 && cut.totalPieces > 128 && cut.pieces <= 128 && cut.words < 100, JSON.stringify(cut));
    assert.equal(state.map.T, cut.pieces);
    // Nothing is unknown to a pieces model: "zorblaxian" is several pieces, each known, none marked.
    assert.equal(run.tokens.filter((t) => t.lookup !== 'known').length, 0);
    assert.ok(run.tokens.filter((t) => t.text.startsWith('##')).length > 0, 'some words are several pieces');
    assert.equal(state.map.rowLabels.filter((l) => /\bunknown\b/.test(l.cls)).length, 0);
    assert.match(await page.textContent('#predictions'), new RegExp(`the last of the ${cut.pieces} tokens it read`));
    // The word vectors still draw the whole text.
    await moreOptions(page);
    await page.selectOption('#source', 'vectors');
    await drawn(page, { source: 'vectors' });
    await settled(page, null);
    assert.equal((await figureState(page, null)).map.T, 100);
    assert.deepEqual(problems, []);
  } finally {
    await page.close();
  }
});

test('URL state: source=decoder (or its old name, model), layer (or rollout) and head round-trip through share links', async () => {
  const state = { ...DEFAULTS, source: 'decoder', layer: 'rollout', head: 2, view: 'lines', word: 3 };
  assert.deepEqual(fromParams(new URLSearchParams(toParams(state).toString())), state);
  // Links made before the encoder came still open the decoder.
  assert.equal(fromParams(new URLSearchParams('source=model')).source, 'decoder');
  const blank = { ...DEFAULTS, source: 'encoder', view: 'model', blank: 4, word: 4 };
  assert.deepEqual(fromParams(new URLSearchParams(toParams(blank).toString())), blank);
  assert.equal(fromParams(new URLSearchParams('source=decoder&blank=4')).blank, null, 'only the encoder fills a blank');
  assert.equal(fromParams(new URLSearchParams('view=model')).view, 'heatmap', 'every layer needs a trained model');
  assert.equal(toParams({ ...DEFAULTS }).has('source'), false, 'the word vectors are the default: old links stay as they were');
  assert.equal(fromParams(new URLSearchParams('source=gpt&layer=top')).source, 'vectors');
  assert.equal(fromParams(new URLSearchParams('source=gpt&layer=top')).layer, 0);

  const { page, problems } = await openModel('?source=model&layer=1&head=3&view=heatmap&word=2');
  let again;
  try {
    const { run } = lm.shown(SENTENCE);
    assertMap((await figureState(page, null)).map, run.layers[1].heads[3].weights, run.tokens, 'from the URL');
    await page.selectOption('#layer', { value: 'rollout' });
    await drawn(page, { layer: 'rollout' });
    assert.equal(new URL(page.url()).searchParams.get('layer'), 'rollout');
    await page.click('.shareButton');
    await page.locator('.panel.share').waitFor({ state: 'visible' });
    const link = new URL(await page.inputValue('.share-url'));
    assert.deepEqual(Object.fromEntries(link.searchParams), {
      sentence: SENTENCE,
      source: 'decoder',
      view: 'heatmap',
      word: '2',
      layer: 'rollout',
      head: '3',
    });
    again = await openModel(link.search);
    assertMap((await figureState(again.page, null)).map, run.rollout, run.tokens, 'share link');
    assert.equal(await again.page.inputValue('#layer'), 'rollout');
    assert.equal(await again.page.inputValue('#source'), 'decoder');
    assert.deepEqual(again.problems, []);
    assert.deepEqual(problems, []);
  } finally {
    await again?.page.close();
    await page.close();
  }
});

test('<attention-figure source="model"> draws the model; widgets share one model; the attribute switches back', async () => {
  const { page, problems } = await openWatched(browser, `${url}examples/index.html`);
  const requests = [];
  page.on('request', (r) => requests.push(new URL(r.url()).pathname));
  try {
    await page.evaluate(() => {
      for (const [id, view] of [
        ['fig-model', 'heads'],
        ['fig-model-2', 'heatmap'],
      ]) {
        const el = document.createElement('attention-figure');
        el.id = id;
        el.setAttribute('source', 'model');
        el.setAttribute('view', view);
        el.setAttribute('layer', '1');
        el.setAttribute('controls', 'all');
        el.setAttribute('sentence', 'he cashed a check at the bank');
        document.querySelector('article').append(el);
      }
    });
    await drawn(page, { scope: '#fig-model', source: 'decoder', view: 'heads', layer: 1 });
    await drawn(page, { scope: '#fig-model-2', source: 'decoder', view: 'heatmap', layer: 1 });
    await modelDrawn(page, '#fig-model');
    await modelDrawn(page, '#fig-model-2');
    const { run } = lm.shown('he cashed a check at the bank');
    const maps = await headMaps(page, '#fig-model');
    assert.equal(maps.length, 4);
    maps.forEach((m, k) => {
      assertWeights(m, run.layers[1].heads[k].weights, `widget head ${k + 1}`);
      assertColours(m, `widget head ${k + 1}`);
      assert.equal(m.caption, run.captions[1][k]);
    });
    assertMap((await figureState(page, '#fig-model-2')).map, run.layers[1].heads[0].weights, run.tokens, 'second widget');
    assert.deepEqual(
      run.tokens.map((t) => t.text),
      ['he', 'cas', '##hed', 'a', 'check', 'at', 'the', 'bank'],
      'pieces, labelled BertViz-style',
    );
    const widgetModelFiles = requests.filter((p) => /model/.test(p)).sort();
    assert.deepEqual(
      widgetModelFiles,
      ['/widget/attention_model_wasm.js', '/widget/attention_model_wasm.wasm', '/widget/model.bin'],
      'one model for both widgets',
    );
    // Attributes drive it: the rollout, then back to the word vectors.
    await page.evaluate(() => document.getElementById('fig-model-2').setAttribute('layer', 'rollout'));
    await drawn(page, { scope: '#fig-model-2', layer: 'rollout' });
    assertMap((await figureState(page, '#fig-model-2')).map, run.rollout, run.tokens, 'widget rollout');
    assert.match((await aside(page, '#fig-model-2')).caption, /^Attention rollout/);
    await page.evaluate(() => document.getElementById('fig-model-2').setAttribute('source', 'vectors'));
    await drawn(page, { scope: '#fig-model-2', source: 'vectors' });
    await settled(page, '#fig-model-2');
    const { tokens, X } = vectors.embed('he cashed a check at the bank', 64);
    assertMap(
      (await figureState(page, '#fig-model-2')).map,
      core.parameterFree(X, Math.sqrt(vectors.dim), { temperature: 1 }).weights,
      tokens,
      'widget back to vectors',
    );
    assert.equal((await aside(page, '#fig-model-2')).predictionsShown, false);
    assert.equal(await page.evaluate(() => document.getElementById('fig-model').state.source), 'decoder');
    // The export holds every layer's heads (Hugging Face's shape), the rollout and the guesses.
    const json = await page.evaluate(() => document.getElementById('fig-model').exportJSON());
    assert.equal(json.attentions.length, 2);
    json.attentions[1][2].forEach((row, i) =>
      row.forEach((v, j) => near(v, run.layers[1].heads[2].weights.data[i * run.tokens.length + j], `json (${i}, ${j})`)),
    );
    assert.deepEqual(
      json.predictions.map((p) => p.word),
      run.predictions.map((p) => p.word),
    );
    assert.deepEqual(problems, []);
  } finally {
    await page.close();
  }
});

test("a model link starts the model's module, glue and weights early (load-early.js); each is fetched once", async () => {
  const { page, problems, requests } = await openWatched(browser, `${url}?source=model&layer=1&head=3`, {
    viewport: { width: 1280, height: 900 },
    // Chromium warns (not an error) about a preload no fetch used.
    before: (page) => page.on('console', (m) => /preload/i.test(m.text()) && problems.push(`console: ${m.text()}`)),
  });
  try {
    await modelDrawn(page);
    const { run } = lm.shown(SENTENCE);
    assertMap((await figureState(page, null)).map, run.layers[1].heads[3].weights, run.tokens, 'model link');
    // Let the explainer (which also takes over the word vectors) finish, then see what is left.
    await page.waitForSelector('html.explainer-ready', { timeout: 20_000 });
    assert.deepEqual(await page.evaluate(() => Object.keys(window.attentionEarly)), [], 'every early load was taken over');
    const files = requests.map((r) => new URL(r).pathname.split('/').pop());
    for (const file of ['attention_model_wasm.wasm', 'attention_model_wasm.js', 'model.bin', RELAXED_CORE, 'vectors-first.bin']) {
      assert.equal(files.filter((r) => r === file).length, 1, `${file}: ${files.join(' ')}`);
    }
    assert.equal(files.filter((r) => r === 'vectors.bin').length, 0, `the whole word-vector table is not needed: ${files.join(' ')}`);
    assert.equal(coreFetches(requests).fixed, 0, 'the small core is its relaxed build only (this Chromium runs relaxed SIMD)');
    assert.deepEqual(problems, []);
  } finally {
    await page.close();
  }
});

test('a model file that fails to load gives a readable message; the word vectors still work', async () => {
  const page = await browser.newPage();
  const pageErrors = [];
  page.on('pageerror', (e) => pageErrors.push(e.message));
  try {
    await page.route('**/model.bin', (route) => route.fulfill({ status: 404, body: 'Not found' }));
    await page.goto(`${url}?source=model`);
    await page.waitForFunction(() => /Could not load/.test(document.getElementById('message').textContent), null, { timeout: 20_000 });
    const a = await aside(page);
    assert.match(
      a.message,
      /^Could not load the trained decoder \(.*model\.bin: HTTP 404.*\)\. Choose “word vectors”, or choose the trained decoder again to retry\.$/,
    );
    assert.match(a.status, /Trained decoder not loaded/);
    assert.equal(await page.locator('#heatmap canvas').count(), 0);
    await moreOptions(page);
    await page.selectOption('#source', 'vectors');
    await drawn(page, { source: 'vectors' });
    assert.equal((await aside(page)).message, '');
    // Choosing the model again tries again (and here fails again, with the same message).
    await moreOptions(page);
    await page.selectOption('#source', 'decoder');
    await drawn(page, { source: 'decoder' });
    await page.waitForFunction(() => /Could not load the trained decoder/.test(document.getElementById('message').textContent), null, {
      timeout: 20_000,
    });
    assert.deepEqual(pageErrors, []);
  } finally {
    await page.close();
  }
});

test('hostile text with the trained model: a message or the right heatmap, only ever as text', async () => {
  const { page, problems } = await openModel();
  try {
    const box = page.locator('#sentence');
    const baseline = await elementCensus(page);
    for (const { name, text, expect } of HOSTILE) {
      if (text.length <= 80) {
        await box.fill('');
        await box.pressSequentially(text);
      } else {
        await box.fill(text);
      }
      await drawn(page, { sentence: await box.inputValue() });
      await settled(page, null);
      try {
        assertShowsModel(await figureState(page, null), await box.inputValue(), lm, { expect });
      } catch (e) {
        e.message = `model, input "${name}": ${e.message}`;
        throw e;
      }
      const census = await elementCensus(page);
      assert.deepEqual(census.counts, baseline.counts, `${name}: no element injected`);
      assert.equal(census.pwned, null, `${name}: no payload ran`);
      assert.deepEqual(problems, [], `${name}: no console error, page error or dialog`);
    }
    // The guesses and notes carry the typed words as text only.
    await box.fill('<b>bold</b> "><img src=x onerror="window.__pwned=1">');
    await drawn(page, { sentence: '<b>bold</b> "><img src=x onerror="window.__pwned=1">' });
    await settled(page, null);
    assert.equal(await page.locator('#predictions b, #notes b, #notes img').count(), 0);
    assert.equal((await elementCensus(page)).pwned, null);
    assert.deepEqual(problems, []);
  } finally {
    await page.close();
  }
});

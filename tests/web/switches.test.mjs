// Switching parts of a trained model off (state `off`, `off-mode`): the spelling of the state in node,
// then in the browser the every-layer view's head switch with the guesses before → after, "which heads
// matter here?" against the core's head effects, the positions' switch, and the URL round trip. Every
// number is compared with the same encoder run by the wasm core in node (harness modelReference).
// Build first: bash scripts/build.sh. Run: node --test tests/web/switches.test.mjs
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { drawn, modelReference, openWatched, startSession } from './harness.mjs';
import { describeOff, offList, offParts, toggled } from '../../web/lib/switches.js';
import { fromParams, toParams } from '../../web/lib/state.js';
import { ordinal } from '../../web/lib/figure/guesses.js';

const SENTENCE = 'the train left the station on time';
const STATION = 4;
let session, encoder;

before(async () => {
  session = await startSession();
  encoder = await modelReference(session.api, 'encoder.bin');
});

after(() => {
  encoder?.model.delete();
  return session?.stop();
});

test('off has one spelling: heads, layers and positions, each once, in order; nonsense dropped', () => {
  assert.equal(offList('1.3, 1.2,positions,2,1.2,x,0.1,3.0'), 'positions,1.2,1.3,2');
  assert.equal(offList(''), '');
  assert.deepEqual(offParts('positions,1.2,2'), { heads: [[0, 1]], layers: [1], positions: true });
  assert.equal(toggled('1.2,1.3', '1.2'), '1.3');
  assert.equal(toggled('1.3', '1.2'), '1.2,1.3');
  assert.equal(describeOff(offParts('1.2,1.3')), 'heads 1.2 and 1.3');
  assert.equal(describeOff(offParts('positions,2.1,1')), 'head 2.1, layer 1’s attention and the positions');
  assert.deepEqual([1, 2, 3, 4, 11, 12, 13, 21, 41, 112].map(ordinal), [
    '1st',
    '2nd',
    '3rd',
    '4th',
    '11th',
    '12th',
    '13th',
    '21st',
    '41st',
    '112th',
  ]);
});

test('off and off-mode round-trip through the URL; a vector source drops them', () => {
  const state = fromParams(new URLSearchParams('source=encoder&view=model&off=1.3,1.2&off-mode=mean'));
  assert.equal(state.off, '1.2,1.3');
  assert.equal(state.offMode, 'mean');
  const params = toParams(state);
  assert.equal(params.get('off'), '1.2,1.3');
  assert.equal(params.get('off-mode'), 'mean');
  assert.equal(fromParams(new URLSearchParams('off=1.2&off-mode=nonsense&source=encoder')).offMode, 'zero');
  assert.equal(fromParams(new URLSearchParams('off=1.2')).off, '', 'word vectors have no heads to switch off');
});

/** The page at `query`, once its trained model has drawn with the guesses. */
async function open(query, expected, viewport = { width: 1280, height: 900 }) {
  const opened = await openWatched(session.browser, `${session.url}${query}`, { viewport });
  await drawn(opened.page, { timeout: 30_000, ...expected });
  await opened.page.waitForFunction(() => !document.getElementById('predictions').hidden, null, { timeout: 30_000 });
  return opened;
}

const listed = (page, column) =>
  page.$$eval(`#predictions .guess-column.${column} .prediction-list li`, (items) =>
    items.map((li) => ({ word: li.dataset.word, probability: Number(li.dataset.probability) })),
  );

function assertGuesses(shown, guesses, where) {
  assert.deepEqual(
    shown.map((g) => g.word),
    guesses.slice(0, 5).map((g) => g.word),
    `${where}: the words`,
  );
  shown.forEach((g, k) => assert.ok(Math.abs(g.probability - guesses[k].probability) < 1e-6, `${where}: ${g.word}’s probability`));
}

test('switching layer 1 · head 2 off in the every-layer view: the core’s guesses before → after, and the line on what moved', async () => {
  const { page, problems } = await open(`?source=encoder&view=model&blank=${STATION}&word=${STATION}`, {
    source: 'encoder',
    view: 'model',
    blank: STATION,
  });
  try {
    const headSwitch = page.locator('.model-map[data-layer="0"][data-head="1"] .part-switch');
    assert.equal(await headSwitch.getAttribute('aria-pressed'), 'false');
    assert.equal(await headSwitch.textContent(), 'Switch off: layer 1 · head 2');
    assert.equal(await page.locator('#predictions .guess-column.before').isHidden(), true, 'nothing off: one list');
    await headSwitch.click();
    await drawn(page, { off: '1.2', blank: STATION });
    assert.equal(await headSwitch.getAttribute('aria-pressed'), 'true');
    assert.equal(await headSwitch.textContent(), 'Switched off (zero): layer 1 · head 2');
    assert.ok(await page.locator('.model-map[data-layer="0"][data-head="1"]').evaluate((el) => el.classList.contains('off')));

    const whole = encoder.model.fill(SENTENCE, STATION, { top: 200 }).guesses;
    const without = encoder.model.fill(SENTENCE, STATION, { top: 200, off: { heads: [[0, 1]], mode: 'zero' } }).guesses;
    assertGuesses(await listed(page, 'before'), whole, 'whole model');
    assertGuesses(await listed(page, 'after'), without, 'head 1.2 off');
    assert.notDeepEqual(
      without.slice(0, 5).map((g) => g.probability),
      whole.slice(0, 5).map((g) => g.probability),
      'switching the previous-word head off changes the guesses',
    );
    const rank = (list) => list.findIndex((g) => g.word === 'station') + 1;
    const place = (r) => (r === 0 ? 'below 200th' : ordinal(r));
    const moved = await page.textContent('#predictions .moved');
    assert.ok(moved.startsWith('With head 1.2 off, ‘station’ '), moved);
    if (rank(whole) !== rank(without)) assert.ok(moved.includes(`${place(rank(whole))} to ${place(rank(without))}`), moved);
    assert.match(await page.textContent('#option-note'), /Switched off: head 1\.2 \(a head off: its output is replaced by zeros\)/);
    assert.deepEqual(problems, []);
  } finally {
    await page.close();
  }
});

test('“which heads matter here?” draws the core’s head effects; a cell switches that head off', async () => {
  const { page, problems } = await open(`?source=encoder&view=model&blank=${STATION}&word=${STATION}`, {
    source: 'encoder',
    blank: STATION,
  });
  try {
    await page.click('#predictions .effects-button');
    const effects = encoder.model.headEffects(SENTENCE, { position: STATION });
    const cells = page.locator('#predictions .effects-grid button.effect');
    await cells.first().waitFor();
    const shown = await cells.evaluateAll((els) =>
      els.map((b) => ({ layer: +b.dataset.layer, head: +b.dataset.head, drop: +b.dataset.drop })),
    );
    assert.equal(shown.length, encoder.model.layers * encoder.model.heads);
    assert.equal(effects.target.word, 'station');
    shown.forEach((s, k) => {
      assert.deepEqual([s.layer, s.head], [effects.heads[k].layer, effects.heads[k].head]);
      assert.ok(Math.abs(s.drop - effects.heads[k].drop) < 1e-6, `head ${s.layer + 1}.${s.head + 1}`);
    });
    const best = [...effects.heads].sort((a, b) => b.drop - a.drop)[0];
    assert.match(await page.textContent('#predictions .effects-summary'), new RegExp(`it needs ${best.layer + 1}\\.${best.head + 1} `));
    await page.click(`#predictions .effects-grid button.effect[data-layer="${best.layer}"][data-head="${best.head}"]`);
    await drawn(page, { off: `${best.layer + 1}.${best.head + 1}` });
    assert.equal(
      await page.getAttribute(
        `#predictions .effects-grid button.effect[data-layer="${best.layer}"][data-head="${best.head}"]`,
        'aria-pressed',
      ),
      'true',
      'the grid stays open and marks the head off',
    );
    assert.deepEqual(problems, []);
  } finally {
    await page.close();
  }
});

test('a link with off and off-mode opens that model; positions switch off; everything back on', async () => {
  const { page, problems } = await open(`?source=encoder&view=heads&blank=${STATION}&off=1.3,1.2&off-mode=mean`, {
    source: 'encoder',
    view: 'heads',
    off: '1.2,1.3',
    offMode: 'mean',
  });
  try {
    assert.equal(await page.inputValue('#off-mode'), 'mean');
    const both = {
      heads: [
        [0, 1],
        [0, 2],
      ],
      mode: 'mean',
    };
    const mean = encoder.model.fill(SENTENCE, STATION, { top: 5, off: both }).guesses;
    assertGuesses(await listed(page, 'after'), mean, 'heads 1.2 and 1.3 off, mean');
    assert.equal(await page.getAttribute('.heatmap[data-layer="0"][data-head="2"] .part-switch', 'aria-pressed'), 'true');
    await page.click('.switchbar .part-switch');
    await drawn(page, { off: 'positions,1.2,1.3', offMode: 'mean' });
    const address = new URL(page.url()).searchParams;
    assert.deepEqual([address.get('off'), address.get('off-mode')], ['positions,1.2,1.3', 'mean'], 'the address follows');
    const bag = encoder.model.fill(SENTENCE, STATION, { top: 5, off: { ...both, positions: true } }).guesses;
    assertGuesses(await listed(page, 'after'), bag, 'positions off as well');

    await page.click('.switchbar .switch-reset');
    await drawn(page, { off: '', offMode: 'mean' });
    assert.equal(await page.locator('#predictions .guess-column.before').isHidden(), true);
    assertGuesses(await listed(page, 'after'), encoder.model.fill(SENTENCE, STATION, { top: 5 }).guesses, 'everything on again');
    assert.deepEqual(problems, []);
  } finally {
    await page.close();
  }
});

test('the heatmap of a switched-off head: the note, the walkthrough and the export caption say it is off', async () => {
  const { page, problems } = await open(`?source=encoder&view=heatmap&layer=0&head=1&blank=${STATION}&off=1.2&off-mode=uniform`, {
    source: 'encoder',
    off: '1.2',
    offMode: 'uniform',
  });
  try {
    assert.match(await page.textContent('#option-note'), /The head shown here is switched off: its map is the even spread it now uses\./);
    assert.match(await page.textContent('.x-note'), /This head is switched off \(uniform\): its weights below are an even spread/);
    const json = await page.evaluate(() => window.attentionFigure.exportJSON());
    assert.match(json.source, /head 1\.2 switched off \(uniform\)/);
    assert.deepEqual([json.settings.off, json.settings.offMode], ['1.2', 'uniform']);
    assert.match(await page.evaluate(() => window.attentionFigure.exportSVG()), /Head 1\.2 switched off, uniform\./);
    // The uniform head's map is the even spread over the 7 words.
    const weights = encoder.model.fill(SENTENCE, STATION, { off: { heads: [[0, 1]], mode: 'uniform' } }).run.layers[0].heads[1].weights;
    assert.ok(
      Array.from(weights.data).every((w) => Math.abs(w - 1 / 7) < 1e-6),
      'uniform: 1/T everywhere',
    );
    assert.deepEqual(problems, []);
  } finally {
    await page.close();
  }
});

test('a widget’s off and off-mode attributes switch its model’s heads off, and follow a change', async () => {
  const opened = await openWatched(session.browser, `${session.url}examples/index.html`, { viewport: { width: 1100, height: 900 } });
  const { page, problems } = opened;
  try {
    const set = (attrs) =>
      page.evaluate((attrs) => {
        const el = document.getElementById('fig-heatmap');
        for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, v);
      }, attrs);
    await set({ sentence: SENTENCE, source: 'encoder', blank: String(STATION), off: '1.3,1.2', 'off-mode': 'mean' });
    await drawn(page, { scope: '#fig-heatmap', source: 'encoder', blank: STATION, off: '1.2,1.3', offMode: 'mean', timeout: 30_000 });
    const guesses = () =>
      page.evaluate(() =>
        [...document.getElementById('fig-heatmap').shadowRoot.querySelectorAll('#predictions .guess-column.after li')].map((li) => ({
          word: li.dataset.word,
          probability: Number(li.dataset.probability),
        })),
      );
    const off = {
      heads: [
        [0, 1],
        [0, 2],
      ],
    };
    assertGuesses(await guesses(), encoder.model.fill(SENTENCE, STATION, { off: { ...off, mode: 'mean' } }).guesses, 'widget, mean');
    await set({ 'off-mode': 'uniform' });
    await drawn(page, { scope: '#fig-heatmap', off: '1.2,1.3', offMode: 'uniform', timeout: 30_000 });
    assertGuesses(await guesses(), encoder.model.fill(SENTENCE, STATION, { off: { ...off, mode: 'uniform' } }).guesses, 'widget, uniform');
    assert.deepEqual(problems, []);
  } finally {
    await page.close();
  }
});

test('a link naming a head the model does not have: the rest is switched off, and the switchboard says which it lacks', async () => {
  const { page, problems } = await open(`?source=decoder&view=heatmap&off=1.2,9.9`, { source: 'decoder', off: '1.2,9.9' });
  try {
    const summary = await page.textContent('.switchbar .switch-summary');
    assert.match(summary, /^head 1\.2 \(a head off is zero\)\. This 2-layer, 4-head model has no head 9\.9\.$/);
    assert.deepEqual(problems, []);
  } finally {
    await page.close();
  }
});

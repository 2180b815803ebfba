// The page as one lesson (issue 13): every option reaches every view that shows what it changes, with
// the numbers compared, not only "something redrew" (an option × view matrix against the wasm core
// run in node); the walkthrough's words follow the sentence; the first screen holds the story and the
// whole default heatmap at desktop and phone sizes; no text under 12 px on a phone; the sticky bar;
// the guided tour; imported attention says what does not apply.
// Build first: bash scripts/build.sh. Run: node --test tests/web/
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { DEFAULTS } from '../../web/lib/state.js';
import { HEAD_SHARPNESS, identityWeights, multiHeadWeights } from '../../web/lib/rng.js';
import { assertColours, assertWeights, drawn, figureState, onScreen, openWatched, startSession } from './harness.mjs';

const SENTENCE = DEFAULTS.sentence;
const TOL = 1e-6;
let session, browser, url, core, vectors;

before(async () => {
  session = await startSession();
  ({ browser, url, core, vectors } = session);
});
after(() => session?.stop());

const SEED003 = {
  X: [
    [1, 0, 1, 0],
    [0, 2, 0, 2],
    [1, 1, 1, 1],
  ],
  W: {
    Wk: [
      [0, 0, 1],
      [1, 1, 0],
      [0, 1, 0],
      [1, 1, 0],
    ],
    Wq: [
      [1, 0, 1],
      [1, 0, 0],
      [0, 0, 1],
      [0, 1, 1],
    ],
    Wv: [
      [0, 2, 0],
      [0, 3, 0],
      [1, 0, 3],
      [1, 1, 0],
    ],
  },
};

/** The core's numbers for a state's options, computed here in node: what every view must show. */
function expected(o) {
  const seed = o.input === 'seed003';
  const X = seed ? { rows: 3, cols: 4, data: Float32Array.from(SEED003.X.flat()) } : vectors.embed(SENTENCE, 1024).X;
  const score = o.score ?? (seed ? 'dot' : 'scaled');
  const options = { temperature: o.temperature ?? 1, causal: o.mask === 'causal' };
  let steps;
  if (seed)
    steps = core.attention(SEED003.X, SEED003.W, { ...options, score: { scaled: 'scaled_dot', dot: 'dot', cosine: 'cosine' }[score] });
  else if (o.weights === 'identity') {
    const I = identityWeights(vectors.dim, 4);
    steps = core.attention(
      X,
      { Wq: I, Wk: I, Wv: I },
      { ...options, score: { scaled: 'scaled_dot', dot: 'dot', cosine: 'cosine' }[score] },
    );
  } else
    steps = core.parameterFree(X, score === 'scaled' ? Math.sqrt(vectors.dim) : 1, {
      ...options,
      score: score === 'cosine' ? 'cosine' : 'dot',
    });
  const weights = o.norm === 'columns' ? core.softmax(steps.scaled, { axis: 'columns' }) : steps.weights;
  const output = o.norm === 'columns' ? core.weightedSum(weights, steps.V) : steps.output;
  const w = multiHeadWeights(X.cols, Math.min(4, X.cols), 1, HEAD_SHARPNESS);
  const heads = core.multiHead(
    X,
    { heads: w.heads, Wo: w.Wo },
    { ...options, score: { scaled: 'scaled_dot', dot: 'dot', cosine: 'cosine' }[score] },
  ).heads;
  return { steps, weights, output, heads, T: weights.rows };
}

/** What each view of the page draws, read back from the page. */
const readLines = (page) =>
  page.evaluate(() => {
    const l = document.querySelector('#heatmap canvas.links')?.attentionLines;
    return l && { ...l, data: Array.from(l.data) };
  });
const readSteps = (page) =>
  page.evaluate(() => {
    const svg = document.querySelector('#heatmap svg.steps');
    return (
      svg && {
        query: Number(svg.dataset.query),
        rows: [...svg.querySelectorAll('.steps-row')].map((r) =>
          ['score', 'scaled', 'weight'].map((k) => Number(r.querySelector(`.${k}`).dataset.value)),
        ),
        output: JSON.parse(svg.querySelector('.output').dataset.values),
      }
    );
  });
const readHeads = (page) =>
  page.evaluate(() =>
    [...document.querySelectorAll('#heatmap > .heatmap.compact canvas.cells')].map((c) => ({
      ...c.attentionWeights,
      data: Array.from(c.attentionWeights.data),
    })),
  );
const near = (a, b, where) => assert.ok(a === b || Math.abs(a - b) <= TOL, `${where}: page ${a}, core ${b}`);

/** Every view of the figure and the walkthrough's steps 5 and 8 show `want` (for selected word i). */
async function assertAllViews(page, want, i, where) {
  const T = want.T,
    at = (m, r, c) => m.data[r * m.cols + c];
  await page.selectOption('#view', 'heatmap');
  await drawn(page, { view: 'heatmap', word: i });
  const { map } = await figureState(page, null);
  assertWeights(map, want.weights, `${where} heatmap`, TOL);
  assertColours(map, `${where} heatmap`);
  await page.selectOption('#view', 'lines');
  await drawn(page, { view: 'lines', word: i });
  const lines = await readLines(page);
  assert.equal(lines.T, T, `${where} lines`);
  lines.data.forEach((v, n) =>
    near(v, at(want.weights, lines.start + Math.floor(n / lines.rows), lines.start + (n % lines.rows)), `${where} lines ${n}`),
  );
  await page.selectOption('#view', 'steps');
  await drawn(page, { view: 'steps', word: i });
  const steps = await readSteps(page);
  assert.equal(steps.query, i, `${where} steps: the selected word`);
  steps.rows.forEach(([score, scaled, weight], j) => {
    near(score, at(want.steps.scores, i, j), `${where} steps score ${j}`);
    near(scaled, at(want.steps.scaled, i, j), `${where} steps scaled ${j}`);
    near(weight, at(want.weights, i, j), `${where} steps weight ${j}`);
  });
  steps.output.forEach((v, c) => near(v, at(want.output, i, c), `${where} steps output ${c}`));
  await page.selectOption('#view', 'heads');
  await drawn(page, { view: 'heads', word: i });
  const heads = await readHeads(page);
  assert.equal(heads.length, want.heads.length, `${where} heads`);
  heads.forEach((h, k) =>
    h.data.forEach((v, n) =>
      near(v, at(want.heads[k].weights, h.rowStart + Math.floor(n / h.cols), h.colStart + (n % h.cols)), `${where} head ${k + 1} (${n})`),
    ),
  );
  // The walkthrough, on the same numbers: step 5's weights for the query, step 8's whole matrix.
  await onScreen(page, 'step-softmax');
  const alpha = await page.$$eval('table[data-name="softmax"] tr[data-stage="weight α"] td', (tds) =>
    tds.map((t) => [Number(t.dataset.key), Number(t.dataset.value)]),
  );
  assert.equal(alpha.length, Math.min(T, 16), `${where} step 5`);
  for (const [j, v] of alpha) near(v, at(want.weights, i, j), `${where} step 5 α(${i}, ${j})`);
  await onScreen(page, 'step-repeat');
  const all = await page.$$eval('table[data-name="weights"] td[data-row]', (tds) =>
    tds.map((t) => [Number(t.dataset.row), Number(t.dataset.col), Number(t.dataset.value)]),
  );
  assert.ok(all.length > 0, `${where} step 8`);
  for (const [r, c, v] of all) near(v, at(want.weights, r, c), `${where} step 8 (${r}, ${c})`);
  await page.evaluate(() => scrollTo(0, 0));
}

const OPTIONS = [
  { name: 'default', query: '', o: {} },
  { name: 'dot scores', query: 'score=dot', o: { score: 'dot' } },
  { name: 'cosine scores, τ 0.3', query: 'score=cosine&temperature=0.3', o: { score: 'cosine', temperature: 0.3 } },
  { name: 'causal mask', query: 'mask=causal', o: { mask: 'causal' } },
  { name: 'softmax down the columns', query: 'norm=columns', o: { norm: 'columns' } },
  { name: 'identity weights from the walkthrough', query: 'weights=identity&dk=4', o: { weights: 'identity' } },
  { name: 'seed 003’s example', query: 'input=seed003', o: { input: 'seed003' } },
];

for (const { name, query, o } of OPTIONS) {
  test(`option × view: ${name} reaches the heatmap, lines, steps, heads and the walkthrough, with the core’s numbers`, async () => {
    const { page, problems } = await openWatched(browser, `${url}?word=1&${query}`, { viewport: { width: 1280, height: 900 } });
    try {
      await page.waitForSelector('html.explainer-ready', { timeout: 20_000 });
      await assertAllViews(page, expected(o), 1, name);
      assert.deepEqual(problems, []);
    } finally {
      await page.close();
    }
  });
}

test('an option changed on the page reaches every view at once (no view keeps an old copy)', async () => {
  const { page, problems } = await openWatched(browser, `${url}?word=4`, { viewport: { width: 1280, height: 900 } });
  try {
    await page.waitForSelector('html.explainer-ready', { timeout: 20_000 });
    await page.click('#more');
    await page.selectOption('#norm', 'columns');
    await page.selectOption('#mask', 'causal');
    await page.selectOption('#score', 'cosine');
    await drawn(page, { norm: 'columns', mask: 'causal', score: 'cosine' });
    await assertAllViews(page, expected({ norm: 'columns', mask: 'causal', score: 'cosine' }), 4, 'changed on the page');
    // The walkthrough's own choice (weights) changes the figure too.
    await page.selectOption('#x-mode', 'identity');
    await drawn(page, { weights: 'identity' });
    await assertAllViews(
      page,
      expected({ norm: 'columns', mask: 'causal', score: 'cosine', weights: 'identity' }),
      4,
      'weights from the walkthrough',
    );
    assert.deepEqual(problems, []);
  } finally {
    await page.close();
  }
});

test('the walkthrough’s words are always the sentence’s: a paragraph, then a short sentence, and a pick moves the figure', async () => {
  const { page, problems } = await openWatched(browser, url, { viewport: { width: 1280, height: 900 } });
  try {
    await page.waitForSelector('html.explainer-ready', { timeout: 20_000 });
    const paragraph = Array.from(
      { length: 40 },
      (_, i) => ['the', 'river', 'bank', 'flooded', 'after', 'heavy', 'rain', 'station'][i % 8],
    ).join(' ');
    await page.fill('#sentence', paragraph);
    await drawn(page, { sentence: paragraph });
    await page.waitForFunction(() => !document.querySelector('.picker-menu').hidden);
    const menu = await page.$$eval('.picker-menu option', (os) => os.map((o) => o.textContent));
    assert.deepEqual(
      menu,
      core.tokenize(paragraph).map((t, k) => `${k + 1}: ${t}`),
    );
    assert.equal(await page.locator('.picker').isHidden(), true, 'no buttons of another sentence');
    // Choosing "station" (word 8) in the walkthrough selects it in the figure.
    await page.selectOption('.picker-menu', '7');
    await drawn(page, { sentence: paragraph, word: 7 });
    assert.equal(await page.inputValue('#word'), '7');
    const text = 'he cashed a check at the bank';
    await page.fill('#sentence', text);
    await drawn(page, { sentence: text });
    await page.waitForFunction(() => !document.querySelector('.picker').hidden);
    assert.deepEqual(await page.$$eval('.picker button', (bs) => bs.map((b) => b.textContent)), text.split(' '));
    await page.click('.picker button[data-index="3"]');
    await drawn(page, { sentence: text, word: 3 });
    assert.equal(await page.inputValue('#word'), '3');
    assert.equal(await page.getAttribute('.picker button[data-index="3"]', 'aria-pressed'), 'true');
    const { map } = await figureState(page, null);
    assert.equal(map.rowLabels.find((l) => /\bselected\b/.test(l.cls))?.index, 3, 'the heatmap marks the same word');
    assert.match(await page.textContent('#story'), /^“check” looks most at/);
    assert.deepEqual(problems, []);
  } finally {
    await page.close();
  }
});

for (const [width, height] of [
  [1280, 800],
  [390, 844],
]) {
  test(`first screen at ${width}×${height}: a short intro, three controls and the story, then the whole 7×7 heatmap, no scrolling`, async () => {
    const { page, problems } = await openWatched(browser, url, { viewport: { width, height } });
    try {
      await drawn(page);
      const screen = await page.evaluate(() => {
        const visible = (el) =>
          el.checkVisibility() && el.getBoundingClientRect().bottom <= innerHeight && el.getBoundingClientRect().width > 0;
        const canvas = document.querySelector('#heatmap canvas.cells');
        const controls = [...document.querySelectorAll('#figure :is(input, select, textarea, button)')]
          .filter(visible)
          .filter((el) => el.getBoundingClientRect().top < canvas.getBoundingClientRect().top)
          .map((el) => el.id || el.className);
        return {
          cells: canvas.attentionWeights.rows * canvas.attentionWeights.cols,
          bottom: canvas.getBoundingClientRect().bottom,
          height: innerHeight,
          scrollY,
          controls,
          story: document.getElementById('story').textContent,
          storyVisible: visible(document.getElementById('story')),
          sentenceTag: document.getElementById('sentence').tagName,
        };
      });
      assert.equal(screen.cells, 49);
      assert.ok(screen.bottom <= screen.height, `the heatmap ends at ${screen.bottom}px of ${screen.height}`);
      assert.equal(screen.scrollY, 0);
      assert.deepEqual(screen.controls, ['sentence', 'view', 'word', 'more'], 'the sentence, view and word, and More options');
      assert.equal(screen.sentenceTag, 'TEXTAREA', 'a box that grows for a paragraph');
      // The story, from the numbers: train's strongest link and its weight on itself.
      const { X } = vectors.embed(SENTENCE, 64);
      const w = core.parameterFree(X, Math.sqrt(vectors.dim), { temperature: 1 }).weights.data;
      assert.equal(
        screen.story.split(').')[0] + ').',
        `“train” looks most at “station” (${w[11].toFixed(2)}), after itself (${w[8].toFixed(2)}).`,
      );
      assert.match(screen.story, new RegExp(`“station” looks most at “train” in turn \\(${w[29].toFixed(2)}\\)\\.$`));
      assert.ok(screen.storyVisible);
      assert.deepEqual(problems, []);
    } finally {
      await page.close();
    }
  });
}

test('phone: no text under 12 px anywhere on the page, and the sticky word bar at most 56 px tall', async () => {
  const context = await browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true, deviceScaleFactor: 2 });
  const page = await context.newPage();
  try {
    for (const query of ['', '?view=steps', '?view=heads&input=seed003', '?view=lines&source=decoder', '?view=model&source=encoder']) {
      await page.goto(url + query);
      await drawn(page, { timeout: 30_000, view: new URLSearchParams(query).get('view') ?? 'heatmap' });
      await page.waitForSelector('html.explainer-ready', { timeout: 20_000 });
      await page.waitForFunction(() => document.getElementById('plot') && !document.getElementById('plot').hidden, null, {
        timeout: 20_000,
      });
      await page.addStyleTag({ content: '.step, #by-hand, #rnn { content-visibility: visible !important; }' });
      // Every step drawn (each draws as it comes on screen).
      for (const id of [
        'step-inputs',
        'step-weights',
        'step-qkv',
        'shapes',
        'step-scores',
        'step-softmax',
        'step-weighted',
        'expansion',
        'step-repeat',
        'vectors',
        'multihead',
      ]) {
        await onScreen(page, id);
      }
      const small = await page.evaluate(() => {
        const out = [];
        const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
        for (let n = walker.nextNode(); n; n = walker.nextNode()) {
          const el = n.parentElement;
          if (!n.data.trim() || !el?.checkVisibility()) continue;
          let size = parseFloat(getComputedStyle(el).fontSize);
          // SVG text scaled down with its picture is smaller on screen than its font size says.
          if (el instanceof SVGElement && el.getScreenCTM()) size *= Math.hypot(el.getScreenCTM().a, el.getScreenCTM().b);
          if (size < 11.95) out.push(`${size.toFixed(1)}px “${n.data.trim().slice(0, 20)}” in #${el.closest('[id]')?.id}`);
        }
        return out;
      });
      assert.deepEqual(small, [], `${query || 'default'}: text under 12 px`);
      const bar = await page.evaluate(() => {
        document.getElementById('step-scores').scrollIntoView();
        const r = document.querySelector('.pick-row').getBoundingClientRect();
        return { top: r.top, height: r.height };
      });
      assert.ok(bar.height <= 56, `${query}: the sticky bar is ${bar.height}px tall`);
      assert.equal(Math.round(bar.top), 0, 'it sticks to the top while the steps scroll');
    }
  } finally {
    await context.close();
  }
});

test('the guided tour: each stop sets the state and the URL and points at its part; keyboard and screen reader usable; leaving keeps the state', async () => {
  const { page, problems } = await openWatched(browser, `${url}?sentence=a+cat+sat&view=steps`, { viewport: { width: 1280, height: 900 } });
  try {
    await page.waitForSelector('html.explainer-ready', { timeout: 20_000 });
    await page.click('#tour-start');
    const stop = () =>
      page.evaluate(() => ({
        stop: document.querySelector('.tour').dataset.stop,
        title: document.getElementById('tour-title').textContent,
        focus: document.activeElement.id,
        target: document.querySelector('.tour-target')?.id,
        text: document.querySelector('.tour-text').textContent,
        params: Object.fromEntries(new URL(location.href).searchParams),
        view: document.getElementById('view').value,
        role: document.querySelector('.tour').getAttribute('role'),
        labelled: document.querySelector('.tour').getAttribute('aria-labelledby'),
      }));
    const seen = [];
    for (let k = 0; k < 6; k++) {
      await page.waitForFunction((k) => document.querySelector('.tour')?.dataset.stop === String(k), k);
      await drawn(page, { timeout: 30_000, tour: k });
      if (k === 5)
        await page.waitForFunction(() => document.querySelector('.tour-text').textContent.startsWith('A trained encoder'), null, {
          timeout: 20_000,
        });
      const s = await stop();
      seen.push(s);
      assert.equal(s.focus, 'tour-title', `stop ${k + 1}: focus moves to the panel`);
      assert.deepEqual([s.role, s.labelled], ['dialog', 'tour-title']);
      assert.equal(s.params.tour, String(k), `stop ${k + 1}: in the URL`);
      assert.equal(s.params.sentence, SENTENCE, 'the tour runs on the default sentence');
      assert.ok(s.target, `stop ${k + 1} points at a part of the page`);
      if (k < 5) await page.keyboard.press('Tab').then(() => page.click('.tour-next'));
    }
    assert.deepEqual(
      seen.map((s) => s.target),
      ['step-inputs', 'figure', 'story', 'expansion', 'vectors', 'figure'],
    );
    assert.deepEqual(
      seen.map((s) => s.view),
      ['heatmap', 'heatmap', 'lines', 'heatmap', 'steps', 'model'],
    );
    assert.match(seen[2].text, /^“train” looks most at “station”/);
    assert.equal(seen[5].params.source, 'encoder');
    // Back, then Escape: the tour closes, the state of its last stop stays (and the URL keeps it, without tour).
    await page.click('.tour-back');
    await page.waitForFunction(() => document.querySelector('.tour').dataset.stop === '4');
    await drawn(page, { tour: 4 });
    await page.focus('.tour-next');
    await page.keyboard.press('Escape');
    await page.locator('.tour').waitFor({ state: 'hidden' });
    await drawn(page, { tour: null, view: 'steps' });
    assert.equal(await page.locator('.tour').isHidden(), true);
    assert.equal(await page.evaluate(() => document.activeElement.id), 'tour-start');
    const params = Object.fromEntries(new URL(page.url()).searchParams);
    assert.equal(params.tour, undefined);
    assert.equal(params.view, 'steps');
    assert.equal(await page.inputValue('#view'), 'steps');
    // A link with &tour=2 opens at that stop.
    await page.goto(`${url}?tour=2`);
    await page.waitForFunction(() => document.querySelector('.tour')?.dataset.stop === '2', null, { timeout: 20_000 });
    await drawn(page, { tour: 2, view: 'lines' });
    assert.equal(await page.inputValue('#view'), 'lines');
    // A link to the last stop: its part (the guesses) is drawn only once the encoder has loaded, and the
    // tour points at it then.
    await page.goto(`${url}?tour=6`);
    await page.waitForSelector('#predictions.tour-target', { timeout: 30_000 });
    const top = await page.evaluate(() => document.getElementById('predictions').getBoundingClientRect().top);
    assert.ok(top >= 0 && top < 200, `the guesses are scrolled to the top of the screen (top ${top})`);
    assert.deepEqual(problems, []);
  } finally {
    await page.close();
  }
});

test('imported attention: the formula, the notes and the walkthrough say what it is and what does not apply', async () => {
  const { page, problems } = await openWatched(browser, url, { viewport: { width: 1280, height: 900 } });
  try {
    await page.waitForSelector('html.explainer-ready', { timeout: 20_000 });
    const rows = [
      [0.5, 0.5],
      [0.25, 0.75],
    ];
    await page.evaluate((rows) => window.attentionFigure.importAttention({ tokens: ['[CLS]', 'hi'], attentions: [[rows]] }), rows);
    // The import draws at once (the state, and so data-drawn, stays): wait for its 2 tokens drawn.
    await page.waitForFunction(() => document.querySelector('#heatmap canvas.cells')?.attentionWeights?.T === 2);
    await drawn(page);
    assert.match(await page.textContent('#option-note'), /^Imported attention: the weights of a real model/);
    assert.doesNotMatch(await page.textContent('#option-note'), /random|seed/i);
    assert.match(await page.textContent('#formula'), /imported/);
    assert.match(await page.textContent('#walkthrough .x-message'), /Imported attention holds only the weights/);
    assert.equal(await page.locator('#step-softmax').isHidden(), true);
    // Back to the word vectors: everything follows the sentence again.
    await page.click('.clear-import');
    await page.locator('.clear-import').waitFor({ state: 'hidden' });
    await drawn(page);
    await page.waitForFunction(() => document.querySelector('#heatmap canvas.cells')?.attentionWeights?.T === 7);
    assert.equal(await page.locator('#step-softmax').isHidden(), false);
    assert.deepEqual(problems, []);
  } finally {
    await page.close();
  }
});

test('details: a growing sentence box, Heads only with the heads view, a wrapping weighted sum, τ worded as it acts, one number format, W rows named as X’s columns', async () => {
  const { page, problems } = await openWatched(browser, `${url}?weights=random&word=1`, { viewport: { width: 1280, height: 900 } });
  try {
    await page.waitForSelector('html.explainer-ready', { timeout: 20_000 });
    // A paragraph makes the box taller (up to ten lines, then it scrolls).
    const before = await page.evaluate(() => document.getElementById('sentence').getBoundingClientRect().height);
    const paragraph = Array.from({ length: 300 }, (_, i) => ['the', 'river', 'bank', 'flooded'][i % 4]).join(' ');
    await page.fill('#sentence', paragraph);
    await drawn(page, { sentence: paragraph });
    const grown = await page.evaluate(() => document.getElementById('sentence').getBoundingClientRect().height);
    assert.ok(grown > before * 3, `the box grew from ${before}px to ${grown}px`);
    await page.fill('#sentence', SENTENCE);
    await drawn(page, { sentence: SENTENCE });
    // Heads: hidden in the heatmap view, where it changes nothing; shown with the heads view.
    await page.click('#more');
    await page.locator('#mask').waitFor({ state: 'visible' });
    assert.equal(await page.locator('#heads').isVisible(), false);
    await page.selectOption('#view', 'heads');
    await drawn(page, { sentence: SENTENCE, view: 'heads' });
    assert.equal(await page.locator('#heads').isVisible(), true);
    await page.selectOption('#view', 'heatmap');
    await drawn(page, { sentence: SENTENCE, view: 'heatmap' });
    // Step 7's sum wraps within its step instead of running off to the right.
    await page.check('#x-full');
    await drawn(page, { full: true });
    await onScreen(page, 'expansion');
    const sum = await page.evaluate(() => {
      const box = document.querySelector('#expansion .expansion-box'),
        step = document.getElementById('expansion').getBoundingClientRect();
      return {
        overflow: box.scrollWidth - box.clientWidth,
        right: Math.max(...[...box.children].map((m) => m.getBoundingClientRect().right)),
        stepRight: step.right,
        lines: new Set([...box.children].map((m) => Math.round(m.getBoundingClientRect().top))).size,
      };
    });
    assert.ok(sum.overflow <= 1 && sum.right <= sum.stepRight, JSON.stringify(sum));
    assert.ok(sum.lines >= 2, 'on more than one line');
    // τ below 1 sharpens and above 1 evens out: step 5 says which, and never "so the softmax does not saturate" for τ alone.
    await page.locator('#temperature').fill('0.5');
    await drawn(page, { temperature: 0.5 });
    await onScreen(page, 'step-softmax');
    assert.match(await page.textContent('#step-softmax p'), /τ below 1 sharpens the weights/);
    await page.selectOption('#score', 'dot');
    await page.locator('#temperature').fill('2');
    await drawn(page, { score: 'dot', temperature: 2 });
    await onScreen(page, 'step-softmax');
    const five = await page.textContent('#step-softmax p');
    assert.match(five, /^Divide by τ = 2\.00 \(τ above 1 evens them out\)/);
    assert.doesNotMatch(five, /saturate/);
    // Numbers: a true minus sign and one count of decimals per table, editable cells included.
    await onScreen(page, 'step-weights');
    const cells = await page.$$eval('#step-weights table[data-name="W_Q"] input', (is) => is.map((i) => i.value));
    assert.ok(
      cells.every((v) => /^−?\d\.\d{4}$/.test(v)),
      cells.slice(0, 5).join(' '),
    );
    assert.ok(cells.some((v) => v.startsWith('−')));
    const rowNames = await page.$$eval('#step-weights table[data-name="W_Q"] tbody th', (ths) => ths.map((t) => t.textContent));
    assert.deepEqual(rowNames.slice(0, 3), ['d1', 'd2', 'd3'], 'W’s rows meet X’s columns d1…d50');
    await onScreen(page, 'step-repeat');
    const texts = await page.$$eval('#step-repeat table[data-name="weights"] td[data-row]', (tds) => tds.map((t) => t.textContent));
    assert.ok(
      texts.every((t) => /^−?\d\.\d{4}$/.test(t)),
      `no bare 0 among the weights: ${texts.filter((t) => !/^−?\d\.\d{4}$/.test(t))}`,
    );
    assert.deepEqual(problems, []);
  } finally {
    await page.close();
  }
});

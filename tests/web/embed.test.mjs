// The page in an iframe (&embed=1), as an article author embeds it: &controls= chooses the controls
// (the widget's `controls` words), the page tells its parent its height with postMessage (and the
// README's listener fits the frame with it), and the snippet's fixed height (the same as README.md's)
// shows each view without a scrollbar at an article's width. Build first: bash scripts/build.sh.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { drawn, openWatched, root, startSession } from './harness.mjs';

let browser, url, session;

before(async () => {
  session = await startSession();
  ({ browser, url } = session);
});

after(() => session?.stop());

/** Which of the figure's controls and buttons are on screen. */
const visibleControls = (target) =>
  target.evaluate(() => {
    const on = (sel) => {
      const el = document.querySelector(sel);
      return Boolean(el && el.getClientRects().length && getComputedStyle(el).visibility !== 'hidden');
    };
    const names = {
      sentence: '#sentence',
      view: '#view',
      word: '#word',
      more: '#more',
      share: '.shareButton',
      export: '.svgButton',
      import: '.importButton',
      mask: '#mask',
      temperature: '#temperature',
    };
    return Object.keys(names).filter((k) => on(names[k]));
  });

/**
 * An article page (served at /__article.html by a route) holding one iframe of `src`, `width` px wide
 * and `height` px tall, that records every message it gets; `script`: the author's own lines, if any.
 */
async function article(src, { width = 700, height = 400, script = '' } = {}) {
  const { page, problems } = await openWatched(browser, `${url}__article.html`, {
    viewport: { width: width + 100, height: 900 },
    before: (p) =>
      p.route('**/__article.html', (route) =>
        route.fulfill({
          contentType: 'text/html; charset=utf-8',
          body: `<!doctype html><html lang="en"><head><title>Article</title></head><body style="margin:0">
        <script>window.__messages = []; addEventListener('message', (e) => window.__messages.push({ data: e.data, fromFrame: e.source === frames[0] }));</script>
        <div style="width:${width}px"><iframe src="${src.replaceAll('&', '&amp;').replaceAll('"', '&quot;')}" title="Self-attention figure" width="100%" height="${height}" style="border:0"></iframe></div>
        ${script ? `<script>${script}</script>` : ''}</body></html>`,
        }),
      ),
  });
  const frame = await (await page.waitForSelector('iframe')).contentFrame();
  await drawn(frame);
  return { page, frame, problems };
}

/** The frame's content height, and whether it fits the frame without scrolling. */
const fit = (frame) =>
  frame.evaluate(() => ({
    content: Math.ceil(document.documentElement.getBoundingClientRect().height),
    scroll: document.documentElement.scrollHeight,
    client: document.documentElement.clientHeight,
  }));

test("&controls= chooses what an embedded page shows (the widget's words); the full page ignores it", async () => {
  const cases = [
    ['sentence+view', ['sentence', 'view']],
    ['none', []],
    ['view,export', ['view', 'export']],
    ['sentence%20view%20word%20mask%20temperature%20share', ['sentence', 'view', 'word', 'share', 'more']],
    ['all', ['sentence', 'view', 'word', 'more', 'share', 'export', 'import']],
  ];
  for (const [controls, want] of cases) {
    const { page, problems } = await openWatched(browser, `${url}index.html?embed=1&controls=${controls}`, {
      viewport: { width: 700, height: 900 },
    });
    try {
      await drawn(page);
      assert.deepEqual((await visibleControls(page)).sort(), [...want].sort(), `controls=${controls}`);
      assert.ok(await page.locator('#heatmap canvas.cells').isVisible(), `controls=${controls}: the figure is drawn`);
      assert.deepEqual(problems, []);
    } finally {
      await page.close();
    }
  }
  // A change rewrites the URL with the controls kept (a reload shows the same frame).
  const { page, problems } = await openWatched(browser, `${url}index.html?embed=1&controls=view`, {
    viewport: { width: 700, height: 900 },
  });
  try {
    await drawn(page);
    await page.selectOption('#view', 'lines');
    await drawn(page, { view: 'lines' });
    await page.waitForFunction(() => new URL(location.href).searchParams.get('view') === 'lines');
    assert.equal(new URL(page.url()).searchParams.get('controls'), 'view');
    // Outside a frame (no embed=1) the page is the full page: every control.
    await page.goto(`${url}index.html?controls=none`);
    await drawn(page);
    assert.ok((await visibleControls(page)).includes('sentence'), 'the full page ignores controls=');
    assert.deepEqual(problems, []);
  } finally {
    await page.close();
  }
});

test("a widget's share snippet carries its controls to the frame", async () => {
  const { page, problems } = await openWatched(browser, `${url}examples/index.html`, { viewport: { width: 1100, height: 900 } });
  try {
    await drawn(page, { scope: '#fig-lines', view: 'lines' });
    const w = page.locator('#fig-lines');
    await w.locator('.shareButton').click();
    await w.locator('.panel.share').waitFor({ state: 'visible' });
    const snippet = await w.locator('.share-snippet').inputValue();
    const src = /<iframe src="([^"]+)"/.exec(snippet)[1].replaceAll('&amp;', '&');
    assert.equal(new URL(src).searchParams.get('controls'), 'sentence view mask temperature share');
    assert.equal(/height="(\d+)"/.exec(snippet)[1], '580', "the lines view's height");
    await page.goto(src);
    await drawn(page, { view: 'lines' });
    await page.click('#more');
    await page.locator('#mask').waitFor({ state: 'visible' });
    assert.deepEqual((await visibleControls(page)).sort(), ['mask', 'more', 'sentence', 'share', 'temperature', 'view']);
    assert.deepEqual(problems, []);
  } finally {
    await page.close();
  }
});

test("the embedded page sends its height to the parent; README.md's lines fit the frame to it", async () => {
  const readme = await readFile(join(root, 'README.md'), 'utf8');
  const listener = /```html\n<script>\n([\s\S]*?)<\/script>\n```/.exec(readme)?.[1];
  assert.ok(listener?.includes("'attention-figure:height'"), 'README.md shows the listener');
  const { page, frame, problems } = await article(`${url}index.html?view=lines&embed=1`, { height: 300 });
  try {
    const heightMessage = async (content) => {
      await page.waitForFunction((h) => window.__messages.some((m) => m.data?.height === h), content, { timeout: 10_000 });
      return page.evaluate(() => window.__messages.at(-1));
    };
    let size = await fit(frame);
    let last = await heightMessage(size.content);
    assert.deepEqual(Object.keys(last.data).sort(), ['height', 'type']);
    assert.equal(last.data.type, 'attention-figure:height');
    assert.equal(last.fromFrame, true);
    assert.ok(size.scroll > size.client, 'a 300 px frame is too short for the lines view');
    // Taller content (the heads view): a new message with the new height.
    await frame.selectOption('#view', 'heads');
    await drawn(frame, { view: 'heads' });
    size = await fit(frame);
    last = await heightMessage(size.content);
    assert.ok(last.data.height > 700, `heads: ${last.data.height} px`);
    assert.deepEqual(problems, []);
  } finally {
    await page.close();
  }
  // With the README's lines in the article, the frame takes the page's height: no scrollbar.
  const withListener = await article(`${url}index.html?view=heads&embed=1`, { height: 300, script: listener });
  try {
    await drawn(withListener.frame, { view: 'heads' });
    // The listener has set the frame to the height the page last posted (taller than 700 px).
    await withListener.page.waitForFunction(
      () => {
        const posted = window.__messages.filter((m) => m.data?.type === 'attention-figure:height').at(-1)?.data.height;
        return posted > 700 && Math.round(document.querySelector('iframe').getBoundingClientRect().height) === posted;
      },
      null,
      { timeout: 10_000 },
    );
    const size = await fit(withListener.frame);
    assert.ok(size.scroll <= size.client, `frame ${size.client} px for ${size.scroll} px of content`);
    assert.deepEqual(withListener.problems, []);
  } finally {
    await withListener.page.close();
  }
  // Not in a frame: no message at all.
  const alone = await openWatched(browser, `${url}index.html?embed=1`, {
    before: (p) =>
      p.addInitScript(() => {
        window.__messages = [];
        addEventListener('message', (e) => window.__messages.push(e.data));
      }),
  });
  try {
    await drawn(alone.page);
    // A message of its own, posted after the figure drew: once it arrives, any the page posted before it has too.
    await alone.page.evaluate(() => postMessage('__sentinel', '*'));
    await alone.page.waitForFunction(() => window.__messages.includes('__sentinel'));
    assert.deepEqual(await alone.page.evaluate(() => window.__messages.filter((m) => m !== '__sentinel')), []);
  } finally {
    await alone.page.close();
  }
});

test("the snippet's height per view (the README's too) shows the view without a scrollbar at 700 px", async () => {
  const heights = {};
  const cases = ['heatmap', 'lines', 'steps', 'heads']
    .map((view) => `view=${view}`)
    .concat([
      'view=heatmap&source=model',
      'view=heads&source=model',
      'view=model&source=encoder',
      'view=heatmap&source=encoder&blank=4',
      'view=lines&sentence=the+quick+brown+fox+jumps+over+the+lazy+dog+by+the+bank',
      'view=steps&sentence=the+quick+brown+fox+jumps+over+the+lazy+dog+by+the+bank',
    ]);
  for (const query of cases) {
    // The frame's own snippet says how tall it should be: open it at that height.
    const probe = await article(`${url}index.html?${query}&embed=1`, { height: 400 });
    const snippet = await probe.frame.evaluate(() => window.attentionFigure.embedSnippet());
    await probe.page.close();
    const height = Number(/height="(\d+)"/.exec(snippet)[1]);
    if (!query.includes('&')) heights[query.slice(5)] = height;
    const { page, frame, problems } = await article(`${url}index.html?${query}&embed=1`, { height });
    try {
      await drawn(frame, { view: new URLSearchParams(query).get('view') });
      const size = await fit(frame);
      assert.ok(size.scroll <= size.client, `${query}: ${size.scroll} px of content in a ${height} px frame`);
      assert.ok(height - size.content <= 120, `${query}: ${height - size.content} px left blank in a ${height} px frame`);
      assert.deepEqual(problems, [], query);
    } finally {
      await page.close();
    }
  }
  // The README's example frame has the snippet's height for its view.
  const readme = await readFile(join(root, 'README.md'), 'utf8');
  const [, src, height] = /<iframe src="([^"]+)"\s+title="[^"]*" width="100%" height="(\d+)"/.exec(readme);
  const view = new URL(src.replaceAll('&amp;', '&')).searchParams.get('view');
  assert.equal(Number(height), heights[view], `README.md's ${view} frame is ${height} px; the snippet says ${heights[view]}`);
  assert.match(
    readme.replace(/\s+/g, ' '),
    new RegExp(`heatmap ${heights.heatmap}, lines ${heights.lines}, steps ${heights.steps}, heads ${heights.heads} px`),
  );
});

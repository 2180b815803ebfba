// Exports an article author can paste as they are: the SVG and PNG carry a title, the sentence and a
// caption naming what is drawn (source, layer/head, settings), with no blank band between the figure
// and its legend; the SVG is one image to a screen reader (role="img", <title>, <desc>); the PNG has
// twice the device's pixels; the JSON says the same words. Build first: bash scripts/build.sh.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { drawn, openWatched, startSession } from './harness.mjs';

let browser, url, session;

before(async () => {
  session = await startSession();
  ({ browser, url } = session);
});

after(() => session?.stop());

/** The page's figure, embedded, in a view and theme, at a device pixel ratio; resolves once drawn. */
async function openFigure(query, { scale = 1, width = 900 } = {}) {
  const context = await browser.newContext({ viewport: { width, height: 900 }, deviceScaleFactor: scale });
  const { page, problems } = await openWatched(context, `${url}index.html?${query}`);
  // The state of the query drawn (its page parameters aside; 'model' is the decoder's old name).
  const state = [...new URLSearchParams(query)].filter(([k]) => !['theme', 'embed'].includes(k));
  await drawn(page, {
    timeout: 30_000,
    ...Object.fromEntries(state.map(([k, v]) => [k, k === 'source' && v === 'model' ? 'decoder' : v])),
  });
  await page.waitForFunction(() => window.attentionStore.shown && document.querySelector('#plot:not([hidden]) #heatmap svg'), null, {
    timeout: 30_000,
  });
  return { page, problems, close: () => context.close() };
}

/**
 * In the page: the export's SVG text read back as a document (the test's own parser, not the page's
 * code): its size, title, desc, label ids, top-level text lines and where every drawn thing lies
 * vertically; and the PNG's size, its background pixel and its longest band of background-only rows.
 */
function readExports() {
  return (async () => {
    const fig = window.attentionFigure;
    const text = fig.exportSVG();
    const doc = new DOMParser().parseFromString(text, 'image/svg+xml');
    const svg = doc.documentElement;
    const num = (el, k) => Number(el.getAttribute(k));
    const spans = [];
    for (const el of svg.children) {
      if (el.localName === 'svg') spans.push([num(el, 'y'), num(el, 'y') + num(el, 'height')]);
      if (el.localName === 'text') spans.push([num(el, 'y') - num(el, 'font-size'), num(el, 'y') + 0.3 * num(el, 'font-size')]);
    }
    spans.sort((a, b) => a[0] - b[0]);
    let gap = 0,
      bottom = spans[0]?.[1] ?? 0;
    for (const [top, end] of spans) {
      gap = Math.max(gap, top - bottom);
      bottom = Math.max(bottom, end);
    }
    const blob = await fig.exportPNG();
    const bmp = await createImageBitmap(blob);
    const canvas = new OffscreenCanvas(bmp.width, bmp.height);
    const ctx = canvas.getContext('2d');
    ctx.drawImage(bmp, 0, 0);
    const px = ctx.getImageData(0, 0, bmp.width, bmp.height).data;
    const bg = [...px.slice(0, 3)];
    // The longest run of rows that hold nothing but the background (the margins excepted: they are
    // the first and last runs).
    const runs = [];
    let run = 0;
    for (let y = 0; y < bmp.height; y++) {
      let blank = true;
      for (let x = 0; x < bmp.width && blank; x++) {
        const p = (y * bmp.width + x) * 4;
        blank = Math.abs(px[p] - bg[0]) <= 2 && Math.abs(px[p + 1] - bg[1]) <= 2 && Math.abs(px[p + 2] - bg[2]) <= 2;
      }
      if (blank) run++;
      else {
        runs.push(run);
        run = 0;
      }
    }
    const label = (svg.getAttribute('aria-labelledby') ?? '').split(/\s+/).filter(Boolean);
    return {
      text,
      role: svg.getAttribute('role'),
      label,
      labelled: label.map((id) => doc.getElementById(id)?.localName ?? null),
      title: svg.querySelector(':scope > title')?.textContent ?? '',
      desc: svg.querySelector(':scope > desc')?.textContent ?? '',
      lines: [...svg.children].filter((el) => el.localName === 'text').map((el) => el.textContent),
      width: num(svg, 'width'),
      height: num(svg, 'height'),
      gap,
      spans: spans.length,
      background: svg.querySelector(':scope > rect')?.getAttribute('fill'),
      png: { width: bmp.width, height: bmp.height, bg, gap: Math.max(0, ...runs.slice(1)), type: blob.type },
      json: fig.exportJSON(),
      dpr: devicePixelRatio,
    };
  })();
}

const VIEWS = {
  heatmap: {
    title: /^Self-attention weights$/,
    caption: /\d+-d word vectors.*no learned weights.*Score: scaled dot q·k\/√d; temperature 1\.00; no mask; softmax along rows/s,
  },
  lines: { title: /^Self-attention weights, as lines$/, caption: /\d+-d word vectors.*temperature 1\.00/s },
  steps: { title: /^Self-attention step by step: “train”$/, caption: /\d+-d word vectors.*temperature 1\.00/s },
  heads: { title: /^4 attention heads$/, caption: /4 random heads \(seed 1, d_k = \d+\).*temperature 1\.00/s },
};
const SENTENCE = 'the train left the station on time';

for (const theme of ['light', 'dark']) {
  test(`exports carry a title, the sentence and a caption, with no blank band (${theme}, every view)`, async () => {
    for (const [view, want] of Object.entries(VIEWS)) {
      const { page, problems, close } = await openFigure(`view=${view}&word=1&theme=${theme}&embed=1`);
      try {
        const x = await page.evaluate(readExports);
        const where = `${view} (${theme})`;
        // One image to a screen reader, named by its <title> and described by its <desc>.
        assert.equal(x.role, 'img', `${where}: role`);
        assert.deepEqual(x.labelled, ['title', 'desc'], `${where}: aria-labelledby names the title and the desc`);
        assert.match(x.title, want.title, where);
        assert.ok(x.desc.includes(SENTENCE), `${where}: desc has the sentence: ${x.desc}`);
        assert.match(x.desc, want.caption, `${where}: desc names the source and settings`);
        assert.doesNotMatch(x.text, /\brole="(?!img")|aria-label=|tabindex=/, `${where}: the parts are not separate controls`);
        // Visible too: the title, the sentence and the caption are lines of text in the image.
        assert.match(x.lines[0], want.title, `${where}: first line is the title`);
        assert.equal(x.lines[1], `“${SENTENCE}”`, `${where}: second line is the sentence`);
        assert.match(x.lines.join(' '), want.caption, `${where}: the caption is drawn`);
        // No blank band: between any two drawn things (figure parts, legend, lines of text) at most 24 px
        // (before: the readout, the table toggle and the notes left ~170 px between the map and its legend).
        assert.ok(x.spans >= 4, `${where}: ${x.spans} parts`);
        assert.ok(x.gap <= 24, `${where}: a blank band of ${x.gap} px in the SVG`);
        // The PNG: the SVG's layout at twice the device's pixels, on the theme's background, no blank band.
        assert.equal(x.png.type, 'image/png');
        assert.ok(
          Math.abs(x.png.width - 2 * x.dpr * x.width) <= 2 && Math.abs(x.png.height - 2 * x.dpr * x.height) <= 2,
          `${where}: PNG ${x.png.width}×${x.png.height} for an SVG of ${x.width}×${x.height} at devicePixelRatio ${x.dpr}`,
        );
        // (In pixels, a view's own margin counts too: the room its SVG keeps above short column labels.)
        assert.ok(x.png.gap <= 40 * 2 * x.dpr, `${where}: a blank band of ${x.png.gap} rows in the PNG`);
        assert.deepEqual(x.png.bg, theme === 'dark' ? [0x17, 0x19, 0x1e] : [255, 255, 255], `${where}: PNG background`);
        assert.equal(x.background, theme === 'dark' ? '#17191e' : '#ffffff', `${where}: SVG background`);
        // The JSON says the same.
        assert.equal(x.json.title, x.title, `${where}: JSON title`);
        assert.equal(x.json.sentence, SENTENCE, `${where}: JSON sentence`);
        assert.match(x.json.caption, want.caption, `${where}: JSON caption`);
        assert.deepEqual(problems, [], where);
      } finally {
        await close();
      }
    }
  });
}

test('the PNG has twice the device pixel ratio: 4× CSS pixels on a 2× screen', async () => {
  const { page, problems, close } = await openFigure('view=heatmap&embed=1', { scale: 2 });
  try {
    const x = await page.evaluate(readExports);
    assert.equal(x.dpr, 2);
    assert.ok(
      Math.abs(x.png.width - 4 * x.width) <= 2 && Math.abs(x.png.height - 4 * x.height) <= 2,
      `PNG ${x.png.width}×${x.png.height}, SVG ${x.width}×${x.height}`,
    );
    assert.deepEqual(problems, []);
  } finally {
    await close();
  }
});

test("the caption names the trained model's layer and head, the rollout, and a cut text", async () => {
  const cases = [
    [
      'source=model&layer=1&head=2&view=heatmap',
      /trained 2-layer, 4-head decoder \(each word sees only the words before it\), layer 2, head 3/,
    ],
    [
      'source=model&layer=rollout&view=heatmap',
      /trained 2-layer, 4-head decoder \(each word sees only the words before it\), attention rollout through all 2 layers/,
    ],
    [
      'source=model&layer=0&view=heads',
      /trained 2-layer, 4-head decoder \(each word sees only the words before it\), layer 1, all 4 heads/,
    ],
  ];
  for (const [query, want] of cases) {
    const { page, problems, close } = await openFigure(`${query}&embed=1`);
    try {
      await page.waitForFunction(() => window.attentionStore.shown?.kind === 'model', null, { timeout: 30_000 });
      const x = await page.evaluate(readExports);
      assert.match(x.desc, want, query);
      assert.match(x.lines.join(' '), want, query);
      assert.match(x.json.caption, want, query);
      assert.doesNotMatch(x.json.caption, /temperature|mask/, `${query}: the model's attention has no settings of the reader's`);
      assert.ok(x.gap <= 24 && x.png.gap <= 80, `${query}: blank band ${x.gap} px (SVG), ${x.png.gap} rows (PNG)`);
      assert.deepEqual(problems, [], query);
    } finally {
      await close();
    }
  }
  // A long text: the first lines of the sentence, an ellipsis, and a caption that says how much is drawn.
  const long = Array.from({ length: 1500 }, (_, i) => ['the', 'train', 'left', 'station'][i % 4]).join(' ');
  const { page, problems, close } = await openFigure(`sentence=${encodeURIComponent(long)}&embed=1`);
  try {
    const x = await page.evaluate(readExports);
    assert.ok(x.lines[1].startsWith('“the train left station') && x.lines.some((l) => l.endsWith('…')), x.lines.slice(0, 5).join(' | '));
    assert.ok(x.lines.length < 15, `${x.lines.length} lines of text`);
    assert.match(x.desc, /1,500 tokens; the figure shows the first 1,024/);
    assert.equal(x.json.sentence, long);
    assert.deepEqual(problems, []);
  } finally {
    await close();
  }
});

test('hostile text exports as well-formed SVG (control characters and markup stay text)', async () => {
  const text = 'a\u0000b\u0007c <script>x</script> "q" & \ud800 </svg>';
  const { page, problems, close } = await openFigure('embed=1');
  try {
    await page.evaluate((text) => window.attentionFigure.change({ sentence: text }), text);
    await drawn(page, { sentence: text });
    assert.equal(await page.evaluate(() => window.attentionFigure.exportJSON().sentence), text);
    const ok = await page.evaluate(() => {
      const doc = new DOMParser().parseFromString(window.attentionFigure.exportSVG(), 'image/svg+xml');
      return {
        error: doc.querySelector('parsererror')?.textContent ?? null,
        scripts: doc.querySelectorAll('script').length,
        line: [...doc.documentElement.children].filter((e) => e.localName === 'text')[1]?.textContent,
      };
    });
    assert.equal(ok.error, null);
    assert.equal(ok.scripts, 0);
    assert.match(ok.line, /<script>x<\/script> "q" & .*<\/svg>/);
    assert.deepEqual(problems, []);
  } finally {
    await close();
  }
});

// Browser test of where the widget's files come from (issue 14 item 7): after setAssetBase(), every file
// it fetches — the core (the build this browser runs) and the model's wasm module, the trained models' module glue, model.bin and encoder.bin — comes
// from the new folder and nothing from beside the script; loadEncoder() and loadModel() share one
// instance of the larger module and give the encoder ('fill') and the decoder.
// Build first: bash scripts/build.sh. Run: node --test tests/web/
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { FIXED_CORE, RELAXED_CORE, launch, site } from './harness.mjs';
import { startServer } from '../../scripts/serve.mjs';

let server, url, browser;

before(async () => {
  ({ server, url } = await startServer(site, 0));
  browser = await launch();
});

after(async () => {
  await browser?.close();
  if (server) await new Promise((done) => server.close(done));
});

const TYPES = { '.js': 'text/javascript', '.wasm': 'application/wasm', '.bin': 'application/octet-stream' };

test('setAssetBase moves every asset, the model module included; loadEncoder and loadModel share it', async () => {
  const page = await browser.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  // The moved folder exists only through this route: it serves the widget's files and records each one.
  const moved = [];
  await page.route(
    (u) => u.pathname.startsWith('/moved/'),
    async (route) => {
      const name = new URL(route.request().url()).pathname.replace(/^\/moved\//, '');
      moved.push(name);
      const ext = name.slice(name.lastIndexOf('.'));
      await route.fulfill({ body: await readFile(join(site, 'widget', name)), contentType: TYPES[ext] ?? 'text/plain' });
    },
  );
  const fromWidget = [];
  page.on('request', (r) => {
    const path = new URL(r.url()).pathname;
    if (path.startsWith('/widget/')) fromWidget.push(path);
  });
  await page.route(`${url}/assets-test.html`, (route) =>
    route.fulfill({ contentType: 'text/html', body: '<!doctype html><link rel="icon" href="data:,"><title>assets</title>' }),
  );
  await page.goto(`${url}/assets-test.html`);

  const result = await page.evaluate(async () => {
    const widget = await import('/widget/attention-widget.js');
    widget.setAssetBase('/moved/');
    const encoder = await widget.loadEncoder();
    const decoder = await widget.loadModel();
    const core = await widget.loadCore();
    const sentence = 'the train left the station on time';
    const filled = encoder.model.fill(sentence, 4);
    const out = {
      encoderKind: encoder.model.kind,
      decoderKind: decoder.model.kind,
      maskToken: encoder.model.maskToken,
      sameModule: encoder.core === decoder.core,
      encoderBytes: encoder.bytes,
      position: filled.position,
      blank: filled.run.tokens[4].text,
      guesses: filled.guesses.map((g) => g.word),
      coreTokens: core.tokenize(sentence).length,
    };
    encoder.model.delete();
    decoder.model.delete();
    return out;
  });

  assert.deepEqual(errors, []);
  assert.equal(result.encoderKind, 'encoder');
  assert.equal(result.decoderKind, 'decoder');
  assert.equal(result.maskToken, '[MASK]');
  assert.ok(result.sameModule, 'loadEncoder and loadModel share the larger module');
  assert.equal(result.encoderBytes, (await readFile(join(site, 'widget', 'encoder.bin'))).length);
  assert.equal(result.position, 4);
  assert.equal(result.blank, '[MASK]');
  assert.equal(result.guesses.length, 5);
  assert.ok(!result.guesses.includes('<unk>') && !result.guesses.includes('[MASK]'), result.guesses.join(', '));
  assert.equal(result.coreTokens, 7);
  // The core is its relaxed build here (this Chromium runs relaxed SIMD), named by loader.js, not the glue.
  for (const file of [RELAXED_CORE, 'attention_model_wasm.js', 'attention_model_wasm.wasm', 'model.bin', 'encoder.bin'])
    assert.ok(moved.includes(file), `${file} came from the moved folder (it served: ${moved.join(', ')})`);
  assert.ok(!moved.includes(FIXED_CORE), `the fixed build was not fetched too (${moved.join(', ')})`);
  // Only the bundle itself (and its chunks) may come from /widget/: no wasm, glue or data file.
  assert.deepEqual(
    fromWidget.filter((p) => !/\/attention-widget\.js$/.test(p)),
    [],
    'nothing but the bundle from beside the script',
  );
  await page.close();
});

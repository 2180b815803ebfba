// The page and the <attention-figure> widget under a strict Content-Security-Policy, sent as an HTTP
// header on every HTML response: no inline script or style, no eval (the wasm glue is built with
// -sDYNAMIC_EXECUTION=0, so Embind needs no new Function), only 'wasm-unsafe-eval' to compile the
// module, every fetch from the same origin, and Trusted Types required for DOM sinks. Each figure must
// draw the right weights, take typed input and record no violation and no console error.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { assertShows, drawn, elementCensus, figureState, openWatched, settled, startSession } from './harness.mjs';

export const STRICT_CSP = [
  "default-src 'none'",
  "script-src 'self' 'wasm-unsafe-eval'",
  "style-src 'self'",
  "img-src 'self' data: blob:",
  "connect-src 'self'",
  "font-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
  "object-src 'none'",
  "require-trusted-types-for 'script'",
].join('; ');

let browser, url, ref;

before(async () => {
  ref = await startSession();
  ({ browser, url } = ref);
});

after(() => ref?.stop());

/** The policy is really in force: an inline script is refused and reported. */
async function assertEnforced(page) {
  const ran = await page.evaluate(() => {
    try {
      const s = document.createElement('script');
      s.textContent = 'window.__inlineRan = true'; // Trusted Types refuse this very assignment
      document.head.append(s);
    } catch {
      // refused: the violation is reported all the same
    }
    return window.__inlineRan === true;
  });
  assert.equal(ran, false, 'an inline script must not run under the policy');
  await page.waitForFunction(() => window.__cspViolations.length > 0, null, { timeout: 5_000 });
  await page.evaluate(() => window.__cspViolations.splice(0));
}

async function exercise(page, problems, host) {
  await settled(page, host);
  const box = page.locator(host ? `${host} #sentence` : '#sentence');
  assertShows(await figureState(page, host), await box.inputValue(), ref);
  for (const text of ['he cashed a check at the bank', '"><img src=x onerror="window.__pwned=1"> émigré 🚂']) {
    await box.fill(text);
    await drawn(page, { scope: host, sentence: text });
    await settled(page, host);
    assertShows(await figureState(page, host), text, ref);
  }
  const census = await elementCensus(page);
  assert.deepEqual(census.csp, [], 'no CSP violation');
  assert.equal(census.pwned, null);
  assert.deepEqual(problems, [], 'no console error or page error');
  await assertEnforced(page);
}

test('the page works under a strict CSP header', async () => {
  const { page, problems, response } = await openWatched(browser, url, { csp: STRICT_CSP });
  try {
    assert.equal(response.headers()['content-security-policy'], STRICT_CSP);
    await exercise(page, problems, null);
  } finally {
    await page.close();
  }
});

test('the widget works under a strict CSP header', async () => {
  const { page, problems } = await openWatched(browser, `${url}examples/index.html`, { csp: STRICT_CSP });
  try {
    await page.waitForFunction(
      () => [...document.querySelectorAll('attention-figure')].every((w) => w.shadowRoot?.querySelector('svg')),
      null,
      { timeout: 20_000 },
    );
    await exercise(page, problems, '#fig-heatmap');
  } finally {
    await page.close();
  }
});

test('the trained model loads and draws under the strict CSP header (its module is imported on demand)', async () => {
  for (const path of ['?source=model', '?source=encoder&blank=4&word=4', 'examples/index.html']) {
    const { page, problems } = await openWatched(browser, `${url}${path}`, { csp: STRICT_CSP });
    try {
      const host = path.startsWith('examples') ? '#fig-heatmap' : null;
      if (host) {
        await page.waitForFunction(() => document.getElementById('fig-heatmap')?.shadowRoot?.querySelector('canvas.cells'), null, {
          timeout: 20_000,
        });
        await page.evaluate(() => document.getElementById('fig-heatmap').setAttribute('source', 'model'));
      }
      // ('model' is the decoder's old name.)
      await drawn(page, { timeout: 20_000, scope: host, source: path.includes('encoder') ? 'encoder' : 'decoder' });
      await page.waitForFunction(
        (host) => {
          const scope = host ? document.querySelector(host).shadowRoot : document;
          return !scope.getElementById('predictions').hidden && scope.querySelector('#heatmap canvas.cells')?.attentionWeights;
        },
        host,
        { timeout: 20_000 },
      );
      const { map, message } = await figureState(page, host);
      assert.equal(message, '');
      assert.equal(map.T, 7);
      const census = await elementCensus(page);
      assert.deepEqual(census.csp, [], 'no CSP violation');
      assert.deepEqual(problems, [], 'no console error or page error');
    } finally {
      await page.close();
    }
  }
});

// The bytes the first figure costs, in headless Debian chromium: every file the page (index.html) and the
// widget's example article (examples/index.html) fetched before the figure first drew (resource timing
// entries that start before the 'attention-figure:first-draw' User Timing mark), as gzip bodies, the way
// scripts/serve.mjs sends them. Files fetched after the first figure (the code below it, the frequent
// words) are not counted. Pass another built site (an older commit's build/site) to compare the two.
// Usage: node bench/first-bytes.mjs [site dir, default build/site]
import { access } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { launchChromium } from '../scripts/chromium.mjs';
import { startServer } from '../scripts/serve.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const site = resolve(process.argv[2] ?? join(root, 'build', 'site'));
await access(join(site, 'index.html')).catch(() => {
  throw new Error(`${site}/index.html is missing: run bash scripts/build.sh first`);
});
const { server, url } = await startServer(site, 0);
const browser = await launchChromium();
try {
  for (const [name, path] of [
    ['page', ''],
    ['widget example', 'examples/index.html'],
  ]) {
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    await page.goto(url + path);
    await page.waitForFunction(() => performance.getEntriesByName('attention-figure:first-draw').length > 0, null, {
      timeout: 60_000,
    });
    const files = await page.evaluate(() => {
      const drawn = performance.getEntriesByName('attention-figure:first-draw')[0].startTime;
      const own = (entry) => entry.name.replace(location.origin, '');
      return [
        [own(performance.getEntriesByType('navigation')[0]), performance.getEntriesByType('navigation')[0].encodedBodySize],
        ...performance
          .getEntriesByType('resource')
          .filter((entry) => entry.startTime <= drawn)
          .map((entry) => [own(entry), entry.encodedBodySize]),
      ];
    });
    const total = files.reduce((sum, [, bytes]) => sum + bytes, 0);
    console.log(`${name}: ${total} B gzip before the first figure (${(total / 1024).toFixed(1)} KiB)`);
    for (const [file, bytes] of files.sort((a, b) => b[1] - a[1])) console.log(`  ${String(bytes).padStart(7)}  ${file}`);
    await page.close();
  }
} finally {
  await browser.close();
  server.close();
}

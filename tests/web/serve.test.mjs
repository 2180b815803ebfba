// scripts/serve.mjs, the demo's static server: files inside its root only, GET and HEAD only, and an
// unchanged file revalidated as 304 (what lets a revisit reuse the cached core and word vectors).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, mkdir, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'node:http';
import { gunzipSync } from 'node:zlib';
import { startServer } from '../../scripts/serve.mjs';

let dir, server, url;
before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'serve-test-'));
  await mkdir(join(dir, 'site'));
  await writeFile(join(dir, 'site', 'index.html'), '<!doctype html><title>t</title>');
  await writeFile(join(dir, 'site', 'core.wasm'), Buffer.from([0, 97, 115, 109]));
  await writeFile(join(dir, 'secret.txt'), 'outside the root');
  ({ server, url } = await startServer(join(dir, 'site'), 0));
});
after(async () => {
  server.close();
  await rm(dir, { recursive: true, force: true });
});

/** A raw request (fetch would hide a 304 behind its own cache handling). */
function get(path, { method = 'GET', headers = {} } = {}) {
  return new Promise((resolve, reject) => {
    const req = request(new URL(path, url), { method, headers }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode, headers: res.headers, body: Buffer.concat(chunks).toString() }));
    });
    req.on('error', reject);
    req.end();
  });
}

test('serves files with their type and a validator; an unchanged file revalidates as 304', async () => {
  const first = await get('/core.wasm');
  assert.equal(first.status, 200);
  assert.equal(first.headers['content-type'], 'application/wasm');
  assert.equal(first.headers['cache-control'], 'no-cache');
  assert.match(first.headers.etag, /^W\/"[0-9a-f]+-[0-9a-f]+"$/);
  const again = await get('/core.wasm', { headers: { 'If-None-Match': first.headers.etag } });
  assert.equal(again.status, 304);
  assert.equal(again.body, '');
  assert.equal(again.headers.etag, first.headers.etag);
  // A list of validators (what a browser with several cached copies sends) matches too.
  assert.equal((await get('/core.wasm', { headers: { 'If-None-Match': `W/"0-0", ${first.headers.etag}` } })).status, 304);
  // A rebuilt file is served again in full.
  await writeFile(join(dir, 'site', 'core.wasm'), Buffer.from([0, 97, 115, 109, 1]));
  await utimes(join(dir, 'site', 'core.wasm'), new Date(), new Date(Date.now() + 5000));
  const rebuilt = await get('/core.wasm', { headers: { 'If-None-Match': first.headers.etag } });
  assert.equal(rebuilt.status, 200);
  assert.notEqual(rebuilt.headers.etag, first.headers.etag);
  assert.equal(rebuilt.body.length, 5);
  assert.equal((await get('/')).headers['content-type'], 'text/html; charset=utf-8');
});

test('refuses paths outside the root, missing files and other methods', async () => {
  for (const path of ['/../secret.txt', '/%2e%2e/secret.txt', '/missing.js', '/%E0%A4%A'])
    assert.equal((await get(path)).status, 404, path);
  const post = await get('/index.html', { method: 'POST' });
  assert.equal(post.status, 405);
  assert.equal(post.headers.allow, 'GET, HEAD');
  const head = await get('/index.html', { method: 'HEAD' });
  assert.equal(head.status, 200);
  assert.equal(head.body, '');
});

test('a client that accepts gzip gets the file compressed, as from a static host; others get it as is', async () => {
  const text = 'attention '.repeat(500);
  await writeFile(join(dir, 'site', 'page.js'), text);
  const plain = await get('/page.js');
  assert.equal(plain.headers['content-encoding'], undefined);
  assert.equal(plain.body, text);
  const packed = await new Promise((resolve, reject) => {
    const req = request(new URL('/page.js', url), { headers: { 'Accept-Encoding': 'gzip, deflate, br' } }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => resolve({ headers: res.headers, body: Buffer.concat(chunks) }));
    });
    req.on('error', reject);
    req.end();
  });
  assert.equal(packed.headers['content-encoding'], 'gzip');
  assert.equal(packed.headers.vary, 'Accept-Encoding');
  assert.equal(Number(packed.headers['content-length']), packed.body.length);
  assert.ok(packed.body.length < text.length / 10, `${packed.body.length} bytes`);
  assert.equal(gunzipSync(packed.body).toString(), text);
});

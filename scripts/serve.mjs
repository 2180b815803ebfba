#!/usr/bin/env node
// A tiny static file server for the built site (build/site), bound to 127.0.0.1. Like a static host
// (GitHub Pages, Netlify…) it sends a file gzip-compressed to a client that accepts it, so what a page
// downloads here (and what bench/browser.mjs's emulated link measures) is what a reader's would be.
//
//   node scripts/serve.mjs [DIR] [PORT]      PORT also from env PORT; default 8080, 0 = any free port
//
// Import startServer(root, port) from tests: it resolves to { server, url } once listening.
import { createServer } from 'node:http';
import { createReadStream } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { gzipSync } from 'node:zlib';
import { extname, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const MIME = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.txt': 'text/plain; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.wasm': 'application/wasm',
  '.bin': 'application/octet-stream',
};

// Already compressed: gzip would only cost time.
const COMPRESSED = new Set(['.png', '.ico', '.gz']);
const gzipped = new Map(); // file → { etag, body }: each version of a file compressed once

/** The gzip bytes of `file` at version `etag`. */
async function gzipOf(file, etag) {
  const cached = gzipped.get(file);
  if (cached?.etag === etag) return cached.body;
  const body = gzipSync(await readFile(file), { level: 6 }); // a static host's usual level
  gzipped.set(file, { etag, body });
  return body;
}

function send(res, status, text) {
  res.writeHead(status, { 'Content-Type': 'text/plain; charset=utf-8', 'Content-Length': Buffer.byteLength(text) });
  res.end(text);
}

/** The file a URL path names inside root, or null if it would leave root or is malformed. */
function resolveInside(root, urlPath) {
  let path;
  try {
    path = decodeURIComponent(new URL(urlPath, 'http://localhost').pathname);
  } catch {
    return null;
  }
  if (path.includes('\0')) return null;
  if (path.endsWith('/')) path += 'index.html';
  const file = resolve(root, '.' + path);
  return file === root || file.startsWith(root + sep) ? file : null;
}

export function startServer(root = 'build/site', port = 8080) {
  const base = resolve(root);
  const server = createServer(async (req, res) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.setHeader('Allow', 'GET, HEAD');
      return send(res, 405, 'Method not allowed\n');
    }
    const file = resolveInside(base, req.url);
    if (!file) return send(res, 404, 'Not found\n');
    let info;
    try {
      info = await stat(file);
    } catch {
      return send(res, 404, 'Not found\n');
    }
    if (!info.isFile()) return send(res, 404, 'Not found\n');
    // no-cache: the browser asks again on every load, so a rebuilt file shows at once; the validator
    // lets an unchanged one come back as 304 and be reused from the cache (with the wasm the browser
    // compiled from it), as a static host would do.
    const etag = `W/"${info.size.toString(16)}-${Math.floor(info.mtimeMs).toString(16)}"`;
    const headers = { 'Cache-Control': 'no-cache', ETag: etag, 'X-Content-Type-Options': 'nosniff' };
    if (req.headers['if-none-match']?.split(/\s*,\s*/).includes(etag)) {
      res.writeHead(304, headers);
      return res.end();
    }
    const ext = extname(file).toLowerCase();
    const type = { ...headers, 'Content-Type': MIME[ext] ?? 'application/octet-stream', Vary: 'Accept-Encoding' };
    if (/\bgzip\b/.test(req.headers['accept-encoding'] ?? '') && !COMPRESSED.has(ext)) {
      const body = await gzipOf(file, etag);
      res.writeHead(200, { ...type, 'Content-Encoding': 'gzip', 'Content-Length': body.length });
      return res.end(req.method === 'HEAD' ? undefined : body);
    }
    res.writeHead(200, { ...type, 'Content-Length': info.size });
    if (req.method === 'HEAD') return res.end();
    createReadStream(file)
      .on('error', () => res.destroy())
      .pipe(res);
  });
  return new Promise((resolvePromise, reject) => {
    server.once('error', reject);
    server.listen(Number(port), '127.0.0.1', () => {
      server.off('error', reject);
      const url = `http://127.0.0.1:${server.address().port}/`;
      resolvePromise({ server, url });
    });
  });
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  // A lone numeric argument is a port: `serve.mjs 9000`.
  const [dirArg, portArg] = args.length === 1 && /^\d+$/.test(args[0]) ? [undefined, args[0]] : args;
  const root = resolve(dirArg ?? 'build/site');
  const port = portArg ?? process.env.PORT ?? 8080;
  if (!/^\d+$/.test(String(port)) || Number(port) > 65535) {
    console.error(`serve: bad port ${JSON.stringify(port)}`);
    process.exit(2);
  }
  try {
    if (!(await stat(root)).isDirectory()) throw new Error('not a directory');
  } catch {
    console.error(`serve: ${root} is not a directory (build the site first: node scripts/build-site.mjs)`);
    process.exit(1);
  }
  startServer(root, port).then(
    ({ url }) => console.log(`Serving ${root} at ${url}`),
    (err) => {
      console.error(`serve: ${err.message}`);
      process.exit(1);
    },
  );
}

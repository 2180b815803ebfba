// Nearest words: the k words of data/vectors.bin (20,586 × 50) nearest to a vector by cosine
// similarity, through the shipped module's JS API (vectors.nearest, marshalling included) against
// plain JS doing the same in the same process: the table de-quantised to a Float32Array and each
// word's norm computed once, then per query one loop over every word and a running top-k list.
// Also: the first call's time (it builds the index), and agreement on a set of queries (same words
// in the same order, similarities within 1e-5). Usage: node --no-liftoff bench/nearest.mjs [--smoke]
import { readFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { emit, parseArgs, time } from './common.mjs';
import { parseVectors } from '../scripts/vectors-file.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const wasmDir = join(root, 'build', 'wasm');
const opts = parseArgs();
const K = 10;

/** The plain-JS search: norms once, then cosine with every word and the k best kept in order (ties: lower row). */
export function plainSearch({ count, dim, data }) {
  const norms = new Float64Array(count);
  for (let i = 0; i < count; i++) {
    let s = 0;
    for (let k = 0; k < dim; k++) s += data[i * dim + k] * data[i * dim + k];
    norms[i] = Math.sqrt(s);
  }
  return (q, k, exclude = new Set()) => {
    let qq = 0;
    for (let j = 0; j < dim; j++) qq += q[j] * q[j];
    const qn = Math.sqrt(qq);
    const ids = [],
      sims = [];
    for (let i = 0; i < count; i++) {
      if (exclude.has(i)) continue;
      let dot = 0;
      for (let j = 0; j < dim; j++) dot += q[j] * data[i * dim + j];
      const s = Math.fround(norms[i] === 0 ? 0 : dot / (qn * norms[i]));
      if (ids.length === k && s <= sims[k - 1]) continue;
      let at = ids.length === k ? k - 1 : ids.length;
      while (at > 0 && sims[at - 1] < s) {
        sims[at] = sims[at - 1];
        ids[at] = ids[at - 1];
        at--;
      }
      sims[at] = s;
      ids[at] = i;
    }
    return { ids, sims };
  };
}

const { loadAttention } = await import(pathToFileURL(join(wasmDir, 'attention.js')).href);
const core = await loadAttention({ wasmBinary: await readFile(join(wasmDir, 'attention_wasm.wasm')) });
const bytes = new Uint8Array(await readFile(join(root, 'data', 'vectors.bin')));
const vectors = core.loadVectors(bytes);
const table = parseVectors(bytes);
const plain = plainSearch(table);
const vectorOf = (word) => vectors.embed(word, 1).X.data;

// The timed query: "check" as the page would show it after attention, a mix of its own vector and
// bank's, excluding the word itself.
const check = vectorOf('check'),
  bank = vectorOf('bank');
const query = check.map((x, j) => 0.6 * x + 0.4 * bank[j]);
const checkId = table.words.indexOf('check');

const extra = { k: K, words: table.count, dim: table.dim };
const results = [];
const flops = 2 * table.count * table.dim;
await time(
  opts,
  'nearest',
  'nearest',
  'wasm_js_api',
  table.count,
  flops,
  () => Float32Array.from(vectors.nearest(query, K, { exclude: ['check'] }), (n) => n.similarity),
  results,
);
await time(
  opts,
  'nearest',
  'nearest',
  'plain_js',
  table.count,
  flops,
  () => Float32Array.from(plain(query, K, new Set([checkId])).sims),
  results,
);

// A table's first call also builds its index (the transposed copy and the norms): timed on fresh
// tables, after the timings above have warmed the code up.
{
  const firsts = [];
  for (let r = 0; r < (opts.smoke ? 1 : 5); r++) {
    const fresh = core.loadVectors(bytes);
    const t0 = performance.now();
    fresh.nearest(query, K, { exclude: ['check'] });
    firsts.push(performance.now() - t0);
    fresh.delete();
  }
  firsts.sort((a, b) => a - b);
  extra.first_call_ms = firsts[firsts.length >> 1];
}

// Agreement over several queries: words, sentences' mixes, a random vector.
let worst = 0;
const mismatches = [];
const probes = ['bank', 'check', 'station', 'train', 'the', 'river', 'money'].map((w) => [w, vectorOf(w)]);
probes.push(['check+bank', query], ['lcg', Float32Array.from({ length: table.dim }, (_, j) => Math.sin(7 * j + 1))]);
for (const [name, q] of probes) {
  const got = vectors.nearest(q, 25);
  const want = plain(q, 25);
  got.forEach((n, r) => {
    if (n.id !== want.ids[r]) mismatches.push(`${name} rank ${r}: ${n.word} vs ${table.words[want.ids[r]]}`);
    worst = Math.max(worst, Math.abs(n.similarity - want.sims[r]));
  });
}
extra.agreement = { queries: probes.length, k: 25, mismatches, max_abs_diff: worst };
// The raw neighbours the article wants: each word's own vector, the word excluded.
extra.neighbours = Object.fromEntries(
  ['bank', 'check', 'station', 'train'].map((w) => [
    w,
    vectors.nearest(vectorOf(w), 5, { exclude: [w] }).map((n) => [n.word, Number(n.similarity.toFixed(4))]),
  ]),
);
vectors.delete();
emit('nearest', extra, results);

// The word-vector file format (data/vectors.bin, "ATTNVEC1"; data/README.md) as the page and the build
// both need it: where its parts are, a subset of its rows, several files merged into one, and the
// shards the build splits the table into so a sentence can fetch just its words' vectors. Every row
// keeps its very bytes (int8 values and scale), so any of these files gives the core the same vectors.

/** How many shard files the table is split into (scripts/build-site.mjs writes vectors-shards/<id>.bin). */
export const SHARDS = 128;

/** The shard a word's row is in: FNV-1a (32-bit) of its UTF-8 bytes, modulo SHARDS. */
export function shardOf(word) {
  let hash = 0x811c9dc5;
  for (const byte of new TextEncoder().encode(word)) hash = Math.imul(hash ^ byte, 16777619) >>> 0;
  return hash % SHARDS;
}

/** The file name of shard `id`, relative to the other assets. */
export const shardFile = (id) => `vectors-shards/${String(id).padStart(3, '0')}.bin`;

/**
 * The file name of composed shard `id` (data/vectors-composed.bin split the same way: issue 24). A word is
 * in the composed shards of the same ids as its row would be in the table's, so the shards a token and its
 * stems need are the same ids in both.
 */
export const composedShardFile = (id) =>
  typeof id === 'string' && id.startsWith('n')
    ? ngramShardFile(Number(id.slice(1)))
    : `vectors-composed/${String(id).padStart(3, '0')}.bin`;

/** The file name of n-gram shard number k (the rows of the buckets b with b mod NGRAM_SHARDS = k). */
export const ngramShardFile = (k) => `vectors-ngrams/${String(k).padStart(4, '0')}.bin`;

/**
 * The n-gram last resort (issue 24): fastText's trained n-gram rows (data/vectors-ngrams.bin, keyed by
 * bucket, "#123456") split into NGRAM_SHARDS files by bucket. A word in neither the table nor the composed
 * list needs the shards of its n-grams' buckets; their ids are 'n0' … so they share the composed shards'
 * id space (loader.js fetches both kinds the same way and the core finds both in one attached table).
 */
export const NGRAM_SHARDS = 2048;
/** fastText's bucket count (-bucket 2000000, the default: data/build_vectors.sh). */
const NGRAM_BUCKETS = 2000000;

/** fastText's hash of an n-gram: FNV-1a (32-bit) with each UTF-8 byte sign-extended, as the core's fasttext_hash. */
function fasttextHash(text) {
  let hash = 0x811c9dc5;
  for (const byte of new TextEncoder().encode(text)) hash = Math.imul(hash ^ (byte < 128 ? byte : byte | 0xffffff00), 16777619) >>> 0;
  return hash;
}

/** The bucket an n-gram's row is in (as the core's fasttext_subwords gives it). */
export const ngramBucket = (ngram) => fasttextHash(ngram) % NGRAM_BUCKETS;

/** The id of the n-gram shard a bucket's row is in ('n' and the shard number). */
export const ngramShardOf = (bucket) => `n${bucket % NGRAM_SHARDS}`;

/** Where everything is: { count, dim, words, scalesAt, valuesAt, view }. */
export function vectorsLayout(bytes) {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const count = view.getUint32(8, true),
    dim = view.getUint32(12, true),
    wordsBytes = view.getUint32(16, true);
  const words = new TextDecoder()
    .decode(bytes.subarray(20, 20 + wordsBytes))
    .split('\n')
    .slice(0, count);
  const scalesAt = 20 + wordsBytes;
  return { count, dim, words, scalesAt, valuesAt: scalesAt + 4 * count, view };
}

/**
 * One file of the same format from rows of several: sources = [{ bytes, rows: row indices }], in that
 * order. Every source must have the same dim (the header is the first source's).
 */
function writeRows(sources) {
  const parts = sources.map(({ bytes, rows, layout }) => ({ bytes, rows, ...(layout ?? vectorsLayout(bytes)) }));
  const dim = parts[0].dim;
  if (parts.some((p) => p.dim !== dim)) throw new Error('vector files of different widths cannot be merged');
  const words = parts.flatMap((p) => p.rows.map((i) => p.words[i]));
  const blob = new TextEncoder().encode(words.map((w) => `${w}\n`).join(''));
  const out = new Uint8Array(20 + blob.length + words.length * (4 + dim));
  out.set(parts[0].bytes.subarray(0, 8));
  const o = new DataView(out.buffer);
  o.setUint32(8, words.length, true);
  o.setUint32(12, dim, true);
  o.setUint32(16, blob.length, true);
  out.set(blob, 20);
  const outScales = 20 + blob.length,
    outValues = outScales + 4 * words.length;
  let k = 0;
  for (const { bytes, rows, scalesAt, valuesAt } of parts) {
    for (const i of rows) {
      out.set(bytes.subarray(scalesAt + 4 * i, scalesAt + 4 * i + 4), outScales + 4 * k);
      out.set(bytes.subarray(valuesAt + dim * i, valuesAt + dim * (i + 1)), outValues + dim * k);
      k++;
    }
  }
  return out;
}

/** A file of the same format holding the rows `keep(i, word)` says yes to, in table order. */
export function subsetVectors(bytes, keep) {
  const { words } = vectorsLayout(bytes);
  return writeRows([{ bytes, rows: words.map((_, i) => i).filter((i) => keep(i, words[i])) }]);
}

/**
 * The file split into `count` files of the same format, row i into file shard(i, word), in table order: one
 * pass, for a file of ~120,000 rows in thousands of shards (subsetVectors per shard would read it each time).
 */
export function splitVectors(bytes, count, shard) {
  const layout = vectorsLayout(bytes);
  const groups = Array.from({ length: count }, () => []);
  layout.words.forEach((word, i) => groups[shard(i, word)].push(i));
  return groups.map((rows) => writeRows([{ bytes, rows, layout }]));
}

/** Files of the same format merged into one, in order; a word already taken from an earlier file is skipped. */
export function mergeVectors(files) {
  const seen = new Set();
  return writeRows(
    files.map((bytes) => {
      const { words } = vectorsLayout(bytes);
      const rows = [];
      words.forEach((w, i) => {
        if (!seen.has(w)) (rows.push(i), seen.add(w));
      });
      return { bytes, rows };
    }),
  );
}

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
export const composedShardFile = (id) => `vectors-composed/${String(id).padStart(3, '0')}.bin`;

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
  const parts = sources.map(({ bytes, rows }) => ({ bytes, rows, ...vectorsLayout(bytes) }));
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

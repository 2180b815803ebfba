// The word-vector file (data/vectors.bin, "ATTNVEC1"; format: data/README.md) read in node, for the
// scripts, benchmarks and tests that need it outside the wasm core: its layout, its rows de-quantised,
// and a subset of its rows written back in the same format with the very same bytes per word.

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

/** The words and their de-quantised float32 rows (row i at data[i·dim …]), as the core computes them. */
export function parseVectors(bytes) {
  const { count, dim, words, scalesAt, valuesAt, view } = vectorsLayout(bytes);
  const data = new Float32Array(count * dim);
  for (let i = 0; i < count; i++) {
    const scale = view.getFloat32(scalesAt + 4 * i, true);
    for (let k = 0; k < dim; k++) data[i * dim + k] = Math.fround(scale * view.getInt8(valuesAt + i * dim + k));
  }
  return { words, count, dim, data };
}

/** A file of the same format holding the rows `keep(i, word)` says yes to, in table order. */
export function subsetVectors(bytes, keep) {
  const { dim, words, scalesAt, valuesAt } = vectorsLayout(bytes);
  const rows = words.map((_, i) => i).filter((i) => keep(i, words[i]));
  const blob = new TextEncoder().encode(rows.map((i) => `${words[i]}\n`).join(''));
  const out = new Uint8Array(20 + blob.length + rows.length * (4 + dim));
  out.set(bytes.subarray(0, 8));
  const o = new DataView(out.buffer);
  o.setUint32(8, rows.length, true);
  o.setUint32(12, dim, true);
  o.setUint32(16, blob.length, true);
  out.set(blob, 20);
  const outScales = 20 + blob.length,
    outValues = outScales + 4 * rows.length;
  rows.forEach((i, k) => {
    out.set(bytes.subarray(scalesAt + 4 * i, scalesAt + 4 * i + 4), outScales + 4 * k);
    out.set(bytes.subarray(valuesAt + dim * i, valuesAt + dim * (i + 1)), outValues + dim * k);
  });
  return out;
}

// The word-vector file (data/vectors.bin, "ATTNVEC1"; format: data/README.md) read in node, for the
// scripts, benchmarks and tests that need it outside the wasm core: its layout, its rows de-quantised,
// and a subset of its rows written back in the same format with the very same bytes per word (the
// format itself, shared with the page, is web/lib/vectors-format.js).
import { vectorsLayout } from '../web/lib/vectors-format.js';

export { composedShardFile, mergeVectors, shardFile, shardOf, SHARDS, subsetVectors, vectorsLayout } from '../web/lib/vectors-format.js';

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

// 10,000 recomputes through the JS API leave the wasm heap where it was: the same malloc'd bytes, the
// same heap size, no Embind handle or object left alive. Every entry point is exercised, error paths
// (the core refusing an input) included, since those unwind through C++ code too.
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { load, root } from './load.mjs';

let api, core, vectorBytes;
before(async () => {
  ({ api, core } = await load());
  vectorBytes = new Uint8Array(await readFile(path.join(root, 'data', 'vectors.bin')));
});

const SENTENCES = [
  'the train left the station on time',
  'he cashed a check at the bank',
  'The bank of the river flooded, so the bank closed early.',
  'qwzxv “quoted” émigré 日本 🚂',
  'a',
];

function seeded(seed) {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32 - 0.5;
  };
}
const rand = seeded(7);
const randomMatrix = (rows, cols) => ({ rows, cols, data: Float32Array.from({ length: rows * cols }, rand) });

/** One recompute through the API, cycling through every entry point and some refusals. */
function recompute(i, vectors) {
  const T = 1 + (i % 24),
    d = 1 + (i % 13),
    dk = 1 + (i % 7);
  const X = randomMatrix(T, d);
  const head = { Wq: randomMatrix(d, dk), Wk: randomMatrix(d, dk), Wv: randomMatrix(d, dk), bq: new Float32Array(dk) };
  switch (i % 10) {
    case 0:
      return core.attention(X, head, { score: 'scaled_dot', causal: i % 3 === 0 });
    case 1:
      return core.attentionByColumns(randomMatrix(d, T), { Wq: randomMatrix(dk, d), Wk: randomMatrix(dk, d), Wv: randomMatrix(dk, d) });
    case 2:
      return core.multiHead(
        X,
        { heads: [head, head], Wo: randomMatrix(2 * dk, d) },
        { keyPadding: Array.from({ length: T }, (_, j) => j > 0 && j % 4 === 0) },
      );
    case 3:
      return core.parameterFree(X, Math.sqrt(d), { temperature: 0.5 + (i % 5) / 2 });
    case 4:
      return core.softmax(randomMatrix(T, T), { axis: i % 2 ? 'rows' : 'columns' });
    case 5:
      return core.tokenize(SENTENCES[i % SENTENCES.length]);
    case 6: {
      const { X: E } = vectors.embed(SENTENCES[i % SENTENCES.length], 64);
      return core.parameterFree(E, Math.sqrt(vectors.dim), { temperature: 1 });
    }
    case 7:
      return core.attention(X, head, {
        score: 'additive',
        additive: { W1: randomMatrix(3, dk), W2: randomMatrix(3, dk), v: [1, -1, 0.5] },
      });
    case 8: {
      // refusals: wrong shape, NaN, unknown vectors file
      const bad = [
        () => core.attention(X, { ...head, Wq: randomMatrix(d + 1, dk) }),
        () => core.softmax([[0, NaN]]),
        () => core.loadVectors(new Uint8Array([1, 2, 3])),
        () => vectors.embed('', 64),
        () => core.parameterFree(X, -1),
      ][i % 5];
      assert.throws(bad, api.AttentionError);
      return null;
    }
    default: {
      // a vectors table loaded and deleted (a class_ instance on the wasm heap)
      if (i % 100 === 9) {
        const v = core.loadVectors(vectorBytes);
        v.delete();
      }
      return typeof core.attentionOutput === 'function' ? core.attentionOutput(X, X, X, { causal: true }) : core.attention(X, head);
    }
  }
}

test('10,000 recomputes through the JS API leave the wasm heap where it was', () => {
  const vectors = core.loadVectors(vectorBytes);
  try {
    // Warm up: the allocator and Embind settle their one-time buffers (type tables, first heap growth).
    for (let i = 0; i < 500; i++) recompute(i, vectors);
    const before = core.memory();
    let checksum = 0;
    for (let i = 0; i < 10_000; i++) {
      const r = recompute(i, vectors);
      if (r?.weights) checksum += r.weights.data[0];
    }
    const after = core.memory();
    console.log(`wasm heap over 10,000 JS recomputes: before ${JSON.stringify(before)}, after ${JSON.stringify(after)}`);
    assert.ok(Number.isFinite(checksum));
    assert.equal(after.mallocBytes, before.mallocBytes, 'bytes in use by malloc');
    assert.equal(after.heapBytes, before.heapBytes, 'heap size');
    assert.equal(after.emvalHandles, before.emvalHandles, 'live Embind handles');
    assert.equal(after.liveObjects, before.liveObjects, 'live Embind objects');
  } finally {
    vectors.delete();
  }
});

test('the heap measure sees a leak: a vectors table left undeleted', () => {
  const before = core.memory();
  const kept = core.loadVectors(vectorBytes);
  const during = core.memory();
  assert.ok(during.mallocBytes > before.mallocBytes + 1_000_000, `the table's ~4 MB show: ${before.mallocBytes} → ${during.mallocBytes}`);
  kept.delete();
  assert.equal(core.memory().mallocBytes, before.mallocBytes, 'and go once deleted');
});

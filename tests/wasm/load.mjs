// Loads the built wasm package (build/wasm, or $ATTN_WASM_DIR) for the node tests. $ATTN_WASM_FILE names
// another .wasm for the small module: attention_wasm_relaxed.wasm, run by scripts/test.sh under node's
// --experimental-wasm-relaxed-simd, puts the relaxed-SIMD variant through the same tests.
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL, fileURLToPath } from 'node:url';

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const wasmDir = path.resolve(root, process.env.ATTN_WASM_DIR ?? 'build/wasm');
const smallModule = process.env.ATTN_WASM_FILE ?? 'attention_wasm.wasm';

/** The wasm package's API and a core; { larger: true } loads the larger module (model, nearest words). */
export async function load({ larger = false } = {}) {
  const entry = path.join(wasmDir, 'attention.js');
  if (!existsSync(entry)) throw new Error(`${entry} is missing: build the wasm module first (scripts/build.sh)`);
  const api = await import(pathToFileURL(entry).href);
  const core = larger
    ? await api.loadAttentionWithModel({ wasmBinary: await readFile(path.join(wasmDir, 'attention_model_wasm.wasm')) })
    : await api.loadAttention({ wasmBinary: await readFile(path.join(wasmDir, smallModule)) });
  return { api, core };
}

/**
 * Asserts that `rounds` calls of step(i) leave the core's memory as they found it: the same malloc'd and
 * heap bytes and, where the build counts them, Embind handles. step(i) runs 20 times first, so the
 * allocator has settled before the count starts. step is expected to catch the core's refusals itself.
 */
export function assertNoLeak(core, step, rounds) {
  for (let i = 0; i < 20; i++) step(i);
  const before = core.memory();
  for (let i = 0; i < rounds; i++) step(i);
  const after = core.memory();
  assert.equal(after.mallocBytes, before.mallocBytes);
  assert.equal(after.heapBytes, before.heapBytes);
  if (before.emvalHandles !== null) assert.equal(after.emvalHandles, before.emvalHandles);
}

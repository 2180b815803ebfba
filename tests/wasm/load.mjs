// Loads the built wasm package (build/wasm, or $ATTN_WASM_DIR) for the node tests. $ATTN_WASM_FILE names
// another .wasm for the small module: attention_wasm_relaxed.wasm, run by scripts/test.sh under node's
// --experimental-wasm-relaxed-simd, puts the relaxed-SIMD variant through the same tests.
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

// Which build of the small wasm core this engine runs: attention_wasm_relaxed.wasm (the kernels'
// multiply-adds as relaxed-SIMD fused multiply-adds, docs/performance.md) where relaxed SIMD validates,
// attention_wasm.wasm (fixed SIMD) everywhere else and as the fallback. The one copy of the check:
// attention.js's loadAttention imports it (CMake copies this file beside it into the wasm package), and
// through it the page's and the widget's loader (web/lib/loader.js); web/load-early.js imports it
// through web/lib/core-file.js (scripts/build-site.mjs bundles it into a classic script), and
// bench/relaxed.mjs runs it in Chromium.
// @ts-check

export const FIXED_CORE = 'attention_wasm.wasm';
export const RELAXED_CORE = 'attention_wasm_relaxed.wasm';

// The smallest module that needs relaxed SIMD: one function () → v128 returning
// f32x4.relaxed_madd(splat 0, splat 0, splat 0), in the final encoding (0xfd 0x105, the one browsers
// ship; clang 14's prototype 0xfd 0xaf would not validate anywhere). 49 bytes; exported for its test
// (tests/web/core-file.test.mjs).
// prettier-ignore
export const PROBE = new Uint8Array([
  0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00, // "\0asm", version 1
  0x01, 0x05, 0x01, 0x60, 0x00, 0x01, 0x7b, // type section: () → v128
  0x03, 0x02, 0x01, 0x00, // function section: one function of that type
  0x0a, 0x1c, 0x01, 0x1a, 0x00, // code section: one body of 26 bytes, no locals
  0x43, 0x00, 0x00, 0x00, 0x00, 0xfd, 0x13, // f32.const 0, f32x4.splat
  0x43, 0x00, 0x00, 0x00, 0x00, 0xfd, 0x13,
  0x43, 0x00, 0x00, 0x00, 0x00, 0xfd, 0x13,
  0xfd, 0x85, 0x02, // f32x4.relaxed_madd (0x105)
  0x0b, // end
]);

/** Whether this engine runs relaxed SIMD (false where WebAssembly itself is missing). */
export function relaxedSimd() {
  try {
    return typeof WebAssembly === 'object' && WebAssembly.validate(PROBE);
  } catch {
    return false;
  }
}

/** The small core's .wasm file to load first here. */
export const coreFile = () => (relaxedSimd() ? RELAXED_CORE : FIXED_CORE);

#!/usr/bin/env node
// Rewrites the relaxed-SIMD fused multiply-adds of a wasm module from the prototype encoding that clang 14
// (Emscripten 3.1.6) emits to the final one that browsers run, and counts the SIMD arithmetic it saw.
//
// Why: clang 14 only knows the relaxed-SIMD prototype (`__builtin_wasm_fma_f32x4` → 0xfd 0xaf 0x01), which
// V8 rejects; clang 19 emits the final opcodes, but Emscripten 3.1.6's optimiser (binaryen 108) then fails
// to parse them. binaryen 108 does read the prototype ones, so the variant is built and optimised with the
// prototype encoding and renumbered here, after the last tool that reads it:
//   f32x4 prototype fma 0xaf → f32x4.relaxed_madd 0x105      f64x2 prototype fma 0xcf → f64x2.relaxed_madd 0x107
// Both encodings are two LEB bytes, so only those bytes change. The kernels call the builtin as
// fma(a, b, c) meaning a·b + c, relaxed_madd's operand order (core/src/kernels.cpp, ATTN_MADD).
// Every instruction is decoded (no byte-pattern search, which could hit an immediate); an opcode this
// walker does not know, or any other prototype relaxed opcode, is an error, so nothing is left half-done.
//
//   node scripts/relaxed-simd.mjs in.wasm out.wasm [--glue fixed.js variant.js]
//       patch, print {"f32x4_madd": n, ...} (counts); with --glue, first check that the variant's JS glue
//       is the fixed module's (but for the .wasm file's name), so the patched wasm runs under fixed.js
//   node scripts/relaxed-simd.mjs --count in.wasm     counts only
import { readFileSync, writeFileSync } from 'node:fs';

const PATCH = { 0xaf: 0x105, 0xcf: 0x107 };
// The other prototype relaxed opcodes of LLVM 14 (swizzle, trunc, fms, laneselect, min/max, q15mulr,
// dot): the kernels never use them, and in the final encoding they mean something else or nothing.
const PROTOTYPE_ONLY = new Set([0xa2, 0xa5, 0xa6, 0xc5, 0xc6, 0xb0, 0xd0, 0xb2, 0xb3, 0xd2, 0xd3, 0xb4, 0xe2, 0xd4, 0xee]);
// SIMD opcodes counted for the report (final encoding).
const NAMES = {
  0xe4: 'f32x4_add',
  0xe6: 'f32x4_mul',
  0xf0: 'f64x2_add',
  0xf2: 'f64x2_mul',
  0x105: 'f32x4_madd',
  0x107: 'f64x2_madd',
};

/** Patches (when `patch`) and counts; returns the counts. Throws on anything it cannot decode. */
export function relaxSimd(bytes, patch = true) {
  let pos = 0;
  const counts = Object.fromEntries(Object.values(NAMES).map((n) => [n, 0]));
  const byte = () => {
    if (pos >= bytes.length) throw new Error('unexpected end of module');
    return bytes[pos++];
  };
  const uleb = () => {
    let result = 0,
      shift = 0,
      b;
    do {
      b = byte();
      result += (b & 0x7f) * 2 ** shift;
      shift += 7;
    } while (b & 0x80);
    return result;
  };
  const sleb = () => {
    let b;
    do b = byte();
    while (b & 0x80);
  };
  const skip = (n) => {
    pos += n;
  };
  const memarg = () => {
    uleb();
    uleb();
  };
  const blockType = () => {
    const b = bytes[pos];
    if (b === 0x40 || (b >= 0x6f && b <= 0x7f)) pos++;
    else sleb(); // a type index, s33
  };

  const simd = () => {
    const at = pos;
    const op = uleb();
    if (op in PATCH) {
      const to = PATCH[op];
      if (pos - at !== 2) throw new Error(`prototype opcode 0x${op.toString(16)} not in two bytes at ${at}`);
      if (patch) {
        bytes[at] = (to & 0x7f) | 0x80;
        bytes[at + 1] = to >> 7;
      }
      counts[NAMES[to]]++;
      return;
    }
    if (PROTOTYPE_ONLY.has(op)) throw new Error(`prototype relaxed-SIMD opcode 0x${op.toString(16)} at ${at}: not handled`);
    if (op in NAMES) counts[NAMES[op]]++;
    if (op <= 11 || op === 92 || op === 93)
      memarg(); // loads, load-splat/extend, store, load_zero
    else if (op === 12 || op === 13)
      skip(16); // v128.const, i8x16.shuffle
    else if (op >= 21 && op <= 34)
      skip(1); // extract/replace lane
    else if (op >= 84 && op <= 91)
      (memarg(), skip(1)); // load/store lane
    else if (op > 0x113) throw new Error(`unknown SIMD opcode 0x${op.toString(16)} at ${at}`);
  };
  const misc = () => {
    const op = uleb();
    if (op <= 7) return; // saturating truncations
    if (op === 8)
      (uleb(), skip(1)); // memory.init
    else if (op === 9 || op === 13 || (op >= 15 && op <= 17))
      uleb(); // data.drop, elem.drop, table.grow/size/fill
    else if (op === 10)
      skip(2); // memory.copy
    else if (op === 11)
      skip(1); // memory.fill
    else if (op === 12 || op === 14)
      (uleb(), uleb()); // table.init, table.copy
    else throw new Error(`unknown 0xfc opcode ${op} at ${pos}`);
  };

  const body = (end) => {
    for (let groups = uleb(); groups > 0; groups--) (uleb(), byte()); // locals: count, type
    while (pos < end) {
      const op = byte();
      if (op <= 0x01 || op === 0x05 || op === 0x0b || op === 0x0f || op === 0x19 || op === 0x1a || op === 0x1b) continue;
      if ((op >= 0x02 && op <= 0x04) || op === 0x06) blockType();
      else if ((op >= 0x07 && op <= 0x09) || op === 0x0c || op === 0x0d || op === 0x18)
        uleb(); // catch, throw, rethrow, br, br_if, delegate
      else if (op === 0x0e) {
        for (let n = uleb(); n >= 0; n--) uleb(); // the labels and the default
      } else if (op === 0x10 || op === 0x12 || op === 0xd2)
        uleb(); // call, return_call, ref.func
      else if (op === 0x11 || op === 0x13)
        (uleb(), uleb()); // call_indirect: type, table
      else if (op === 0x1c)
        skip(uleb()); // select with types
      else if (op >= 0x20 && op <= 0x26)
        uleb(); // locals, globals, table.get/set
      else if (op >= 0x28 && op <= 0x3e) memarg();
      else if (op === 0x3f || op === 0x40) skip(1);
      else if (op === 0x41 || op === 0x42) sleb();
      else if (op === 0x43) skip(4);
      else if (op === 0x44) skip(8);
      else if (op >= 0x45 && op <= 0xc4)
        continue; // numeric, sign extension
      else if (op === 0xd0) skip(1);
      else if (op === 0xd1) continue;
      else if (op === 0xfc) misc();
      else if (op === 0xfd) simd();
      else throw new Error(`unknown opcode 0x${op.toString(16)} at ${pos - 1}`);
    }
    if (pos !== end) throw new Error(`a function body overran its size at ${pos}`);
  };

  if (bytes[0] !== 0 || bytes[1] !== 0x61 || bytes[2] !== 0x73 || bytes[3] !== 0x6d) throw new Error('not a wasm module');
  pos = 8;
  while (pos < bytes.length) {
    const id = byte();
    const size = uleb();
    const end = pos + size;
    if (id === 10) {
      for (let n = uleb(); n > 0; n--) {
        const length = uleb();
        body(pos + length);
      }
    }
    pos = end;
  }
  return counts;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const args = process.argv.slice(2);
  const glue = args.indexOf('--glue');
  if (glue >= 0) {
    const [fixed, variant] = args.splice(glue, 3).slice(1);
    const name = (file) => file.split('/').pop().replace(/\.js$/, '.wasm');
    const expected = readFileSync(fixed, 'utf8');
    const got = readFileSync(variant, 'utf8').replaceAll(name(variant), name(fixed));
    if (got !== expected) {
      console.error(`relaxed-simd: ${variant} differs from ${fixed}: the variant would not run under the fixed glue`);
      process.exit(1);
    }
  }
  const countOnly = args[0] === '--count';
  const [input, output] = countOnly ? args.slice(1) : args;
  if (!input || (!countOnly && !output)) {
    console.error('usage: node scripts/relaxed-simd.mjs in.wasm out.wasm | --count in.wasm');
    process.exit(2);
  }
  const bytes = new Uint8Array(readFileSync(input));
  const counts = relaxSimd(bytes, !countOnly);
  if (!countOnly) writeFileSync(output, bytes);
  console.log(JSON.stringify(counts));
}

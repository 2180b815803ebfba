// Which build of the small wasm core this browser runs: the check lives with the wasm package
// (wasm/core-file.js, which loadAttention uses too); this module hands it to web/load-early.js and the
// tests and benches that import it from the page's side. A re-export, not a copy.
export { FIXED_CORE, RELAXED_CORE, PROBE, relaxedSimd, coreFile } from '../../wasm/core-file.js';

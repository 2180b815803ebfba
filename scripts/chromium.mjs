// Debian's Chromium, headless, for the browser tests, the benchmarks and the measuring scripts: the
// flags ../shared/TOOLCHAIN.md settled on (no sandbox in the container, no GPU, no background traffic).
import { chromium } from 'playwright-core';

/** extraArgs: more flags, e.g. bench/relaxed.mjs's --js-flags=--no-liftoff (optimised wasm only, as in node). */
export function launchChromium(extraArgs = []) {
  return chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--disable-background-networking',
      '--disable-component-update',
      '--no-first-run',
      '--disable-sync',
      ...extraArgs,
    ],
  });
}

// The static figure a page or an <attention-figure> holds before its script runs (scripts/static-figure.mjs
// writes it: SVG heatmap, caption, table). It stays in view while the live figure is built and loads
// (hidden, laid out at the same width), and gives way when the live figure has drawn (or has something
// to say); the element keeps the static figure's height as its min-height until the reader first
// changes something, so the live figure replaces it in place and nothing below it moves.

/**
 * The height (CSS px) of `host`'s box while it shows its static figure, or 0 when it has none. Read it
 * before the live figure is attached (a shadow root hides the static figure at once).
 */
export function staticHeight(host) {
  return host.querySelector(':scope > .attention-static') ? host.getBoundingClientRect().height : 0;
}

/** Holds `host` at `height` (CSS px) at least; the returned function lets it go. */
export function holdHeight(host, height) {
  if (!height) return () => {};
  host.style.minHeight = `${height}px`;
  return () => host.style.removeProperty('min-height');
}

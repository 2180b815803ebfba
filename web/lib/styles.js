// The figure's CSS, one copy for the page and the widget: applied with adoptedStyleSheets (a
// constructed stylesheet, which a Content-Security-Policy without 'unsafe-inline' still allows).
// Everything is under .af, so in the page it touches nothing else; in the widget it lives in the
// shadow root. Themes: .theme-light, .theme-dark, .theme-auto (follows prefers-color-scheme).
const LIGHT = `
  --af-bg: #ffffff; --af-fg: #1d1f23; --af-muted: #5d636e; --af-line: #d9dce1; --af-panel: #f6f7f9;
  --af-accent: #3b5bdb; --af-unknown: #c2410c; --af-stemmed: #7048e8; --af-link: #3b5bdb;
  --af-error-bg: #fff1f0; --af-error-fg: #a8071a; color-scheme: light;`;
const DARK = `
  --af-bg: #17191e; --af-fg: #e7e9ee; --af-muted: #a0a7b4; --af-line: #343943; --af-panel: #1f2229;
  --af-accent: #8ca2ff; --af-unknown: #ff9a5c; --af-stemmed: #b69cff; --af-link: #8ca2ff;
  --af-error-bg: #3a1d1f; --af-error-fg: #ffb3b0; color-scheme: dark;`;

export const FIGURE_CSS = `
.af { ${LIGHT}
  --af-font: system-ui, -apple-system, "Segoe UI", Roboto, "Noto Sans", "Helvetica Neue", Arial, sans-serif;
  --af-mono: ui-monospace, "SFMono-Regular", "DejaVu Sans Mono", Menlo, Consolas, monospace;
  box-sizing: border-box; width: 100%; min-width: 0;
  font: 15px/1.5 var(--af-font); color: var(--af-fg); background: var(--af-bg);
  text-align: left; letter-spacing: normal; word-spacing: normal; text-transform: none; text-indent: 0;
}
.af.theme-dark { ${DARK} }
@media (prefers-color-scheme: dark) { .af.theme-auto { ${DARK} } }
.af *, .af *::before, .af *::after { box-sizing: border-box; }
.af [hidden] { display: none !important; }
.af.framed { border: 1px solid var(--af-line); border-radius: 10px; padding: 0.9rem 1rem; }
.af .muted { color: var(--af-muted); }

.af .controls { display: grid; gap: 0.45rem; margin: 0 0 0.75rem; }
.af .controls label, .af .field > span { font-weight: 600; font-size: 0.9rem; }
.af input, .af select, .af button, .af textarea { font: inherit; color: var(--af-fg); margin: 0; }
.af :is(#sentence, #sentence2) {
  display: block; width: 100%; font-size: 1.1rem; line-height: 1.45; padding: 0.45rem 0.7rem; border: 1px solid var(--af-line);
  border-radius: 8px; background: var(--af-bg); resize: vertical; min-height: 2.6rem; overflow-y: auto;
  /* Grow with the text (a sentence that wraps on a phone stays readable); where unsupported, it scrolls. */
  field-sizing: content; max-height: 9.5rem;
}
.af .sentence-field { display: grid; gap: 0.2rem; }
.af .main-controls { gap: 0.4rem 1.1rem; }
.af button.more[aria-expanded=true] { border-color: var(--af-accent); color: var(--af-accent); }
.af .options.panel { display: grid; gap: 0.5rem; }
.af .story { margin: 0.1rem 0 0.4rem; font-size: 1rem; font-weight: 500; min-height: 1.5em; }
.af .view-message { margin: 0.5rem 0; color: var(--af-muted); }
/* The compare view: two sentences side by side, stacked when the figure is narrow. */
.af .compare-sides { display: flex; flex-wrap: wrap; gap: 0.75rem 1.5rem; align-items: flex-start; }
.af .compare-col { flex: 1 1 300px; min-width: 0; }
.af svg.compare-side { max-width: none; }
.af svg.compare-side .compare-title { font-weight: 600; font-size: 14px; }
.af svg.compare-side .compare-sub, .af svg.compare-side .muted-text { fill: var(--af-muted); font-size: 13px; }
.af svg.compare-side text { font-size: 13px; }
.af svg.compare-side .num { font-family: var(--af-mono); font-size: 12px; }
.af svg.compare-side .bar { fill: var(--af-accent); }
.af svg.compare-side .bar.itself { fill: var(--af-muted); }
.af svg.compare-side .neighbour { font-weight: 600; }
.af .compare-diff { margin-top: 0.8rem; }
.af .compare-note { margin: 0 0 0.3rem; font-size: 0.9rem; }
.af svg .label.marked { font-weight: 700; text-decoration: underline; }
.af .row { display: flex; flex-wrap: wrap; align-items: center; gap: 0.4rem 1rem; }
.af .field { display: inline-flex; align-items: center; gap: 0.4rem; }
.af select, .af input[type=number] {
  padding: 0.25rem 0.4rem; border: 1px solid var(--af-line); border-radius: 6px; background: var(--af-bg); font-size: 0.95rem;
}
.af input[type=number] { width: 4.2em; }
.af .field select { max-width: 12rem; }
.af .slider { display: flex; flex-wrap: wrap; align-items: center; gap: 0.25rem 0.75rem; font-size: 0.95rem; }
.af #temperature { width: min(14rem, 50vw); accent-color: var(--af-accent); }
.af #temperature-value { font-variant-numeric: tabular-nums; min-width: 2.5em; }
.af .slider .muted { font-size: 0.85rem; }
.af :is(input, select, button, textarea):focus-visible { outline: 3px solid var(--af-accent); outline-offset: 1px; }
.af .status { margin: 0; font-size: 0.85rem; color: var(--af-muted); }
.af .layers { font-size: 0.9rem; padding: 0.4rem 0.6rem; border-radius: 8px; background: var(--af-panel); }
.af .head-caption { flex-basis: 100%; margin: 0; color: var(--af-muted); font-size: 0.88rem; }
.af :is(select, input):disabled { opacity: 0.5; cursor: not-allowed; }
.af .field:has(:disabled) > span, .af .slider:has(:disabled) > label { color: var(--af-muted); }

.af .message { margin: 0 0 0.75rem; padding: 0.6rem 0.9rem; border-radius: 8px; background: var(--af-error-bg); color: var(--af-error-fg); }
.af .loading { margin: 0 0 0.75rem; color: var(--af-muted); }
.af .message.hint { background: var(--af-panel); color: var(--af-muted); border: 1px dashed var(--af-line); }
.af .message.note { background: var(--af-panel); color: var(--af-fg); border: 1px solid var(--af-line); }
.af .sr-only { position: absolute; width: 1px; height: 1px; margin: -1px; padding: 0; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; border: 0; }

.af .view { overflow-x: auto; padding: 0.25rem 0; }
/* The last figure while a word's vector loads: faded (after a moment, so a quick load does not flicker). */
.af .plot { transition: opacity 0.15s; }
.af[aria-busy='true'] .plot { opacity: 0.4; transition-delay: 0.12s; }
.af .view.grid { display: flex; flex-wrap: wrap; gap: 0.75rem 1.25rem; align-items: flex-start; }
.af svg { display: block; max-width: 100%; height: auto; font-family: var(--af-font); overflow: visible; }
.af svg text:not(.value) { fill: var(--af-fg); stroke: none; }
.af svg .label.active, .af svg .label.selected { font-weight: 700; fill: var(--af-accent); }
.af svg .label.unknown { fill: var(--af-unknown); font-style: italic; text-decoration: underline dotted; }
.af svg .label.stemmed, .af svg .label.composed { fill: var(--af-stemmed); }
.af svg .axis-title text, .af svg text.head-title, .af svg text.steps-note { fill: var(--af-muted); font-size: 12px; }
.af svg text.head-title { font-weight: 600; }

/* Canvas views: cells or lines on a canvas, labels in an SVG laid over it at the same pixel size. */
.af .hm-plot, .af .lines-plot { position: relative; flex: none; }
.af .hm-plot > svg, .af .lines-plot > svg { position: absolute; left: 0; top: 0; max-width: none; }
.af .hm-plot > svg { pointer-events: none; }
.af .hm-grid { position: absolute; cursor: crosshair; touch-action: manipulation; }
.af .hm-grid:focus { outline: none; }
.af .hm-grid:focus-visible { outline: 3px solid var(--af-accent); outline-offset: 2px; }
.af canvas { display: block; }
.af .lines-plot > canvas { position: absolute; }
.af .hm-nav { display: flex; flex-wrap: wrap; align-items: center; gap: 0.5rem 1rem; margin: 0.2rem 0 0.6rem; }
.af .hm-overview { border: 1px solid var(--af-line); cursor: grab; touch-action: none; flex: none; }
.af .hm-overview:focus-visible { outline: 3px solid var(--af-accent); outline-offset: 2px; }
.af .hm-window { margin: 0; font-size: 0.88rem; max-width: 34rem; }
.af .pager { margin: 0.2rem 0 0.5rem; display: grid; gap: 0.3rem; }
.af .view.grid > .heatmap { display: flex; flex-direction: column; }
.af .hm-caption { margin: 0.1rem 0 0.2rem; font-size: 0.8rem; line-height: 1.35; color: var(--af-muted); }
.af details.hm-table { margin: 0.3rem 0; font-size: 0.85rem; }
.af details.hm-table summary { cursor: pointer; color: var(--af-muted); }
.af .hm-table-box { overflow: auto; max-height: 28rem; max-width: 100%; }
.af table.matrix { border-collapse: collapse; font-variant-numeric: tabular-nums; font-size: 0.8rem; }
.af table.matrix caption { caption-side: top; text-align: left; font-weight: 600; padding-bottom: 0.25rem; }
.af table.matrix :is(th, td) { padding: 0.1rem 0.4rem; text-align: right; border: 1px solid var(--af-line); white-space: nowrap; }
.af table.matrix th { font-weight: 600; background: var(--af-panel); color: var(--af-muted); }
.af table.matrix td { font-family: var(--af-mono); }
.af table.matrix td.corner { border: 0; background: none; color: var(--af-muted); }
.af .options input[type=checkbox] { accent-color: var(--af-accent); width: 1.05rem; height: 1.05rem; }
.af .option-note { margin: 0.3rem 0; font-size: 0.88rem; color: var(--af-muted); display: grid; gap: 0.2rem; }
.af .option-note:empty { display: none; }
.af svg .ring { fill: none; stroke: var(--af-fg); stroke-width: 3; pointer-events: none; }
.af .compact svg .ring { stroke-width: 2; }
.af svg .word { cursor: pointer; outline: none; }
.af svg .word:focus-visible { text-decoration: underline; }
.af .steps-view { overflow-x: auto; max-width: 100%; }
/* Never scaled down to fit (its text would shrink below 12 px on a phone): narrow screens get a narrower
   layout (steps.js), and what still does not fit scrolls. */
.af svg.steps { max-width: none; }
.af svg.steps .num { font-family: var(--af-mono); font-variant-numeric: tabular-nums; font-size: 12px; }
.af svg.steps .masked { fill: var(--af-muted); }
.af svg.steps .bar { fill: var(--af-accent); }
.af svg.steps .rule { stroke: var(--af-line); }
.af svg.steps .steps-head text { fill: var(--af-muted); font-size: 12px; font-weight: 600; }
.af svg.steps .steps-title { font-weight: 600; }
.af svg.legend .tick { stroke: var(--af-muted); }
.af svg.legend .swatch { fill: var(--af-panel); stroke: var(--af-muted); }
.af svg.legend .hatch { stroke: var(--af-muted); stroke-width: 1; opacity: 0.7; }
.af svg.steps .bar.itself { fill: var(--af-muted); }
.af svg.legend .tick-label { fill: var(--af-muted); font-size: 12px; font-variant-numeric: tabular-nums; }

.af .readout { min-height: 1.6em; margin: 0.4rem 0; font-variant-numeric: tabular-nums; }
.af .readout strong { font-family: var(--af-mono); font-weight: 600; }
.af .predictions { margin: 0.5rem 0; font-size: 0.9rem; }
.af .predictions-title { margin: 0 0 0.3rem; }
.af .prediction-list { margin: 0; padding: 0; list-style: none; display: grid; gap: 0.15rem; }
.af .prediction-list li { display: grid; grid-template-columns: minmax(4.5rem, max-content) 120px 3.4rem auto; align-items: center; gap: 0.6rem; }
.af .prediction-list .change { font-variant-numeric: tabular-nums; color: var(--af-muted); white-space: nowrap; }
/* With parts switched off: the whole model's guesses beside the changed model's, stacked when narrow. */
.af .guess-columns.paired { display: flex; flex-wrap: wrap; gap: 0.5rem 2rem; }
.af .guess-heading { margin: 0 0 0.2rem; font-size: 0.85rem; }
.af .guess-columns:not(.paired) .guess-heading { display: none; }
.af .moved { margin: 0.4rem 0 0; font-weight: 600; }
.af .effects { margin-top: 0.5rem; }
.af .effects-title, .af .effects-summary { margin: 0.4rem 0; }
.af .effects-grid { display: grid; grid-template-columns: max-content repeat(var(--heads), minmax(3.6rem, 1fr)); gap: 0.25rem; align-items: center; max-width: 36rem; }
.af .effects-layer { font-weight: 600; font-size: 0.85rem; padding-right: 0.3rem; }
.af button.effect { display: grid; padding: 0.2rem 0.3rem; font-variant-numeric: tabular-nums; text-align: center;
  background: color-mix(in srgb, var(--af-accent) calc(var(--strength, 0) * 45%), var(--af-bg)); }
.af button.effect .effect-id { font-family: var(--af-mono); font-size: 0.8rem; }
.af button.effect .effect-drop { font-size: 0.8rem; }
.af button.effect[aria-pressed=true] { border-style: dashed; text-decoration: line-through; }
/* Switches: a part switched off reads "Switched off", its map is dimmed and framed with a dashed line. */
.af .switchbar { margin: 0 0 0.6rem; padding: 0.4rem 0.6rem; border: 1px solid var(--af-line); border-radius: 8px; font-size: 0.9rem; display: grid; gap: 0.3rem; }
.af .switch-line { margin: 0; }
.af .switch-notes summary { cursor: pointer; }
.af .switch-notes p { margin: 0.3rem 0 0; }
.af button.part-switch { font-size: 0.8rem; padding: 0.1rem 0.5rem; position: relative; } /* holds its sr-only words inside a row that scrolls */
.af button.part-switch[aria-pressed=true] { border-style: dashed; border-color: var(--af-unknown); color: var(--af-unknown); font-weight: 600; }
.af .heatmap > button.part-switch { align-self: flex-start; margin-bottom: 0.2rem; }
.af :is(.model-map, .heatmap).off { outline: 2px dashed var(--af-unknown); outline-offset: 2px; }
.af :is(.model-map, .heatmap).off canvas { opacity: 0.45; }
.af .model-row-head { display: flex; align-items: center; gap: 0.6rem; }
.af .map-buttons { display: flex; gap: 0.3rem; flex-wrap: wrap; margin-bottom: 0.2rem; }
.af .map-buttons .open-map { margin-bottom: 0; }
.af .prediction-list .predicted { font-family: var(--af-mono); font-weight: 600; overflow-wrap: anywhere; }
.af .prediction-list .probability { text-align: right; font-variant-numeric: tabular-nums; }
.af svg.pbar rect { fill: var(--af-accent); }
.af .prediction-list li.right .predicted { text-decoration: underline; text-decoration-thickness: 2px; }
.af .blank-words { display: flex; flex-wrap: wrap; gap: 0.3rem; margin: 0 0 0.4rem; }
.af .blank-words:empty { display: none; }
.af .blank-word { font-family: var(--af-mono); padding: 0.15rem 0.5rem; }
.af .blank-word[aria-pressed=true] { background: var(--af-accent); border-color: var(--af-accent); color: var(--af-panel); }
.af .blank-word.continues { margin-left: -0.25rem; }
.af .prediction-list .guess-pieces { display: block; font-size: 0.85em; font-weight: 400; color: var(--af-muted); }
/* The every-layer view: a row per layer; on a narrow screen a row scrolls sideways on its own. */
.af .model-view { display: grid; grid-template-columns: minmax(0, 1fr); gap: 0.6rem; max-width: 100%; }
.af .model-row-title { margin: 0; font-size: 0.9rem; }
.af .model-maps { display: flex; gap: 0.75rem 1rem; overflow-x: auto; align-items: flex-start; padding-bottom: 0.2rem; }
/* As wide as its map (at least 11rem): its two buttons wrap under each other rather than widen the row past the page. */
.af .model-map { margin: 0; flex: none; display: flex; flex-direction: column; width: min-content; min-width: 11rem; }
.af .model-map.opened .open-map { border-color: var(--af-accent); font-weight: 600; }
.af .open-map { align-self: flex-start; font-size: 0.8rem; padding: 0.1rem 0.5rem; margin-bottom: 0.2rem; }
.af .notes { margin: 0.4rem 0; padding-left: 1.2rem; font-size: 0.9rem; }
.af .notes:empty { display: none; }
.af .token { font-weight: 600; }
.af .token.unknown { color: var(--af-unknown); font-style: italic; text-decoration: underline dotted; }
.af .token.stemmed, .af .token.composed { color: var(--af-stemmed); }

.af .toolbar { display: flex; flex-wrap: wrap; gap: 0.4rem; margin-top: 0.5rem; }
.af button {
  padding: 0.3rem 0.7rem; border: 1px solid var(--af-line); border-radius: 6px; background: var(--af-panel);
  cursor: pointer; font-size: 0.9rem;
}
.af button:hover { border-color: var(--af-accent); }
.af .panel { margin-top: 0.6rem; padding: 0.7rem 0.8rem; border: 1px solid var(--af-line); border-radius: 8px; background: var(--af-panel); display: grid; gap: 0.4rem; }
.af .panel textarea, .af .panel input[type=text] {
  width: 100%; font-family: var(--af-mono); font-size: 0.8rem; padding: 0.35rem 0.5rem;
  border: 1px solid var(--af-line); border-radius: 6px; background: var(--af-bg); resize: vertical;
}
.af .panel p { margin: 0; font-size: 0.85rem; }
`;

let sheet;
/** The shared constructed stylesheet. */
export function figureSheet() {
  if (!sheet) {
    sheet = new CSSStyleSheet();
    sheet.replaceSync(FIGURE_CSS);
  }
  return sheet;
}

/** Adds the figure stylesheet to a document or shadow root (once). */
export function adoptFigureStyles(root) {
  const s = figureSheet();
  if (!root.adoptedStyleSheets.includes(s)) root.adoptedStyleSheets = [...root.adoptedStyleSheets, s];
}

// The full page: one store (lib/store.js) holds the lesson's whole state, which also lives in the URL
// (?sentence=…&view=…&word=…, see lib/state.js), so a copied link or iframe reproduces what the reader
// sees; &embed=1 shows the figure alone (for iframes), with the controls that &controls= names (the
// widget's `controls` vocabulary; all by default), and tells the frame's parent its height (below);
// &theme=light|dark forces a theme. Every part of
// the page renders from that store: the figure (the same Figure class the <attention-figure> widget
// uses), the formula above it, the step-by-step walkthrough, the by-hand sheet and the guided tour.
// All maths happens in the wasm core, once per change (lib/compute.js).
import { RowPredict } from './lib/predict/row.js';
import { Figure } from './lib/figure/figure.js';
import { holdHeight, staticHeight } from './lib/static-figure.js';
import { FormulaLine } from './lib/figure/formula.js';
import { CONTROLS, PRACTICE_KEYS, THEMES, fromParams, parseControls, toParams } from './lib/state.js';
import { Store } from './lib/store.js';
import { adoptFigureStyles } from './lib/styles.js';
import { h } from './lib/dom.js';
import { setAssetBase } from './lib/loader.js';

// The wasm, vectors and models sit beside app.js; the loader itself is bundled into a chunk in chunks/.
setAssetBase(import.meta.url);

const params = new URLSearchParams(location.search);
const embed = params.get('embed') === '1';
const theme = THEMES.includes(params.get('theme')) ? params.get('theme') : 'auto';
const controls = embed ? params.get('controls') : null;
document.documentElement.dataset.theme = theme;
if (embed) document.documentElement.classList.add('embed');
adoptFigureStyles(document);

// The walkthrough and the by-hand sheet need the word vectors even when the page opens on the model;
// the page's store also holds the by-hand sheet's numbers and computes its result (a widget has no sheet).
const store = new Store(fromParams(params), { preloadVectors: !embed, byHand: !embed, walkthrough: !embed });
const writeURL = () => {
  const p = toParams(store.state);
  if (embed) p.set('embed', '1');
  if (controls !== null) p.set('controls', controls);
  if (theme !== 'auto') p.set('theme', theme);
  // The by-hand practice's seed and mode (lib/byhand/practice.js writes them) stay as they are.
  const here = new URLSearchParams(location.search);
  for (const key of PRACTICE_KEYS) if (here.has(key)) p.set(key, here.get(key));
  history.replaceState(null, '', `${location.pathname}?${p}`);
};
// The static figure the build wrote into #figure (scripts/static-figure.mjs) stays in view until the
// live one has drawn (style.css lays the live one out hidden meanwhile), then gives way; the box keeps
// its height until the reader changes something: nothing below moves.
const figureBox = document.getElementById('figure');
// Whether the figure has drawn (or shown why not) once; startRest builds the parts below it after that.
let figureSettled = false;
let startRest = () => {};
const letGo = holdHeight(figureBox, staticHeight(figureBox));
let staticFigure = figureBox.querySelector(':scope > .attention-static');
figureBox.classList.toggle('static-pending', Boolean(staticFigure));
const figure = new Figure(figureBox, {
  store,
  controls: parseControls(controls, CONTROLS),
  disclose: true,
  showStatus: true,
  theme,
  shareBase: () => location.origin + location.pathname,
  onUserChange: () => {
    letGo();
    writeURL();
  },
  onFirstDraw: () => document.documentElement.classList.add('figure-drawn'),
  onDrawn: ({ busy }) => {
    if (busy) return;
    figureSettled = true;
    startRest();
    if (!staticFigure) return;
    staticFigure.remove();
    staticFigure = null;
    figureBox.classList.remove('static-pending');
  },
});
// The tour sets the state stop by stop: the URL follows.
store.subscribe((state) => state.tour !== null && writeURL());

// In a frame, the page says how tall it is whenever that changes, so the parent can fit the frame to
// it (README.md, "Or an iframe"): { type: 'attention-figure:height', height } in CSS pixels. The height
// is no secret, so any parent may hear it ('*'); the parent tells frames apart by event.source.
if (embed && window.parent !== window) {
  let sent = 0;
  new ResizeObserver(() => {
    const height = Math.ceil(document.documentElement.getBoundingClientRect().height);
    if (height !== sent) window.parent.postMessage({ type: 'attention-figure:height', height: (sent = height) }, '*');
  }).observe(document.documentElement);
}

if (!embed) {
  new FormulaLine(document.getElementById('formula'), store);
  // Predict, then reveal: the figure's plot stays covered until the reader has guessed a row.
  new RowPredict(document.getElementById('predict-row'), { store, view: document.getElementById('plot') });
  // The parts below the figure (walkthrough, by-hand sheet, tour: a third of the page's code) are
  // separate chunks, fetched once the first figure has drawn and the vectors are in, so they never
  // delay it nor share its bytes on a slow link.
  const rest = async () => {
    const [{ Walkthrough }, { ByHand }, { Tour }] = await Promise.all([
      import('./lib/walkthrough/walkthrough.js'),
      import('./lib/byhand/byhand.js'),
      import('./lib/tour.js'),
    ]);
    const walkthrough = new Walkthrough(document.getElementById('explainer'), {
      store,
      onUserChange: writeURL,
      // The page has one Heads control, in the figure's options (shown with the heads view).
      showHeadsControl: () => {
        figure.change({ view: 'heads' });
        writeURL();
        figure.controls.open(true);
        document.getElementById('figure').scrollIntoView({ block: 'start' });
        document.getElementById('heads').focus({ preventScroll: true });
      },
    });
    new ByHand(document.getElementById('byhand'), { store });
    new Tour(document.getElementById('tour-start'), { store, onStop: writeURL });
    window.attentionWalkthrough = walkthrough;
    document.documentElement.classList.add('explainer-ready');
  };
  const restFailed = (err) => {
    console.error(err);
    const line = h('p', { class: 'message', role: 'status' }, 'The step-by-step sections could not load: reload the page to try again.');
    document.getElementById('explainer').replaceChildren(line);
  };
  let restStarted = false;
  startRest = () => {
    if (restStarted || !store.sources.vectors || !figureSettled) return;
    restStarted = true;
    requestAnimationFrame(() => setTimeout(() => rest().catch(restFailed), 0));
  };
  store.subscribe(() => startRest());
}
store.start();
// For tests and the curious: the page's figure and store.
window.attentionFigure = figure;
window.attentionStore = store;

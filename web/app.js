// The full page: one attention figure (the same Figure class the <attention-figure> widget uses),
// whose whole state lives in the URL — ?sentence=…&view=…&heads=…&temperature=…&mask=…&word=… —
// so a copied link or iframe reproduces what the reader sees. &embed=1 shows the figure alone
// (for iframes), &theme=light|dark forces a theme; &source=model&layer=…&head=… shows the trained
// model. Below the figure (page only, not in the widget): the step-by-step explainer
// (lib/explainer.js), which follows the figure's source, and the by-hand sheet (lib/byhand.js).
// All maths happens in the wasm core.
import { ByHand } from './lib/byhand.js';
import { loadCore } from './lib/core.js';
import { Explainer } from './lib/explainer.js';
import { Figure } from './lib/figure.js';
import { CONTROLS, THEMES, fromParams } from './lib/state.js';
import { adoptFigureStyles } from './lib/styles.js';

const params = new URLSearchParams(location.search);
const embed = params.get('embed') === '1';
const theme = THEMES.includes(params.get('theme')) ? params.get('theme') : 'auto';
document.documentElement.dataset.theme = theme;
if (embed) document.documentElement.classList.add('embed');
adoptFigureStyles(document);

let explainer = null;
// Resolves at the figure's first computed draw. A figure that opens on the trained model draws after
// the word vectors have loaded (the model is bigger); the explainer waits for it rather than compete.
let figureDrawn;
const firstDraw = new Promise((resolve) => (figureDrawn = resolve));
const figure = new Figure(document.getElementById('figure'), {
  controls: new Set(CONTROLS),
  showVocabulary: true,
  // The explainer needs the word vectors even when the page opens on the trained model.
  preloadVectors: !embed,
  theme,
  shareBase: () => location.origin + location.pathname,
  onState: () => {
    history.replaceState(null, '', figure.shareURL({ embed }));
    explainer?.sync(figure.state, figure.model);
  },
  // A new run of the trained model (or a new word-vector figure): the explainer follows it.
  onComputed: (model) => {
    figureDrawn();
    explainer?.sync(figure.state, model);
  },
  onLoaded: async (vectors) => {
    for (const d of document.querySelectorAll('.dim')) d.textContent = String(vectors.dim);
    if (embed) return;
    const core = await loadCore();
    // Let the figure paint first: the explainer below it is built after the first heatmap is on screen.
    // With the trained model that heatmap may still be loading: wait for it (3 s at most, should the
    // model fail to load or the sentence be empty).
    if (figure.state.source === 'model') await Promise.race([firstDraw, new Promise((resolve) => setTimeout(resolve, 3000))]);
    await new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve, 0)));
    explainer = new Explainer(document.getElementById('explainer'), {
      core, vectors,
      // Picking a query word in the walkthrough selects it in the figure too (sentence input only).
      onQuery: (i, input) => {
        if (input !== 'sentence') return;
        figure.set({ word: i });
        history.replaceState(null, '', figure.shareURL({ embed }));
      },
    });
    explainer.sync(figure.state, figure.model);
    window.attentionExplainer = explainer;
    window.attentionByHand = new ByHand(document.getElementById('byhand'), { core });
    document.documentElement.classList.add('explainer-ready');
  },
});
figure.set(fromParams(params));
figure.start();
// For tests and the curious: the page's figure.
window.attentionFigure = figure;

// The full page: one attention figure (the same Figure class the <attention-figure> widget uses),
// whose whole state lives in the URL — ?sentence=…&view=…&heads=…&temperature=…&mask=…&word=… —
// so a copied link or iframe reproduces what the reader sees. &embed=1 shows the figure alone
// (for iframes), &theme=light|dark forces a theme. All maths happens in the wasm core.
import { Figure } from './lib/figure.js';
import { CONTROLS, THEMES, fromParams } from './lib/state.js';
import { adoptFigureStyles } from './lib/styles.js';

const params = new URLSearchParams(location.search);
const embed = params.get('embed') === '1';
const theme = THEMES.includes(params.get('theme')) ? params.get('theme') : 'auto';
document.documentElement.dataset.theme = theme;
if (embed) document.documentElement.classList.add('embed');
adoptFigureStyles(document);

const figure = new Figure(document.getElementById('figure'), {
  controls: new Set(CONTROLS),
  showVocabulary: true,
  theme,
  shareBase: () => location.origin + location.pathname,
  onState: () => history.replaceState(null, '', figure.shareURL({ embed })),
  onLoaded: (vectors) => {
    for (const d of document.querySelectorAll('.dim')) d.textContent = String(vectors.dim);
  },
});
figure.set(fromParams(params));
figure.start();
// For tests and the curious: the page's figure.
window.attentionFigure = figure;

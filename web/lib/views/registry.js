// The views a figure can show, in the View menu's order. Each view is one folder here that owns
// everything about it, and its index.js exports one entry (the fields below). The figure, its notes,
// controls and exports, the store and the URL state loop over this list and never name a view.
// Adding a view: a new folder with an index.js (lines/ is a small one), and one line in VIEWS.
//
// An entry:
//   name, label      the URL's view=… value and the View menu's words
//   hint             the readout's line before the reader points at anything
//   View             the drawing: new View(hooks) → { nodes, draw(state, result, ctx) → a problem to show
//                    instead ('' when drawn), restyle?() }. hooks: { select(row, col), cell(info | null),
//                    text(line | null), open({ layer, head }) }; ctx: { width, word (the selected query),
//                    legend (element), extra (the entry's extra numbers) }
//   embedHeight(state, shown)   the iframe snippet's height (CSS px) that shows it without a scrollbar
// and, where the default does not fit it:
//   draws            the steps of the head it reads from the Result (default ['weights']; the core copies out
//                    only these when the page's walkthrough is not shown)
//   grid             its nodes wrap as a grid (several maps)
//   drawsHeads       it draws every head, not the one head the settings pick (the notes say so)
//   available(state, { imported })   whether it can be chosen now (default: always); hideUnavailable:
//                    its menu option is hidden, not only disabled, when it cannot be
//   settings(applies, state)   which settings change what it shows (state.settingsFor's answer, adjusted)
//   opening          { sentence, sentence2, word }: where a link to it without a sentence opens
//   extra(state, sources, result, previous)   numbers beyond the one Result, from the same sources (the
//                    store computes them once per change); needsWholeTable(state): they search every word
//   story(state, result, extra)   its story line (default: the selected word's strongest link, notes.js)
//   notes(state, result)          lines it adds under the figure
//   title(state, result, named)   its exports' title; drawnHeads(state, result): the heads it draws, for the caption
//   captionSentence(state)        the sentence its exports name (default: the state's sentence)
//   json(base, result, state, extra)   its JSON export (default: base, the weights drawn)
//   units            'pieces': it stays on a pieces model's pieces with units=words (the steps: one piece's
//                    numbers; the compare view: two sentences piece by piece)
//   guesses          false: it has no place for a trained model's guesses (shown only while a blank is hidden)
import heatmap from './heatmap/index.js';
import lines from './lines/index.js';
import steps from './steps/index.js';
import heads from './heads/index.js';
import model from './model/index.js';
import compare from './compare/index.js';

export const VIEWS = Object.freeze([heatmap, lines, steps, heads, model, compare]);

/** The entry of a view name (the first view for a name it does not know). */
export const viewNamed = (name) => VIEWS.find((v) => v.name === name) ?? VIEWS[0];

/** Whether a view can be chosen in this state. */
export const isAvailable = (entry, state, context = {}) => entry.available?.(state, context) ?? true;

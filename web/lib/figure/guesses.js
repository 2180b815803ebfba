// The trained model's guesses under the figure: the encoder's for its hidden word (with the sentence's
// words as buttons that hide one), the decoder's next words; with parts of the model switched off, the
// whole model's guesses beside this one's with the change, one line on what moved most, and "Which
// heads matter here?": every head switched off in turn, ranked by what the right word (the decoder: the
// top guess) loses, as a layer × head grid whose cells switch that head off. The numbers all come from
// the core (result.model.ranked, result.model.effects()); this module only lays them out.
import { h, setAttrs, svgEl } from '../dom.js';
import { num } from '../format.js';
import { describeOff, headIsOff, layerIsOff } from '../switches.js';
import { BARE_PIECE } from '../compute/model.js';

/** 1st, 2nd, 3rd, 4th … 11th, 12th, 13th … 21st. */
export function ordinal(n) {
  const teen = n % 100 >= 11 && n % 100 <= 13;
  return `${n}${teen ? 'th' : (['th', 'st', 'nd', 'rd'][n % 10] ?? 'th')}`;
}

const percent = (p) => `${num(100 * p, 1)}%`;

/** The box the figure shows them in (children are filled by writePredictions). */
export function predictionsBox() {
  const column = (cls, heading) =>
    h('section', { class: `guess-column ${cls}` }, h('h4', { class: 'guess-heading' }, heading), h('ol', { class: 'prediction-list' }));
  const effectsButton = h('button', { type: 'button', class: 'effects-button', 'aria-expanded': 'false' }, 'Which heads matter here?');
  return h(
    'div',
    { id: 'predictions', class: 'predictions', hidden: true },
    h('p', { class: 'predictions-title' }),
    h('div', { class: 'blank-words', role: 'group', 'aria-label': 'Hide a word' }),
    h('div', { class: 'guess-columns' }, column('before', 'Whole model'), column('after', '')),
    h('p', { class: 'moved', 'aria-live': 'polite' }),
    h('div', { class: 'effects' }, effectsButton, h('div', { class: 'effects-body' })),
  );
}

/**
 * Fills the box from a result (hidden unless a trained model's). hooks: onBlank(position | null) when a
 * word is hidden or shown again, onToggle(item) to switch a part of the model off or on again ('L.H').
 */
export function writePredictions(box, result, { onBlank, onToggle } = {}) {
  box.hidden = result?.kind !== 'model';
  if (box.hidden) return;
  const [title, words, columns, moved, effects] = box.children;
  const m = result.model,
    encoder = m.kind === 'encoder',
    blank = m.blank;
  const after = encoder ? (blank?.guesses ?? []) : m.run.predictions;
  if (encoder) {
    title.replaceChildren(
      h('strong', {}, 'Fill the blank. '),
      blank
        ? blankTitle(blank, after)
        : 'Choose a word to hide: the encoder reads [MASK] in its place and guesses it from the words on both sides.',
    );
    writeBlankButtons(words, result, onBlank);
  } else {
    const last = result.tokens.at(-1).text;
    // A pieces decoder predicts the next piece: a word's start, or (## …) more of the word it is in.
    const pieces = result.vocabulary === 'pieces';
    title.replaceChildren(
      h('strong', {}, pieces ? 'Next piece. ' : 'Next word. '),
      `The trained decoder’s ${after.length} most likely ${pieces ? 'pieces (## continues the word)' : 'words'} after “${last}”${result.total ? ` (the last of the ${result.tokens.length} tokens it read)` : ''}, from a softmax over its whole vocabulary:`,
    );
    words.replaceChildren();
  }
  words.hidden = !encoder;
  const right = blank ? blank.word.toLowerCase() : null;
  const [beforeColumn, afterColumn] = columns.children;
  const before = m.off && m.ranked.before ? m.ranked.before.slice(0, after.length) : null;
  beforeColumn.hidden = !before;
  afterColumn.firstChild.textContent = before ? `With ${describeOff(m.off)} off` : '';
  afterColumn.firstChild.hidden = !before;
  columns.classList.toggle('paired', Boolean(before));
  const top = Math.max(after[0]?.probability ?? 0, before?.[0]?.probability ?? 0) || 1;
  // A pieces decoder guesses the next piece: it shows as the maps label one ("sta", "##tion").
  const piece = result.vocabulary === 'pieces' && !encoder;
  if (before) writeList(beforeColumn.lastChild, before, { top, right, piece });
  writeList(afterColumn.lastChild, after, { top, right, piece, was: before && rankedOf(m.ranked.before) });
  moved.textContent = before ? movedLine(m, right) : '';
  moved.hidden = !before;
  writeEffects(effects, result, onToggle);
}

// Below this (0.1 %), a whole-word guess is no real guess: a word of many pieces, each scored on its own,
// whose best spellings are strings like "th--aa" at 0.0 %.
const UNLIKELY = 0.001;

/** The title over an encoder's guesses for a hidden word; it says so when none of them is likely. */
function blankTitle(blank, guesses) {
  const where = `word ${blank.position + 1} (it was “${blank.word}”`;
  const pieces = blank.masked?.length ?? 1;
  if (pieces > 1 && (guesses[0]?.probability ?? 0) < UNLIKELY)
    return `No guess of the encoder’s for ${where}, ${pieces} pieces) is likely: it scores each hidden piece on its own, so a word of several pieces is mostly beyond it. Hide a shorter word to see real guesses. Its ${guesses.length} best spellings of ${pieces} pieces, for what they are worth:`;
  return `The encoder’s ${guesses.length} best guesses for ${where}), from the words on both sides of it:`;
}

/** word → { rank (1-based), probability } over a run's ranked guesses. */
function rankedOf(list) {
  return new Map(list.map((p, k) => [p.word, { rank: k + 1, probability: p.probability }]));
}

/**
 * One list of guesses: word, bar and probability; with `was`, the change from the whole model's. A whole
 * word of several pieces names them after it ("station  sta ##tion"); `piece`: each guess is one piece.
 */
function writeList(list, guesses, { top, right, was, piece = false }) {
  const items = list.children;
  while (items.length < guesses.length) {
    const bar = svgEl('svg', { class: 'pbar', width: 120, height: 10, viewBox: '0 0 120 10', 'aria-hidden': 'true' });
    svgEl('rect', { x: 0, y: 1, height: 8 }, bar);
    list.append(h('li', {}, h('span', { class: 'predicted' }), bar, h('span', { class: 'probability' }), h('span', { class: 'change' })));
  }
  while (items.length > guesses.length) list.lastChild.remove();
  guesses.forEach((p, k) => {
    const li = items[k],
      [word, bar, probability, change] = li.children;
    li.dataset.word = p.word;
    li.dataset.probability = String(p.probability);
    li.classList.toggle('right', p.word === right);
    const labels = p.labels ?? [p.word];
    if (piece) word.textContent = labels[0] || BARE_PIECE;
    else if (labels.length > 1) word.replaceChildren(p.word, h('span', { class: 'guess-pieces' }, labels.join(' ')));
    else word.textContent = p.word;
    setAttrs(bar.firstChild, { width: (120 * p.probability) / top });
    probability.textContent = percent(p.probability);
    const old = was?.get(p.word);
    change.hidden = !was;
    change.textContent = !was ? '' : old ? pointsChange(p.probability - old.probability) : 'new';
    change.title = !was ? '' : old ? `was ${percent(old.probability)}, ${ordinal(old.rank)}` : 'not among the whole model’s guesses';
  });
}

/**
 * +3.1 pts, −8.0 pts, ±0.0 pts: the change in percentage points, the sign spelt out; `digits` more
 * where every change on show is small (a rare word's), so they do not all read ±0.0.
 */
function pointsChange(delta, digits = 1) {
  const points = 100 * delta;
  const shown = num(Math.abs(points), digits);
  return `${Number(shown) === 0 ? '±' : points > 0 ? '+' : '−'}${shown} pts`;
}

/** The digits that show the largest of some changes (probabilities) with two significant figures, 1 to 3. */
const digitsFor = (largest) => (100 * largest >= 1 ? 1 : 100 * largest >= 0.1 ? 2 : 3);

/**
 * One line on what moved most, from the two ranked lists: the hidden word when the encoder has one,
 * else the word among both top-5s whose probability changed most; and the new top guess, if it changed.
 * "With heads 1.2 and 1.3 off, ‘station’ falls from 3rd to 41st (12.0% → 0.4%)."
 */
export function movedLine(m, right) {
  const before = rankedOf(m.ranked.before),
    after = rankedOf(m.ranked.after);
  const depth = m.ranked.before.length;
  const at = (map, w) => map.get(w) ?? { rank: Infinity, probability: 0 };
  let word = right;
  if (!word || (!before.has(word) && !after.has(word))) {
    const candidates = [...m.ranked.before.slice(0, 5), ...m.ranked.after.slice(0, 5)].map((p) => p.word);
    const change = (x) => Math.abs(at(after, x).probability - at(before, x).probability);
    word = candidates.reduce((best, w) => (change(w) > change(best) ? w : best), candidates[0]);
  }
  if (!word) return '';
  const b = at(before, word),
    a = at(after, word);
  const place = (r) => (r === Infinity ? `below ${ordinal(depth)}` : ordinal(r));
  const verb = a.rank === b.rank ? 'stays' : a.rank > b.rank ? 'falls from' : 'rises from';
  const where = a.rank === b.rank ? place(a.rank) : `${place(b.rank)} to ${place(a.rank)}`;
  const probabilities = before.has(word) && after.has(word) ? ` (${percent(b.probability)} → ${percent(a.probability)})` : '';
  const [first, now] = [m.ranked.before[0], m.ranked.after[0]];
  const top =
    first && now && first.word !== now.word && now.word !== word
      ? ` The top guess is now ‘${now.word}’ (${percent(now.probability)}; it was ‘${first.word}’).`
      : '';
  return `With ${describeOff(m.off)} off, ‘${word}’ ${verb} ${where}${probabilities}.${top}`;
}

/** A head effect's rank as read: a pieces encoder's rank past the core's cap (rankExact false) is only "below" it. */
const rankOf = (x) => (x.rankExact === false ? `below ${ordinal(x.rank - 1)}` : ordinal(x.rank));

/**
 * "Which heads matter here?": a button that opens (and keeps open, as the state changes) the grid of
 * the core's head effects for the shown result.
 */
function writeEffects(box, result, onToggle) {
  const [button, body] = box.children;
  if (!button.dataset.wired) {
    button.dataset.wired = '1';
    button.addEventListener('click', () => {
      const open = button.getAttribute('aria-expanded') !== 'true';
      button.setAttribute('aria-expanded', String(open));
      writeEffects(box, box.result, box.onToggle);
    });
  }
  box.result = result;
  box.onToggle = onToggle;
  const open = button.getAttribute('aria-expanded') === 'true';
  body.hidden = !open;
  if (!open) return body.replaceChildren();
  const effects = result.model.effects();
  if (!effects)
    return body.replaceChildren(h('p', { class: 'muted' }, 'Hide a word first: the heads are ranked by what its right guess loses.'));
  if (effects.unavailable)
    return body.replaceChildren(h('p', { class: 'muted' }, `The heads cannot be ranked for this model yet (${effects.unavailable}).`));
  const { layers, heads } = result.model;
  const largest = Math.max(...effects.heads.map((e) => Math.abs(e.drop)), 1e-9);
  const digits = digitsFor(largest);
  const ranked = [...effects.heads].sort((a, b) => b.drop - a.drop);
  const cell = (e) => {
    const id = `${e.layer + 1}.${e.head + 1}`,
      off = headIsOff(result.model.off, e.layer, e.head),
      layerOff = layerIsOff(result.model.off, e.layer);
    // A head already off (or in a layer that is) has nothing more to lose: the cell says why.
    const change = off ? 'off' : layerOff ? 'layer off' : pointsChange(-e.drop, digits);
    const b = h(
      'button',
      {
        type: 'button',
        class: 'effect',
        'aria-pressed': String(off),
        'aria-label': `Head ${id}: ${off || layerOff ? `${change}.` : `without it ‘${effects.target.word}’ ${e.drop >= 0 ? 'loses' : 'gains'} ${num(Math.abs(100 * e.drop), digits)} points (${percent(e.probability)}, ${rankOf(e)}).`} ${off ? 'Switched off: press to switch it back on.' : 'Press to switch it off.'}`,
      },
      h('span', { class: 'effect-id' }, id),
      h('span', { class: 'effect-drop' }, change),
    );
    b.dataset.layer = String(e.layer);
    b.dataset.head = String(e.head);
    b.dataset.drop = String(e.drop);
    // The drop's size as the cell's strength; its sign and value are in the text, so colour is never alone.
    b.style.setProperty('--strength', String(Math.max(0, e.drop) / largest));
    b.addEventListener('click', () => onToggle?.(id));
    return b;
  };
  const byLayer = Array.from({ length: layers }, (_, l) => effects.heads.filter((e) => e.layer === l));
  const top = ranked.slice(0, 3).map((e) => `${e.layer + 1}.${e.head + 1} (${pointsChange(-e.drop, digits)})`);
  const m = result.model;
  body.replaceChildren(
    h(
      'p',
      { class: 'effects-title' },
      `Each head switched off in turn (${m.offMode})${m.off ? ', on top of what is off already' : ''}: the points of probability ‘${effects.target.word}’ loses without it. Press a head to switch it off.`,
    ),
    h(
      'div',
      {
        class: 'effects-grid',
        role: 'group',
        'aria-label': `Heads by what ‘${effects.target.word}’ loses without each`,
        style: `--heads: ${heads}`,
      },
      ...byLayer.flatMap((row, l) => [h('span', { class: 'effects-layer' }, `Layer ${l + 1}`), ...row.map(cell)]),
    ),
    h(
      'p',
      { class: 'effects-summary' },
      `‘${effects.target.word}’ is ${rankOf(effects)} at ${percent(effects.probability)} ${m.off ? `with ${describeOff(m.off)} off` : 'with every head on'}; it needs ${top.join(', ')} most.`,
    ),
  );
}

/**
 * The sentence as buttons, one per token drawn (a pieces model's pieces, labelled "sta", "##tion"):
 * pressing one hides its whole word, every piece of it (pressed again, shows it).
 */
function writeBlankButtons(box, result, onBlank) {
  const blank = result.model.blank;
  // As written: a hidden word's tokens show what they were, not [MASK].
  const written =
    blank && result.units !== 'words'
      ? blank.tokens.map((t) => t.text)
      : result.tokens.map((t, i) => (blank && i === blank.position ? blank.word : t.text));
  const wordOf = result.tokens.map((t, i) => t.word ?? i);
  const key = written.map((w, i) => `${w}\u0002${wordOf[i]}`).join('\u0001');
  if (box.dataset.words !== key) {
    box.dataset.words = key;
    box.replaceChildren(
      ...written.map((w, i) => {
        const piece = wordOf.filter((x) => x === wordOf[i]).length > 1;
        const b = h(
          'button',
          { type: 'button', class: `blank-word${piece && w.startsWith('##') ? ' continues' : ''}`, 'data-word': wordOf[i] },
          w,
        );
        if (piece) b.setAttribute('aria-label', `${w}, a piece of word ${wordOf[i] + 1}`);
        // The selected row becomes the word's first token.
        const first = wordOf.indexOf(wordOf[i]);
        b.addEventListener('click', () => onBlank?.(b.getAttribute('aria-pressed') === 'true' ? null : wordOf[i], first));
        return b;
      }),
    );
  }
  const hidden = new Set(blank ? (result.units === 'words' ? [blank.position] : blank.masked) : []);
  [...box.children].forEach((b, i) => b.setAttribute('aria-pressed', String(hidden.has(i))));
}

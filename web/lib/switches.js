// A trained model's parts a reader switches off (issue: the learner as experimenter): their one
// spelling in the state (off="1.2,1.3", URL and widget attribute alike) and their parts for the core.
// A leaf module: the state, the computation and the views read it.

/** How a switched-off head is replaced (the core's modes): see MODE_NOTES for what each means. */
export const OFF_MODES = ['zero', 'mean', 'uniform'];

/**
 * The canonical form of a list of switched-off parts: items that are a head 'L.H', a layer 'L' (1–99)
 * or 'positions', each once, in a fixed order (positions, then by layer, a layer before its heads), so
 * one state has one spelling; anything else is dropped.
 */
export function offList(raw) {
  const items = new Map();
  for (const item of String(raw ?? '').split(/[\s,]+/)) {
    const m = /^(\d{1,2})(?:\.(\d{1,2}))?$/.exec(item);
    if (item === 'positions') items.set(item, [-1, 0]);
    else if (m && +m[1] >= 1 && (m[2] === undefined || +m[2] >= 1)) {
      const [layer, head] = [+m[1], m[2] === undefined ? 0 : +m[2]];
      items.set(m[2] === undefined ? `${layer}` : `${layer}.${head}`, [layer, head]);
    }
  }
  return [...items]
    .sort((a, b) => a[1][0] - b[1][0] || a[1][1] - b[1][1])
    .map(([item]) => item)
    .join(',');
}

/** The parts of `off` as { heads: [[layer, head]], layers: [layer], positions } (0-based), for the core. */
export function offParts(off) {
  const parts = { heads: [], layers: [], positions: false };
  for (const item of off ? off.split(',') : []) {
    if (item === 'positions') parts.positions = true;
    else if (item.includes('.')) parts.heads.push(item.split('.').map((n) => Number(n) - 1));
    else parts.layers.push(Number(item) - 1);
  }
  return parts;
}

/** Whether a head (0-based) is among the parts switched off (offParts' shape, or the result's model.off; null: none). */
export const headIsOff = (parts, layer, head) => Boolean(parts?.heads.some(([l, h]) => l === layer && h === head));
/** Whether a layer's whole attention (0-based) is switched off. */
export const layerIsOff = (parts, layer) => Boolean(parts?.layers.includes(layer));

const list = (items) => (items.length < 2 ? items.join('') : `${items.slice(0, -1).join(', ')} and ${items.at(-1)}`);

/** The parts in words, 1-based as the page names heads: "heads 1.2 and 1.3, layer 2’s attention and the positions". */
export function describeOff(parts) {
  if (!parts) return 'nothing';
  const heads = parts.heads.map(([l, h]) => `${l + 1}.${h + 1}`);
  return list([
    ...(heads.length ? [`${heads.length > 1 ? 'heads' : 'head'} ${list(heads)}`] : []),
    ...parts.layers.map((l) => `layer ${l + 1}’s attention`),
    ...(parts.positions ? ['the positions'] : []),
  ]);
}

/** What each way of switching a head off does, in the page's words (the core does it: model.hpp). */
export const MODE_NOTES = {
  zero: 'Zero: the head adds nothing; its output is replaced by zeros before W_O mixes the heads.',
  mean: 'Mean: its output is replaced by its average over the sentence’s words, so it keeps its usual offset but no longer says which word is which.',
  uniform: 'Uniform: it attends evenly to every word it may see, so it passes on the plain average of their values.',
};
/** Why zero and uniform differ: the two sentences the page shows beside the mode. */
export const MODES_DIFFER =
  'A zero head removes the head’s contribution altogether; a head that attends evenly still adds the mean of every word’s value vector, which the layers after it have learnt to expect. Switching a layer off skips its attention (its feed-forward still runs); switching the positions off makes the model read a bag of words.';

/** `off` with one item switched (added when absent, removed when present), in its one spelling. */
export function toggled(off, item) {
  const items = off ? off.split(',') : [];
  return offList(items.includes(item) ? items.filter((i) => i !== item) : [...items, item]);
}

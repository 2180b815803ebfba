// Where an export puts things: the title and the sentence on top, the figure's SVGs, the caption
// below, in the export's own coordinates (CSS px), for the SVG and the PNG alike (exporter.js).
import { textWidth } from './dom.js';

const PAD = 16,
  GAP = 12,
  MIN_TEXT = 560;

/** Text as XML may hold it, on one line: control characters, lone surrogates and non-characters become spaces. */
export const clean = (text) => text.replace(/[\p{Cc}\p{Cs}\uFFFE\uFFFF]+/gu, ' ');

/** Lines of at most `width` px in `font`; a word wider than that is cut; past `max` lines the last ends in "…". */
function wrap(text, font, width, max = 99) {
  const fits = (s) => textWidth(s, font) <= width;
  const cut = (s) => {
    const cs = [...s];
    let lo = 0,
      hi = cs.length;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (fits(`${cs.slice(0, mid).join('')}…`)) lo = mid;
      else hi = mid - 1;
    }
    return `${cs.slice(0, lo).join('')}…`;
  };
  const lines = [];
  let line = '';
  for (const word of clean(text).split(' ').filter(Boolean)) {
    const next = line ? `${line} ${word}` : word;
    if (fits(next) || !line) line = next;
    else {
      lines.push(line);
      line = word;
    }
    if (lines.length === max) break;
  }
  if (line && lines.length < max) lines.push(line);
  const more = lines.length === max && line !== lines.at(-1);
  return lines.map((l, k) => (!fits(l) || (more && k === max - 1) ? cut(l) : l));
}

/**
 * Where everything goes: the title and the sentence on top, then the SVGs (each across as on screen;
 * down, as on screen too, except that a band where no SVG is, such as the readout and the notes
 * between the map and its legend, closes to GAP px), then the caption. → { width, height, placed:
 * [{ svg, rect, x, y }], texts: [{ text, x, y, size, weight, fill }] }
 */
export function layout({ svgs, words, colours, font }) {
  const rects = svgs.map((s) => s.getBoundingClientRect());
  const left = Math.min(...rects.map((r) => r.left));
  const figure = Math.ceil(Math.max(...rects.map((r) => r.right)) - left);
  const width = Math.max(figure, MIN_TEXT) + 2 * PAD,
    textW = width - 2 * PAD;
  const texts = [];
  let y = PAD - 4;
  const add = (text, size, { weight = 'normal', fill = colours.muted, max } = {}) => {
    for (const line of wrap(text, `${weight} ${size}px ${font}`, textW, max)) {
      y += Math.round(size * 1.4);
      texts.push({ text: line, x: PAD, y: y - Math.round(size * 0.35), size, weight, fill });
    }
  };
  add(words.title, 17, { weight: 'bold', fill: colours.fg });
  add(`“${words.sentence}”`, 15, { fill: colours.fg, max: 3 });
  y += GAP;
  const placed = [];
  let shift = 0,
    bottom = -Infinity;
  for (const n of rects.map((_, k) => k).sort((a, b) => rects[a].top - rects[b].top)) {
    const r = rects[n];
    if (bottom === -Infinity) shift = y - r.top;
    else if (r.top - bottom > GAP) shift -= r.top - bottom - GAP;
    bottom = Math.max(bottom, r.bottom);
    placed[n] = { svg: svgs[n], rect: r, x: PAD + r.left - left, y: r.top + shift };
  }
  y = Math.ceil(bottom + shift) + GAP - 4;
  for (const line of words.caption) add(line, 13);
  return { width, height: y + PAD, placed, texts };
}

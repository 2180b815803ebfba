// What every walkthrough step draws with: a section frame (numbered heading), tables that rewrite
// themselves in place between redraws, rows of tables that stay in the page, the window of keys shown
// around the query, and the small pictures (vector bars, weight bars, legends) the steps share.
import { h, morph, setAttrs, svgEl } from '../dom.js';
import { drawLegend } from '../heatmap/legend.js';
import { num } from '../format.js';
import { matrixTable } from '../tables.js';
import { centre } from '../windowing.js';

/** Rows / columns of a matrix shown before "…", unless "show whole matrices". */
export const LIMIT = 8;
/** Rows of per-key tables (steps 5–6, the vectors) before they window around the query. */
export const WORDS = 16;

/** A walkthrough section: <section class="step" id> with a numbered heading (title: text or nodes) and a body to draw into. */
export function stepSection(n, id, ...title) {
  const body = h('div', { class: 'step-body' });
  const heading = h('h3', {}, n === null ? null : h('span', { class: 'n' }, String(n)), h('span', { class: 'title' }, ...title));
  const el = h('section', { class: 'step', id, ...(n === null ? {} : { 'data-step': n }) }, heading, body);
  return { el, body };
}

/** Matrix tables that keep their nodes between redraws (see tables.matrixTable's reuse). */
export class TableKit {
  constructor() {
    this.tables = new Map();
    this.rows = new Map();
  }

  /** A matrix as a table named o.name; limit: rows/cols shown before "…" (Infinity: all). */
  table(mat, o) {
    const t = matrixTable(mat, { ...o, reuse: this.tables.get(o.name) });
    this.tables.set(o.name, t);
    return t;
  }

  /** A row of tables that stays in the page between redraws (a fresh row would pull its tables out first). */
  row(key, tables) {
    if (!this.rows.has(key)) this.rows.set(key, Object.assign(h('div', { class: 'matrix-row' }), { morphKeep: true }));
    const row = this.rows.get(key);
    morph(row, tables);
    return row;
  }
}

/** The keys shown in per-key tables: all of them, or WORDS around the query (unless whole matrices are asked for). */
export function keysAround(T, query, full) {
  const n = full ? T : Math.min(T, WORDS);
  const start = centre(n, T, query);
  return Array.from({ length: n }, (_, k) => start + k);
}

/** The sentence saying which keys a table shows, when not all. */
export const keysNote = (T, keys) =>
  keys.length < T
    ? ` Keys ${keys[0] + 1}–${keys.at(-1) + 1} of ${T} are shown (around the query; tick “show whole matrices” for all).`
    : '';

/** A legend in its own box. */
export function legendBox(max, options) {
  const box = h('div', { class: 'legend-wrap' });
  drawLegend(box, max, options);
  return box;
}

/**
 * A vector as tiny bars around a zero line: two paths (above and below zero), not a node per bar.
 * vectorBars() makes an empty one; vectorBars(svg, values, maxAbs, label) draws into it (and returns it).
 */
export function vectorBars(svg, values, maxAbs, label) {
  if (!svg) {
    // preserveAspectRatio none: where the stylesheet narrows it (a phone), the bars get thinner, not shorter.
    // No role until drawn: an image with no name yet (a step not drawn until scrolled to) says nothing.
    svg = svgEl('svg', { class: 'vbars', preserveAspectRatio: 'none' });
    svgEl('line', { class: 'zero' }, svg);
    svgEl('path', { class: 'pos' }, svg);
    svgEl('path', { class: 'neg' }, svg);
    return svg;
  }
  const n = values.length,
    bw = n > 24 ? 3 : n > 8 ? 6 : 12,
    H = 28,
    w = Math.max(1, bw - 1),
    W = n * bw + 2;
  setAttrs(svg, {
    width: W,
    height: H,
    viewBox: `0 0 ${W} ${H}`,
    role: 'img',
    'aria-label': `${label}: ${Array.from(values, (v) => num(v, 4)).join(', ')}`,
  });
  setAttrs(svg.firstChild, { x1: 0, x2: W, y1: H / 2, y2: H / 2 });
  const d = { pos: '', neg: '' };
  values.forEach((v, k) => {
    const hgt = (maxAbs > 0 ? Math.abs(v) / maxAbs : 0) * (H / 2 - 1);
    if (v >= 0) d.pos += `M${1 + k * bw} ${H / 2 - hgt}h${w}v${hgt}h${-w}z`;
    else d.neg += `M${1 + k * bw} ${H / 2}h${w}v${hgt}h${-w}z`;
  });
  setAttrs(svg.children[1], { d: d.pos || 'M0 0' });
  setAttrs(svg.children[2], { d: d.neg || 'M0 0' });
  return svg;
}

/** A weight as a bar (0–1 of its width): weightBar() makes one, weightBar(svg, f) sets it. */
export function weightBar(svg, f) {
  if (!svg) {
    svg = svgEl('svg', { class: 'wbar', width: 80, height: 10, viewBox: '0 0 80 10', preserveAspectRatio: 'none', 'aria-hidden': 'true' });
    svgEl('rect', { x: 0, y: 1, height: 8 }, svg);
    return svg;
  }
  setAttrs(svg.firstChild, { width: Math.max(0, Math.min(1, f)) * 80 });
  return svg;
}

/** d1 … d_d: the names of X's columns, and of the rows of a W that multiplies X. */
export const dimLabels = (d) => Array.from({ length: d }, (_, k) => `d${k + 1}`);
/** One row of a matrix as a 1 × cols matrix. */
export const rowOf = (mat, r) => ({ rows: 1, cols: mat.cols, data: mat.data.slice(r * mat.cols, (r + 1) * mat.cols) });
/** A vector (a bias) as a 1 × n matrix. */
export const asRow = (v) => ({ rows: 1, cols: v.length, data: v });

// Tiny DOM helpers shared by the page and the widget. Text always goes in through textContent or
// setAttribute: nothing here parses a string as markup.
export const SVG_NS = 'http://www.w3.org/2000/svg';

/** An SVG element with attributes, appended to parent if given. */
export function svgEl(name, attrs = {}, parent) {
  const node = document.createElementNS(SVG_NS, name);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
  if (parent) parent.appendChild(node);
  return node;
}

/** An HTML element: h('button', { class: 'x', type: 'button' }, 'text', otherNode). */
export function h(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === false || v === undefined || v === null) continue;
    node.setAttribute(k, v === true ? '' : String(v));
  }
  for (const c of children) if (c !== null && c !== undefined) node.append(c);
  return node;
}

let measureCtx;
/** Width in px of text drawn in a CSS font. */
export function textWidth(text, font) {
  measureCtx ??= document.createElement('canvas').getContext('2d');
  measureCtx.font = font;
  return measureCtx.measureText(text).width;
}

/** The element focused inside the tree (document or shadow root) that holds node. */
export function activeIn(node) {
  const root = node.getRootNode();
  return root.activeElement ?? null;
}

let counter = 0;
/** A document-unique id prefix (SVG gradients are referenced by id). */
export const uniqueId = (stem) => `${stem}-${++counter}`;

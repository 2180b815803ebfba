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

/** Sets attributes (and the text) of a node kept between redraws, writing only what changed (DOM writes are what cost). */
export function setAttrs(node, attrs, text) {
  for (const [k, v] of Object.entries(attrs)) {
    const s = String(v);
    if (node.getAttribute(k) !== s) node.setAttribute(k, s);
  }
  if (text !== undefined && node.textContent !== text) node.textContent = text;
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

/**
 * Makes parent's children look like `kids` (freshly built nodes or strings) while keeping the nodes
 * already there wherever they match: a redraw with new numbers then changes only text and attributes,
 * so the browser restyles and re-lays out only what changed instead of whole new tables. For content
 * without event listeners (the kept nodes keep theirs, the fresh ones are dropped). A kid marked
 * `morphKeep` is a node that updates itself (a table rewritten in place): it goes in as it is.
 */
export function morph(parent, kids) {
  const fresh = kids.filter((k) => k !== null && k !== undefined).map((k) => (typeof k === 'string' ? document.createTextNode(k) : k));
  const old = parent.childNodes;
  fresh.forEach((b, i) => {
    const a = old[i];
    if (a === b) return;
    if (!a) parent.append(b);
    else if (!b.morphKeep && a.nodeType === b.nodeType && a.nodeName === b.nodeName) patch(a, b);
    else a.replaceWith(b);
  });
  while (old.length > fresh.length) parent.lastChild.remove();
}

function patch(a, b) {
  if (a.nodeType !== 1) {
    if (a.data !== b.data) a.data = b.data;
    return;
  }
  for (const { name, value } of b.attributes) {
    // Inline styles go through the CSSOM (a Content-Security-Policy may refuse style attributes).
    if (name === 'style') {
      if (a.style.cssText !== b.style.cssText) a.style.cssText = b.style.cssText;
    } else if (a.getAttribute(name) !== value) a.setAttribute(name, value);
  }
  for (const name of a.getAttributeNames()) if (!b.hasAttribute(name)) a.removeAttribute(name);
  morph(a, [...b.childNodes]);
}

// Exports of what a figure shows: SVG (the drawn SVGs, with their computed styles written in as
// presentation attributes so the file stands alone), PNG (the same SVGs painted onto a canvas element
// by element — no <img> of a blob, which a strict Content-Security-Policy would block) and JSON.
// What a view draws on a canvas (heatmap cells, lines) it also offers as shapes: an SVG with an
// exportShapes() method returns [{ tag: 'rect' | 'line' | 'text', attrs, text }] in its own
// coordinates, and the export puts them under that SVG's labels, built from the weights themselves.
// Each export carries a title, the sentence and a caption (notes.js captionOf), so it can be pasted as is.
// The JSON export's numbers are export-json.js's.
import { SVG_NS } from './dom.js';
import { clean, layout } from './export-layout.js';

const STYLE_PROPS = [
  'fill',
  'fill-opacity',
  'stroke',
  'stroke-width',
  'stroke-opacity',
  'stroke-dasharray',
  'opacity',
  'font-family',
  'font-size',
  'font-weight',
  'font-style',
  'text-anchor',
  'dominant-baseline',
  'visibility',
  'text-decoration',
];
/** Numbers the ids of each export's <title> and <desc>, so several SVGs pasted into one page keep theirs apart. */
let exported = 0;

/**
 * Standalone SVG text of a figure: { svgs (its rendered SVG elements), words ({ title, sentence,
 * caption: [lines], notes: [lines] }), colours ({ bg, fg, muted }), font (CSS family) }. One image to a
 * screen reader: role="img", named by its <title> and described by its <desc>.
 */
export function toSVG(figure) {
  const { width, height, placed, texts } = layout(figure);
  const { words, colours, font } = figure;
  const out = document.createElementNS(SVG_NS, 'svg');
  const add = (tag, attrs, parent = out) => {
    const node = document.createElementNS(SVG_NS, tag);
    for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
    parent.append(node);
    return node;
  };
  const id = `attention-figure-${++exported}`;
  for (const [k, v] of Object.entries({
    xmlns: SVG_NS,
    width,
    height,
    viewBox: `0 0 ${width} ${height}`,
    role: 'img',
    'aria-labelledby': `${id}-title ${id}-desc`,
  }))
    out.setAttribute(k, v);
  add('title', { id: `${id}-title` }).textContent = clean(words.title);
  add('desc', { id: `${id}-desc` }).textContent = clean([`“${words.sentence}”.`, ...words.caption, ...words.notes].join(' '));
  add('rect', { width, height, fill: colours.bg });
  for (const t of texts)
    add('text', { x: t.x, y: t.y, 'font-size': t.size, 'font-weight': t.weight, 'font-family': font, fill: t.fill }).textContent = t.text;
  for (const { svg, rect, x, y } of placed) {
    const clone = svg.cloneNode(true);
    const src = [svg, ...svg.querySelectorAll('*')];
    const dst = [clone, ...clone.querySelectorAll('*')];
    src.forEach((node, i) => {
      const target = dst[i];
      // The parts are drawing, not controls: the image's title and desc speak for them.
      for (const a of [...target.attributes]) if (/^(style|tabindex|class|role|aria-.*)$/.test(a.name)) target.removeAttribute(a.name);
      if (node.tagName === 'stop' || node.tagName === 'linearGradient' || node.tagName === 'defs') return;
      const cs = getComputedStyle(node);
      for (const p of STYLE_PROPS) {
        const v = cs.getPropertyValue(p);
        if (v && !(p === 'text-decoration' && v.startsWith('none')) && !(p === 'stroke-dasharray' && v === 'none'))
          target.setAttribute(p, v);
      }
    });
    if (svg.exportShapes) {
      const g = document.createElementNS(SVG_NS, 'g');
      for (const shape of svg.exportShapes()) {
        const node = add(shape.tag, shape.attrs, g);
        if (shape.text !== undefined) node.textContent = shape.text;
      }
      clone.prepend(g);
    }
    for (const [k, v] of Object.entries({ x, y, width: rect.width, height: rect.height })) clone.setAttribute(k, v);
    out.append(clone);
  }
  // A label may hold what XML cannot (a typed U+0000, a lone surrogate): U+FFFD instead, so the file parses.
  return (
    '<?xml version="1.0" encoding="UTF-8"?>\n' +
    new XMLSerializer().serializeToString(out).replace(/[\0-\x08\v\f\x0e-\x1f\ufffe\uffff]|\p{Cs}/gu, '\ufffd')
  );
}

function opacityOf(node, stop) {
  let o = 1;
  for (let n = node; n && n !== stop.parentNode; n = n.parentNode) {
    if (n.nodeType !== 1) break;
    o *= Number(getComputedStyle(n).opacity);
  }
  return o;
}

function paintOf(ctx, value, node, box) {
  if (!value || value === 'none') return null;
  const ref = /^url\("?#([^")]+)"?\)/.exec(value);
  if (!ref) return value;
  const grad = node.ownerSVGElement?.querySelector(`[id="${CSS.escape(ref[1])}"]`);
  if (!grad) return null;
  const g = ctx.createLinearGradient(box.x, box.y, box.x + box.width, box.y);
  for (const stop of grad.querySelectorAll('stop')) {
    g.addColorStop(parseFloat(stop.getAttribute('offset')) / 100, stop.getAttribute('stop-color'));
  }
  return g;
}

/** The figure (as toSVG takes it) painted onto a new canvas at `scale`× its CSS pixels: its SVGs element by element. */
export function toCanvas(figure, scale = 2) {
  const { width, height, placed, texts } = layout(figure);
  // Within what a canvas may hold (16,384 px a side in Chromium; less on some phones).
  scale = Math.min(scale, 8192 / width, 8192 / height);
  const canvas = document.createElement('canvas');
  canvas.width = Math.round(width * scale);
  canvas.height = Math.round(height * scale);
  const ctx = canvas.getContext('2d');
  ctx.fillStyle = figure.colours.bg;
  ctx.fillRect(0, 0, canvas.width, canvas.height);
  ctx.textBaseline = 'alphabetic';
  ctx.textAlign = 'left';
  for (const t of texts) {
    ctx.setTransform(scale, 0, 0, scale, 0, 0);
    ctx.font = `${t.weight} ${t.size}px ${figure.font}`;
    ctx.fillStyle = t.fill;
    ctx.fillText(t.text, t.x, t.y);
  }
  for (const { svg, rect, x, y } of placed) {
    // Screen coordinates → the export's: this SVG moves from where it is on screen to where it is placed.
    const left = rect.left - x,
      top = rect.top - y;
    if (svg.exportShapes) {
      const m = svg.getScreenCTM();
      if (m) {
        ctx.setTransform(scale * m.a, scale * m.b, scale * m.c, scale * m.d, scale * (m.e - left), scale * (m.f - top));
        paintShapes(ctx, svg.exportShapes());
      }
    }
    for (const node of svg.querySelectorAll('rect, line, path, text')) {
      if (node.closest('defs')) continue;
      const cs = getComputedStyle(node);
      if (cs.visibility === 'hidden' || cs.display === 'none') continue;
      const m = node.getScreenCTM();
      if (!m) continue;
      ctx.setTransform(scale * m.a, scale * m.b, scale * m.c, scale * m.d, scale * (m.e - left), scale * (m.f - top));
      ctx.globalAlpha = opacityOf(node, svg);
      const num = (name) => Number(node.getAttribute(name) ?? 0);
      let path = null;
      if (node.tagName === 'rect') {
        path = new Path2D();
        const rx = num('rx');
        if (rx > 0 && path.roundRect) path.roundRect(num('x'), num('y'), num('width'), num('height'), rx);
        else path.rect(num('x'), num('y'), num('width'), num('height'));
      } else if (node.tagName === 'line') {
        path = new Path2D();
        path.moveTo(num('x1'), num('y1'));
        path.lineTo(num('x2'), num('y2'));
      } else if (node.tagName === 'path') {
        path = new Path2D(node.getAttribute('d') ?? '');
      }
      const box = node.getBBox();
      const fill = paintOf(ctx, cs.fill, node, box);
      const stroke = paintOf(ctx, cs.stroke, node, box);
      const alpha = ctx.globalAlpha;
      if (path) {
        if (fill && node.tagName !== 'line') {
          ctx.globalAlpha = alpha * Number(cs.fillOpacity);
          ctx.fillStyle = fill;
          ctx.fill(path);
        }
        if (stroke && parseFloat(cs.strokeWidth) > 0) {
          ctx.globalAlpha = alpha * Number(cs.strokeOpacity);
          ctx.strokeStyle = stroke;
          ctx.lineWidth = parseFloat(cs.strokeWidth);
          ctx.setLineDash(dashes(cs.strokeDasharray));
          ctx.stroke(path);
          ctx.setLineDash([]);
        }
      } else if (fill) {
        ctx.globalAlpha = alpha * Number(cs.fillOpacity);
        ctx.fillStyle = fill;
        ctx.font = `${cs.fontStyle} ${cs.fontWeight} ${cs.fontSize} ${cs.fontFamily}`;
        const anchor = cs.textAnchor;
        ctx.textAlign = anchor === 'middle' ? 'center' : anchor === 'end' ? 'right' : 'left';
        const base = cs.dominantBaseline;
        ctx.textBaseline = base === 'central' || base === 'middle' ? 'middle' : 'alphabetic';
        ctx.fillText(node.textContent, num('x'), num('y'));
      }
    }
  }
  return canvas;
}

/** Paints exportShapes() shapes (rect fills, line strokes, text) in the current transform. */
function paintShapes(ctx, shapes) {
  for (const { tag, attrs: a, text } of shapes) {
    const num = (k, fallback = 0) => (a[k] === undefined ? fallback : Number(a[k]));
    ctx.globalAlpha = 1;
    ctx.setLineDash(dashes(a['stroke-dasharray']));
    if (tag === 'rect') {
      ctx.fillStyle = a.fill;
      ctx.fillRect(num('x'), num('y'), num('width'), num('height'));
      if (a.stroke) {
        ctx.strokeStyle = a.stroke;
        ctx.lineWidth = 1;
        ctx.strokeRect(num('x'), num('y'), num('width'), num('height'));
      }
    } else if (tag === 'line') {
      ctx.globalAlpha = num('stroke-opacity', 1);
      ctx.strokeStyle = a.stroke;
      ctx.lineWidth = num('stroke-width', 1);
      ctx.beginPath();
      ctx.moveTo(num('x1'), num('y1'));
      ctx.lineTo(num('x2'), num('y2'));
      ctx.stroke();
    } else if (tag === 'text') {
      ctx.fillStyle = a.fill;
      ctx.font = `${num('font-size', 11)}px ${a['font-family'] ?? 'sans-serif'}`;
      ctx.textAlign = a['text-anchor'] === 'middle' ? 'center' : a['text-anchor'] === 'end' ? 'right' : 'left';
      ctx.textBaseline = a['dominant-baseline'] === 'central' ? 'middle' : 'alphabetic';
      ctx.fillText(text, num('x'), num('y'));
    }
  }
  ctx.globalAlpha = 1;
  ctx.setLineDash([]);
}

/** A stroke-dasharray ("3 2", "3px, 2px" or none) as canvas line dashes. */
const dashes = (v) =>
  v && v !== 'none'
    ? String(v)
        .split(/[\s,]+/)
        .map(parseFloat)
    : [];

/** PNG bytes of the figure (as toSVG takes it), at `scale`× its CSS pixels. */
export function toPNG(figure, scale = 2) {
  const canvas = toCanvas(figure, scale);
  return new Promise((resolve, reject) => canvas.toBlob((b) => (b ? resolve(b) : reject(new Error('PNG encoding failed'))), 'image/png'));
}

/** Offers a Blob as a download (an <a download> click inside `root`). */
export function download(root, blob, filename) {
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = filename;
  a.hidden = true;
  root.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

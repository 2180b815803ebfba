// The "lines" view (after BertViz's head view): query words on the left, key words on the right, one
// line per pair whose thickness and opacity follow its weight. Hovering or focusing a word isolates
// its lines. Weights come from the wasm core (or an imported model); this file only draws them.
import { activeIn, svgEl as el, textWidth } from './dom.js';
import { format4, labelOf, maxOf } from './heatmap.js';

const ROW = 26;
const GAP = 170; // horizontal room for the lines

/**
 * Draws `weights` (T×T, rows = queries) into container. onFocusWord(info | null) gets
 * { side: 'query' | 'key', index, token, links: [{ index, token, weight }] } (strongest first);
 * onSelect(index) is called when a query word is focused or clicked. selected: query index to isolate.
 */
export function drawLines(container, tokens, weights, { onFocusWord = () => {}, onSelect, selected = null } = {}) {
  const T = weights.rows;
  const { data } = weights;
  const max = maxOf(data);
  const fontPx = 14;
  const font = `${fontPx}px ${getComputedStyle(container).fontFamily}`;
  const labels = tokens.map(labelOf);
  const labelW = Math.ceil(Math.max(...labels.map((l) => textWidth(l, font)))) + 8;
  const xl = labelW + 8; // right edge of the query labels
  const xr = xl + GAP;   // left edge of the key labels
  const top = 34;
  const width = xr + labelW + 8;
  const height = top + T * ROW + 6;
  const y = (i) => top + i * ROW + ROW / 2;

  const svg = el('svg', {
    class: 'lines', viewBox: `0 0 ${width} ${height}`, width, height, role: 'group', tabindex: -1,
    'aria-label': `Attention as lines: ${T} query words on the left, the same words as keys on the right. ` +
      'Use the arrow keys to move between words; a focused word keeps only its lines.',
  });
  svg.style.fontSize = `${fontPx}px`;
  const head = el('g', { class: 'axis-title', 'aria-hidden': 'true' }, svg);
  el('text', { x: xl - 4, y: 16, 'text-anchor': 'end' }, head).textContent = 'queries';
  el('text', { x: xr + 4, y: 16 }, head).textContent = 'keys';

  const linkGroup = el('g', { class: 'links', 'aria-hidden': 'true' }, svg);
  const links = [];
  for (let i = 0; i < T; i++) {
    for (let j = 0; j < T; j++) {
      const w = data[i * T + j];
      if (!(w > 0)) continue;
      const f = max > 0 ? w / max : 0;
      const line = el('line', {
        class: 'link', x1: xl + 2, y1: y(i), x2: xr - 2, y2: y(j),
        'stroke-width': (0.5 + 5 * f).toFixed(2), 'stroke-opacity': (0.08 + 0.92 * f).toFixed(3),
        'data-row': i, 'data-col': j, 'data-weight': String(w),
      }, linkGroup);
      links.push(line);
    }
  }

  const words = [];
  const addWord = (side, i) => {
    const t = tokens[i];
    const x = side === 'query' ? xl - 4 : xr + 4;
    const text = el('text', {
      class: `word ${side} label ${t.lookup}`, x, y: y(i), 'dominant-baseline': 'central',
      'text-anchor': side === 'query' ? 'end' : 'start', tabindex: -1, role: 'button',
      'data-side': side, 'data-index': i,
      'aria-label': `${side} word ${i + 1}: ${t.text}`,
    }, svg);
    text.textContent = labels[i];
    words.push(text);
    return text;
  };
  const queryWords = tokens.map((_, i) => addWord('query', i));
  const keyWords = tokens.map((_, i) => addWord('key', i));

  const linksOf = (side, index) => {
    const out = [];
    for (let k = 0; k < T; k++) {
      const w = side === 'query' ? data[index * T + k] : data[k * T + index];
      out.push({ index: k, token: tokens[k], weight: w });
    }
    return out.sort((a, b) => b.weight - a.weight);
  };

  const isolate = (word) => {
    for (const w of words) w.classList.remove('active');
    if (!word) {
      svg.classList.remove('isolated');
      for (const l of links) l.classList.remove('on');
      return;
    }
    word.classList.add('active');
    svg.classList.add('isolated');
    const side = word.dataset.side, index = +word.dataset.index;
    const attr = side === 'query' ? 'data-row' : 'data-col';
    for (const l of links) l.classList.toggle('on', +l.getAttribute(attr) === index);
  };
  const pinned = () => (selected !== null && selected < T ? queryWords[selected] : null);
  const show = (word) => {
    isolate(word ?? pinned());
    const w = word ?? pinned();
    onFocusWord(w ? { side: w.dataset.side, index: +w.dataset.index, token: tokens[+w.dataset.index], links: linksOf(w.dataset.side, +w.dataset.index) } : null);
  };

  let current = pinned() ?? queryWords[0];
  current.setAttribute('tabindex', 0);
  const focusWord = (word) => {
    current.setAttribute('tabindex', -1);
    word.setAttribute('tabindex', 0);
    current = word;
    word.focus();
  };

  svg.addEventListener('pointerover', (e) => {
    if (e.target.classList?.contains('word')) show(e.target);
  });
  svg.addEventListener('pointerleave', () => {
    const active = activeIn(svg);
    show(active && svg.contains(active) && active.classList.contains('word') ? active : null);
  });
  svg.addEventListener('pointerdown', (e) => {
    if (e.target.classList?.contains('word')) {
      e.preventDefault();
      focusWord(e.target);
    }
  });
  svg.addEventListener('focusin', (e) => {
    const word = e.target;
    if (!word.classList?.contains('word')) return;
    if (current !== word) {
      current.setAttribute('tabindex', -1);
      word.setAttribute('tabindex', 0);
      current = word;
    }
    show(word);
    if (word.dataset.side === 'query') onSelect?.(+word.dataset.index);
  });
  svg.addEventListener('focusout', (e) => {
    if (!svg.contains(e.relatedTarget)) show(null);
  });
  svg.addEventListener('keydown', (e) => {
    let side = current.dataset.side, i = +current.dataset.index;
    switch (e.key) {
      case 'ArrowUp': i = Math.max(0, i - 1); break;
      case 'ArrowDown': i = Math.min(T - 1, i + 1); break;
      case 'ArrowLeft': side = 'query'; break;
      case 'ArrowRight': side = 'key'; break;
      case 'Home': i = 0; break;
      case 'End': i = T - 1; break;
      default: return;
    }
    e.preventDefault();
    focusWord((side === 'query' ? queryWords : keyWords)[i]);
  });

  container.replaceChildren(svg);
  show(null);
  return { get selected() { return selected; } };
}

/** One line of text for the readout: "train → station 0.3120, the 0.2210, …" (strongest three). */
export function describeLinks(info) {
  const arrow = info.side === 'query' ? '→' : '←';
  const top = info.links.slice(0, 3).map((l) => `${l.token.text} ${format4(l.weight)}`).join(', ');
  return `${info.token.text} ${arrow} ${top}`;
}

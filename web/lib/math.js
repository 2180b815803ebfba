// MathML formulas built node by node (no TeX engine): the page's formulas read like the equations of
// the source articles, and a screen reader that cannot read MathML gets each formula's aria-label.
const MML = 'http://www.w3.org/1998/Math/MathML';

/** A MathML element; string children become text nodes. */
export function m(tag, ...kids) {
  const n = document.createElementNS(MML, tag);
  for (const k of kids) if (k !== null && k !== undefined) n.append(k);
  return n;
}
export const mi = (t) => m('mi', t);
export const mo = (t) => m('mo', t);
export const mn = (t) => m('mn', t);
export const mrow = (...k) => m('mrow', ...k);
export const sub = (base, s) => m('msub', typeof base === 'string' ? mi(base) : base, typeof s === 'string' ? mi(s) : s);
export const sup = (base, s) => m('msup', typeof base === 'string' ? mi(base) : base, typeof s === 'string' ? mi(s) : s);
export const frac = (a, b) => m('mfrac', a, b);
/** A fraction whose parts keep the full size (displaystyle): nested scripts inside it stay readable on a phone. */
export function dfrac(a, b) {
  const parts = [mrow(a), mrow(b)];
  for (const p of parts) p.setAttribute('displaystyle', 'true');
  return m('mfrac', ...parts);
}
export const sqrt = (a) => m('msqrt', a);
export const text = (t) => m('mtext', t);
/** Σ with a subscript. */
export const sum = (index) => m('munder', mo('∑'), mi(index));
/** A display formula; label is what a screen reader says if it cannot read MathML. */
export function formula(label, ...kids) {
  const n = m('math', mrow(...kids));
  n.setAttribute('display', 'block');
  n.setAttribute('aria-label', label);
  // On a narrow screen a block formula scrolls sideways (style.css): focusable, so a keyboard can scroll it.
  n.setAttribute('tabindex', '0');
  return n;
}
/** softmax( … ) */
export const fn = (name, ...arg) => mrow(mi(name), mo('('), ...arg, mo(')'));

// Checks attention weights brought from a real model before drawing them. The expected shape is what
// Hugging Face transformers returns with output_attentions=True, dumped to JSON:
//   { "tokens": [T strings], "attentions": layers × heads × T × T }
// (also accepted: layers × 1 × heads × T × T with its batch of one, heads × T × T, T × T, or the bare
// nested array with the tokens given separately). Every problem is reported by position.
// As many tokens as the figure draws from text (compute.js MAX_TOKENS; a long input is shown through a
// window), within a budget of numbers in all (a 1,024-token file holds at most 3 layers × 1 head).
export const MAX_IMPORT_TOKENS = 1024;
const MAX_NUMBERS = 4_000_000;
const TOLERANCE = 1e-3;

export class ImportError extends Error {
  constructor(message) {
    super(message);
    this.name = 'ImportError';
  }
}

const fail = (message) => {
  throw new ImportError(message);
};
const describe = (v) =>
  v === null
    ? 'null'
    : Array.isArray(v)
      ? `an array of ${v.length}`
      : typeof v === 'string'
        ? `the string ${JSON.stringify(v.length > 20 ? v.slice(0, 20) + '…' : v)}`
        : typeof v === 'object'
          ? 'an object'
          : String(v);

function depthOf(value) {
  let d = 0;
  while (Array.isArray(value)) {
    d++;
    value = value[0];
  }
  return d;
}

/** Parses text (or takes an already-parsed value) → { tokens: [{text, lookup, matched}], attentions: Matrix[layer][head], layers, heads }. */
export function parseAttention(input, tokensOverride) {
  let value = input;
  if (typeof input === 'string') {
    if (!input.trim()) fail('Paste or load a JSON file of attention weights first.');
    try {
      value = JSON.parse(input);
    } catch (e) {
      fail(`This is not valid JSON: ${e.message}`);
    }
  }
  let tokens = tokensOverride;
  let att;
  if (Array.isArray(value)) {
    att = value;
  } else if (value && typeof value === 'object') {
    att = value.attentions ?? value.attention;
    tokens ??= value.tokens;
    if (att === undefined) fail('The JSON has no "attentions" field: expected {"tokens": [...], "attentions": layers × heads × T × T}.');
  } else {
    fail(`Expected a JSON object {"tokens": [...], "attentions": [...]}, got ${describe(value)}.`);
  }
  if (tokens === undefined || tokens === null) fail('The JSON has no "tokens" field: give the T tokens the weights belong to.');
  if (!Array.isArray(tokens)) fail(`"tokens" must be an array of strings, got ${describe(tokens)}.`);
  tokens.forEach((t, i) => {
    if (typeof t !== 'string') fail(`tokens[${i}] is ${describe(t)}, not a string.`);
  });
  const T = tokens.length;
  if (T === 0) fail('"tokens" is empty.');
  if (T > MAX_IMPORT_TOKENS) fail(`There are ${T} tokens; at most ${MAX_IMPORT_TOKENS} can be drawn.`);
  if (!Array.isArray(att)) fail(`"attentions" must be a nested array (layers × heads × T × T), got ${describe(att)}.`);

  // Normalise to layers × heads × T × T.
  const depth = depthOf(att);
  if (depth === 5) {
    att.forEach((layer, l) => {
      if (!Array.isArray(layer) || layer.length !== 1) {
        fail(
          `attentions[${l}] holds a batch of ${Array.isArray(layer) ? layer.length : describe(layer)} sequences; export one sentence (batch size 1).`,
        );
      }
    });
    att = att.map((layer) => layer[0]);
  } else if (depth === 3) {
    att = [att];
  } else if (depth === 2) {
    att = [[att]];
  } else if (depth !== 4) {
    fail(`"attentions" is nested ${depth} deep; expected layers × heads × T × T (4 deep).`);
  }
  const L = att.length;
  if (L === 0) fail('"attentions" has no layers.');
  const H = Array.isArray(att[0]) ? att[0].length : 0;
  if (H === 0) fail('attentions[0] has no heads.');
  if (L * H * T * T > MAX_NUMBERS) fail(`${L} layers × ${H} heads × ${T}² weights is too many to draw here.`);

  const attentions = [];
  for (let l = 0; l < L; l++) {
    const layer = att[l];
    if (!Array.isArray(layer)) fail(`attentions[${l}] is ${describe(layer)}, not an array of heads.`);
    if (layer.length !== H) fail(`attentions[${l}] has ${layer.length} heads but attentions[0] has ${H}.`);
    const heads = [];
    for (let h = 0; h < H; h++) {
      const m = layer[h];
      const name = `attentions[${l}][${h}]`;
      if (!Array.isArray(m)) fail(`${name} is ${describe(m)}, not a T × T array.`);
      if (m.length !== T) fail(`${name} has ${m.length} rows but there are ${T} tokens.`);
      const data = new Float32Array(T * T);
      for (let r = 0; r < T; r++) {
        const row = m[r];
        if (!Array.isArray(row)) fail(`${name} row ${r} is ${describe(row)}, not an array.`);
        if (row.length !== T) fail(`${name} row ${r} has ${row.length} values but there are ${T} tokens.`);
        let sum = 0;
        for (let c = 0; c < T; c++) {
          const v = row[c];
          if (typeof v !== 'number') fail(`${name} row ${r}, column ${c} is ${describe(v)}, not a number.`);
          if (!Number.isFinite(v)) fail(`${name} row ${r}, column ${c} is ${v}, not a finite number.`);
          if (v < 0) fail(`${name} row ${r}, column ${c} is ${v}; attention weights cannot be negative.`);
          sum += v;
          data[r * T + c] = v;
        }
        if (Math.abs(sum - 1) > TOLERANCE) {
          fail(`${name} row ${r} sums to ${Number(sum.toPrecision(4))}, not 1: each row must be a softmax.`);
        }
      }
      heads.push({ rows: T, cols: T, data });
    }
    attentions.push(heads);
  }
  return {
    tokens: tokens.map((text) => ({ text, lookup: 'known', matched: text })),
    attentions,
    layers: L,
    heads: H,
  };
}

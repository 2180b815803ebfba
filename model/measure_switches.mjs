// What each part of the shipped pieces models is worth, measured on held-out text through the wasm core (the
// attention_model_wasm module and the JS API the page calls: LanguageModel.fill and run with `off`): the
// encoder's whole-word masked accuracy and the decoder's accuracy on the next word's first piece (top-1,
// top-5) as trained, with each single head switched off in each mode (zero, mean, uniform), with each
// layer's attention off, and with the positional encoding off. Prints model/README.md's tables (markdown)
// and writes every number to build/model/switches.json.
//
//   node model/measure_switches.mjs [cases, default 2000] [wasm dir, default build/wasm]
//
// The cases are measure_accuracy.mjs's (imported, same seed): a held-out line of build/corpus/heldout.txt
// (data/build_corpus.py: lines no shipped model trained on), its first 32 tokens, and one alphabetic word
// of it. The encoder hides the whole word (all its pieces, as the page's fill-the-blank does) and a case
// counts when a whole-word guess is exactly the word. The decoder reads the words before it and a case
// counts when a next-piece guess is the word's first piece: the API's decoder guesses pieces, not words
// (for a word of one piece, the two are the same); cases whose word is the line's first are left out.
import { readFile, mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { heldOutCases, SEED } from './measure_accuracy.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const count = Number(process.argv[2] ?? 2000);
const wasmDir = path.resolve(root, process.argv[3] ?? 'build/wasm');

const { loadAttentionWithModel } = await import(pathToFileURL(path.join(wasmDir, 'attention.js')).href);
const core = await loadAttentionWithModel({ wasmBinary: await readFile(path.join(wasmDir, 'attention_model_wasm.wasm')) });
const { cases: heldOut, skipped } = await heldOutCases(core, count);

/**
 * One model's cases: the encoder's are the held-out cases as they are; the decoder's are those whose word
 * has words before it, as { text: those words, target: the id of the word's first piece as the decoder
 * reads the whole line, pieces: how many pieces the word has }.
 */
function casesFor(model) {
  if (model.kind === 'encoder') return heldOut;
  return heldOut
    .filter((c) => c.position > 0)
    .map((c) => {
      const tokens = model.run(c.text, { top: 0, keep: [] }).tokens;
      const word = tokens.filter((t) => t.word === c.position);
      const text = c.text.split(' ').slice(0, c.position).join(' ');
      // The words before it read alone must be the same pieces as in the line, or the case would not be the line's.
      const before = model.run(text, { top: 0, keep: [] }).tokens;
      if (before.length !== tokens.indexOf(word[0]) || before.some((t, i) => t.id !== tokens[i].id))
        throw new Error(`"${text}" reads differently alone`);
      return { ...c, text, target: word[0].id, pieces: word.length };
    });
}

/** Per case, whether the top guess (top1) and any of the five best (top5) is right, with `off` switched off. */
function hits(model, list, off) {
  const top1 = new Uint8Array(list.length),
    top5 = new Uint8Array(list.length);
  list.forEach((c, i) => {
    const right =
      model.kind === 'encoder'
        ? model.fill(c.text, c.position, { top: 5, keep: [], off }).guesses.map((g) => g.word === c.word)
        : model.run(c.text, { top: 5, keep: [], off }).predictions.map((g) => g.id === c.target);
    top1[i] = right[0] ? 1 : 0;
    top5[i] = right.some(Boolean) ? 1 : 0;
  });
  return { top1, top5 };
}

const sum = (a) => a.reduce((s, x) => s + x, 0);
/**
 * A row's accuracies (%) and, against the model as trained on the same cases, the paired change of top-1
 * with its standard error: cases lost and gained, SE = √(lost + gained − (lost − gained)²/n)/n.
 */
function row(h, base) {
  const n = h.top1.length;
  const out = { top1: (100 * sum(h.top1)) / n, top5: (100 * sum(h.top5)) / n };
  if (base) {
    let lost = 0,
      gained = 0;
    h.top1.forEach((x, i) => {
      if (base.top1[i] && !x) lost++;
      if (!base.top1[i] && x) gained++;
    });
    out.lost = lost;
    out.gained = gained;
    out.change = (100 * (gained - lost)) / n;
    out.se = (100 * Math.sqrt(lost + gained - (lost - gained) ** 2 / n)) / n;
  }
  return out;
}

const MODES = ['zero', 'mean', 'uniform'];
const results = {};
const started = performance.now();
for (const [kind, file] of [
  ['encoder', 'encoder.bin'],
  ['decoder', 'model.bin'],
]) {
  const model = core.loadModel(new Uint8Array(await readFile(path.join(root, 'data', file))));
  try {
    const list = casesFor(model);
    const baseHits = hits(model, list, undefined);
    const rows = [{ what: 'as trained', ...row(baseHits) }];
    for (let l = 0; l < model.layers; l++)
      for (let h = 0; h < model.heads; h++) {
        const r = { what: `L${l + 1}H${h + 1}`, caption: model.captions[l]?.[h] ?? '' };
        for (const mode of MODES) r[mode] = row(hits(model, list, { heads: [[l, h]], mode }), baseHits);
        rows.push(r);
      }
    for (let l = 0; l < model.layers; l++)
      rows.push({ what: `layer ${l + 1}'s attention`, ...row(hits(model, list, { layers: [l] }), baseHits) });
    rows.push({ what: 'positions', ...row(hits(model, list, { positions: true }), baseHits) });
    // The decoder's one-piece words, where the first piece is the whole word: next-word accuracy as trained.
    const single = kind === 'decoder' ? list.map((c) => c.pieces === 1) : null;
    const onePiece = single && { cases: sum(single), top1: (100 * sum(baseHits.top1.filter((_, i) => single[i]))) / sum(single) };
    results[kind] = { cases: list.length, rows, ...(onePiece && { onePiece }) };
  } finally {
    model.delete();
  }
}
const seconds = (performance.now() - started) / 1000;

// The tables: one row per switch; a head's row has each mode's top-1 / top-5. The mode that costs the most
// top-1 is in bold when it costs at least a point and more than twice its paired standard error.
const pct = (x) => x.toFixed(1);
const cell = (r) => `${pct(r.top1)} / ${pct(r.top5)}`;
const out = [];
for (const [kind, r] of Object.entries(results)) {
  const base = r.rows[0];
  const task = kind === 'encoder' ? 'whole-word masked accuracy' : "the next word's first piece";
  out.push(
    `**${kind === 'encoder' ? 'Encoder' : 'Decoder'}** (\`data/${kind === 'encoder' ? 'encoder' : 'model'}.bin\`), ${task}, top-1 / top-5 %, ${r.cases} held-out cases:`,
    '',
  );
  out.push('| switched off | zero | mean | uniform | the head (its caption) |', '| --- | --- | --- | --- | --- |');
  out.push(`| nothing (as trained) | ${cell(base)} | | | |`);
  for (const x of r.rows.slice(1)) {
    if (x.zero) {
      const worst = MODES.reduce((a, m) => (x[m].top1 < x[a].top1 ? m : a));
      const shown = MODES.map((m) => (m === worst && -x[m].change >= 1 && -x[m].change > 2 * x[m].se ? `**${cell(x[m])}**` : cell(x[m])));
      out.push(`| ${x.what} | ${shown.join(' | ')} | ${x.caption} |`);
    } else out.push(`| ${x.what} | ${cell(x)} | | | |`);
  }
  out.push('');
}
console.log(out.join('\n'));
const ses = Object.values(results).flatMap((r) => r.rows.slice(1).flatMap((x) => (x.zero ? MODES.map((m) => x[m].se) : [x.se])));
const { onePiece } = results.decoder;
console.log(
  `(${seconds.toFixed(0)} s; seed ${SEED}; ${skipped} lines skipped because their text re-tokenises differently; ` +
    `paired SE of a top-1 change ${pct(Math.min(...ses))}–${pct(Math.max(...ses))} points; ` +
    `decoder on one-piece words, i.e. next-word top-1: ${pct(onePiece.top1)} % of ${onePiece.cases})`,
);
await mkdir(path.join(root, 'build', 'model'), { recursive: true });
await writeFile(
  path.join(root, 'build', 'model', 'switches.json'),
  JSON.stringify({ seed: SEED, cases: count, skipped, seconds, results }, null, 1) + '\n',
);

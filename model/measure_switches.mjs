// What each part of the trained models is worth, measured on held-out text through the wasm core (the
// attention_model_wasm module and the JS API the page calls: LanguageModel.fill and run with `off`):
// the encoder's whole-word masked accuracy (top-1, top-5) and the decoder's next-word accuracy (top-1,
// top-5) as trained, with each single head switched off in each mode (zero, mean, uniform), with each
// layer's attention off, and with the positional encoding off. Prints model/README.md's table (markdown)
// and writes every number to build/model/switches.json.
//
//   node model/measure_switches.mjs [cases per model, default 1000] [wasm dir, default build/wasm]
//
// Held-out text: the validation lines of build/vectors/corpus.txt (line i with i mod 20 = 19, as
// model/tinylm.py splits them; the file is rebuilt by tinylm.ensure_corpus() if missing), cut into pieces
// of at most 32 tokens (tinylm.chunks). A fixed seed picks the pieces and, in each, one word: the encoder
// hides it ([MASK]) and is asked for it; the decoder reads the words before it and is asked for the next.
// Words the model reads as <unk> are never targets (neither model may guess <unk>).
import { readFile, mkdir, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { mulberry32 } from '../web/lib/rng.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const perModel = Number(process.argv[2] ?? 1000);
const wasmDir = path.resolve(root, process.argv[3] ?? 'build/wasm');
const corpusFile = path.join(root, 'build', 'vectors', 'corpus.txt');
if (!existsSync(corpusFile)) {
  throw new Error(`${corpusFile} is missing: /usr/bin/python3 -c "import sys; sys.path.insert(0, 'model'); import tinylm; tinylm.ensure_corpus()"`);
}
const CONTEXT = 32;
const SEED = 20251125;

const { loadAttentionWithModel } = await import(pathToFileURL(path.join(wasmDir, 'attention.js')).href);
const core = await loadAttentionWithModel({ wasmBinary: await readFile(path.join(wasmDir, 'attention_model_wasm.wasm')) });

// A small seeded generator (mulberry32, the page's own): the same cases on every run and machine.
const random = mulberry32;

// The validation pieces as token lists.
const lines = (await readFile(corpusFile, 'utf8')).split('\n').slice(0, -1);
const pieces = [];
lines.forEach((line, i) => {
  if (i % 20 !== 19) return;
  const tokens = line.split(' ').filter(Boolean);
  for (let s = 0; s < tokens.length; s += CONTEXT) if (tokens.length - s >= 2) pieces.push(tokens.slice(s, s + CONTEXT));
});

/**
 * `count` cases for one model: a seeded piece and a seeded word of it, the piece's text re-tokenised by
 * the core to the same tokens (pieces whose text does not are skipped and counted), the target never
 * <unk>. Decoder: the text is the words before the target.
 */
function cases(model, count, seed) {
  const next = random(seed);
  const out = [];
  let skipped = 0;
  while (out.length < count) {
    const piece = pieces[Math.floor(next() * pieces.length)];
    const text = piece.join(' ');
    const tokens = core.tokenize(text);
    if (tokens.length !== piece.length || tokens.some((t, i) => t !== piece[i])) {
      skipped++;
      continue;
    }
    const position = model.kind === 'encoder' ? Math.floor(next() * piece.length) : 1 + Math.floor(next() * (piece.length - 1));
    // The id the model reads for the word: the decoder's run on the whole piece gives every token's.
    const id = model.run(text, { top: 0, keep: [] }).tokens[position].id;
    if (id === 0) continue;
    out.push({ text: model.kind === 'encoder' ? text : piece.slice(0, position).join(' '), position, id });
  }
  return { cases: out, skipped };
}

/** Top-1 and top-5 accuracy (%) of one model over its cases with `off` switched off. */
function accuracy(model, list, off) {
  let top1 = 0,
    top5 = 0;
  for (const c of list) {
    const guesses = model.kind === 'encoder' ? model.fill(c.text, c.position, { keep: [], off }).guesses : model.run(c.text, { keep: [], off }).predictions;
    if (guesses[0].id === c.id) top1++;
    if (guesses.some((g) => g.id === c.id)) top5++;
  }
  return { top1: (100 * top1) / list.length, top5: (100 * top5) / list.length };
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
    const { cases: list, skipped } = cases(model, perModel, SEED + (kind === 'decoder' ? 1 : 0));
    const rows = [{ what: 'as trained', ...accuracy(model, list, undefined) }];
    for (let l = 0; l < model.layers; l++)
      for (let h = 0; h < model.heads; h++) {
        const row = { what: `L${l + 1}H${h + 1}`, caption: model.captions[l]?.[h] ?? '' };
        for (const mode of MODES) row[mode] = accuracy(model, list, { heads: [[l, h]], mode });
        rows.push(row);
      }
    for (let l = 0; l < model.layers; l++) rows.push({ what: `layer ${l + 1}'s attention`, ...accuracy(model, list, { layers: [l] }) });
    rows.push({ what: 'positions', ...accuracy(model, list, { positions: true }) });
    results[kind] = { cases: list.length, skippedPieces: skipped, rows };
  } finally {
    model.delete();
  }
}
const seconds = (performance.now() - started) / 1000;

// The table: one row per switch; a head's row has each mode's top-1 / top-5.
const pct = (x) => x.toFixed(1);
const cell = (r) => `${pct(r.top1)} / ${pct(r.top5)}`;
const out = [];
for (const [kind, r] of Object.entries(results)) {
  const base = r.rows[0];
  const task = kind === 'encoder' ? 'masked word' : 'next word';
  out.push(`**${kind === 'encoder' ? 'Encoder' : 'Decoder'}** (\`data/${kind === 'encoder' ? 'encoder' : 'model'}.bin\`), ${task}, top-1 / top-5 %, ${r.cases} held-out cases:`, '');
  out.push('| switched off | zero | mean | uniform | the head (its caption) |', '| --- | --- | --- | --- | --- |');
  out.push(`| nothing (as trained) | ${cell(base)} | | | |`);
  for (const row of r.rows.slice(1)) {
    if (row.zero) {
      const worst = MODES.reduce((a, m) => (row[m].top1 < row[a].top1 ? m : a));
      const shown = MODES.map((m) => (m === worst && base.top1 - row[m].top1 >= 1 ? `**${cell(row[m])}**` : cell(row[m])));
      out.push(`| ${row.what} | ${shown.join(' | ')} | ${row.caption} |`);
    } else out.push(`| ${row.what} | ${cell(row)} | | | |`);
  }
  out.push('');
}
console.log(out.join('\n'));
console.log(`(${seconds.toFixed(0)} s; seed ${SEED}; ${results.encoder.skippedPieces + results.decoder.skippedPieces} pieces skipped because their text re-tokenises differently)`);
await mkdir(path.join(root, 'build', 'model'), { recursive: true });
await writeFile(path.join(root, 'build', 'model', 'switches.json'), JSON.stringify({ seed: SEED, seconds, results }, null, 1) + '\n');

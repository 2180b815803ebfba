// Whole-word masked accuracy of trained encoders on the same held-out cases, through the wasm core and the
// JS API the page calls (LanguageModel.fill): today's words encoder, a pieces encoder, and the unigram
// baseline (always guess the training text's five most frequent words). Prints model/README.md's table
// and writes every number to build/model/accuracy.json.
//
//   node model/measure_accuracy.mjs [--cases N] [--wasm build/wasm] ENCODER.bin [ENCODER.bin ...]
//
// Held-out text: build/corpus/heldout.txt (data/build_corpus.py; WordNet's lines i mod 20 = 19, which no
// committed model trained on, and GCIDE's held-out lines), its first 32 tokens so that a model with a
// context of 32 reads the same text. A fixed seed picks a line and one alphabetic word of it; every
// encoder hides that word and is asked for it. A guess counts when its text is exactly the word. A words
// model reads a word outside its vocabulary as <unk> and cannot guess it (counted as a miss; how often that
// happens is reported). A pieces model hides all the word's pieces and guesses whole words of as many
// pieces (model.hpp, fill_blank): it knows how many pieces the word has, as BERT's whole-word tests do.
import { readFile, mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { mulberry32 } from '../web/lib/rng.js';
import { parseArgs } from 'node:util';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const CONTEXT = 32;
export const SEED = 20261126;
const corpus = path.join(root, 'build', 'corpus');

const isWord = (token) => /^[a-z]+$/.test(token);

/**
 * The held-out cases, in order (the first n of a longer run are a shorter run's): a seeded line (its first
 * 32 tokens, re-tokenised to themselves by the core; others are skipped and counted) and one alphabetic
 * word of it: { text, position (the word's index), word, source ('wordnet' | 'gcide') }. Exported for
 * measure_switches.mjs, which scores the same cases with parts of the models switched off.
 */
export async function heldOutCases(core, count, seed = SEED) {
  const heldOut = (await readFile(path.join(corpus, 'heldout.txt'), 'utf8')).split('\n').filter(Boolean);
  // sources.txt: "heldout wordnet N gcide M": the held-out file holds WordNet's lines first.
  const sources = (await readFile(path.join(corpus, 'sources.txt'), 'utf8')).split('\n').find((l) => l.startsWith('heldout'));
  const wordnetLines = Number(sources.split(' ')[2]);
  // A small seeded generator (mulberry32, the page's own): the same cases on every run and machine.
  const next = mulberry32(seed);
  const cases = [];
  let skipped = 0;
  while (cases.length < count) {
    const index = Math.floor(next() * heldOut.length);
    const tokens = heldOut[index].split(' ').slice(0, CONTEXT);
    const text = tokens.join(' ');
    const again = core.tokenize(text);
    if (again.length !== tokens.length || again.some((t, i) => t !== tokens[i])) {
      skipped++;
      continue;
    }
    const words = tokens.map((t, i) => (isWord(t) ? i : -1)).filter((i) => i >= 0);
    if (!words.length) continue;
    const position = words[Math.floor(next() * words.length)];
    cases.push({ text, position, word: tokens[position], source: index < wordnetLines ? 'wordnet' : 'gcide' });
  }
  return { cases, skipped };
}

// Run as a script, not imported (measure_switches.mjs imports heldOutCases): the table.
if (import.meta.url === pathToFileURL(path.resolve(process.argv[1] ?? '')).href) {
  const { values: options, positionals: files } = parseArgs({
    allowPositionals: true,
    options: { cases: { type: 'string', default: '2000' }, wasm: { type: 'string', default: 'build/wasm' } },
  });
  await main(Number(options.cases), path.resolve(root, options.wasm), files);
}

async function main(CASES, wasmDir, files) {
  const { loadAttentionWithModel } = await import(pathToFileURL(path.join(wasmDir, 'attention.js')).href);
  const core = await loadAttentionWithModel({ wasmBinary: await readFile(path.join(wasmDir, 'attention_model_wasm.wasm')) });

  // The unigram baseline's five words: the most frequent alphabetic tokens of the training text.
  const counts = new Map();
  for (const line of (await readFile(path.join(corpus, 'train.txt'), 'utf8')).split('\n'))
    for (const token of line.split(' ')) if (isWord(token)) counts.set(token, (counts.get(token) ?? 0) + 1);
  const unigram = [...counts].sort((a, b) => b[1] - a[1]).slice(0, 5).map(([w]) => w);

  const { cases, skipped } = await heldOutCases(core, CASES);

  function score(guessesOf) {
    const rows = { all: { n: 0, top1: 0, top5: 0 }, wordnet: { n: 0, top1: 0, top5: 0 }, gcide: { n: 0, top1: 0, top5: 0 } };
    for (const c of cases) {
      const guesses = guessesOf(c);
      for (const row of [rows.all, rows[c.source]]) {
        row.n++;
        if (guesses[0] === c.word) row.top1++;
        if (guesses.slice(0, 5).includes(c.word)) row.top5++;
      }
    }
    for (const row of Object.values(rows)) {
      row.top1 = (100 * row.top1) / row.n;
      row.top5 = (100 * row.top5) / row.n;
    }
    return rows;
  }

  const results = [{ name: 'unigram baseline', detail: unigram.join(', '), ...score(() => unigram) }];
  const started = performance.now();
  for (const file of files) {
    const model = core.loadModel(new Uint8Array(await readFile(path.resolve(root, file))));
    try {
      if (model.kind !== 'encoder') throw new Error(`${file} is a ${model.kind}, not an encoder`);
      let unknown = 0,
        tooLong = 0;
      // By how many pieces the hidden word has (a words model: always 1): [cases, top-1 hits, top-5 hits].
      const byPieces = new Map();
      const rows = score((c) => {
        let filled;
        try {
          filled = model.fill(c.text, c.position, { top: 5, keep: [] });
        } catch (error) {
          if (!/context/.test(error.message)) throw error;
          tooLong++; // more pieces than the model's context: a miss
          return [];
        }
        if (model.vocabulary === 'words' && filled.tokens[c.position].lookup === 'unknown') unknown++;
        const words = filled.guesses.map((g) => g.word);
        const group = Math.min(filled.masked.length, 3);
        const counts = byPieces.get(group) ?? [0, 0, 0];
        byPieces.set(group, [counts[0] + 1, counts[1] + (words[0] === c.word), counts[2] + words.includes(c.word)]);
        return words;
      });
      if (model.vocabulary === 'pieces') {
        const split = [...byPieces]
          .sort((a, b) => a[0] - b[0])
          .map(([k, [n, t1, t5]]) => `${k === 3 ? '3+' : k} piece${k === 1 ? '' : 's'}: ${n} cases, ${((100 * t1) / n).toFixed(1)} / ${((100 * t5) / n).toFixed(1)}`);
        console.log(`${file}, by the hidden word's pieces: ${split.join('; ')}`);
      }
      const shape = `${model.layers}×${model.heads}×${model.dModel}, ${model.vocabulary} (${model.vocabularySize})`;
      results.push({ name: path.relative(root, path.resolve(root, file)), detail: `${shape}; ${unknown} hidden words read as <unk>, ${tooLong} lines longer than its context`, ...rows });
    } finally {
      model.delete();
    }
  }
  const seconds = (performance.now() - started) / 1000;

  const cell = (r) => `${r.top1.toFixed(1)} / ${r.top5.toFixed(1)}`;
  const n = results[0];
  console.log(`Whole-word masked accuracy, top-1 / top-5 %, ${CASES} held-out cases (WordNet ${n.wordnet.n}, GCIDE ${n.gcide.n}):\n`);
  console.log('| encoder | all | WordNet lines | GCIDE lines | notes |\n| --- | --- | --- | --- | --- |');
  for (const r of results) console.log(`| ${r.name} | ${cell(r.all)} | ${cell(r.wordnet)} | ${cell(r.gcide)} | ${r.detail} |`);
  console.log(`\n(${seconds.toFixed(0)} s; seed ${SEED}; ${skipped} lines skipped because their text re-tokenises differently)`);
  await mkdir(path.join(root, 'build', 'model'), { recursive: true });
  await writeFile(path.join(root, 'build', 'model', 'accuracy.json'), JSON.stringify({ seed: SEED, seconds, cases: CASES, results }, null, 1) + '\n');
}

// Pieces models through the wasm module under node (attention_model_wasm): the two tiny seeded fixtures of
// model/make_pieces_fixture.py (tests/reference/pieces_*.bin), loaded from their bytes, against their float64
// PyTorch cases (pieces_*_cases.txt) to 1e-4 as tests/core/test_model.cpp does: tokens with their labels and
// words, every head, the rollout, the whole-word guesses and the masked positions; the word-level merge
// (mergePieces against a merge by hand; wordLevel's maps, which wordMaps reads, against a float64 merge of
// PyTorch's maps); the new fields on words models; refusals; no leak.
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { assertNoLeak, load, root } from './load.mjs';
import { assertRunMatchesCase, fnv1a64, parseGolden, parseInterventionCases } from './model-cases.mjs';

const SENTENCE = 'the train left the station on time'; // 7 words, 13 pieces in the fixtures' vocabulary
const reference = (name) => path.join(root, 'tests', 'reference', name);
let api, core;
const bytes = {},
  golden = {};
before(async () => {
  ({ api, core } = await load({ larger: true }));
  // The seeded fixtures (model/make_pieces_fixture.py) and the shipped pieces models (the page's
  // data/model.bin and data/encoder.bin; cases by model/make_golden.py), each with its float64 cases.
  for (const [kind, file, cases] of [
    ['decoder', reference('pieces_decoder.bin'), 'pieces_decoder_cases.txt'],
    ['encoder', reference('pieces_encoder.bin'), 'pieces_encoder_cases.txt'],
    ['shipped decoder', path.join(root, 'data', 'model.bin'), 'model_cases.txt'],
    ['shipped encoder', path.join(root, 'data', 'encoder.bin'), 'encoder_cases.txt'],
  ]) {
    bytes[kind] = new Uint8Array(await readFile(file));
    golden[kind] = parseGolden(await readFile(reference(cases), 'utf8'));
  }
  bytes.words = new Uint8Array(await readFile(path.join(root, 'tests', 'reference', 'words_encoder.bin')));
});

/** A model from its bytes, deleted after fn. */
function withModel(modelBytes, fn) {
  const model = core.loadModel(modelBytes);
  try {
    return fn(model);
  } finally {
    model.delete();
  }
}

/** The rows × cols values of a {rows, cols, data} matrix as an array of rows. */
const rowsOf = (m) => Array.from({ length: m.rows }, (_, r) => Array.from(m.data.subarray(r * m.cols, (r + 1) * m.cols)));

/** The merge by hand, in float64: weight(word a → word b) = mean over a's tokens of the sum over b's tokens. */
function mergeByHand(m, wordOf) {
  const words = wordOf.at(-1) + 1;
  const out = Array.from({ length: words }, () => new Array(words).fill(0));
  const count = new Array(words).fill(0);
  for (const a of wordOf) count[a]++;
  for (let q = 0; q < m.rows; q++) for (let k = 0; k < m.cols; k++) out[wordOf[q]][wordOf[k]] += m.data[q * m.cols + k] / count[wordOf[q]];
  return out;
}

/** Every entry within `tolerance` of the expected rows; returns the largest difference. */
function assertClose(actual, expected, tolerance, what) {
  assert.equal(actual.length, expected.length, `${what}: rows`);
  let worst = 0;
  actual.forEach((row, r) => {
    assert.equal(row.length, expected[r].length, `${what}: row ${r}'s length`);
    row.forEach((v, c) => {
      assert.ok(Math.abs(v - expected[r][c]) <= tolerance, `${what}[${r}][${c}] = ${v}, expected ${expected[r][c]}`);
      worst = Math.max(worst, Math.abs(v - expected[r][c]));
    });
  });
  return worst;
}

/** The fixtures and the shipped models, each checked against its own cases. */
const CHECKED = ['decoder', 'encoder', 'shipped decoder', 'shipped encoder'];
const kindOf = (name) => name.replace('shipped ', '');

test('the cases were made from the committed fixtures and shipped models, which say they read pieces', () => {
  for (const kind of CHECKED) {
    assert.equal(bytes[kind].length, golden[kind].bytes, kind);
    assert.equal(
      fnv1a64(bytes[kind]),
      golden[kind].hash,
      `${kind}: regenerate with model/make_pieces_fixture.py (fixtures) or model/make_golden.py (shipped)`,
    );
    withModel(bytes[kind], (model) => {
      assert.equal(model.kind, kindOf(kind));
      assert.equal(model.vocabulary, 'pieces');
      assert.equal(model.maskToken, kindOf(kind) === 'encoder' ? '[MASK]' : undefined);
    });
  }
  withModel(bytes.words, (model) => assert.equal(model.vocabulary, 'words'));
});

test('tokens, labels, words, every head, the rollout and the guesses match PyTorch to 1e-4', () => {
  let worst = 0,
    blanks = 0;
  for (const kind of CHECKED) {
    withModel(bytes[kind], (model) => {
      for (const c of golden[kind].cases) {
        const where = `${kind} ${c.name}`;
        const filled = c.blank >= 0 ? model.fill(c.sentence, c.blank, { top: 5 }) : null;
        const run = filled ? filled.run : model.run(c.sentence, { top: 5 });
        // text is the BertViz label (sta / ##tion), matched the stored piece (▁sta), word the word's index.
        assert.deepEqual(filled ? filled.tokens : run.tokens, c.tokens, `${where} tokens`);
        worst = Math.max(worst, assertRunMatchesCase(model, run, c, where));
        if (c.blank === -1) {
          assert.equal(run.predictions.length, 0, 'run() on an encoder guesses nothing');
          continue;
        }
        const predictions = filled ? filled.guesses : run.predictions;
        const ids = c.m.top5_pieces ?? c.m.top5_ids; // a whole-word guess: one row of pieces per guess
        const logits = c.m.top5_logits.data;
        const logitScale = Math.max(1, ...Array.from(logits, Math.abs));
        assert.equal(predictions.length, 5, where);
        predictions.forEach((p, k) => {
          // top5_ids: one row of 5 next pieces; top5_pieces: a row of pieces per whole-word guess.
          const pieces = ids === c.m.top5_ids ? [ids.data[k]] : Array.from(ids.data.subarray(k * ids.cols, (k + 1) * ids.cols));
          assert.deepEqual(p.pieces, pieces, `${where} guess ${k}'s pieces`);
          assert.equal(p.id, p.pieces[0], `${where} guess ${k}'s id`);
          assert.equal(p.labels.length, p.pieces.length);
          if (filled) {
            assert.equal(p.word, c.guesses[k], `${where} guess ${k}`);
            // A whole word: a word-start piece, then continuation pieces, labelled the way tokens are.
            p.labels.forEach((label, i) => assert.equal(label.startsWith('##'), i > 0, `${where} guess ${k}: ${p.labels}`));
          }
          assert.ok(Math.abs(p.logit - logits[k]) / logitScale <= 1e-4, `${where} logit ${k}`);
          assert.ok(Math.abs(p.probability - c.m.top5_probabilities.data[k]) <= 1e-4, `${where} probability ${k}`);
        });
        if (!filled) continue;
        // The blank hides all of its word's pieces; the guesses are the masked run's predictions.
        blanks++;
        assert.equal(filled.position, c.blank);
        assert.deepEqual(filled.masked, Array.from(c.m.masked.data), `${where} masked`);
        assert.deepEqual(
          filled.masked,
          filled.tokens.flatMap((t, i) => (t.word === c.blank ? [i] : [])),
        );
        for (const t of filled.masked) assert.equal(run.tokens[t].text, '[MASK]');
        assert.deepEqual(filled.guesses, run.predictions);
      }
    });
  }
  assert.equal(blanks, 8, "four blanks in the fixture encoder's cases, four in the shipped one's");
  console.log(`# largest scaled difference from PyTorch (float64): ${worst.toExponential(2)}`);
});

test('a piece-level map merged to words by the core: by hand on a small case, rows still sum to 1', () => {
  withModel(bytes.encoder, (model) => {
    // Tokens 1 and 2 are one word: its row is the mean of theirs, its column the sum of theirs.
    const small = [
      [1, 0, 0],
      [0.2, 0.3, 0.5],
      [0.1, 0.6, 0.3],
    ];
    assertClose(
      rowsOf(model.mergePieces(small, [0, 1, 1])),
      [
        [1, 0],
        [0.15, 0.85],
      ],
      1e-7,
      'small',
    );

    const filled = model.fill(SENTENCE, 4, { wordLevel: true });
    const wordOf = filled.run.tokens.map((t) => t.word);
    const maps = model.wordMaps(filled);
    assert.equal(maps.words, 7);
    const all = [...maps.heads.flat(), maps.rollout];
    assert.equal(all.length, model.layers * model.heads + 1);
    for (const m of all) {
      assert.deepEqual([m.rows, m.cols], [7, 7]);
      for (const row of rowsOf(m)) assert.ok(Math.abs(row.reduce((a, b) => a + b, 0) - 1) <= 1e-5, `a row sums to ${row}`);
    }
    filled.run.layers.forEach((layer, l) =>
      layer.heads.forEach((head, h) => assertClose(rowsOf(maps.heads[l][h]), mergeByHand(head.weights, wordOf), 1e-6, `L${l}.H${h}`)),
    );
    assertClose(rowsOf(maps.rollout), mergeByHand(filled.run.rollout, wordOf), 1e-6, 'rollout');
    // A run (not a fill) works too; wordMaps and mergePieces need no live model.
    const run = model.run(SENTENCE, { wordLevel: true });
    model.delete();
    assert.equal(model.wordMaps(run).words, 7);
    assertClose(
      rowsOf(model.mergePieces(small, [0, 0, 1])),
      [
        [0.75, 0.25],
        [0.7, 0.3],
      ],
      1e-7,
      'after delete',
    );
  });
});

test('wordLevel: run and fill return every merged map in the same call, equal to mergePieces of their own maps', () => {
  for (const kind of ['encoder', 'decoder', 'words']) {
    withModel(bytes[kind], (model) => {
      const runs = [model.run(SENTENCE, { wordLevel: true })];
      if (model.kind === 'encoder') runs.push(model.fill(SENTENCE, 4, { wordLevel: true }).run);
      for (const run of runs) {
        const wordOf = run.tokens.map((t) => t.word);
        const maps = run.wordMaps;
        assert.equal(maps.words, 7, kind);
        // The words as the sentence's; a word the blank hides reads [MASK] once, however many pieces it has.
        assert.equal(maps.labels.length, 7, kind);
        SENTENCE.split(' ').forEach((word, w) => {
          const hidden = run.tokens.some((t) => t.word === w && t.text === '[MASK]');
          assert.equal(maps.labels[w], hidden ? '[MASK]' : word, `${kind} word ${w}`);
        });
        run.layers.forEach((layer, l) =>
          layer.heads.forEach((head, h) =>
            assertClose(rowsOf(maps.heads[l][h]), rowsOf(model.mergePieces(head.weights, wordOf)), 0, `${kind} L${l}.H${h}`),
          ),
        );
        assertClose(rowsOf(maps.rollout), rowsOf(model.mergePieces(run.rollout, wordOf)), 0, `${kind} rollout`);
      }
      // Without the option nothing more comes back.
      assert.equal(model.run(SENTENCE).wordMaps, undefined);
    });
  }
  withModel(bytes.encoder, (model) => {
    for (const bad of ['yes', 1, null]) assert.throws(() => model.run(SENTENCE, { wordLevel: bad }), api.AttentionError, String(bad));
  });
});

test('wordMaps reads the maps the run merged (wordLevel): a float64 merge of PyTorch’s maps to 1e-4 a piece', () => {
  let worst = 0;
  for (const kind of CHECKED) {
    withModel(bytes[kind], (model) => {
      for (const c of golden[kind].cases) {
        const where = `${kind} ${c.name}`;
        const result = c.blank >= 0 ? model.fill(c.sentence, c.blank, { wordLevel: true }) : model.run(c.sentence, { wordLevel: true });
        const run = result.run ?? result;
        const maps = model.wordMaps(result);
        assert.equal(maps, run.wordMaps, `${where}: the run's own maps, not merged again`);
        const wordOf = c.tokens.map((t) => t.word);
        assert.equal(maps.words, wordOf.at(-1) + 1, where);
        assert.equal(maps.labels.length, maps.words, where);
        // A word's row sums up to its pieces' errors (each within 1e-4 of PyTorch's): allow 1e-4 per piece.
        const tolerance = 1e-4 * Math.max(...maps.labels.map((_, w) => wordOf.filter((x) => x === w).length));
        run.layers.forEach((layer, l) =>
          layer.heads.forEach((_, h) => {
            const expected = mergeByHand(c.m[`L${l}.H${h}.weights`], wordOf);
            worst = Math.max(worst, assertClose(rowsOf(maps.heads[l][h]), expected, tolerance, `${where} L${l}.H${h}`));
          }),
        );
        worst = Math.max(worst, assertClose(rowsOf(maps.rollout), mergeByHand(c.m.rollout, wordOf), tolerance, `${where} rollout`));
      }
    });
  }
  console.log(`# largest difference of a merged map from PyTorch's, merged in float64: ${worst.toExponential(2)}`);
});

test('fit: a sentence over the context is cut at a whole word, its pieces all inside the context', () => {
  withModel(bytes.encoder, (model) => {
    assert.deepEqual(model.run(SENTENCE, { fit: true }).fitted, { text: SENTENCE, cut: null });
    // 'station' is two pieces: 20 of them are 40 pieces; the context (32) holds 16 words.
    const long = 'the ' + Array.from({ length: 20 }, () => 'station').join(' ');
    const run = model.run(long, { fit: true });
    const { text, cut } = run.fitted;
    assert.deepEqual(cut, { words: 16, pieces: 31, totalWords: 21, totalPieces: 41 });
    assert.equal(text, long.split(' ').slice(0, 16).join(' '));
    assert.equal(run.tokens.length, 31);
    assert.ok(run.tokens.length <= model.context);
    // The cut text reads as itself: no cut, the same tokens.
    assert.deepEqual(model.run(text, { fit: true }).fitted, { text, cut: null });
    // fill's blank is a word of the cut text; one past it moves to the last word.
    const filled = model.fill(long, 40, { fit: true });
    assert.equal(filled.position, 15);
    assert.deepEqual(filled.masked, [29, 30]);
    assert.deepEqual(filled.fitted.cut, cut);
    // A first word longer than the whole context has no whole word to cut at: refused by name, as without fit.
    assert.throws(
      () => model.run('a'.repeat(200), { fit: true }),
      (e) => e instanceof api.AttentionError && /\(1 words\) but the model's context holds 32 pieces/.test(e.message),
    );
  });
  withModel(bytes.words, (model) => {
    const long = Array.from({ length: model.context + 5 }, (_, i) => (i % 2 ? 'train' : 'the')).join(' ');
    const { fitted, tokens } = model.run(long, { fit: true });
    assert.deepEqual(fitted.cut, {
      words: model.context,
      pieces: model.context,
      totalWords: model.context + 5,
      totalPieces: model.context + 5,
    });
    assert.equal(tokens.length, model.context);
  });
});

test('words models: tokens are their own words, a blank masks its token, guesses are one id, maps are the run', () => {
  withModel(bytes.words, (model) => {
    const filled = model.fill(SENTENCE, 4, { wordLevel: true });
    filled.tokens.forEach((t, i) => assert.equal(t.word, i));
    assert.deepEqual(filled.masked, [4]);
    for (const p of filled.guesses) {
      assert.deepEqual(p.pieces, [p.id]);
      assert.deepEqual(p.labels, [p.word]);
    }
    const maps = model.wordMaps(filled);
    assert.equal(maps.words, 7);
    filled.run.layers.forEach((layer, l) =>
      layer.heads.forEach((head, h) => assertClose(rowsOf(maps.heads[l][h]), rowsOf(head.weights), 1e-7, `L${l}.H${h}`)),
    );
  });
});

test('refusals are AttentionErrors that say why', () => {
  const refused = (fn, pattern, what) =>
    assert.throws(fn, (e) => e instanceof api.AttentionError && pattern.test(e.message), `${what}: expected ${pattern}`);
  withModel(bytes.encoder, (model) => {
    // fill's position counts words, not pieces: 13 pieces, 7 words.
    for (const position of [7, 12, -1, 1e12])
      refused(() => model.fill(SENTENCE, position), /7 words, numbered 0 to 6/, `position ${position}`);
    const long = Array.from({ length: 20 }, () => 'station').join(' ');
    refused(() => model.fill(long, 0), /40 pieces \(20 words\) but the model's context holds 32 pieces/, 'over the context');
    refused(() => model.run(long), /context holds 32 pieces/, 'run over the context');
    refused(() => model.headEffects(SENTENCE, { position: 7 }), /7 words, numbered 0 to 6/, 'headEffects past the words');
    const square = [
      [0.5, 0.5],
      [0.5, 0.5],
    ];
    refused(() => model.mergePieces(square, [0, 1, 1]), /the map is 2 × 2 but there are 3 pieces/, 'wordOf longer than the map');
    refused(() => model.mergePieces([[1, 0, 0]], [0]), /the map is 1 × 3/, 'not square');
    refused(() => model.mergePieces(square, [1, 1]), /must belong to word 0/, 'words not from 0');
    refused(() => model.mergePieces(square, [0, 2]), /piece 1 belongs to word 2 after word 0/, 'a word skipped');
    refused(() => model.mergePieces(square, [0, -1]), /wordOf\[1\] must be a whole number/, 'negative');
    refused(() => model.mergePieces(square, [0, 0.5]), /wordOf\[1\] must be a whole number/, 'fraction');
    refused(() => model.mergePieces(square, 'ab'), /wordOf must be an array/, 'a string');
    refused(() => model.mergePieces(undefined, [0]), /weights is missing/, 'no map');
    refused(() => model.wordMaps(model.run(SENTENCE)), /made with \{ wordLevel: true \}/, 'a run without wordLevel');
    refused(() => model.wordMaps(model.fill(SENTENCE, 4)), /made with \{ wordLevel: true \}/, 'a fill without wordLevel');
    refused(() => model.wordMaps({}), /wordMaps needs/, 'not a run');
  });
  withModel(bytes.decoder, (model) => refused(() => model.fill(SENTENCE, 0), /needs an encoder/, 'decoder fill'));
});

test('pieces fills, merges and refusals leave the wasm heap where it was', () => {
  withModel(bytes.encoder, (model) => {
    const step = (i) => {
      try {
        if (i % 4 === 0) model.wordMaps(model.fill(SENTENCE, i % 7, { wordLevel: true }));
        else if (i % 4 === 1) model.fill(SENTENCE, 9);
        else if (i % 4 === 2) model.mergePieces([[1, 0]], [0]);
        else if (i % 8 === 3) model.run('station '.repeat(40));
        else model.fill('station '.repeat(40), 30, { wordLevel: true, fit: true });
      } catch (e) {
        if (!(e instanceof api.AttentionError)) throw e;
      }
    };
    assertNoLeak(core, step, 200);
  });
});

// ---- headEffects on pieces models: the hidden word's own pieces, ranked among canonical whole words ----
// (tests/reference/pieces_effects_cases.txt: model/make_pieces_fixture.py, PyTorch float64 with SentencePiece's
// canonical ranks; the same cases as tests/core/test_intervention.cpp.)
import * as nodeTest from 'node:test';

nodeTest.describe('headEffects on pieces models', () => {
  let effects;
  before(async () => {
    // make_intervention_golden.py's effects format, plus target_pieces, and each rank's exact flag.
    effects = parseInterventionCases(await readFile(reference('pieces_effects_cases.txt'), 'utf8'));
  });
  const relativeClose = (actual, expected, what) =>
    assert.ok(Math.abs(actual - expected) <= 1e-3 * Math.abs(expected), `${what}: ${actual}, expected ${expected}`);

  test('every case matches PyTorch: target pieces, probabilities to 1e-3, ranks and their exact flags', () => {
    for (const kind of ['decoder', 'encoder'])
      assert.equal(effects.sizes[kind], bytes[kind].length, `${kind}: regenerate with model/make_pieces_fixture.py`);
    assert.equal(effects.cases.length, 6);
    for (const c of effects.cases)
      withModel(bytes[c.model], (model) => {
        const what = `${c.model} ${c.name}`;
        const e = model.headEffects(c.sentence, { position: c.blank < 0 ? undefined : c.blank, mode: c.effects });
        assert.equal(e.target.id, c.m.target.data[0], what);
        assert.deepEqual(e.target.pieces, Array.from(c.m.target_pieces.data), `${what} pieces`);
        relativeClose(e.probability, c.m.base.data[0], `${what} base probability`);
        assert.equal(e.rank, c.m.base.data[1], `${what} base rank`);
        // Only a pieces encoder's ranks may be lower bounds: a decoder's result keeps its shape (no rankExact).
        const exact = (flag) => (c.model === 'encoder' ? flag === 1 : undefined);
        assert.equal(e.rankExact, exact(c.m.base.data[2]), `${what} base rank exact`);
        assert.equal(e.heads.length, c.m.heads.rows, what);
        e.heads.forEach((h, i) => {
          const row = c.m.heads.data.subarray(i * 6, i * 6 + 6);
          assert.deepEqual([h.layer, h.head], [row[0], row[1]], `${what} head ${i}`);
          relativeClose(h.probability, row[2], `${what} head ${i} probability`);
          assert.equal(h.rank, row[3], `${what} head ${i} rank`);
          assert.ok(Math.abs(h.drop - row[4]) <= 1e-6, `${what} head ${i} drop`);
          assert.equal(h.rankExact, exact(row[5]), `${what} head ${i} rank exact`);
        });
      });
  });

  test("the hidden word is the whole word, its rank its place among fill's guesses; past 200: 201, not exact", () => {
    withModel(bytes.encoder, (model) => {
      // "neood" in station's place: the same masked input, and the fixture's 2nd guess for it.
      const sentence = 'the train left the neood on time';
      const e = model.headEffects(sentence, { position: 4, mode: 'mean' });
      assert.equal(e.target.word, 'neood');
      assert.equal(e.target.pieces.length, 2);
      const placeIn = (guesses) => 1 + guesses.findIndex((g) => g.pieces.join() === e.target.pieces.join());
      const plain = model.fill(sentence, 4, { top: 300 }).guesses;
      assert.equal(e.rank, placeIn(plain));
      assert.equal(e.rank, 2);
      relativeClose(e.probability, plain[1].probability, 'base probability');
      for (const h of e.heads) {
        const off = model.fill(sentence, 4, { top: 300, off: { heads: [[h.layer, h.head]], mode: 'mean' } }).guesses;
        assert.equal(h.rank, placeIn(off), `head ${h.layer}.${h.head}`);
        assert.equal(h.rankExact, true);
      }
      // "station" itself: the random fixture ranks it below its 200th guess.
      const station = model.headEffects(SENTENCE, { position: 4 });
      assert.equal(station.target.word, 'station');
      assert.equal(station.rank, 201);
      assert.equal(station.rankExact, false);
      const first201 = model.fill(SENTENCE, 4, { top: 201 }).guesses;
      assert.equal(first201.length, 201);
      assert.ok(!first201.some((g) => g.pieces.join() === station.target.pieces.join()));
    });
    // A pieces decoder follows its top next piece.
    withModel(bytes.decoder, (model) => {
      const e = model.headEffects('the train left');
      assert.equal(e.target.id, model.run('the train left', { top: 1 }).predictions[0].id);
      assert.deepEqual(e.target.pieces, [e.target.id]);
      assert.equal(e.rank, 1);
      assert.equal('rankExact' in e, false);
    });
  });

  test('headEffects on a pieces encoder leaves the wasm heap where it was', () => {
    withModel(bytes.encoder, (model) => {
      const step = (i) => {
        try {
          model.headEffects(SENTENCE, { position: i % 9, mode: ['zero', 'mean', 'uniform'][i % 3] });
        } catch (e) {
          if (!(e instanceof api.AttentionError)) throw e;
        }
      };
      assertNoLeak(core, step, 30);
    });
  });
});

test('a pieces model’s nearest words are labelled as its tokens are: “river”, “##s”, never “▁river”', () => {
  withModel(bytes['shipped encoder'], (model) => {
    const run = model.run('the boat drifted to the bank of the river');
    const bank = run.tokens.findIndex((t) => t.text === 'bank');
    const row = run.input.data.subarray(bank * run.input.cols, (bank + 1) * run.input.cols);
    const near = model.nearest(row, 50, { exclude: [run.tokens[bank].id] });
    assert.equal(near.length, 50);
    for (const n of near) {
      assert.ok(!n.word.includes('▁'), n.word);
      // The label of the same id, as a run labels its tokens: a one-word text of that piece alone.
      const piece = model.run(n.word.startsWith('##') ? `x${n.word.slice(2)}` : n.word).tokens;
      if (!n.word.startsWith('##') && piece.length === 1) assert.equal(piece[0].text, n.word);
    }
  });
  // A words model's neighbours are its words, as before.
  withModel(bytes.words, (model) => {
    const run = model.run('the bank of the river');
    const near = model.nearest(run.input.data.subarray(run.input.cols, 2 * run.input.cols), 5, { exclude: [run.tokens[1].id] });
    assert.ok(near.every((n) => !n.word.startsWith('##')));
  });
});

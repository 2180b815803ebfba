// Types of the friendly JS API over the WebAssembly attention core (wasm/attention.js).

/** A row-major matrix: data[r * cols + c]. */
export interface Matrix {
  rows: number;
  cols: number;
  data: Float32Array;
}

/** Anything that can become a Matrix: a Matrix, or an array of equal-length rows. */
export type MatrixInput = Matrix | ArrayLike<number>[];

/** A score function's name (SCORES[i].name); 'scaled_dot' is the older spelling of 'scaled'. */
export type ScoreName = 'scaled' | 'dot' | 'cosine' | 'additive';
export type Score = ScoreName | 'scaled_dot';

/** One entry of SCORES: a value of the core's enum attn::Score, named once for the API and the page. */
export interface ScoreEntry {
  /** The word the API takes and the page's URL and menu use. */
  readonly name: ScoreName;
  /** The name of the core's enum value (attn::Score, bound as the module's Score). */
  readonly core: 'ScaledDot' | 'Dot' | 'Cosine' | 'Additive';
  /** Older spellings the API still accepts. */
  readonly aliases: readonly string[];
  /** Scores without learnt weights (the page's word-vector attention, q = k = x). */
  readonly parameterFree: boolean;
  /** An option it cannot go without ('additive': its W1, W2, v), or null. */
  readonly needs: 'additive' | null;
}

/** The score functions, in the page's menu order: scaled (q·k/√d_k, the default), dot, cosine, additive. */
export const SCORES: readonly ScoreEntry[];
/** The SCORES entry for a name or an alias ('scaled_dot'), or undefined. */
export function scoreEntry(name: string): ScoreEntry | undefined;

export interface AttentionOptions {
  /** How queries meet keys; default 'scaled' (parameterFree: 'dot' / constant by default, or 'cosine'). */
  score?: Score;
  /**
   * Which way the softmax normalises: 'rows' (default: each query's weights sum to 1) or 'columns'
   * (each key's weights over the queries sum to 1); the output is weights·V either way. attentionOutput
   * and attentionByColumns take 'rows' only.
   */
  axis?: 'rows' | 'columns';
  /** softmax(scores / temperature); default 1, must be > 0. */
  temperature?: number;
  /** Query i sees keys j <= i only. */
  causal?: boolean;
  /** One entry per token; true/1 = padding, never attended to. */
  keyPadding?: ArrayLike<number | boolean>;
  /** The hand-exercise shortcuts of the by-hand sheets: 3^x for e^x, floor(x/2) for ÷√d_k. */
  handShortcuts?: boolean;
  /** Weights of additive scoring vᵀ tanh(W1 q + W2 k): W1, W2 are d_a × d_k, v has d_a entries. */
  additive?: { W1: MatrixInput; W2: MatrixInput; v: ArrayLike<number> };
}

/** One step of a head's attention: a field of AttentionSteps. */
export type Step = 'Q' | 'K' | 'V' | 'scores' | 'scaled' | 'weights' | 'output';

/** The options of the calls that return steps: AttentionOptions, and which steps to return. */
export type StepOptions<K extends Step = Step> = AttentionOptions & {
  /**
   * Which steps of each head come back (each is copied out of the wasm heap): any subset of 'Q', 'K',
   * 'V', 'scores', 'scaled', 'weights', 'output'; the result has exactly those fields. Default: all
   * seven. At T = 1,024 each of scores, scaled and weights is 4 MB; ask for what you draw.
   */
  keep?: readonly K[];
};

export interface HeadWeights {
  Wq: MatrixInput;
  Wk: MatrixInput;
  Wv: MatrixInput;
  bq?: ArrayLike<number>;
  bk?: ArrayLike<number>;
  bv?: ArrayLike<number>;
}

/** Every intermediate of one head. Row convention: scores/scaled/weights are T×T, query rows, key columns. */
export interface AttentionSteps {
  Q: Matrix;
  K: Matrix;
  V: Matrix;
  scores: Matrix; // raw scores
  scaled: Matrix; // after ÷√d_k and ÷temperature; masked entries are -Infinity
  weights: Matrix; // softmax; rows sum to 1 (columns in the column convention)
  output: Matrix; // weights · V  (V · A in the column convention)
}

export interface MultiHeadResult<K extends Step = Step> {
  /** Each head's steps, only those in `keep` (all by default). */
  heads: Pick<AttentionSteps, K>[];
  concat: Matrix;
  output: Matrix;
}

export interface EmbeddedToken {
  text: string;
  /**
   * 'known': in the vocabulary; 'stemmed': an inflection stripped matched `matched`; 'composed': `matched`
   * (the token or a stem) is in the attached composed table (WordVectors.attachComposed); 'unknown': zero vector.
   */
  lookup: 'known' | 'stemmed' | 'composed' | 'unknown';
  matched: string;
  /**
   * For 'composed' only: fastText's character n-grams of `matched`, whose rows the vector averages (a
   * spelled word: its letters' one-character words, '<q>', '<t>').
   */
  pieces?: string[];
  /** For a word composed from the n-gram rows: the n-grams whose rows were trained (the others count as zeros). */
  found?: string[];
  /** For a word none of whose n-grams was trained: its vector is the mean of its letters' rows, not fastText's. */
  spelled?: true;
}

export interface Embedding {
  tokens: EmbeddedToken[];
  /** T × dim, one row per token. */
  X: Matrix;
}

/** A vocabulary word and its cosine similarity with a vector (nearest). */
export interface Neighbour {
  word: string;
  /** The word's row in the table (rows are ordered by corpus frequency, most frequent first). */
  id: number;
  /** Cosine similarity, in [-1, 1]; 0 for a word whose vector is zero. */
  similarity: number;
}

export interface WordVectors {
  readonly size: number;
  readonly dim: number;
  /**
   * Attaches vectors composed from character n-grams (data/vectors-composed.bin, or a file of its rows in
   * the same format) for words this table and its stems lack; returns this table. Throws AttentionError
   * for bytes that are not a vectors file or of another dimension.
   */
  attachComposed(bytes: Uint8Array | ArrayBuffer): WordVectors;
  /** Tokenise and embed; throws AttentionError for no tokens or more than maxTokens (default 256). */
  embed(text: string, maxTokens?: number): Embedding;
  /**
   * The k vocabulary words whose vectors are nearest to `vector` (dim values) by cosine similarity,
   * over the whole table, best first; equal similarities: the more frequent word first. Fewer than k
   * only when `exclude` (words, or ids as in Neighbour.id) leaves fewer. The first call builds the
   * index (a copy of the table's int8 values, ~1 MB). Throws AttentionError for a vector of the
   * wrong length, with NaN or ±Infinity, or all zeros (no direction); k < 1; an unknown word or id.
   */
  nearest(vector: ArrayLike<number>, k: number, options?: { exclude?: ReadonlyArray<string | number> }): Neighbour[];
  /** Frees the wasm-side table. Calling anything afterwards throws. */
  delete(): void;
}

/**
 * A token of the sentence: a word (words model) or one piece of a word (pieces model, `vocabulary:
 * 'pieces'`).
 */
export interface ModelToken {
  /** The token as tokenised (lower-cased); a piece: its label the BertViz way ('sta', '##tion'). */
  text: string;
  /** 'known': in the vocabulary; 'stemmed': an inflection stripped matched `matched`; 'unknown': <unk> (id 0). Pieces: always 'known'. */
  lookup: 'known' | 'stemmed' | 'unknown';
  /** The vocabulary entry read for it ('<unk>' when unknown; a piece as stored: '▁sta', 'tion'). */
  matched: string;
  id: number;
  /** The index (from 0) of the sentence's word it belongs to: a word's pieces share it; a words model's token is its own word. */
  word: number;
}

export interface ModelLayer<K extends Step = Step> {
  /**
   * What the heads read: LN1(x), the LayerNorm (norm1's gamma and beta) of the residual stream entering
   * the layer, T × d_model. Each head's Q = attentionInput · Wq + bq (likewise K, V; see attentionWeights).
   */
  attentionInput: Matrix;
  /**
   * Each head's steps on LN1(x) (pre-norm): weights are T×T; the decoder's are causal (zeros above the
   * diagonal), the encoder's are not. Only the steps in run's `keep` (all by default).
   */
  heads: Pick<AttentionSteps, K>[];
  /** The heads' outputs side by side, T × heads·d_v. */
  concat: Matrix;
  /** concat · Wo + bo (attentionWeights' Wo, bo), T × d_model: what the attention adds to the stream. */
  multiHeadOutput: Matrix;
  /** x + MHA(LN1(x)) = x + multiHeadOutput, T × d_model. */
  afterAttention: Matrix;
  /** The layer's output, x + FFN(LN2(x)), T × d_model. */
  output: Matrix;
}

/**
 * A word the model guesses, with its logit (LN_f(x_t)·E[id]) and probability. A pieces encoder's guess
 * for a blank is a whole word of as many pieces as the blank hides: `id` is its first piece's, `logit` the
 * sum of its pieces' log-probabilities (its rank) and `probability` their product, each piece at its own
 * masked position.
 */
export interface Prediction {
  /** The word (a pieces guess: its pieces' bytes joined; a pieces decoder's next piece: as stored). */
  word: string;
  id: number;
  logit: number;
  probability: number;
  /** The guess's vocabulary ids, one per masked position (a single-token guess: [id]). */
  pieces: number[];
  /** Their labels, as ModelToken.text labels tokens ('sta', '##tion'; a words model: the word). */
  labels: string[];
}

export interface ModelRun<K extends Step = Step> {
  tokens: ModelToken[];
  /** √d_model · E[ids] + sinusoidal positions, T × d_model. */
  input: Matrix;
  layers: ModelLayer<K>[];
  /** The final LayerNorm of the last layer's output, T × d_model. */
  finalNorm: Matrix;
  /** Attention rollout over all layers (Abnar & Zuidema 2020), T × T. */
  rollout: Matrix;
  /**
   * Decoder: the most probable next words after the last token. Encoder: none from run(); in fill()'s run,
   * the guesses for the blank. Best first; never '<unk>' or '[MASK]'. Each probability is the model's own,
   * a softmax over the whole vocabulary ('<unk>' and '[MASK]' included), so they may sum to less than 1.
   */
  predictions: Prediction[];
  /** captions[layer][head]: what the head does on held-out text, measured (model/README.md). */
  captions: string[][];
  /** With run's or fill's `wordLevel`: every head's map and the rollout merged to words, from the same call. */
  wordMaps?: WordMaps;
  /** With run's `fit`: the text the model read and, when it was cut, how. */
  fitted?: Fitted;
}

/**
 * What a run with `fit` read: `text`, the sentence itself or its first whole words the context holds
 * (joined by spaces: they tokenise back to themselves); `cut` null when nothing was cut, else the words
 * and tokens (pieces; a words model: its words) kept and the whole sentence's counts.
 */
export interface Fitted {
  text: string;
  cut: { words: number; pieces: number; totalWords: number; totalPieces: number } | null;
}

/** One head's learnt projections: Q = LN1(x)·Wq + bq, K = LN1(x)·Wk + bk, V = LN1(x)·Wv + bv. */
export interface ModelHeadWeights {
  /** d_model × d_k each. */
  Wq: Matrix;
  Wk: Matrix;
  Wv: Matrix;
  /** d_k entries each. */
  bq: Float32Array;
  bk: Float32Array;
  bv: Float32Array;
}

/** One layer's learnt attention weights: MultiHead = concat(head₁ … head_h)·Wo + bo. */
export interface ModelAttentionWeights {
  heads: ModelHeadWeights[];
  /** heads·d_k × d_model (64 × 64 for the committed model). */
  Wo: Matrix;
  /** d_model entries. */
  bo: Float32Array;
}

/**
 * How a switched-off head stops contributing. 'zero': it adds nothing (its d_k columns of the concatenated
 * heads are zeros before Wo; Wo's bias stays). 'mean': its output is its mean over the sentence's positions,
 * the same on every row. 'uniform': its weights are an even spread over the keys it may see (encoder: 1/T
 * over all; decoder: 1/(t+1) over 0..t), its output those weights·V.
 */
export type Ablation = 'zero' | 'mean' | 'uniform';

/**
 * Parts of the model to switch off for one run; absent or empty is the model as trained (the same
 * numbers). Layers and heads count from 0; one the model lacks throws an AttentionError naming it;
 * duplicates are harmless. In the run: a switched head's weights are the ones used (the even spread for
 * 'uniform'), its output the replaced one; a layer that is off keeps its heads' steps but its
 * multiHeadOutput is zeros and afterAttention its input; the rollout leaves 'zero' and 'mean' heads out
 * of their layer's average and treats a layer that is off (or has no head left) as the identity.
 */
export interface SwitchedOff {
  /** [layer, head] pairs, 0-based. */
  heads?: ReadonlyArray<readonly [number, number]>;
  /** How every listed head is switched off (default 'zero'). */
  mode?: Ablation;
  /** Layers (0-based) whose attention sublayer adds nothing (x + 0); their feed-forward still runs. */
  layers?: readonly number[];
  /** true: no positional encoding, input = √d_model·E[ids] (the model reads a bag of words). */
  positions?: boolean;
}

/** One head's effect in headEffects(): the target with this head also switched off. */
export interface HeadEffect {
  layer: number;
  head: number;
  probability: number;
  /** 1 = the top guess; over the whole vocabulary, '<unk>' and '[MASK]' not counted. */
  rank: number;
  /** A pieces encoder only: false when the rank is past the cap (200; rank is then 201) or a lower bound. */
  rankExact?: boolean;
  /** The base probability minus this one: positive when the head helped the target. */
  drop: number;
}

/** headEffects()'s result: the target word, its probability and rank with `off` alone, and every head. */
export interface HeadEffects {
  /** The word followed: a pieces encoder's hidden word (all its pieces), else one id ([id]). */
  target: { id: number; word: string; pieces: number[] };
  probability: number;
  rank: number;
  /** A pieces encoder only: false when the rank is past the cap (200; rank is then 201) or a lower bound. */
  rankExact?: boolean;
  /** Every head, layer-major (layer 0's heads first). */
  heads: HeadEffect[];
}

/** fill()'s result: the blank, its guesses, and the run that made them. */
export interface FilledBlank<K extends Step = Step> {
  /** The sentence's tokens as written (the hidden word included). */
  tokens: ModelToken[];
  /** The blank: the index of the word that was hidden (a words model: also its token's). */
  position: number;
  /** The token positions replaced by '[MASK]': all of the word's pieces (a words model: [position]). */
  masked: number[];
  /** The `top` most probable words for the blank, best first (= run.predictions). */
  guesses: Prediction[];
  /** The encoder on the masked sentence: run.tokens[t] is '[MASK]' for every t of masked; every layer, head and the rollout. */
  run: ModelRun<K>;
  /** With fill's `fit`: the text the model read and, when it was cut, how. */
  fitted?: Fitted;
}

/**
 * A word-level view of a run (run's or fill's `wordLevel`; LanguageModel.wordMaps reads it): every head's
 * weights and the rollout merged from tokens to words by the core.
 */
export interface WordMaps {
  /** How many words the sentence has: each map is words × words. */
  words: number;
  /** Each word as tokenised (a pieces model: its pieces' bytes joined; a word the blank hides: '[MASK]'). */
  labels: string[];
  /** heads[layer][head]: that head's weights, merged. */
  heads: Matrix[][];
  /** The rollout, merged. */
  rollout: Matrix;
}

/**
 * A tiny trained WordNet model on the wasm heap: the causal decoder (data/model.bin: each word sees only
 * the words before it; predicts the next word) or the bidirectional encoder (data/encoder.bin: each word
 * sees the whole sentence; fills in a blank). Either may read words or subword pieces (`vocabulary`).
 */
export interface LanguageModel {
  readonly kind: 'decoder' | 'encoder';
  /**
   * What a token is: 'words' (one token per word) or 'pieces' (a model file with a pieces vocabulary: one
   * token per SentencePiece piece, each with its word; a blank hides a whole word and guesses whole words).
   */
  readonly vocabulary: 'words' | 'pieces';
  /** The encoder's blank, '[MASK]'; undefined for the decoder. */
  readonly maskToken?: string;
  readonly vocabularySize: number;
  readonly dModel: number;
  readonly heads: number;
  readonly layers: number;
  readonly dFF: number;
  /** The most tokens a sentence may have; longer ones are refused with an AttentionError. */
  readonly context: number;
  readonly captions: string[][];
  /**
   * Tokenise, run every layer, roll out the attention; the decoder also predicts the `top` (default 5)
   * next words (the encoder predicts nothing here: see fill). `keep` picks the steps each head returns,
   * as in StepOptions (default: all seven). `off`: parts of the model to switch off (SwitchedOff).
   * `wordLevel`: the run also holds `wordMaps`, every head's map and the rollout merged to words as
   * mergePieces merges one (with the words' labels), in the same call; wordMaps() reads it. `fit`: a
   * sentence longer than the context is cut at a whole word (its first words whose tokens all fit) instead
   * of refused; `fitted` says so.
   */
  run<K extends Step = Step>(
    sentence: string,
    options?: { top?: number; keep?: readonly K[]; off?: SwitchedOff; wordLevel?: boolean; fit?: boolean },
  ): ModelRun<K>;
  /**
   * Encoder only: replace word `position` (0 … words − 1; a words model: its token; a pieces model: all of its
   * pieces, see `masked`) of the sentence by '[MASK]', run the encoder and return the `top` (default 5)
   * guesses for it with that run (a pieces model's: whole words). Throws an AttentionError for the decoder
   * ("needs an encoder"), a position outside the sentence (the message gives the range), or a sentence
   * the context cannot hold (unless `fit`). `off`: parts of the model to switch off (SwitchedOff).
   * `wordLevel`, `fit`: as for run, on the masked run (`fit` moves a blank past the cut text's words to its last).
   */
  fill<K extends Step = Step>(
    sentence: string,
    position: number,
    options?: { top?: number; keep?: readonly K[]; off?: SwitchedOff; wordLevel?: boolean; fit?: boolean },
  ): FilledBlank<K>;
  /**
   * Which heads matter for one guess, in one core call: the target's probability and rank with `off`
   * alone, then with each head in turn also switched off in `mode` (default 'zero'; a head already in
   * `off` takes `mode`). Encoder: `position` is the blank (required) and the target the hidden word as
   * the model reads it (if that is '<unk>', the unablated model's top guess). Decoder: `position` is
   * ignored and the target is the unablated model's top next word after the last token.
   */
  headEffects(sentence: string, options?: { position?: number; off?: SwitchedOff; mode?: Ablation }): HeadEffects;
  /**
   * Layer `layer`'s (0 … layers − 1) learnt attention weights, copied out (JS-owned). A layer that is not
   * a whole number in range throws an AttentionError naming the valid range.
   */
  attentionWeights(layer: number): ModelAttentionWeights;
  /**
   * The k vocabulary words whose embeddings (rows of E, also the tied output head) are nearest to `vector`
   * (dModel values: a row of a run's `input`, or of a layer's `output`) by cosine similarity, over the
   * whole vocabulary, best first; '<unk>' and '[MASK]' are never among them. A pieces model's `word` is the
   * piece labelled as its tokens are ("river" for "▁river", "##s" for "s"). `finalNorm`: read the vector
   * through the final LayerNorm first, as the output head reads the last layer. Throws AttentionError for
   * a vector of the wrong length, a NaN or ±Inf value, an all-zero vector, k < 1, or an unknown word in
   * `exclude`.
   */
  nearest(vector: ArrayLike<number>, k: number, options?: { exclude?: ReadonlyArray<string | number>; finalNorm?: boolean }): Neighbour[];
  /**
   * A token-level attention map (queries × keys, one row and column per token) as a word-level one, merged
   * by the core (attn::merge_pieces_to_words): weight(word a → word b) = the mean over a's pieces (as
   * queries) of the sum of their weights on b's pieces (as keys), so a word split into pieces reads as one
   * word and rows that sum to 1 still do. `wordOf[t]` is token t's word (ModelToken.word): it starts at 0
   * and rises by 0 or 1 from token to token. Throws AttentionError when the map is not square with one row
   * per entry of wordOf, or wordOf is not so. Works with the model deleted (it reads no weights).
   */
  mergePieces(weights: MatrixInput, wordOf: ArrayLike<number>): Matrix;
  /**
   * The `wordMaps` a run() or fill() result made with `wordLevel: true` carries (a fill's: its masked run's):
   * every head's weights and the rollout merged to words by the core in the run's own call, as mergePieces
   * (sum over a word's keys, mean over its queries), with the words' labels. A words model's maps are the
   * run's own. Reads only, so it works with the model deleted. Throws AttentionError for a result made
   * without wordLevel (run or fill again with it) or anything that is not a run() or fill() result.
   */
  wordMaps(result: ModelRun<any> | FilledBlank<any>): WordMaps;
  /** Frees the wasm-side model. Calling run or attentionWeights afterwards throws. */
  delete(): void;
}

/** Raised for every shape or value problem; message is the C++ core's (it names shapes and bad values). */
export class AttentionError extends Error {}

/** What selfAttention reads: a text embedded by word vectors (its first maxTokens tokens, default 256), or X itself. */
export type SentenceInput = { vectors: WordVectors; text: string; maxTokens?: number } | { X: MatrixInput };

/** selfAttention's options: AttentionOptions, the projections (none: parameter-free), and what to copy out. */
export type SelfAttentionOptions<K extends Step | 'X' = Step | 'X'> = AttentionOptions & {
  /** W_Q, W_K, W_V (+ biases), d_model × d_k; null or absent: parameter-free, Q = K = V = X. */
  weights?: HeadWeights | null;
  /** The steps to copy out, and 'X' for the input; default all of them. An array or a Set. */
  keep?: readonly K[] | ReadonlySet<K>;
};

/**
 * A sentence attended in one call (core.selfAttention). Its X and its head's Q, K, V and weights stay on
 * the wasm heap until delete(): input(), multiHead() and queryTerms() read them there.
 */
export interface SelfAttention<K extends Step | 'X' = Step | 'X'> {
  /** The embedded tokens (null for an X input). */
  tokens: EmbeddedToken[] | null;
  /** The text's token count (more than T when it was cut to maxTokens); T for an X input. */
  total: number;
  T: number;
  /** d_model, d_k (Q's width: d_model when parameter-free), d_v. */
  d: number;
  dk: number;
  dv: number;
  /** What the core divided the scores by before the temperature: √d_k for 'scaled' (√d_model parameter-free), else 1. */
  divisor: number;
  /** The kept steps only; weights is the softmax along the chosen axis. */
  steps: Pick<AttentionSteps, Extract<K, Step>>;
  /** The input, when kept. */
  X?: Matrix;
  /** X, copied out now when it was not kept. */
  input(): Matrix;
  /** core.multiHead over the held X (the weights go in, X does not). */
  multiHead<H extends Step = Step>(
    weights: { heads: HeadWeights[]; Wo: MatrixInput; bo?: ArrayLike<number> },
    options?: StepOptions<H>,
  ): MultiHeadResult<H>;
  /** core.queryTerms on this head's Q, K, V and weights, held on the heap. */
  queryTerms(query: number): { products: Matrix; weighted: Matrix };
  /** Frees the heap copy; the other methods then throw. */
  delete(): void;
}

export interface AttentionCore extends ExerciseApi {
  /**
   * One crossing per change: embeds the text (or takes X) and attends in one call, the divisor chosen by
   * the core (score_divisor), the softmax along options.axis; only the kept steps are copied out. The
   * result holds X on the wasm heap: call its delete().
   */
  selfAttention<K extends Step | 'X' = Step | 'X'>(input: SentenceInput, options?: SelfAttentionOptions<K>): SelfAttention<K>;
  softmax(logits: MatrixInput, options?: { axis?: 'rows' | 'columns'; temperature?: number }): Matrix;
  tokenize(text: string): string[];
  /**
   * The stems the core tries, in order, when a word is not in the vocabulary (common inflections
   * stripped: "stations" → "station"; "cities" → "city"; contractions: "you've" → "you"; "replied" →
   * "reply"; numbers: "95" → "90"; a hyphenated word's last part); at least 2 bytes each but numbers,
   * possibly none.
   */
  stemCandidates(word: string): string[];
  /** fastText's character n-grams of a word, 3 to 6 characters of "<word>" ("<mu", "<mur", …); none for "". */
  subwordPieces(word: string): string[];
  /**
   * Seed 000's equation I: softmax(X Xᵀ / constant) X. Q = K = V = X. score 'dot' (default) or
   * 'cosine' (softmax(cos(x_i, x_j) / constant) X). With `keep`, only those steps:
   * `parameterFree(X, c, { keep: ['weights'] })` returns `{ weights }`.
   */
  parameterFree<K extends Step = Step>(X: MatrixInput, constant: number, options?: StepOptions<K>): Pick<AttentionSteps, K>;
  /** Row convention (PyTorch): X is T × d_model, Q = X Wq + bq … (`keep`: as in parameterFree). */
  attention<K extends Step = Step>(X: MatrixInput, weights: HeadWeights, options?: StepOptions<K>): Pick<AttentionSteps, K>;
  /** Column convention (by hand): X is d_model × T, Q = Wq X, scores = Kᵀ Q, softmax down columns. */
  attentionByColumns<K extends Step = Step>(X: MatrixInput, weights: HeadWeights, options?: StepOptions<K>): Pick<AttentionSteps, K>;
  /** concat(head₁ … head_h)·Wo + bo; `keep` picks each head's steps, concat and output always come back. */
  multiHead<K extends Step = Step>(
    X: MatrixInput,
    weights: { heads: HeadWeights[]; Wo: MatrixInput; bo?: ArrayLike<number> },
    options?: StepOptions<K>,
  ): MultiHeadResult<K>;
  /** The terms behind query i's row: products row j = q_i∘k_j (sums to the dot score), weighted row j = α(i,j)·v_j (rows sum to output i). */
  queryTerms(steps: Pick<AttentionSteps, 'Q' | 'K' | 'V' | 'weights'>, query: number): { products: Matrix; weighted: Matrix };
  /** output = weights · V for weights of your own (T_q × T_k; e.g. softmax(scaled, { axis: 'columns' })) and values V (T_k × d_v). */
  weightedSum(weights: MatrixInput, V: MatrixInput): Matrix;
  /**
   * The by-hand softmax written out: powers = 3^logits entry by entry, sums = each row's (axis 'rows',
   * default) or each column's sum of powers; softmax with 3^x = powers / sums.
   */
  softmaxBase3Terms(logits: MatrixInput, options?: { axis?: 'rows' | 'columns' }): { powers: Matrix; sums: Float32Array };
  /**
   * Output only, softmax(score(Q, K) / temperature)·V, by the streaming (online) softmax: O(T·d) scratch
   * instead of the T×T weights, so T = 4096 fits. Q, K: T×d_k, V: T×d_v (given, no projections).
   * Dot, scaled dot (default) and cosine scores, temperature, causal and key padding. Equals
   * attention(...).output to 1e-5 × the largest |V| entry, at any score size: both paths sum each q·k in
   * double and round the scaled score to float32 once (the float32 floor), and differ only in the float
   * sums after (measured ≤ 5e-7 × max |V| up to T = 4,096 and scaled scores of 1,900).
   */
  attentionOutput(Q: MatrixInput, K: MatrixInput, V: MatrixInput, options?: AttentionOptions): Matrix;
  /** Parse the project's vectors file (data/vectors.bin). */
  loadVectors(bytes: Uint8Array | ArrayBuffer): WordVectors;
  /**
   * Parse a tiny trained model (data/model.bin, the decoder, or data/encoder.bin, the encoder; `kind`
   * says which; or any model file's bytes, e.g. a pieces model's: `vocabulary` says which kind of
   * tokens); throws AttentionError for bytes that are not one. Only in the module from
   * loadAttentionWithModel(); loadAttention()'s module throws.
   */
  loadModel(bytes: Uint8Array | ArrayBuffer): LanguageModel;
  /** The wasm memory, for leak tests: heap size, bytes in use by malloc, live Embind handles and objects (null where the build has no count). */
  memory(): { heapBytes: number; mallocBytes: number; emvalHandles: number | null; liveObjects: number | null };
}

export interface LoadOptions {
  /** The .wasm bytes (required under node; in browsers the file next to the glue is fetched). */
  wasmBinary?: ArrayBuffer | Uint8Array;
  /**
   * Where to find a file of the module when fetching (browser): attention_wasm.wasm, or for
   * loadAttentionWithModel attention_model_wasm.wasm and its glue attention_model_wasm.js. Default: beside
   * attention.js.
   */
  locateFile?: (path: string, scriptDirectory: string) => string;
  /**
   * loadAttention only: which build of the small module to fetch. Default: attention_wasm_relaxed.wasm
   * (relaxed-SIMD fused multiply-adds) where relaxedSimd() says this engine runs it, else
   * attention_wasm.wasm; a relaxed build that fails to fetch or compile gives way to attention_wasm.wasm.
   */
  wasmFile?: 'attention_wasm.wasm' | 'attention_wasm_relaxed.wasm';
  /** Emscripten's hook for instantiating the module yourself (e.g. from a module compiled earlier); return {}. */
  instantiateWasm?: (imports: WebAssembly.Imports, receive: (instance: WebAssembly.Instance, module: WebAssembly.Module) => void) => object;
}

/** The fixed-SIMD build of the small module, every WebAssembly SIMD engine runs it: 'attention_wasm.wasm'. */
export const FIXED_CORE: 'attention_wasm.wasm';
/** The relaxed-SIMD build (fused multiply-adds; Chromium 114+, Firefox 146+): 'attention_wasm_relaxed.wasm'. */
export const RELAXED_CORE: 'attention_wasm_relaxed.wasm';
/** Whether this engine validates relaxed SIMD (a 49-byte probe module). */
export function relaxedSimd(): boolean;
/** The small module's build to load here: RELAXED_CORE where relaxedSimd(), else FIXED_CORE (under node, read it for wasmBinary). */
export function coreFile(): 'attention_wasm.wasm' | 'attention_wasm_relaxed.wasm';
/**
 * Instantiates the small module once per call; share the result. Given wasmBinary (required under node)
 * or instantiateWasm it uses those; otherwise it fetches options.wasmFile, by default coreFile() with
 * attention_wasm.wasm as the fallback.
 */
export function loadAttention(options?: LoadOptions): Promise<AttentionCore>;
/**
 * The same API from the larger module that also holds the trained models (loadModel): it imports
 * attention_model_wasm.js beside this file, or where options.locateFile puts it; under node pass
 * wasmBinary = attention_model_wasm.wasm.
 */
export function loadAttentionWithModel(options?: LoadOptions): Promise<AttentionCore>;
/** Helper: build a Matrix from rows. */
export function matrix(rows: ArrayLike<number>[]): Matrix;
/** Helper: a Matrix as an array of plain-number rows. */
export function toRows(m: Matrix): number[][];

// ---- by-hand practice (core exercise.hpp) -------------------------------------------------------------
/** The by-hand sheet's steps, in the order they are worked. */
export type ExerciseStep = 'Q' | 'K' | 'V' | 'scores' | 'scaled' | 'powers' | 'sums' | 'A' | 'Z';
/** The sheets' shortcuts (floor(x/2) for ÷√3, 3^x for e^x) or the real maths (÷√3, e^x). */
export type ExerciseMath = 'shortcuts' | 'real';
/** What a learner is given: X (6 features × 4 tokens) and W_Q, W_K, W_V (3 × 6). */
export interface ExerciseGivens {
  X: MatrixInput;
  Wq: MatrixInput;
  Wk: MatrixInput;
  Wv: MatrixInput;
}
/** A drawn exercise: its givens, seed, how many draws met the bounds, and a four-letter code of the givens. */
export interface Exercise {
  X: Matrix;
  Wq: Matrix;
  Wk: Matrix;
  Wv: Matrix;
  seed: number;
  draws: number;
  code: string;
}
/** One cell of one step (0-based). */
export interface ExerciseCell {
  step: ExerciseStep;
  row: number;
  col: number;
}
/** A learner's entry: a number, or the text typed (read by the core: "3", ".75", "−1", "27/39"). */
export interface ExerciseEntry extends ExerciseCell {
  value: number | string;
}
/** The check of one cell. */
export interface ExerciseCheck {
  /** right; wrong; or right from the learner's own upstream entries, some of which (upstreamOff) are off. */
  verdict: 'right' | 'wrong' | 'right-from-yours';
  /** The key's value. */
  expected: number;
  /** What follows from the learner's own upstream entries (the key's where they gave none). */
  expectedFromYours: number;
  /** How far from expected still counts as right: 0 for whole-number steps, else max(0.01, 1 % of the value). */
  tolerance: number;
  /** The cell as the hint names it, e.g. "K₂₃". */
  cellName: string;
  /** Where its value comes from, e.g. "row 2 of W_Q · column 3 of X". */
  source: string;
  /** One sentence for the learner (the source; for right-from-yours, the upstream cells that are off). */
  hint: string;
  /** The learner's upstream entries that are off. */
  upstreamOff: ExerciseCell[];
}
/** Every step's matrix of an exercise's answer (sums is 1 × 4). */
export type ExerciseAnswer = Record<ExerciseStep, Matrix>;
/**
 * By-hand practice: seeded exercises, their answers and the check of a learner's cells. Only in the module
 * of loadAttentionWithModel(); loadAttention()'s module (the widget's) throws AttentionError.
 */
export interface ExerciseApi {
  /** The exercise of a seed (0 … 2³²−1): the same numbers in node and the browser. */
  exercise(seed: number): Exercise;
  /** Four letters naming the givens, to match a printed sheet to its key. */
  exerciseCode(givens: ExerciseGivens): string;
  /** Every intermediate, with the shortcuts (default) or the real maths. */
  exerciseAnswer(givens: ExerciseGivens, options?: { math?: ExerciseMath }): ExerciseAnswer;
  /** The steps in order, with their names as the sheet writes them and their sizes. */
  exerciseSteps(options?: { math?: ExerciseMath }): { step: ExerciseStep; name: string; rows: number; cols: number }[];
  /** A typed entry's value ("27/39", ".75", "−1"); throws AttentionError for other text. */
  parseExerciseEntry(text: string): number;
  /** Checks `value` in `cell` against the key and against the learner's own earlier `entries`. */
  checkExerciseCell(
    givens: ExerciseGivens,
    cell: ExerciseCell,
    value: number | string,
    options?: { math?: ExerciseMath; entries?: ExerciseEntry[] },
  ): ExerciseCheck;
  /** Where the shortcuts' A and Z differ most from the real maths'. */
  exerciseShortcutGap(givens: ExerciseGivens): { aGap: number; aCell: ExerciseCell; zGap: number; zCell: ExerciseCell };
}

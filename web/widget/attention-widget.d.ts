// Types of the <attention-figure> widget (attention-widget.js). The compute module's types are in
// ./attention.d.ts (import from "<package>/core").
import type { AttentionCore, LanguageModel, Matrix, WordVectors } from './attention.js';

/** 'model': every layer × head of a trained model (only with source 'encoder' or 'decoder'). */
export type View = 'heatmap' | 'lines' | 'steps' | 'heads' | 'model' | 'compare';
/**
 * 'vectors': parameter-free attention over word vectors (default); 'encoder': the trained encoder
 * (encoder.bin: every word sees the whole sentence; fills in a hidden word); 'decoder': the trained
 * decoder (model.bin: a word sees only the words before it; predicts the next word). 'model', the
 * decoder's earlier name, is read as 'decoder'.
 */
export type Source = 'vectors' | 'encoder' | 'decoder';
export type Mask = 'none' | 'causal';
export type Theme = 'auto' | 'light' | 'dark';
export type Control =
  'sentence' | 'source' | 'view' | 'heads' | 'mask' | 'word' | 'temperature' | 'options' | 'share' | 'export' | 'import';

/** What a figure shows; the same names are its attributes and the full page's URL parameters. */
export interface FigureState {
  /** Any text; the figure draws its first 1,024 tokens (and says so when there are more). */
  sentence: string;
  /**
   * What computes the attention. 'encoder' and 'decoder' fetch their trained model (encoder.bin or
   * model.bin, each under 1 MB, and the models' wasm module) once per page, on first use; each reads at
   * most its context of tokens (longer text is cut, with a note) and has no score, temperature, mask,
   * column-softmax or heads setting (their controls are hidden while it is shown).
   */
  source: Source;
  view: View;
  /** Number of heads in the "heads" view, 1–8 (random heads: W_Q, W_K at 3× the Xavier scale). */
  heads: number;
  /** Divides the scores before the softmax, 0.1–3. */
  temperature: number;
  mask: Mask;
  /** The selected (query) word, 0-based, or null. */
  word: number | null;
  /**
   * Which layer (0-based) and head the heatmap, lines and steps views show: of the trained model
   * (layer 'rollout': the attention rollout over all layers, Abnar & Zuidema 2020; the heads view
   * then shows every layer's heads) or of imported attention.
   */
  layer: number | 'rollout';
  head: number;
  /**
   * With source 'encoder': the hidden word (0-based), or null. The encoder reads '[MASK]' there, the
   * figure draws that run's attention and lists its top-5 guesses for the word.
   */
  blank: number | null;
  /** Seed of the heads view's Xavier-random projection weights. */
  seed: number;
  /**
   * How a query meets a key: 'scaled' (q·k/√d, default), 'dot' (q·k) or 'cosine' (q·k/(|q||k|)).
   * (The attribute scale="none" of earlier versions still means 'dot'.)
   */
  score: 'scaled' | 'dot' | 'cosine';
  /** The softmax: along each row ('rows', default) or down each column ('columns'); every view follows. */
  norm: 'rows' | 'columns';
  /**
   * 'apart' (default): each word's weight on itself is drawn hatched and left out of the colour scale
   * (and its line is dashed), so the links between different words carry the colours; 'scale': like any other.
   */
  diagonal: 'apart' | 'scale';
  /** What the rows are: 'sentence' (its word vectors) or 'seed003' (the 3 × 4 worked example of seed 003). */
  input: 'sentence' | 'seed003';
  /** The single head's W_Q, W_K, W_V: 'free' (none: Q = K = V = X), 'identity', 'random', 'seed' (seed 003's), 'edited'. */
  weights: 'free' | 'identity' | 'random' | 'seed' | 'edited';
  /** Their width d_k (identity and random), 1–16. */
  dk: number;
  /** Add biases b_Q, b_K, b_V (edited weights). */
  bias: boolean;
  /** The page's walkthrough shows whole matrices. */
  full: boolean;
  /** The page's guided tour: its stop (0-based), or null. */
  tour: number | null;
  /**
   * A trained model's parts switched off (1-based, comma-separated): 'L.H' a head, 'L' a whole layer's
   * attention, 'positions' the positional encoding; '' for none. Attribute and URL parameter: off="1.2,1.3".
   */
  off: string;
  /**
   * How a switched-off head is replaced: 'zero' (it adds nothing), 'mean' (its output averaged over the
   * sentence's positions) or 'uniform' (it attends evenly). Attribute and URL parameter: off-mode="mean".
   */
  offMode: 'zero' | 'mean' | 'uniform';
  /**
   * A pieces model's maps (a model whose vocabulary is SentencePiece pieces): 'pieces', a row and column
   * per piece labelled the BertViz way ('sta', '##tion'), or 'words', every map merged to words by the core
   * (a word's weight on another: the sum over that word's pieces, averaged over its own pieces). The steps
   * stay on pieces. A words model ignores it. Attribute and URL parameter: units="words".
   */
  units: 'pieces' | 'words';
}

/** Attention weights from a model, as Hugging Face transformers returns them (output_attentions=True). */
export interface ImportedAttention {
  tokens: string[];
  /** layers × heads × T × T (also accepted: layers × 1 × heads × T × T, heads × T × T, T × T). */
  attentions: number[][][][] | number[][][][][] | number[][][] | number[][];
}

/** What exportJSON returns (importAttention accepts it back). */
export interface ExportedAttention {
  tokens: string[];
  attentions: number[][][][];
  source: string;
  settings?: Partial<FigureState>;
  steps?: { scores: number[][]; scaled: (number | null)[][]; output: number[][] };
  /** With source 'model': the rollout (T × T), the top-5 next words, and each head's caption. */
  rollout?: number[][];
  predictions?: { word: string; probability: number }[];
  captions?: string[][];
  /** What the SVG and PNG exports say too: a title, the text drawn, and a caption naming the source (layer and head) and the settings. */
  title: string;
  sentence: string;
  caption: string;
}

export interface AttentionChangeEvent extends CustomEvent<FigureState> {}

/**
 * What a heatmap's cells canvas (canvas.cells inside the shadow root) drew, on the canvas element as
 * `attentionWeights`: the window of the T×T matrix shown (all of it when it fits), row-major, and
 * how it was painted — cell (rowStart + r, colStart + c) is viridis(data[r * cols + c] / max).
 */
export interface DrawnWeights {
  T: number;
  rowStart: number;
  colStart: number;
  rows: number;
  cols: number;
  data: Float32Array;
  max: number;
  /** The diagonal drawn apart (hatched, in the panel colour, outside the scale); hideDiagonal is the same flag's older name. */
  diagonalApart: boolean;
  hideDiagonal: boolean;
  /** Cell side in CSS px; ratio: device px per CSS px; gap: device px between cells. */
  cell: number;
  ratio: number;
  gap: number;
}

/**
 * <attention-figure sentence="…" source="vectors|model" view="heatmap|lines|steps|heads" heads="4"
 *   score="scaled|dot|cosine" temperature="1" mask="none|causal" norm="rows|columns" diagonal="apart|scale"
 *   word="2" layer="0|1|rollout" head="0"
 *   controls="sentence view temperature" theme="auto|light|dark"
 *   src="attention.json" page="https://…/index.html"></attention-figure>
 * Fires "attention-change" (detail: FigureState) when the reader changes something.
 */
export class AttentionFigureElement extends HTMLElement {
  static readonly observedAttributes: string[];
  /** The current state (a copy). */
  readonly state: FigureState;
  /** Checks and draws a model's attention; false (and a message in the figure) if it is malformed. */
  importAttention(json: string | ImportedAttention | number[][][][], tokens?: string[]): boolean;
  /** Back to the word-vector figure. */
  clearImport(): void;
  /** The drawn figure as standalone SVG text, with a title, the sentence and a caption (role="img", <title>, <desc>). */
  exportSVG(): string;
  /** The same as a PNG (scale × CSS pixels, default twice the device pixel ratio). */
  exportPNG(scale?: number): Promise<Blob>;
  /** The numbers of the figure, Hugging Face-shaped. */
  exportJSON(): ExportedAttention;
  /** URL of the full page reproducing this state (embed: true for the iframe form). */
  shareURL(options?: { embed?: boolean }): string;
  /** An <iframe> snippet reproducing this state (with its controls), as tall as its view needs. */
  embedSnippet(): string;
}

export const DEFAULT_CONTROLS: Control[];

/**
 * Where every file the widget fetches is found: both wasm modules (attention_wasm.wasm, and the trained
 * models' attention_model_wasm.js and .wasm), vectors-first.bin, vectors.bin, model.bin, encoder.bin and
 * the compare view's module. Default: the folder of attention-widget.js. Call it before the first figure
 * or load: what has loaded stays loaded.
 */
export function setAssetBase(url: string | URL): void;
/** The wasm core every widget on the page shares (instantiated on first call). */
export function loadCore(): Promise<AttentionCore>;
/** The word vectors every widget shares (fetched on first call, from vectors.bin beside the script). */
export function loadVectors(): Promise<WordVectors>;
/** What loadModel and loadEncoder resolve to: the larger module's API, the model, how long each part took (ms). */
export interface LoadedModel {
  core: AttentionCore;
  model: LanguageModel;
  bytes: number;
  timing: { module: number; fetch: number; parse: number; total: number };
}
/**
 * The trained decoder every widget shares (fetched on first call: attention_model_wasm.js/.wasm and
 * model.bin beside the script); model.kind is 'decoder'.
 */
export function loadModel(): Promise<LoadedModel>;
/**
 * The trained encoder every widget shares (encoder.bin, through the same module instance as
 * loadModel); model.kind is 'encoder' and model.fill(sentence, position) guesses a blanked word.
 */
export function loadEncoder(): Promise<LoadedModel>;

export class ImportError extends Error {}
/** Validates imported attention; throws ImportError naming the first problem. */
export function parseAttention(
  json: string | object,
  tokens?: string[],
): {
  tokens: { text: string; lookup: 'known'; matched: string }[];
  attentions: Matrix[][];
  layers: number;
  heads: number;
};

declare global {
  interface HTMLElementTagNameMap {
    'attention-figure': AttentionFigureElement;
  }
  interface HTMLElementEventMap {
    'attention-change': AttentionChangeEvent;
  }
}

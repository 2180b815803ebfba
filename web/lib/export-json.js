// The JSON export's numbers: what a figure draws as Hugging Face-shaped data (tokens + attentions,
// layers × heads × T × T), so the file imports back (importer.js), plus how the numbers were made.
import { describeOff } from './switches.js';
/** How a pieces model's maps become words (units=words), in the figure's words. */
export const WORD_RULE = 'word-level: a word’s weight on another is the sum over that word’s pieces, averaged over its own pieces';
/** A matrix as rows of plain numbers. */
export const matrixRows = (m) => {
  const out = [];
  for (let r = 0; r < m.rows; r++) out.push(Array.from(m.data.subarray(r * m.cols, (r + 1) * m.cols)));
  return out;
};

/**
 * The numbers of a figure as Hugging Face-shaped JSON: tokens + attentions (layers × heads × T × T)
 * + how they were made: the drawn head's weights (a column softmax's), a trained model's every head
 * and rollout, or an import's heads. A view adds what it draws beyond that (its registry entry's json).
 */
export function toJSON(result, state) {
  const tokens = result.tokens.map((t) => t.text);
  if (result.kind === 'imported') {
    const heads = result.heads().maps;
    return {
      tokens,
      attentions: [heads.map((m) => matrixRows(m.weights))],
      source: 'imported',
      layer: result.imported.layer,
      heads: result.imported.heads,
    };
  }
  if (result.kind === 'model') {
    // Every head of every layer (Hugging Face's shape, so the file imports back), plus the rollout and
    // the next-word guesses the model made for this text.
    const { run } = result.model;
    return {
      tokens,
      attentions: run.layers.map((layer) => layer.heads.map((head) => matrixRows(head.weights))),
      rollout: matrixRows(run.rollout),
      predictions: (result.model.blank?.guesses ?? run.predictions).map(({ word, probability }) => ({ word, probability })),
      ...(result.model.blank ? { blank: { position: result.model.blank.position, word: result.model.blank.word } } : {}),
      captions: run.captions,
      source:
        `${result.model.kind === 'encoder' ? 'trained bidirectional transformer encoder, masked-word objective (data/encoder.bin)' : 'trained causal transformer language model (data/model.bin)'}: ` +
        `${result.model.layers} layers × ${result.model.heads} heads, ` +
        `d_k = ${result.projection.dk}, context ${result.model.context}${result.vocabulary === 'pieces' ? ' pieces' : ''}; rollout after Abnar & Zuidema (2020), residual counted as 0.5·I` +
        (result.units === 'words' ? `; ${WORD_RULE}` : '') +
        (result.model.off
          ? `; ${describeOff(result.model.off)} switched off${result.model.off.heads.length ? ` (${result.model.offMode})` : ''}`
          : ''),
      settings: {
        sentence: state.sentence,
        source: state.source,
        layer: state.layer,
        head: state.head,
        blank: state.blank,
        ...(state.off ? { off: state.off, offMode: state.offMode } : {}),
        ...(result.vocabulary === 'pieces' ? { units: state.units } : {}),
      },
    };
  }
  const settings = {
    sentence: state.sentence,
    input: state.input,
    score: state.score,
    temperature: state.temperature,
    mask: state.mask,
    norm: state.norm,
    weights: state.weights,
  };
  const how =
    result.projection.mode === 'free'
      ? `parameter-free attention over ${result.d}-d ${result.kind === 'seed003' ? 'inputs' : 'word vectors'}`
      : `attention with ${result.projection.mode} W_Q, W_K, W_V (d_k = ${result.projection.dk})`;
  const out = {
    tokens,
    attentions: [[matrixRows(result.weights)]],
    source: `${how}: softmax${result.norm === 'columns' ? ' down each column' : ''}(${result.score} scores${result.scaleDivisor !== 1 ? ` / ${result.divisor}` : ''} / temperature)`,
    settings,
  };
  return out;
}

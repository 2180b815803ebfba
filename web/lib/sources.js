// Where a figure's numbers come from, as state values: the word vectors or a trained model, and the
// layer value that stands for the rollout. A leaf module (no imports), so the views, the computation
// and the state can all read it without importing one another.
export const SOURCES = ['vectors', 'encoder', 'decoder'];
export const SOURCE_NAMES = {
  vectors: 'word vectors',
  encoder: 'trained encoder (sees both sides)',
  decoder: 'trained decoder (sees only the past)',
};
/** A trained model's source (encoder or decoder), as opposed to the word vectors. */
export const isTrained = (source) => source === 'encoder' || source === 'decoder';
/** The layer value that stands for the attention rollout over all of the model's layers. */
export const ROLLOUT = 'rollout';

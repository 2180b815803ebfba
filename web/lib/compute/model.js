// The trained model's result (its run of the sentence, or of the sentence with a word hidden) and
// imported attention's. Part of the one computation (../compute.js).
import { ROLLOUT } from '../sources.js';
import { finish, termsOf } from './parts.js';

// ---- the trained model -------------------------------------------------------------------------------
/**
 * What the model reads of the sentence: { text: the sentence, or its first `context` tokens when it
 * cannot read it all (they tokenise back to themselves), T: its token count, total: the sentence's
 * token count when cut, else null }.
 */
function fitted(sentence, core, model) {
  const tokens = core.tokenize(sentence);
  if (tokens.length <= model.context) return { text: sentence, T: tokens.length, total: null };
  return { text: tokens.slice(0, model.context).join(' '), T: model.context, total: tokens.length };
}

export function modelResult(state, { core, model }, key) {
  const encoder = model.kind === 'encoder';
  let run,
    blank = null;
  const { text, T, total } = fitted(state.sentence, core, model);
  if (encoder && state.blank !== null) {
    // Fill the blank: the word at state.blank becomes [MASK]; that run's attention is what is drawn.
    const position = Math.min(state.blank, T - 1);
    const filled = model.fill(text, position, { top: 5 });
    run = filled.run;
    blank = { position, word: filled.tokens[position].text, guesses: filled.guesses };
  } else run = model.run(text);
  const L = run.layers.length,
    H = run.layers[0].heads.length;
  const rollout = state.layer === ROLLOUT;
  // The rollout has no queries or keys of its own: the single-head views show the last layer's head.
  const layer = rollout ? L - 1 : Math.min(state.layer, L - 1);
  const head = Math.min(state.head, H - 1);
  const steps = run.layers[layer].heads[head];
  const learnt = new Map();
  const weightsOf = (l) => (learnt.has(l) ? learnt.get(l) : learnt.set(l, model.attentionWeights(l)).get(l));
  const result = {
    key,
    kind: 'model',
    tokens: run.tokens,
    total,
    cap: model.context,
    X: layer === 0 ? run.input : run.layers[layer - 1].output,
    d: model.dModel,
    projection: { mode: 'learnt', W: null, dk: steps.Q.cols, dv: steps.V.cols },
    steps,
    weights: steps.weights,
    output: steps.output,
    shown: rollout ? run.rollout : steps.weights,
    score: 'scaled',
    norm: 'rows',
    divisor: `√${steps.Q.cols}`,
    scaleDivisor: Math.sqrt(steps.Q.cols),
    temperature: 1,
    causal: !encoder,
    model: {
      run,
      kind: model.kind,
      blank,
      layer,
      head,
      rollout,
      layers: L,
      heads: H,
      context: model.context,
      info: model,
      learnt: weightsOf,
    },
  };
  result.terms = termsOf(core, result);
  result.heads = () => {
    const layers = rollout ? run.layers.map((_, l) => l) : [layer];
    const shown = run.layers[layer];
    return {
      maps: layers.flatMap((l) =>
        run.layers[l].heads.map((h, k) => ({
          weights: h.weights,
          title: `layer ${l + 1} · head ${k + 1}`,
          caption: run.captions[l]?.[k],
          layer: l,
          head: k,
        })),
      ),
      steps: shown.heads,
      concat: shown.concat,
      output: shown.multiHeadOutput,
      afterAttention: shown.afterAttention,
      dk: steps.Q.cols,
      learnt: true,
      layer,
    };
  };
  return finish(result);
}

// ---- imported attention ------------------------------------------------------------------------------
export function importedResult(state, imported, key) {
  const layer = Math.min(typeof state.layer === 'number' ? state.layer : 0, imported.layers - 1);
  const head = Math.min(state.head, imported.heads - 1);
  const result = {
    key,
    kind: 'imported',
    tokens: imported.tokens,
    total: null,
    cap: imported.tokens.length,
    X: null,
    d: null,
    projection: null,
    steps: null,
    weights: imported.attentions[layer][head],
    output: null,
    score: null,
    norm: 'rows',
    imported: { layers: imported.layers, heads: imported.heads, layer, head },
    terms: () => null,
  };
  result.heads = () => ({
    maps: imported.attentions[layer].map((weights, k) => ({ weights, title: `head ${k + 1}`, head: k })),
    learnt: true,
  });
  return finish(result);
}

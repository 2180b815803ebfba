// libFuzzer target: the language-model file parser (LanguageModel::parse) on arbitrary bytes, then the
// forward pass and rollout on whatever model it accepts. Must never crash, leak, read out of bounds or
// throw anything but AttentionError; an accepted model must run causally with weights that are
// probabilities. Seeds: tests/fuzz/corpus/fuzz_model (made by make_model_seeds.py).
#include <algorithm>
#include <string>

#include "attention/model.hpp"
#include "common.hpp"

using namespace attn;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  LanguageModel model;
  try {
    model = LanguageModel::parse(data, size);
  } catch (const AttentionError&) {
    return 0;  // refused with a message: fine
  }
  const std::size_t V = model.vocabulary.size();
  FUZZ_CHECK(V >= 2 && model.embedding.rows() == static_cast<Index>(V), "vocabulary and embedding disagree");
  FUZZ_CHECK(model.embedding.cols() == model.d_model && model.d_model % model.heads == 0, "d_model / heads");
  FUZZ_CHECK(model.positions.rows() == model.context, "positions cover the context");
  for (std::size_t i = 0; i < V && i < 64; ++i)
    FUZZ_CHECK(model.find(model.vocabulary[i]) == static_cast<Index>(i), "find() does not return the word's id");

  // A sentence of the model's own words (≤ context), so the forward pass really runs.
  std::string sentence;
  const Index T = std::min<Index>(model.context, 6);
  for (Index t = 0; t < T; ++t) sentence += model.vocabulary[1 + static_cast<std::size_t>(t) % (V - 1)] + " ";
  ModelRun run;
  try {
    run = run_model(model, sentence, 3);
  } catch (const AttentionError&) {
    return 0;  // e.g. huge weights overflowing float32: reported, not returned as Inf
  }
  FUZZ_CHECK(run.steps.layers.size() == model.layers.size(), "one step per layer");
  for (const EncoderLayerSteps& layer : run.steps.layers)
    for (const AttentionSteps& head : layer.attention.heads) {
      fuzz::check_weights(head.weights, head.scaled, false);
      for (Index i = 0; i < head.weights.rows(); ++i)
        for (Index j = i + 1; j < head.weights.cols(); ++j)
          FUZZ_CHECK(head.weights(i, j) == 0.0f, "a head looked ahead");
    }
  fuzz::check_finite(run.final_norm, "final LayerNorm");
  FUZZ_CHECK(run.rollout.rows() == run.rollout.cols() && run.rollout.rows() == static_cast<Index>(run.tokens.size()),
             "rollout shape");
  for (Index i = 0; i < run.rollout.rows(); ++i)
    FUZZ_CHECK(std::fabs(run.rollout.row(i).sum() - 1.0f) < 1e-3f, "a rollout row does not sum to 1");
  for (const Prediction& p : run.predictions)
    FUZZ_CHECK(p.probability >= 0.0f && p.probability <= 1.0f && p.id >= 0 && static_cast<std::size_t>(p.id) < V,
               "a prediction is not a probability of a word");
  return 0;
}

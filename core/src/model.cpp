// The tiny language model: tokens, the forward pass and attention rollout (parsing is in model_file.cpp).
#include "attention/model.hpp"

#include "checks.hpp"
#include "word_table.hpp"

#include <algorithm>
#include <numeric>

namespace attn {

using detail::fail;
using detail::ull;

Index LanguageModel::find(std::string_view word) const {
  if (slots_.empty()) return -1;  // a model not parsed from a file
  auto word_of = [this](std::uint32_t id) { return std::string_view(vocabulary[id]); };
  const std::uint32_t id_plus_1 = slots_[detail::slot_of(slots_, word, detail::fnv1a(word), word_of)];
  return id_plus_1 == 0 ? -1 : static_cast<Index>(id_plus_1 - 1);
}

std::vector<ModelToken> model_tokens(const LanguageModel& model, std::string_view text) {
  std::vector<std::string> words = tokenize(text);
  if (words.empty()) fail("there is no word to run the model on: the text is empty");
  if (static_cast<Index>(words.size()) > model.context)
    fail("the text has %llu tokens but the model's context holds %lld; shorten it", static_cast<ull>(words.size()),
         static_cast<long long>(model.context));
  std::vector<ModelToken> tokens;
  tokens.reserve(words.size());
  for (std::string& word : words) {
    ModelToken token{std::move(word), Lookup::Unknown, "<unk>", 0};
    if (const Index id = model.find(token.text); id >= 0) {
      token.lookup = Lookup::Known;
      token.matched = token.text;
      token.id = id;
    } else {
      for (const std::string& stem : stem_candidates(token.text))
        if (const Index stem_id = model.find(stem); stem_id >= 0) {
          token.lookup = Lookup::Stemmed;
          token.matched = stem;
          token.id = stem_id;
          break;
        }
    }
    tokens.push_back(std::move(token));
  }
  return tokens;
}

ModelRun run_model(const LanguageModel& model, const std::vector<Index>& ids, std::size_t top_k) {
  const Index T = static_cast<Index>(ids.size());
  if (model.layers.empty()) fail("the language model has no layers: parse a model file first");
  if (T == 0) fail("there are no token ids to run the model on");
  if (T > model.context)
    fail("the input has %lld tokens but the model's context holds %lld", static_cast<long long>(T),
         static_cast<long long>(model.context));
  ModelRun run;

  // 1. Input: token embeddings scaled by √d_model, plus the sinusoidal positions.
  const Matrix x = model.embedding_scale * embed_tokens(model.embedding, ids)  // T × d_model
                   + model.positions.topRows(T);                               // T × d_model

  // 2. The decoder layers, each x = x + MHA(LN1(x)); x = x + FFN(LN2(x)), attention masked so token t
  //    sees tokens 0..t only (what the model was trained with: it predicts the next word).
  run.steps = decoder(x, model.layers);  // steps.output: T × d_model

  // 3. Final LayerNorm.
  run.final_norm = layer_norm(run.steps.output, model.final_gamma, model.final_beta);  // T × d_model

  // 4. Next-word logits from the last position, with the output head tied to the embedding:
  //    logits = LN_f(x_T)·Eᵀ.
  //    (One dot product per word rather than a matrix-vector product: the same V·d multiply-adds, and
  //    the wasm is spared a second GEMV kernel.)
  const auto last = run.final_norm.row(T - 1);     // 1 × d_model
  Eigen::VectorXf logits(model.embedding.rows());  // V
  for (Index v = 0; v < logits.size(); ++v) logits(v) = model.embedding.row(v).dot(last);
  // Weights large enough to overflow float32 here would give inf − inf = NaN probabilities: refuse them
  // by name, like every other step of the core (found by tests/fuzz/fuzz_model).
  if (!logits.allFinite())
    fail("next-word logits overflow float32 (the model's weights are too large for a finite result)");

  // 5. softmax over the vocabulary, and the top k.
  const Matrix probabilities = softmax(logits.transpose());  // 1 × V
  std::vector<Index> order(static_cast<std::size_t>(logits.size()));
  std::iota(order.begin(), order.end(), Index{0});
  const std::size_t k = std::min(top_k, order.size());
  std::partial_sort(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(k), order.end(),
                    [&](Index a, Index b) { return logits(a) > logits(b) || (logits(a) == logits(b) && a < b); });
  for (std::size_t i = 0; i < k; ++i) {
    const Index id = order[i];
    run.predictions.push_back({id, model.vocabulary[static_cast<std::size_t>(id)], logits(id), probabilities(0, id)});
  }

  // 6. Attention rollout through all layers.
  run.rollout = attention_rollout(run.steps);
  return run;
}

ModelRun run_model(const LanguageModel& model, std::string_view text, std::size_t top_k) {
  std::vector<ModelToken> tokens = model_tokens(model, text);
  std::vector<Index> ids;
  for (const ModelToken& t : tokens) ids.push_back(t.id);
  ModelRun run = run_model(model, ids, top_k);
  run.tokens = std::move(tokens);
  return run;
}

Matrix attention_rollout(const std::vector<std::vector<Matrix>>& weights) {
  if (weights.empty()) fail("attention rollout needs at least one layer of weights");
  const Index T = weights[0].empty() ? 0 : weights[0][0].rows();
  Matrix rollout = Matrix::Identity(T, T);  // R before any layer: every token is itself
  for (std::size_t l = 0; l < weights.size(); ++l) {
    const std::vector<Matrix>& heads = weights[l];
    if (heads.empty()) fail("attention rollout: layer %zu has no heads", l);
    // The heads' average A, with the residual connection that carries each token past the attention:
    // Ã = 0.5·A + 0.5·I.
    Matrix mixed = 0.5f * Matrix::Identity(T, T);  // T × T
    for (std::size_t h = 0; h < heads.size(); ++h) {
      if (heads[h].rows() != T || heads[h].cols() != T || T == 0)
        fail(
            "attention rollout: layer %zu head %zu weights are %s; every head of every layer must be the same "
            "square T×T (T ≥ 1)",
            l, h, shape_of(heads[h]).c_str());
      require_finite(heads[h], "attention rollout weights");
      mixed += (0.5f / static_cast<float>(heads.size())) * heads[h];
    }
    // Rows of A already sum to 1; renormalising keeps R a mixing matrix when one does not (a fully
    // masked query's row of zeros).
    for (Index r = 0; r < T; ++r) mixed.row(r) /= mixed.row(r).sum();
    // R = Ã_l · R: later layers act on what earlier ones mixed. T ≤ the context, so plain loops.
    Matrix next = Matrix::Zero(T, T);
    for (Index i = 0; i < T; ++i)
      for (Index k = 0; k < T; ++k)
        if (mixed(i, k) != 0) next.row(i) += mixed(i, k) * rollout.row(k);
    rollout = std::move(next);
  }
  return rollout;
}

Matrix attention_rollout(const StackSteps& steps) {
  std::vector<std::vector<Matrix>> weights;
  for (const LayerSteps& layer : steps.layers) {
    weights.emplace_back();
    for (const AttentionSteps& head : layer.attention.heads) weights.back().push_back(head.weights);
  }
  return attention_rollout(weights);
}

}  // namespace attn

// The tiny trained models: tokens, the forward pass (decoder or encoder), the guesses (next word, or a
// blank's) and attention rollout (parsing is in model_file.cpp).
#include "attention/model.hpp"

#include "checks.hpp"
#include "word_table.hpp"

#include <algorithm>
#include <cmath>

namespace attn {

using detail::fail;
using detail::ll;
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

namespace {

// The top k words for one position of a run: logits = LN_f(x_t)·Eᵀ with the output head tied to the
// embedding, softmax over the whole vocabulary, <unk> and [MASK] skipped (Prediction says why).
std::vector<Prediction> predict(const LanguageModel& model, const ModelRun& run, Index t, std::size_t top_k) {
  const auto row = run.final_norm.row(t);          // 1 × d_model
  Eigen::VectorXf logits(model.embedding.rows());  // V
  // One dot product per word rather than a matrix-vector product: the same V·d multiply-adds, and the
  // wasm is spared a second GEMV kernel.
  for (Index v = 0; v < logits.size(); ++v) logits(v) = model.embedding.row(v).dot(row);
  // Weights large enough to overflow float32 here would give inf − inf = NaN probabilities: refuse them
  // by name, like every other step of the core (found by tests/fuzz/fuzz_model).
  if (!logits.allFinite())
    fail("%s logits overflow float32 (the model's weights are too large for a finite result)",
         model.causal ? "next-word" : "fill-the-blank");
  const Matrix probabilities = softmax(logits.transpose());  // 1 × V

  std::vector<Index> order;
  order.reserve(static_cast<std::size_t>(logits.size()));
  for (Index v = 1; v < logits.size(); ++v)  // from 1: id 0 is <unk>
    if (v != model.mask_id) order.push_back(v);
  const std::size_t k = std::min(top_k, order.size());
  std::partial_sort(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(k), order.end(),
                    [&](Index a, Index b) { return logits(a) > logits(b) || (logits(a) == logits(b) && a < b); });
  std::vector<Prediction> out;
  for (std::size_t i = 0; i < k; ++i) {
    const Index id = order[i];
    out.push_back({id, model.vocabulary[static_cast<std::size_t>(id)], logits(id), probabilities(0, id)});
  }
  return out;
}

std::vector<Index> ids_of(const std::vector<ModelToken>& tokens) {
  std::vector<Index> ids;
  for (const ModelToken& t : tokens) ids.push_back(t.id);
  return ids;
}

}  // namespace

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

  // 2. The layers, each x = x + MHA(LN1(x)); x = x + FFN(LN2(x)), with the attention each model was
  //    trained with: the decoder's masked so token t sees tokens 0..t only (it predicts the next word),
  //    the encoder's unmasked (it fills a blank from both sides), both scaled dot-product.
  if (model.causal) {
    run.steps = decoder(x, model.layers);  // steps.output: T × d_model
  } else {
    AttentionOptions bidirectional;
    bidirectional.score = Score::ScaledDot;
    run.steps = encoder(x, model.layers, NormPlacement::Pre, bidirectional);
  }

  // 3. Final LayerNorm.
  run.final_norm = layer_norm(run.steps.output, model.final_gamma, model.final_beta);  // T × d_model

  // 4. The decoder's next words, from the last position (the encoder's guesses are fill_blank's).
  if (model.causal) run.predictions = predict(model, run, T - 1, top_k);

  // 5. Attention rollout through all layers.
  run.rollout = attention_rollout(run.steps);
  return run;
}

ModelRun run_model(const LanguageModel& model, std::string_view text, std::size_t top_k) {
  std::vector<ModelToken> tokens = model_tokens(model, text);
  ModelRun run = run_model(model, ids_of(tokens), top_k);
  run.tokens = std::move(tokens);
  return run;
}

FilledBlank fill_blank(const LanguageModel& model, std::string_view text, Index position, std::size_t top_k) {
  if (model.causal || model.mask_id < 0)
    fail("fill-the-blank needs an encoder (a model trained with a [MASK] token); this model is a causal decoder");
  FilledBlank out;
  out.tokens = model_tokens(model, text);
  const Index T = static_cast<Index>(out.tokens.size());
  if (position < 0 || position >= T)
    fail("position %lld is not a token of the sentence: it has %lld tokens, numbered 0 to %lld", ll(position), ll(T),
         ll(T - 1));
  out.position = position;
  std::vector<ModelToken> masked = out.tokens;
  const std::string& mask = model.vocabulary[static_cast<std::size_t>(model.mask_id)];
  masked[static_cast<std::size_t>(position)] = {mask, Lookup::Known, mask, model.mask_id};
  out.run = run_model(model, ids_of(masked), top_k);
  out.run.tokens = std::move(masked);
  out.run.predictions = predict(model, out.run, position, top_k);
  return out;
}

std::vector<Neighbour> nearest_embeddings(const LanguageModel& model, const float* vector, Index length, Index k,
                                          const std::vector<Index>& exclude, bool final_norm) {
  const Index d = model.d_model, V = model.embedding.rows();
  if (V == 0) fail("the language model has no embedding: parse a model file first");
  if (length != d) fail("the vector has %lld values; the model's vectors have %lld (d_model)", ll(length), ll(d));
  if (k < 1) fail("k is %lld; it must be at least 1", ll(k));
  Vector q = Eigen::Map<const Vector>(vector, length);  // d_model
  require_finite(q, "the vector");
  // Read as the output head reads the last layer: LN_f(x) = (x − mean) / σ · γ + β.
  if (final_norm) q = layer_norm(q.transpose(), model.final_gamma, model.final_beta).row(0).transpose();
  const double q_norm = q.cast<double>().norm();
  if (q_norm == 0) fail("the vector is all zeros, so it has no direction and no nearest words");

  std::vector<bool> skipped(static_cast<std::size_t>(V), false);
  skipped[0] = true;  // <unk>: not a word a reader can be offered
  if (model.mask_id >= 0) skipped[static_cast<std::size_t>(model.mask_id)] = true;
  for (const Index id : exclude) {
    if (id < 0 || id >= V) fail("cannot exclude word %lld; the vocabulary has words 0 to %lld", ll(id), ll(V - 1));
    skipped[static_cast<std::size_t>(id)] = true;
  }

  // Every word, in double: V·d_model multiply-adds (a few thousand words × 80 here), no index needed.
  std::vector<Neighbour> out;
  out.reserve(static_cast<std::size_t>(V));
  for (Index v = 0; v < V; ++v) {
    if (skipped[static_cast<std::size_t>(v)]) continue;
    double dot = 0, squares = 0;
    for (Index j = 0; j < d; ++j) {
      const double e = model.embedding(v, j);
      dot += double(q(j)) * e;
      squares += e * e;
    }
    out.push_back({v, squares == 0 ? 0.0f : static_cast<float>(dot / (q_norm * std::sqrt(squares)))});
  }
  // Ranked on the rounded floats, as NearestWords does: a tie means what the caller sees.
  const std::size_t wanted = std::min(static_cast<std::size_t>(k), out.size());
  std::partial_sort(out.begin(), out.begin() + static_cast<std::ptrdiff_t>(wanted), out.end(), ranks_before);
  out.resize(wanted);
  return out;
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

// A tiny trained language model run by the core: a decoder-only (GPT-style) transformer trained on WordNet
// (model/README.md), parsed from the bytes of data/model.bin, run on a sentence with every intermediate
// kept, plus attention rollout across its layers. Maths only: no I/O, no globals.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "attention/text.hpp"
#include "attention/transformer.hpp"

namespace attn {

// The hyper-parameters, as the file's header gives them (like nanoGPT's GPTConfig).
struct ModelConfig {
  Index vocabulary_size = 0;     // V words; id 0 is "<unk>"
  Index d_model = 0;             // the width of the residual stream
  Index layer_count = 0;         // decoder layers
  Index heads = 0;               // per layer; each head has d_k = d_model / heads
  Index d_ff = 0;                // the feed-forward network's hidden width
  Index context = 0;             // the most tokens one run may hold
  float embedding_scale = 1.0f;  // x = embedding_scale · E[id] + PE (√d_model)
};

// The model: its config (model.d_model, model.heads, …) and its weights, de-quantised to float32.
// Layout of the file: model/README.md ("ATTNLM", version 1).
struct LanguageModel : ModelConfig {
  std::vector<std::string> vocabulary;   // id → word; id 0 is "<unk>"
  Matrix embedding;                      // V × d_model; also the (tied) output head
  Matrix positions;                      // context × d_model sinusoidal encoding
  std::vector<TransformerLayer> layers;  // run by attn::decoder: pre-norm, causal, GELU feed-forward
  Vector final_gamma, final_beta;        // the final LayerNorm, LN_f
  std::vector<std::string> captions;     // one per head, layer-major; or empty

  // Throws AttentionError naming the problem (bad magic or version, truncation, impossible shapes,
  // non-finite values, trailing bytes) when the bytes are not a well-formed model file.
  static LanguageModel parse(const std::uint8_t* bytes, std::size_t size);

  const ModelConfig& config() const { return *this; }
  Index find(std::string_view word) const;  // the word's id, or -1

 private:
  std::vector<std::uint32_t> slots_;  // hash table of the words (core/src/word_table.hpp): 0 = empty, else id + 1
};

struct ModelToken {
  std::string text;     // the token as tokenised (lower-cased)
  Lookup lookup;        // Known, Stemmed (an inflection stripped), or Unknown (→ <unk>, id 0)
  std::string matched;  // the vocabulary word whose embedding is used ("<unk>" when Unknown)
  Index id;
};

// attn::tokenize, then a vocabulary lookup per token with the same stemming fallback as the word vectors.
// Throws when the text has no tokens or more than the model's context length (the message names both
// lengths): the model never saw positions past its context, so longer text is refused, not truncated.
std::vector<ModelToken> model_tokens(const LanguageModel& model, std::string_view text);

struct Prediction {
  Index id;
  std::string word;
  float logit;
  float probability;  // softmax over the whole vocabulary
};

struct ModelRun {
  std::vector<ModelToken> tokens;
  StackSteps steps;                     // steps.input = scaled embeddings + positions; one entry per layer
  Matrix final_norm;                    // LN_f of the last layer's output, T × d_model
  Matrix rollout;                       // T × T attention rollout over all layers
  std::vector<Prediction> predictions;  // the top_k next words after the last token, most probable first
};

// The forward pass on token ids (each in [0, V), at most `context` of them).
ModelRun run_model(const LanguageModel& model, const std::vector<Index>& ids, std::size_t top_k = 5);
// The same on a sentence: model_tokens, then the forward pass.
ModelRun run_model(const LanguageModel& model, std::string_view text, std::size_t top_k = 5);

// Attention rollout (Abnar & Zuidema 2020), how much each output position draws on each input token
// through every layer: per layer average the heads' weights A, add the residual connection as
// Ã = 0.5·A + 0.5·I, renormalise each row to sum to 1, and multiply the layers: R = Ã_L ··· Ã_1.
// weights[layer][head] is a T × T matrix (query rows, key columns).
Matrix attention_rollout(const std::vector<std::vector<Matrix>>& weights);
Matrix attention_rollout(const StackSteps& steps);

}  // namespace attn

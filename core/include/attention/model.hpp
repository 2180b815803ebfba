/// \file
/// The tiny trained transformers run by the core, both trained on WordNet (model/README.md): the causal
/// decoder of data/model.bin (GPT-style: predicts the next word) and the bidirectional encoder of
/// data/encoder.bin (BERT-style: fills in a [MASK]ed word), and their subword siblings that read SentencePiece
/// pieces (a file with a pieces vocabulary: model/README.md). Parsed from a file's bytes, run on a sentence
/// with every intermediate kept, plus attention rollout across the layers. Maths only: no I/O, no globals.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "attention/nearest.hpp"
#include "attention/pieces.hpp"
#include "attention/text.hpp"
#include "attention/transformer.hpp"

namespace attn {

/// The hyper-parameters, as the file's header gives them (like nanoGPT's GPTConfig).
struct ModelConfig {
  Index vocabulary_size = 0;     ///< V words; id 0 is "<unk>"
  Index d_model = 0;             ///< the width of the residual stream
  Index layer_count = 0;         ///< transformer layers
  Index heads = 0;               ///< per layer; each head has d_k = d_model / heads
  Index d_ff = 0;                ///< the feed-forward network's hidden width
  Index context = 0;             ///< the most tokens one run may hold
  float embedding_scale = 1.0f;  ///< x = embedding_scale · E[id] + PE (√d_model)
  bool causal = true;            ///< decoder: token t sees tokens 0..t; encoder (false): every token sees all
  Index mask_id = -1;            ///< the encoder's "[MASK]" word, which fill_blank puts in the blank; decoder: -1
};

/// How a switched-off head stops contributing (Intervention). The first two leave its weights as learnt
/// and replace what it adds; the third replaces what it looks at.
enum class Ablation {
  Zero,     ///< the head adds nothing: its d_k columns of the concatenated heads are zeros before W_O
  Mean,     ///< its output is the mean of its output over the sentence's positions, the same on every row
  Uniform,  ///< its weights are an even spread over the keys it may see (encoder: 1/T over all; decoder:
            ///< 1/(t+1) over 0..t), its output those weights·V
};

/// One head to switch off: layer and head count from 0.
struct HeadSwitch {
  Index layer = 0;                 ///< the layer, from 0
  Index head = 0;                  ///< the head within the layer, from 0
  Ablation mode = Ablation::Zero;  ///< how it is switched off
};

/// Parts of the model switched off for one forward pass (run_model, fill_blank, head_effects): a way for
/// a reader to ask what the model loses without them. Empty (the default) is the model as trained.
/// A head or layer listed twice is switched off once (a head listed twice with different modes takes
/// the last). A layer or head outside the model is an AttentionError naming it.
///
/// What the run's steps keep: a switched-off head's weights are the ones the run used (the learnt ones
/// for Zero and Mean, the even spread for Uniform) and its output the replaced one; a layer whose
/// attention is off keeps its heads' steps as computed, but its multi-head output is zeros and
/// after_attention is the layer's input (x + 0: not even W_O's bias is added); its feed-forward still runs.
///
/// Rollout (attention_rollout) under an intervention: a Zero or Mean head is left out of its layer's
/// average of weights (it moves no information from one token to another that depends on which token);
/// a Uniform head enters with its even weights; a layer whose attention is off, or whose heads are all
/// Zero or Mean, is the identity.
struct Intervention {
  std::vector<HeadSwitch> heads_off;  ///< heads switched off, each in its own mode
  std::vector<Index> layers_off;      ///< layers whose attention sublayer contributes nothing
  bool positions_off = false;         ///< input x = embedding_scale·E[ids] with no positional encoding (a bag
                                      ///< of words)
  /// true when nothing is switched off
  bool empty() const { return heads_off.empty() && layers_off.empty() && !positions_off; }
};

/// The model: its config (model.d_model, model.heads, …) and its weights, de-quantised to float32.
/// Layout of the file: model/README.md ("ATTNLM", version 1 for the decoder, 2 for the encoder and for
/// pieces models).
struct LanguageModel : ModelConfig {
  std::vector<std::string> vocabulary;  ///< id → word (a pieces model: the piece as stored, "▁sta"); id 0 is
                                        ///< "<unk>"; the encoder's also holds "[MASK]" (a pieces encoder's last)
  /// A pieces model's vocabulary (ids 0 … pieces − 1 are its pieces; an encoder's [MASK] comes after them);
  /// null for a words model. Shared, so copies of the model stay cheap and copyable.
  std::shared_ptr<const PieceVocabulary> pieces;
  Matrix embedding;                      ///< V × d_model; also the (tied) output head
  Matrix positions;                      ///< context × d_model sinusoidal encoding
  std::vector<TransformerLayer> layers;  ///< pre-norm, GELU feed-forward; run by attn::decoder when causal,
                                         ///< else by attn::encoder (no mask)
  /// the final LayerNorm, LN_f
  ///@{
  Vector final_gamma, final_beta;
  ///@}
  std::vector<std::string> captions;  ///< one per head, layer-major; or empty

  /// Throws AttentionError naming the problem (bad magic or version, truncation, impossible shapes,
  /// unsupported flags, a missing or misplaced [MASK], a pieces vocabulary that does not parse or does not
  /// match V, non-finite values, trailing bytes) when the bytes
  /// are not a well-formed model file.
  static LanguageModel parse(const std::uint8_t* bytes, std::size_t size);

  const ModelConfig& config() const { return *this; }  ///< the hyper-parameters alone
  Index find(std::string_view word) const;             ///< the word's id, or -1

 private:
  std::vector<std::uint32_t> slots_;  ///< hash table of the words (core/src/word_table.hpp): 0 = empty, else id + 1
};

/// A token of the sentence and the vocabulary entry the model reads for it: a word (words model) or one
/// piece of a word (pieces model).
struct ModelToken {
  std::string text;     ///< the token as tokenised (lower-cased); a piece: its label ("sta", "##tion")
  Lookup lookup;        ///< Known, Stemmed (an inflection stripped), or Unknown (→ "<unk>", id 0); pieces: Known
  std::string matched;  ///< the vocabulary entry whose embedding is used ("<unk>" when Unknown; "▁sta", "tion")
  Index id;             ///< that entry's id, the row of the embedding
  Index word = 0;       ///< the index of the sentence's word this token belongs to (words model: its own index)
};

/// Words model: attn::tokenize, then a vocabulary lookup per token with the same stemming fallback as the
/// word vectors. Pieces model: PieceVocabulary::encode, one token per piece (never unknown).
/// Throws when the text has no tokens or more tokens (pieces) than the model's context length (the message
/// names both lengths): the model never saw positions past its context, so longer text is refused, not
/// truncated.
std::vector<ModelToken> model_tokens(const LanguageModel& model, std::string_view text);

/// A word the model guesses. "<unk>" and "[MASK]" are never among them: they are not words a reader can
/// be offered (the decoder learnt to predict "<unk>" for rare words; the encoder never saw either as a
/// target).
///
/// A pieces encoder's blank is a whole word of k pieces: each guess is k pieces (a word-start piece, then
/// continuation pieces; byte pieces never offered) that are how the vocabulary spells that word, see fill_blank.
struct Prediction {
  Index id;           ///< the word's id (a pieces encoder's guess: its first piece's)
  std::string word;   ///< the word (pieces: PieceVocabulary::decode_word of its pieces; a next piece: as stored)
  float logit;        ///< its score, LN_f(x)·E[id]; a pieces encoder's guess: the sum of its pieces'
                      ///< log-probabilities, the score it is ranked by
  float probability;  ///< the model's own: softmax over the whole vocabulary, "<unk>" and "[MASK]" included; a
                      ///< pieces encoder's guess: the product of its pieces' probabilities, each at its own
                      ///< masked position (exp of the summed log-probabilities)
  std::vector<Index> pieces;  ///< its ids, one per masked position (words model, next piece: {id})
};

/// One forward pass: the tokens, every layer's steps, the rollout and the predictions.
struct ModelRun {
  std::vector<ModelToken> tokens;       ///< the tokens run, as model_tokens gives them
  StackSteps steps;                     ///< steps.input = scaled embeddings + positions; one entry per layer
  Matrix final_norm;                    ///< LN_f of the last layer's output, T × d_model
  Matrix rollout;                       ///< T × T attention rollout over all layers
  std::vector<Prediction> predictions;  ///< decoder: the top_k next words after the last token; encoder run on
                                        // a sentence: none; fill_blank: the top_k words for the blank.
                                        // Most probable first.
};

/// The forward pass on token ids (each in [0, V), at most `context` of them): a causal model through
/// attn::decoder with its next-word predictions, an encoder through attn::encoder (no predictions: ask
/// fill_blank for a blank's).
/// `off` switches parts of the model off (Intervention); throws naming a layer or head the model lacks.
ModelRun run_model(const LanguageModel& model, const std::vector<Index>& ids, std::size_t top_k = 5,
                   const Intervention& off = {});
/// The same on a sentence: model_tokens, then the forward pass.
ModelRun run_model(const LanguageModel& model, std::string_view text, std::size_t top_k = 5,
                   const Intervention& off = {});

/// Fill the blank (encoder only): the sentence with word `position` (from 0) replaced by [MASK], run
/// through the encoder, and the top_k words for that position. A words model's word is one token; a
/// pieces model's word is all of its pieces, each replaced by [MASK], and each guess is a whole word of
/// as many pieces (a word-start piece "▁…", then continuation pieces; "<unk>", "[MASK]" and byte pieces
/// never), ranked by the sum of the pieces' log-probabilities at their positions from one forward pass.
///
/// A pieces guess is a real segmentation: its pieces are PieceVocabulary::encode_word of the word they
/// spell (canonical), so "▁of" + "s" is no guess when "ofs" is spelt otherwise, nor is a string the
/// tokenizer would never produce. The guesses are the exact top_k of the sum among canonical candidates,
/// found by a best-first search in ranking order that skips the non-canonical ones (model.cpp's
/// WordSearch). Its work is bounded: at most kWordSearchBudget candidates and prefixes are checked (one
/// encode_word each) per blank; should the budget run out first, fewer than top_k guesses come back, each
/// still in its exact place. Measured: at most 602 checks per search (median 201) over every word of three
/// sentences, for 5 and 200 guesses and every head_effects rank, on the pieces fixtures and on a random
/// model with data/pieces.vocab's 8,000 pieces.
struct FilledBlank {
  std::vector<ModelToken> tokens;  ///< the sentence as written, the hidden word included
  Index position = 0;              ///< the blank: a word's index (words model: also its token's)
  std::vector<Index> masked;       ///< the token positions replaced by [MASK] (words model: {position})
  ModelRun run;                    ///< the masked sentence: run.tokens[masked[i]] are "[MASK]" and
                                   // run.predictions are the guesses for the blank
};
/// Throws for a causal model (it has no [MASK]) and for a position outside the sentence's words. `off` as
/// for run_model.
FilledBlank fill_blank(const LanguageModel& model, std::string_view text, Index position, std::size_t top_k = 5,
                       const Intervention& off = {});

/// How many best-first search steps (encode_word checks) one pieces blank's whole-word search may take:
/// fill_blank's guesses and each of head_effects' ranks.
constexpr std::size_t kWordSearchBudget = 100000;
/// A pieces encoder's head_effects counts the whole-word candidates before its target up to this many
/// (the page's RANKED); past it the rank is kWordRankCap + 1, flagged as not exact.
constexpr Index kWordRankCap = 200;

/// One head's effect on the target word (HeadEffects).
struct HeadEffect {
  Index layer = 0;         ///< from 0
  Index head = 0;          ///< from 0
  float probability = 0;   ///< the target's probability with this head also switched off
  Index rank = 0;          ///< the target's rank then (1 = top guess)
  float drop = 0;          ///< the base probability minus this one (positive: the head helped)
  bool rank_exact = true;  ///< false: `rank` is a lower bound (pieces encoder only; see head_effects)
};

/// Which heads matter for one guess: the target word's probability and rank with the base intervention
/// alone, then with each head in turn additionally switched off.
struct HeadEffects {
  Index target = 0;               ///< the word whose probability is followed (pieces encoder: its first piece)
  std::vector<Index> pieces;      ///< its ids: one per masked position (pieces encoder), else {target}
  std::string word;               ///< that word (pieces encoder: the whole hidden word's text; decoder: the
                                  ///< next piece or word as stored)
  float probability = 0;          ///< its probability with the base intervention alone
  Index rank = 0;                 ///< its rank then
  bool rank_exact = true;         ///< false: `rank` is a lower bound (pieces encoder only)
  std::vector<HeadEffect> heads;  ///< every head, layer-major (layer 0's heads first)
};

/// Switch each head off in turn (in `mode`, on top of `base`; a head already in `base` takes `mode`
/// instead) and follow one word. Encoder: `position` is the blank; the target is the hidden word as the
/// model reads it, or the unablated model's top guess for the blank when that word is "<unk>". Decoder:
/// `position` is ignored; the target is the unablated model's top next word after the last token.
/// Probabilities are the model's own (softmax over the whole vocabulary); ranks count the words whose
/// logit is higher (equal logits: the lower id first), "<unk>" and "[MASK]" never counted, as in the
/// predictions. Throws as run_model and fill_blank do.
///
/// A pieces encoder: `position` is a word, all of whose pieces are hidden, as in fill_blank. The target is
/// the hidden word's own pieces (never unknown); its probability is the product over the hidden positions
/// of each piece's probability (fill_blank's scoring), and its rank is 1 + the number of fill_blank's
/// candidates (canonical whole words) that rank before it: a higher sum of log-probabilities, or an equal
/// one and lower piece ids. A hidden word the guesses could never list (one with byte pieces) is ranked
/// where it would stand. Ranks are exact up to kWordRankCap candidates before the word; with more, the
/// rank is kWordRankCap + 1 and rank_exact is false; should the search's budget (kWordSearchBudget) run out
/// first, the rank is 1 + the candidates found before it, a lower bound, and rank_exact is false too.
/// Each of the L·H + 1 runs adds one such search to its forward pass. A decoder with pieces follows its top
/// next piece, as a words decoder follows its top next word.
HeadEffects head_effects(const LanguageModel& model, std::string_view text, Index position,
                         const Intervention& base = {}, Ablation mode = Ablation::Zero);

/// The model's nearest words to a vector of its residual stream: the k vocabulary words whose embeddings
/// (rows of E, which is also the tied output head) point most nearly the way `vector` does, by cosine
/// similarity in double precision, best first, equal similarities (as the floats returned) in id order.
/// With `final_norm` the vector is first read through the final LayerNorm, as the output head reads the
/// last layer: give it a layer's output (or the input x = √d·E[id] + PE) to see what that position's
/// vector has come to mean. "<unk>", "[MASK]" and the ids in `exclude` are skipped. Throws AttentionError
/// when length is not d_model, a value is NaN or ±Inf, the vector (after the norm) is all zeros, k < 1,
/// or an excluded id is outside the vocabulary.
std::vector<Neighbour> nearest_embeddings(const LanguageModel& model, const float* vector, Index length, Index k,
                                          const std::vector<Index>& exclude = {}, bool final_norm = false);

/// Attention rollout (Abnar & Zuidema 2020), how much each output position draws on each input token
/// through every layer: per layer average the heads' weights A, add the residual connection as
/// Ã = 0.5·A + 0.5·I, renormalise each row to sum to 1, and multiply the layers: R = Ã_L ··· Ã_1.
/// weights[layer][head] is a T × T matrix (query rows, key columns); or the weights of a run's steps.
///@{
Matrix attention_rollout(const std::vector<std::vector<Matrix>>& weights);
Matrix attention_rollout(const StackSteps& steps);
///@}

}  // namespace attn

// libFuzzer target: the model file parser (LanguageModel::parse, versions 1 and 2, words or pieces) on
// arbitrary bytes, then the forward pass and rollout on whatever model it accepts, for an encoder
// fill-the-blank (a pieces encoder's whole-word blank included), and head_effects on both kinds. Must
// never crash, leak, read out of bounds or throw anything but AttentionError; an accepted decoder must
// run causally, an encoder must have its [MASK] word and never guess it or <unk>, and every weight must
// be a probability. Seeds: tests/fuzz/corpus/fuzz_model (made by make_model_seeds.py).
#include <algorithm>
#include <string>

#include "attention/model.hpp"
#include "common.hpp"

using namespace attn;

namespace {

// What every run of an accepted model must satisfy: its weights are probabilities (zero above the
// diagonal for a decoder), LN_f is finite, the rollout's rows sum to 1, guesses are probabilities of words.
void check_run(const LanguageModel& model, const ModelRun& run) {
  const std::size_t V = model.vocabulary.size();
  FUZZ_CHECK(run.steps.layers.size() == model.layers.size(), "one step per layer");
  for (const EncoderLayerSteps& layer : run.steps.layers)
    for (const AttentionSteps& head : layer.attention.heads) {
      fuzz::check_weights(head.weights, head.scaled, false);
      if (!model.causal) continue;
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
}

// head_effects on the sentence (an encoder's blank at word `position`): every head, layer-major, each a
// probability with a rank of at least 1 (a pieces encoder's at most kWordRankCap + 1, flagged past the cap).
HeadEffects check_effects(const LanguageModel& model, const std::string& sentence, Index position) {
  HeadEffects effects;
  try {
    effects = head_effects(model, sentence, position);
  } catch (const AttentionError&) {
    return {};
  }
  FUZZ_CHECK(effects.heads.size() == model.layers.size() * static_cast<std::size_t>(model.heads),
             "head effects: not one entry per head");
  FUZZ_CHECK(!effects.pieces.empty() && effects.pieces.front() == effects.target, "head effects: no target pieces");
  const bool word = model.pieces && !model.causal;
  for (std::size_t i = 0; i <= effects.heads.size(); ++i) {
    const float p = i == 0 ? effects.probability : effects.heads[i - 1].probability;
    const Index rank = i == 0 ? effects.rank : effects.heads[i - 1].rank;
    const bool exact = i == 0 ? effects.rank_exact : effects.heads[i - 1].rank_exact;
    FUZZ_CHECK(p >= 0.0f && p <= 1.0f, "head effects: not a probability");
    FUZZ_CHECK(rank >= 1 && (!word || rank <= kWordRankCap + 1), "head effects: a rank out of range");
    FUZZ_CHECK(word || exact, "head effects: a words model's rank not exact");
    if (i > 0)
      FUZZ_CHECK(effects.heads[i - 1].layer == static_cast<Index>(i - 1) / model.heads &&
                     effects.heads[i - 1].head == static_cast<Index>(i - 1) % model.heads,
                 "head effects: not layer-major");
  }
  return effects;
}

}  // namespace

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

  // A sentence of the model's own words (≤ context), so the forward pass really runs; a pieces model's
  // words are its normal pieces without the word-start mark (byte pieces would tokenize as "<", "0x41", ">");
  // a words model's, those that are one token ("[MASK]" is three, which put a words encoder's sentence
  // past its context and kept its blank and head effects out of reach).
  std::string sentence;
  const Index T = std::min<Index>(model.context, 6);
  std::vector<std::string> own;
  for (std::size_t i = 1; i < V && static_cast<Index>(own.size()) < T; ++i) {
    if (static_cast<Index>(i) == model.mask_id) continue;
    std::string word = model.vocabulary[i];
    if (!model.pieces) {
      if (tokenize(word).size() == 1) own.push_back(word);
      continue;
    }
    if (model.pieces->is_byte(static_cast<std::uint32_t>(i))) continue;
    if (word.rfind(PieceVocabulary::word_start, 0) == 0) word.erase(0, PieceVocabulary::word_start.size());
    if (!word.empty()) own.push_back(word);
  }
  for (Index t = 0; t < T; ++t)
    sentence += (own.empty() ? model.vocabulary[1 + static_cast<std::size_t>(t) % (V - 1)]
                             : own[static_cast<std::size_t>(t) % own.size()]) +
                " ";
  ModelRun run;
  try {
    run = run_model(model, sentence, 3);
  } catch (const AttentionError&) {
    return 0;  // e.g. huge weights overflowing float32: reported, not returned as Inf
  }
  check_run(model, run);
  // The nearest words to the last layer's output at the first token, through LN_f: never <unk> or
  // [MASK], best first, similarities in [-1, 1] (or refused by name: an all-zero vector after the norm).
  try {
    const Vector h = run.steps.output.row(0).transpose();
    float previous = 2;
    for (const Neighbour& n : nearest_embeddings(model, h.data(), h.size(), 4, {run.tokens[0].id}, true)) {
      FUZZ_CHECK(n.id > 0 && n.id != model.mask_id && n.id != run.tokens[0].id,
                 "nearest gave <unk>, [MASK] or the word");
      FUZZ_CHECK(n.similarity >= -1.0001f && n.similarity <= 1.0001f && n.similarity <= previous,
                 "nearest similarities out of [-1, 1] or out of order");
      previous = n.similarity;
    }
  } catch (const AttentionError&) {
  }
  if (model.causal) {
    FUZZ_CHECK(model.mask_id == -1, "a decoder with a mask token");
    check_effects(model, sentence, 0);
    return 0;
  }
  FUZZ_CHECK(model.mask_id > 0 && static_cast<std::size_t>(model.mask_id) < V &&
                 model.vocabulary[static_cast<std::size_t>(model.mask_id)] == "[MASK]",
             "an encoder without its [MASK] word");
  FUZZ_CHECK(run.predictions.empty(), "an encoder guessed without a blank");
  FilledBlank blank;
  try {
    blank = fill_blank(model, sentence, T - 1, 3);
  } catch (const AttentionError&) {
    return 0;
  }
  check_run(model, blank.run);
  // A words model hides the token at the word's index; a pieces model all of that word's pieces.
  FUZZ_CHECK(model.pieces || blank.masked == std::vector<Index>{T - 1}, "a words blank is not its one token");
  FUZZ_CHECK(!blank.masked.empty(), "nothing masked");
  for (const Index t : blank.masked)
    FUZZ_CHECK(blank.run.tokens[static_cast<std::size_t>(t)].id == model.mask_id &&
                   blank.tokens[static_cast<std::size_t>(t)].word == T - 1,
               "a masked token is not [MASK] or not the blank word's");
  for (const Prediction& p : blank.run.predictions) {
    FUZZ_CHECK(p.id != 0 && p.id != model.mask_id, "<unk> or [MASK] guessed");
    FUZZ_CHECK(p.pieces.size() == (model.pieces ? blank.masked.size() : 1u) && p.pieces.front() == p.id,
               "a guess's pieces are not one per masked token");
    if (model.pieces)
      for (const Index id : p.pieces)
        FUZZ_CHECK(id > 0 && id != model.mask_id && !model.pieces->is_byte(static_cast<std::uint32_t>(id)),
                   "a whole-word guess holds <unk>, [MASK] or a byte piece");
    if (model.pieces) {
      const std::vector<std::uint32_t> ids(p.pieces.begin(), p.pieces.end());
      FUZZ_CHECK(model.pieces->encode_word(p.word) == ids, "a whole-word guess is not how the word is spelt");
    }
  }
  // Head effects follow the blank's hidden word: a pieces encoder's own pieces.
  const HeadEffects effects = check_effects(model, sentence, T - 1);
  if (model.pieces && !effects.heads.empty()) {
    std::vector<Index> hidden;
    for (const Index t : blank.masked) hidden.push_back(blank.tokens[static_cast<std::size_t>(t)].id);
    FUZZ_CHECK(effects.pieces == hidden, "head effects do not follow the hidden word's pieces");
  }
  return 0;
}

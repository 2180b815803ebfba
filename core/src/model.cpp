// The tiny trained models: tokens, the forward pass (decoder or encoder), the guesses (next word, or a
// blank's) and attention rollout (parsing is in model_file.cpp).
#include "attention/model.hpp"

#include "checks.hpp"
#include "word_table.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <optional>
#include <tuple>
#include <utility>

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

namespace {

// A pieces model's tokens: one per piece, labelled as the page draws them ("sta", "##tion").
std::vector<ModelToken> piece_tokens(const LanguageModel& model, std::string_view text) {
  const PieceEncoding encoding = model.pieces->encode(text);
  if (encoding.ids.empty()) fail("there is no word to run the model on: the text is empty");
  if (static_cast<Index>(encoding.ids.size()) > model.context)
    fail("the text has %llu pieces (%llu words) but the model's context holds %lld pieces; shorten it",
         static_cast<ull>(encoding.ids.size()), static_cast<ull>(encoding.words.size()), ll(model.context));
  std::vector<ModelToken> tokens;
  tokens.reserve(encoding.ids.size());
  for (std::size_t p = 0; p < encoding.ids.size(); ++p) {
    const std::uint32_t id = encoding.ids[p];
    tokens.push_back({model.pieces->label(id), Lookup::Known, std::string(model.pieces->piece(id)), Index(id),
                      Index(encoding.word_of[p])});
  }
  return tokens;
}

}  // namespace

std::vector<ModelToken> model_tokens(const LanguageModel& model, std::string_view text) {
  if (model.pieces) return piece_tokens(model, text);
  std::vector<std::string> words = tokenize(text);
  if (words.empty()) fail("there is no word to run the model on: the text is empty");
  if (static_cast<Index>(words.size()) > model.context)
    fail("the text has %llu tokens but the model's context holds %lld; shorten it", static_cast<ull>(words.size()),
         static_cast<long long>(model.context));
  std::vector<ModelToken> tokens;
  tokens.reserve(words.size());
  for (std::string& word : words) {
    ModelToken token{std::move(word), Lookup::Unknown, "<unk>", 0, static_cast<Index>(tokens.size())};
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
// The logits of one position, LN_f(x_t)·Eᵀ (V entries), refused when they overflow float32.
Eigen::VectorXf logits_at(const LanguageModel& model, const ModelRun& run, Index t) {
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
  return logits;
}

std::vector<Prediction> predict(const LanguageModel& model, const ModelRun& run, Index t, std::size_t top_k) {
  const Eigen::VectorXf logits = logits_at(model, run, t);   // V
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
    out.push_back({id, model.vocabulary[static_cast<std::size_t>(id)], logits(id), probabilities(0, id), {id}});
  }
  return out;
}

std::vector<Index> ids_of(const std::vector<ModelToken>& tokens) {
  std::vector<Index> ids;
  for (const ModelToken& t : tokens) ids.push_back(t.id);
  return ids;
}

// ---- switching parts of the model off (Intervention) ----

// What is switched off in one layer: each head's mode, or none, and whether its attention is off.
struct LayerSwitches {
  std::vector<std::optional<Ablation>> heads;  // one per head
  bool attention_off = false;
};

// The intervention checked against the model and laid out by layer.
std::vector<LayerSwitches> layer_switches(const LanguageModel& model, const Intervention& off) {
  const Index L = static_cast<Index>(model.layers.size()), H = model.heads;
  std::vector<LayerSwitches> out(static_cast<std::size_t>(L),
                                 LayerSwitches{std::vector<std::optional<Ablation>>(static_cast<std::size_t>(H)),
                                               false});
  auto require_layer = [&](Index layer, const char* what) {
    if (layer < 0 || layer >= L)
      fail("%s layer %lld: the model has %lld layers, numbered 0 to %lld", what, ll(layer), ll(L), ll(L - 1));
  };
  for (const HeadSwitch& s : off.heads_off) {
    require_layer(s.layer, "cannot switch off a head of");
    if (s.head < 0 || s.head >= H)
      fail("cannot switch off head %lld of layer %lld: the model has %lld heads per layer, numbered 0 to %lld",
           ll(s.head), ll(s.layer), ll(H), ll(H - 1));
    if (s.mode != Ablation::Zero && s.mode != Ablation::Mean && s.mode != Ablation::Uniform)
      fail("head %lld of layer %lld: unknown way of switching a head off (%d)", ll(s.head), ll(s.layer),
           static_cast<int>(s.mode));
    out[static_cast<std::size_t>(s.layer)].heads[static_cast<std::size_t>(s.head)] = s.mode;  // the last wins
  }
  for (const Index layer : off.layers_off) {
    require_layer(layer, "cannot switch off the attention of");
    out[static_cast<std::size_t>(layer)].attention_off = true;
  }
  return out;
}

// A switched-off head's steps, replaced by what the run uses instead (Ablation says what each mode means).
void switch_off(AttentionSteps& head, Ablation mode, bool causal) {
  const Index T = head.weights.rows();
  switch (mode) {
    case Ablation::Zero:  // the head adds nothing
      head.output.setZero();
      break;
    case Ablation::Mean: {  // every position gets the sentence's mean of the head's output
      const Eigen::RowVectorXf mean = head.output.colwise().mean();  // 1 × d_k
      head.output = mean.replicate(T, 1);
      break;
    }
    case Ablation::Uniform:  // an even spread over the keys each query may see
      head.weights.setZero();
      for (Index t = 0; t < T; ++t) {
        const Index seen = causal ? t + 1 : head.weights.cols();
        head.weights.row(t).head(seen).setConstant(1.0f / static_cast<float>(seen));
      }
      head.output = head.weights * head.V;  // T × d_k
      break;
  }
}

// One pre-norm layer with parts switched off, x = x + MHA'(LN1(x)); x = x + FFN(LN2(x)), where MHA' is
// the multi-head attention with the switched heads' outputs replaced (then concat·W_O + b_O again), or
// nothing at all when the layer's attention is off.
LayerSteps switched_layer(const Matrix& X, const TransformerLayer& layer, const AttentionOptions& options,
                          const LayerSwitches& switches) {
  LayerSteps s;
  s.attention_input = layer_norm(X, layer.norm1_gamma, layer.norm1_beta);  // LN1(x), T × d_model
  s.attention = multi_head_attention(s.attention_input, layer.attention, options);
  bool replaced = false;
  Index col = 0;
  for (std::size_t h = 0; h < s.attention.heads.size(); ++h) {
    AttentionSteps& head = s.attention.heads[h];
    if (switches.heads[h]) {
      switch_off(head, *switches.heads[h], options.causal);
      s.attention.concat.middleCols(col, head.output.cols()) = head.output;
      replaced = true;
    }
    col += head.output.cols();
  }
  if (replaced) {  // the projection of the changed concatenation: T×Σd_v · Σd_v×d_model + b_O
    s.attention.output = s.attention.concat * layer.attention.W_O;
    if (layer.attention.b_O.size() != 0) s.attention.output.rowwise() += layer.attention.b_O.transpose();
  }
  if (switches.attention_off) s.attention.output.setZero();  // x + 0: not even b_O
  s.after_attention = X + s.attention.output;
  s.output = s.after_attention +
             feed_forward(layer_norm(s.after_attention, layer.norm2_gamma, layer.norm2_beta), layer.ffn);
  detail::require_no_overflow(s.output, "the layer's output");
  return s;
}

// Rollout under an intervention (Intervention says how): Zero and Mean heads left out of their layer's
// average, a layer with no head left (or its attention off) the identity.
Matrix switched_rollout(const StackSteps& steps, const std::vector<LayerSwitches>& switches) {
  std::vector<std::vector<Matrix>> weights;
  for (std::size_t l = 0; l < steps.layers.size(); ++l) {
    std::vector<Matrix> heads;
    if (!switches[l].attention_off)
      for (std::size_t h = 0; h < steps.layers[l].attention.heads.size(); ++h)
        if (!switches[l].heads[h] || *switches[l].heads[h] == Ablation::Uniform)
          heads.push_back(steps.layers[l].attention.heads[h].weights);
    const Index T = steps.input.rows();
    if (heads.empty()) heads.push_back(Matrix::Identity(T, T));  // Ã = 0.5·I + 0.5·I = I
    weights.push_back(std::move(heads));
  }
  return attention_rollout(weights);
}

// The target's probability (softmax over the whole vocabulary) and rank (1 + the words before it:
// higher logit, or equal and a lower id; <unk> and [MASK] never counted) at position t of a run.
std::pair<float, Index> odds_of(const LanguageModel& model, const ModelRun& run, Index t, Index target) {
  const Eigen::VectorXf logits = logits_at(model, run, t);
  const Matrix probabilities = softmax(logits.transpose());  // 1 × V
  Index rank = 1;
  for (Index v = 1; v < logits.size(); ++v)
    if (v != model.mask_id && v != target &&
        (logits(v) > logits(target) || (logits(v) == logits(target) && v < target)))
      ++rank;
  return {probabilities(0, target), rank};
}

}  // namespace

ModelRun run_model(const LanguageModel& model, const std::vector<Index>& ids, std::size_t top_k,
                   const Intervention& off) {
  const Index T = static_cast<Index>(ids.size());
  if (model.layers.empty()) fail("the language model has no layers: parse a model file first");
  if (T == 0) fail("there are no token ids to run the model on");
  if (T > model.context)
    fail("the input has %lld tokens but the model's context holds %lld", static_cast<long long>(T),
         static_cast<long long>(model.context));
  const std::vector<LayerSwitches> switches = layer_switches(model, off);
  ModelRun run;

  // 1. Input: token embeddings scaled by √d_model, plus the sinusoidal positions (unless switched off).
  Matrix x = model.embedding_scale * embed_tokens(model.embedding, ids);  // T × d_model
  if (!off.positions_off) x += model.positions.topRows(T);                // T × d_model

  // 2. The layers, each x = x + MHA(LN1(x)); x = x + FFN(LN2(x)), with the attention each model was
  //    trained with: the decoder's masked so token t sees tokens 0..t only (it predicts the next word),
  //    the encoder's unmasked (it fills a blank from both sides), both scaled dot-product.
  AttentionOptions attention;
  attention.score = Score::ScaledDot;
  attention.causal = model.causal;
  const bool switched = !off.heads_off.empty() || !off.layers_off.empty();
  if (!switched) {
    run.steps = model.causal ? decoder(x, model.layers)  // steps.output: T × d_model
                             : encoder(x, model.layers, NormPlacement::Pre, attention);
  } else {
    // The same layers with the intervention's heads and layers switched off (switched_layer).
    run.steps.input = x;
    const Matrix* current = &run.steps.input;
    run.steps.layers.reserve(model.layers.size());  // `current` points into this vector
    for (std::size_t l = 0; l < model.layers.size(); ++l) {
      try {
        run.steps.layers.push_back(switched_layer(*current, model.layers[l], attention, switches[l]));
      } catch (const AttentionError& e) {
        fail("layer %zu: %s", l, e.what());
      }
      current = &run.steps.layers.back().output;
    }
    run.steps.output = *current;
  }

  // 3. Final LayerNorm.
  run.final_norm = layer_norm(run.steps.output, model.final_gamma, model.final_beta);  // T × d_model

  // 4. The decoder's next words, from the last position (the encoder's guesses are fill_blank's).
  if (model.causal) run.predictions = predict(model, run, T - 1, top_k);

  // 5. Attention rollout through all layers.
  run.rollout = switched ? switched_rollout(run.steps, switches) : attention_rollout(run.steps);
  return run;
}

ModelRun run_model(const LanguageModel& model, std::string_view text, std::size_t top_k, const Intervention& off) {
  std::vector<ModelToken> tokens = model_tokens(model, text);
  ModelRun run = run_model(model, ids_of(tokens), top_k, off);
  run.tokens = std::move(tokens);
  return run;
}

namespace {

// The sentence's tokens with token `position` replaced by [MASK] (fill_blank's input), checked.
std::vector<ModelToken> masked_tokens(const LanguageModel& model, const std::vector<ModelToken>& tokens,
                                      Index position) {
  if (model.causal || model.mask_id < 0)
    fail("fill-the-blank needs an encoder (a model trained with a [MASK] token); this model is a causal decoder");
  const Index T = static_cast<Index>(tokens.size());
  if (position < 0 || position >= T)
    fail("position %lld is not a token of the sentence: it has %lld tokens, numbered 0 to %lld", ll(position), ll(T),
         ll(T - 1));
  std::vector<ModelToken> masked = tokens;
  const std::string& mask = model.vocabulary[static_cast<std::size_t>(model.mask_id)];
  masked[static_cast<std::size_t>(position)] = {mask, Lookup::Known, mask, model.mask_id, position};
  return masked;
}

// log softmax of one position's logits over the whole vocabulary, in double (the sums below add a few).
Eigen::VectorXd log_probabilities(const LanguageModel& model, const ModelRun& run, Index t) {
  const Eigen::VectorXd logits = logits_at(model, run, t).cast<double>();
  const double top = logits.maxCoeff();
  return logits.array() - (top + std::log((logits.array() - top).exp().sum()));
}

// A partial or whole guess for a pieces blank: its pieces so far and the sum of their log-probabilities.
struct Candidate {
  std::vector<Index> pieces;
  double log_probability = 0;
};

// Higher sum first; equal sums in the order of their piece ids, so the ranking is the same on every run.
bool ranks_first(const Candidate& a, const Candidate& b) {
  return a.log_probability > b.log_probability || (a.log_probability == b.log_probability && a.pieces < b.pieces);
}

// Whether `pieces` are how the vocabulary itself spells the word they join into: a guess must be a real
// segmentation ("▁of" + "s" is no guess when "ofs" is encoded otherwise).
bool canonical(const PieceVocabulary& vocabulary, const std::vector<Index>& pieces) {
  const std::vector<std::uint32_t> ids(pieces.begin(), pieces.end());
  const std::vector<std::uint32_t> again = vocabulary.encode_word(vocabulary.decode_word(ids));
  return again == ids;
}

// The whole-word candidates for a pieces blank of k masked positions, found in ranking order (ranks_first)
// by a best-first search. A candidate is k pieces: a word-start piece ("▁…", with text after the mark) at
// the first position, continuation pieces after; never <unk>, [MASK] or byte pieces; and canonical: the
// pieces are PieceVocabulary::encode_word of the text they join into. Its score is the sum of its pieces'
// log-probabilities, each at its own position of the one forward pass (added first to last).
//
// Why it is exact. Each position's allowed pieces are sorted best first (S_j). A queue entry is a
// canonical prefix P of j pieces and an index i: it stands for every candidate that extends P + S_j[i], and
// its bound is the score of the best of them, P + S_j[i] followed by each later position's best piece (the
// sum taken in the same order, so a whole candidate's bound is its score; rounding is monotone, so no
// extension scores above it). Equal bounds go in the order of that best completion's ids. Popping an entry
// pushes its sibling (P, i + 1), whose bound is no higher, and, when P + S_j[i] is canonical and not yet
// whole, its child (P + S_j[i], 0), whose bound and best completion are the entry's own. So entries leave
// the queue in ranking order, and a whole canonical candidate popped is the next one in the ranking.
// Pruning a non-canonical prefix loses nothing: the prefix of a canonical candidate is canonical, since
// BPE's merges inside a final piece never depend on pieces after it (each merge is the best-scoring,
// leftmost pair at its step, and pairs across a final piece boundary are never merged), so the prefix's
// text alone goes through the same merges (the tests hold it to brute force).
//
// The work is bounded: at most kBudget (kWordSearchBudget) entries are checked (one encode_word each) per search; a
// search that spends them stops, having returned only candidates in exact order (fill_blank then lists fewer guesses,
// head_effects marks the rank as a lower bound).
class WordSearch {
 public:
  static constexpr std::size_t kBudget = kWordSearchBudget;
  WordSearch(const WordSearch&) = delete;  // later_ holds `this`
  WordSearch& operator=(const WordSearch&) = delete;

  WordSearch(const PieceVocabulary& vocabulary, std::vector<Eigen::VectorXd> lp)
      : vocabulary_(vocabulary), lp_(std::move(lp)) {
    const std::string_view mark = PieceVocabulary::word_start;
    sorted_.resize(lp_.size());
    for (std::size_t j = 0; j < lp_.size(); ++j) {
      std::vector<Index>& s = sorted_[j];
      for (std::uint32_t id = 1; id < vocabulary.size(); ++id) {  // from 1: not <unk>; [MASK] is past size()
        if (vocabulary.is_byte(id)) continue;
        const std::string_view piece = vocabulary.piece(id);
        const bool starts = piece.substr(0, mark.size()) == mark;
        if (j == 0 ? starts && piece.size() > mark.size() : !starts) s.push_back(Index(id));
      }
      if (s.empty()) return;  // no candidate at all
      sorted_count_.push_back(0);
      sort_up_to(j, 0);
    }
    if (!lp_.empty()) push({-1, 0, 0.0});
  }

  /// The next candidate in ranking order, or false when there is none left or the budget is spent.
  /// With `limit`, stops (false) before any candidate that does not rank before it.
  bool next(Candidate& out, const Candidate* limit = nullptr) {
    while (!queue_.empty()) {
      const Entry top = queue_.front();
      if (limit) {
        const Candidate best{completion(top), top.bound};
        if (!ranks_first(best, *limit)) return false;
      }
      if (checked_ == kBudget) {
        spent_ = true;
        return false;
      }
      std::pop_heap(queue_.begin(), queue_.end(), later_);
      queue_.pop_back();
      const std::size_t j = depth(top.parent);
      const std::vector<Index>& s = sorted_[j];
      if (static_cast<std::size_t>(top.index) + 1 < s.size()) push({top.parent, top.index + 1, top.prefix});
      std::vector<Index> pieces = prefix(top.parent);
      const Index id = s[static_cast<std::size_t>(top.index)];
      pieces.push_back(id);
      ++checked_;
      if (!canonical(vocabulary_, pieces)) continue;
      const double score = top.prefix + lp_[j](id);
      if (pieces.size() == lp_.size()) {
        out = {std::move(pieces), score};
        return true;
      }
      nodes_.push_back({top.parent, id, static_cast<std::uint32_t>(j + 1)});
      push({static_cast<std::int32_t>(nodes_.size() - 1), 0, score});
    }
    return false;
  }

  bool spent() const { return spent_; }  ///< the budget ran out before the search was done

 private:
  struct Node {  // a canonical prefix: its parent prefix (−1: empty), its last piece, its length
    std::int32_t parent;
    Index piece;
    std::uint32_t length;
  };
  struct Entry {
    std::int32_t parent;  // the prefix P (a node), −1 for the empty one
    std::int32_t index;   // into sorted_[|P|]
    double prefix;        // P's score
    double bound = 0;     // the score of P + S_j[index] + each later position's best piece
  };

  std::size_t depth(std::int32_t node) const { return node < 0 ? 0 : nodes_[static_cast<std::size_t>(node)].length; }
  std::vector<Index> prefix(std::int32_t node) const {
    std::vector<Index> out(depth(node));
    for (std::int32_t n = node; n >= 0; n = nodes_[static_cast<std::size_t>(n)].parent)
      out[nodes_[static_cast<std::size_t>(n)].length - 1] = nodes_[static_cast<std::size_t>(n)].piece;
    return out;
  }
  // Sorts position j's allowed pieces (best first, equal log-probabilities by id) at least up to index i,
  // a chunk at a time: most searches look at only the first few hundred of V.
  void sort_up_to(std::size_t j, std::size_t i) {
    std::vector<Index>& s = sorted_[j];
    std::size_t& count = sorted_count_[j];
    if (i < count) return;
    const Eigen::VectorXd& l = lp_[j];
    const std::size_t upto = std::min(s.size(), std::max({i + 1, 2 * count, std::size_t(64)}));
    std::partial_sort(s.begin() + static_cast<std::ptrdiff_t>(count), s.begin() + static_cast<std::ptrdiff_t>(upto),
                      s.end(), [&](Index a, Index b) { return l(a) > l(b) || (l(a) == l(b) && a < b); });
    count = upto;
  }
  // P + S_j[index] + each later position's best piece: the entry's best candidate.
  std::vector<Index> completion(const Entry& e) const {
    std::vector<Index> out = prefix(e.parent);
    out.push_back(sorted_[out.size()][static_cast<std::size_t>(e.index)]);
    while (out.size() < sorted_.size()) out.push_back(sorted_[out.size()].front());
    return out;
  }
  void push(Entry e) {
    const std::size_t j = depth(e.parent);
    sort_up_to(j, static_cast<std::size_t>(e.index));
    e.bound = e.prefix + lp_[j](sorted_[j][static_cast<std::size_t>(e.index)]);
    for (std::size_t m = j + 1; m < sorted_.size(); ++m) e.bound += lp_[m](sorted_[m].front());
    queue_.push_back(e);
    std::push_heap(queue_.begin(), queue_.end(), later_);
  }

  const PieceVocabulary& vocabulary_;
  std::vector<Eigen::VectorXd> lp_;         // per masked position, log-probabilities over the vocabulary
  std::vector<std::vector<Index>> sorted_;  // per position, its allowed pieces best first (up to sorted_count_)
  std::vector<std::size_t> sorted_count_;   // per position, how many of sorted_ are in order
  std::vector<Node> nodes_;
  std::vector<Entry> queue_;  // a heap: the entry that ranks first at the front
  std::size_t checked_ = 0;
  bool spent_ = false;
  // The heap's order: a lower bound comes later; equal bounds, the larger best completion later.
  const std::function<bool(const Entry&, const Entry&)> later_ = [this](const Entry& a, const Entry& b) {
    if (a.bound != b.bound) return a.bound < b.bound;
    return completion(b) < completion(a);
  };
};

// Each masked position's log-probabilities over the whole vocabulary, from one run.
std::vector<Eigen::VectorXd> masked_log_probabilities(const LanguageModel& model, const ModelRun& run,
                                                      const std::vector<Index>& masked) {
  std::vector<Eigen::VectorXd> out;
  for (const Index t : masked) out.push_back(log_probabilities(model, run, t));
  return out;
}

// The top_k whole words for a pieces blank whose pieces sit at `masked` (token positions): the first
// top_k candidates of WordSearch (fewer when it spends its budget first).
std::vector<Prediction> predict_word(const LanguageModel& model, const ModelRun& run, const std::vector<Index>& masked,
                                     std::size_t top_k) {
  std::vector<Prediction> out;
  if (top_k == 0) return out;
  const PieceVocabulary& vocabulary = *model.pieces;
  WordSearch search(vocabulary, masked_log_probabilities(model, run, masked));
  for (Candidate c; out.size() < top_k && search.next(c);) {
    const std::vector<std::uint32_t> ids(c.pieces.begin(), c.pieces.end());
    out.push_back({c.pieces.front(), vocabulary.decode_word(ids), static_cast<float>(c.log_probability),
                   static_cast<float>(std::exp(c.log_probability)), c.pieces});
  }
  return out;
}

// A pieces blank's target word (its pieces, one per masked position) under one run: its probability (the
// product of its pieces' probabilities) and its rank among WordSearch's candidates (1 + those that rank
// before it), exact up to kWordRankCap candidates before it.
struct WordOdds {
  float probability;
  Index rank;
  bool rank_exact;
};
WordOdds word_odds(const LanguageModel& model, const ModelRun& run, const std::vector<Index>& masked,
                   const std::vector<Index>& target) {
  std::vector<Eigen::VectorXd> lp = masked_log_probabilities(model, run, masked);
  Candidate word{target, 0.0};
  for (std::size_t i = 0; i < target.size(); ++i) word.log_probability += lp[i](target[i]);
  WordSearch search(*model.pieces, std::move(lp));
  Index before = 0;
  for (Candidate c; before <= kWordRankCap && search.next(c, &word);) ++before;
  if (before > kWordRankCap) return {static_cast<float>(std::exp(word.log_probability)), kWordRankCap + 1, false};
  return {static_cast<float>(std::exp(word.log_probability)), before + 1, !search.spent()};
}

// A pieces encoder's sentence with every piece of word `position` replaced by [MASK], checked; `masked`
// gets those pieces' token positions.
std::vector<ModelToken> masked_word(const LanguageModel& model, const std::vector<ModelToken>& tokens, Index position,
                                    std::vector<Index>& masked) {
  const Index words = tokens.back().word + 1;
  if (position < 0 || position >= words)
    fail("position %lld is not a word of the sentence: it has %lld words, numbered 0 to %lld", ll(position), ll(words),
         ll(words - 1));
  std::vector<ModelToken> out = tokens;
  const std::string& mask = model.vocabulary[static_cast<std::size_t>(model.mask_id)];
  masked.clear();
  for (std::size_t t = 0; t < out.size(); ++t)
    if (out[t].word == position) {
      out[t] = {mask, Lookup::Known, mask, model.mask_id, position};
      masked.push_back(static_cast<Index>(t));
    }
  return out;
}

}  // namespace

FilledBlank fill_blank(const LanguageModel& model, std::string_view text, Index position, std::size_t top_k,
                       const Intervention& off) {
  if (model.causal || model.mask_id < 0)  // before tokenising: the decoder's refusal comes first
    fail("fill-the-blank needs an encoder (a model trained with a [MASK] token); this model is a causal decoder");
  FilledBlank out;
  out.tokens = model_tokens(model, text);
  out.position = position;
  if (!model.pieces) {
    std::vector<ModelToken> masked = masked_tokens(model, out.tokens, position);
    out.masked = {position};
    out.run = run_model(model, ids_of(masked), top_k, off);
    out.run.tokens = std::move(masked);
    out.run.predictions = predict(model, out.run, position, top_k);
    return out;
  }
  // A pieces model: every piece of word `position` becomes [MASK]; the guesses are whole words.
  std::vector<ModelToken> masked = masked_word(model, out.tokens, position, out.masked);
  out.run = run_model(model, ids_of(masked), top_k, off);
  out.run.tokens = std::move(masked);
  out.run.predictions = predict_word(model, out.run, out.masked, top_k);
  return out;
}

namespace {

// head_effects for a pieces encoder: the target is the hidden word's own pieces, followed by word_odds.
HeadEffects word_head_effects(const LanguageModel& model, std::string_view text, Index position,
                              const Intervention& base, Ablation mode) {
  const std::vector<ModelToken> tokens = model_tokens(model, text);
  std::vector<Index> masked;
  const std::vector<Index> ids = ids_of(masked_word(model, tokens, position, masked));
  layer_switches(model, base);  // a bad base is named before any run

  HeadEffects out;
  for (const Index t : masked) out.pieces.push_back(tokens[static_cast<std::size_t>(t)].id);
  out.target = out.pieces.front();
  out.word = model.pieces->decode_word(std::vector<std::uint32_t>(out.pieces.begin(), out.pieces.end()));
  const WordOdds plain = word_odds(model, run_model(model, ids, 0, base), masked, out.pieces);
  out.probability = plain.probability;
  out.rank = plain.rank;
  out.rank_exact = plain.rank_exact;

  Intervention off = base;  // each head in turn on top of the base, as head_effects does
  off.heads_off.push_back({});
  for (Index l = 0; l < static_cast<Index>(model.layers.size()); ++l)
    for (Index h = 0; h < model.heads; ++h) {
      off.heads_off.back() = {l, h, mode};
      const WordOdds odds = word_odds(model, run_model(model, ids, 0, off), masked, out.pieces);
      out.heads.push_back({l, h, odds.probability, odds.rank, out.probability - odds.probability, odds.rank_exact});
    }
  return out;
}

}  // namespace

HeadEffects head_effects(const LanguageModel& model, std::string_view text, Index position, const Intervention& base,
                         Ablation mode) {
  if (model.pieces && !model.causal) return word_head_effects(model, text, position, base, mode);
  const std::vector<ModelToken> tokens = model_tokens(model, text);
  const std::vector<Index> ids = ids_of(model.causal ? tokens : masked_tokens(model, tokens, position));
  const Index at = model.causal ? static_cast<Index>(tokens.size()) - 1 : position;  // the guessed position
  layer_switches(model, base);  // a bad base is named before any run

  // The target: the blank's hidden word as the model reads it; else the unablated model's top guess.
  HeadEffects out;
  out.target = model.causal ? 0 : tokens[static_cast<std::size_t>(position)].id;
  if (out.target == 0) {
    const ModelRun plain = run_model(model, ids, 0);
    out.target = predict(model, plain, at, 1).at(0).id;
  }
  out.word = model.vocabulary[static_cast<std::size_t>(out.target)];
  out.pieces = {out.target};
  std::tie(out.probability, out.rank) = odds_of(model, run_model(model, ids, 0, base), at, out.target);

  // Each head in turn, on top of the base (appended: a head already in the base takes `mode`).
  Intervention off = base;
  off.heads_off.push_back({});
  for (Index l = 0; l < static_cast<Index>(model.layers.size()); ++l)
    for (Index h = 0; h < model.heads; ++h) {
      off.heads_off.back() = {l, h, mode};
      HeadEffect effect{l, h, 0, 0, 0, true};
      std::tie(effect.probability, effect.rank) = odds_of(model, run_model(model, ids, 0, off), at, out.target);
      effect.drop = out.probability - effect.probability;
      out.heads.push_back(effect);
    }
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

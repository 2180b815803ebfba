// Embind bindings over the attention core: plain JS objects in and out, nothing recomputed here.
// Errors never cross the boundary as C++ exceptions (they leak in Emscripten 3.1.6): each entry point
// catches them and returns a JS Error, which wasm/attention.js rethrows as an AttentionError.
// Built twice (wasm/CMakeLists.txt): with ATTN_WASM_MODEL the module also binds the language model.
#include <emscripten/bind.h>
#include <emscripten/heap.h>
#include <emscripten/val.h>
#include <malloc.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "attention/attention.hpp"
#if ATTN_WASM_MODEL
#include <cmath>
#include <cstdio>

#include "attention/model.hpp"
#endif
#include "attention/nearest.hpp"
#include "attention/streaming.hpp"
#include "attention/subwords.hpp"
#include "attention/text.hpp"
#include "marshal.hpp"

using emscripten::val;
using namespace attn;
using namespace attn::wasm;

namespace {
// Size: the object bindings below are built minsize (clang's -Oz attribute) while the file stays -O3.
// They are emval glue (reads, result objects, strings, messages) whose time is the JS crossings; the maths
// they call is the core's at -O3, and Eigen's and libc++'s templates keep the file's -O3. The output-only
// path through plain numbers (below) stays out: it is the per-call fast path. Measured on the small module,
// gzip -6: 71,183 → 70,859 bytes (relaxed 71,193 → 70,862), call times unchanged (within noise). The whole
// file at -Os saved 1.3 KiB gzip more but slowed a 7-token sentence's heatmap by ~2 µs (~10 %) and the
// numbers path at T = 1 by 0.2 µs (~15 %) (its functions, or the -Os copies of inline templates that this
// file and the core both instantiate, which the link then keeps for both).
#pragma clang attribute push(__attribute__((minsize)), apply_to = function)

// Beside this file's own to_js overloads (a using-directive alone would be hidden by them).
using attn::wasm::to_js;

// ---- JS → C++ (to_matrix, copy_in: marshal.hpp) ------------------------------------------------------
// wasm/attention.js is the one place that checks what a JS caller passed is a matrix (or a vector, a
// mask, an option of the right type); the core checks the values and how the shapes fit together.
// Here each input is copied once, by one TypedArray.set straight into the storage of the C++ object
// on the wasm heap.
// A Float32Array, or undefined for none.
Vector to_vector(const val& v) {
  if (v.isUndefined()) return {};
  Vector out(v["length"].as<Index>());
  copy_in(v, out.data(), static_cast<std::size_t>(out.size()));
  return out;
}

// The options object attention.js builds (asOptions): every field present and typed. Its score is a
// value of the Score enum bound below (attention.js maps its SCORES names onto it), its byColumns true
// for a softmax down the columns (AttentionOptions::axis).
AttentionOptions to_options(const val& o, Score default_score) {
  AttentionOptions options;
  const val score = o["score"];
  // A value of another type would reach the enum's conversion as 0 (Dot): refuse it instead.
  if (!score.isUndefined() && !score["value"].isNumber())
    throw AttentionError("score must be a value of the module's Score");
  options.score = score.isUndefined() ? default_score : score.as<Score>();
  if (o["byColumns"].as<bool>()) options.axis = Axis::Columns;
  if (!o["temperature"].isUndefined()) options.temperature = o["temperature"].as<float>();
  options.causal = o["causal"].as<bool>();
  options.hand_shortcuts = o["handShortcuts"].as<bool>();
  const val padding = o["keyPadding"];  // a Uint8Array of 0/1 flags
  if (!padding.isUndefined()) {
    options.key_padding.resize(padding["length"].as<std::size_t>());
    copy_in(padding, options.key_padding.data(), options.key_padding.size());
  }
  const val additive = o["additive"];
  if (!additive.isUndefined())
    options.additive = {to_matrix(additive["W1"]), to_matrix(additive["W2"]), to_vector(additive["v"])};
  return options;
}

HeadWeights to_head(const val& w) {
  return {to_matrix(w["Wq"]), to_matrix(w["Wk"]), to_matrix(w["Wv"]),
          to_vector(w["bq"]), to_vector(w["bk"]), to_vector(w["bv"])};
}

// Which steps of a head the caller keeps: bit i for the i-th of Q, K, V, scores, scaled, weights, output
// (attention.js turns its `keep` option into these bits; all seven unless it was given). Bit 7 is the
// input X, for the sentence handle (SentenceHandle) only.
constexpr unsigned kAllSteps = 0x7f;
constexpr unsigned kKeepX = 0x80;
// The language model's run and fill read two more bits (attention.js, `wordLevel` and `fit`): bit 8, every
// head's map and the rollout also merged to words in the same call (a pieces model's page draws words
// from one crossing); bit 9, a text longer than the context is cut at a whole word rather than refused.
constexpr unsigned kWordMaps = 0x100;
constexpr unsigned kFit = 0x200;
unsigned keep_of(const val& options) {
  const val keep = options["keep"];
  return keep.isUndefined() ? kAllSteps : keep.as<unsigned>();
}

// Only the kept steps are copied out: at T = 1,024 each T×T step is 4 MB.
val to_js(const AttentionSteps& s, unsigned keep) {
  const std::pair<const char*, const Matrix*> steps[] = {{"Q", &s.Q},           {"K", &s.K},
                                                         {"V", &s.V},           {"scores", &s.scores},
                                                         {"scaled", &s.scaled}, {"weights", &s.weights},
                                                         {"output", &s.output}};
  val out = val::object();
  for (unsigned i = 0; i < 7; ++i)
    if (keep & (1u << i)) out.set(steps[i].first, to_js(*steps[i].second));
  return out;
}

// ---- entry points ---------------------------------------------------------------------------------
val softmax_js(val logits, bool by_columns, float temperature) {
  return guarded(
      [&] { return to_js(softmax(to_matrix(logits), by_columns ? Axis::Columns : Axis::Rows, temperature)); });
}

val tokenize_js(std::string text) {
  return guarded([&] {
    val out = val::array();
    for (const std::string& token : tokenize(text)) out.call<void>("push", token);
    return out;
  });
}

// The stems the core tries, in order, for a word that is not in a table (the page fetches their
// vectors' shards too, so a table of some shards looks words up exactly as the whole one would).
val stem_candidates_js(std::string word) {
  val out = val::array();
  for (const std::string& stem : stem_candidates(word)) out.call<void>("push", stem);
  return out;
}

val parameter_free_js(val X, float constant, val options) {
  return guarded([&] {
    return to_js(parameter_free_attention(to_matrix(X), constant, to_options(options, Score::Dot)), keep_of(options));
  });
}

val attention_js(val X, val weights, val options, bool by_columns) {
  return guarded([&] {
    const Matrix x = to_matrix(X);
    const HeadWeights w = to_head(weights);
    const AttentionOptions o = to_options(options, Score::ScaledDot);
    return to_js(by_columns ? attention_by_columns(x, w, o) : attention(x, w, o), keep_of(options));
  });
}

// Output only, for long inputs: the streaming (online) softmax never forms the T×T weights.
val attention_output_js(val Q, val K, val V, val options) {
  return guarded([&] {
    return to_js(
        streaming_attention_output(to_matrix(Q), to_matrix(K), to_matrix(V), to_options(options, Score::ScaledDot)));
  });
}

#pragma clang attribute pop  // the numbers path: -O3
// ---- the output-only path through plain numbers ---------------------------------------------------
// attention_output_js reads ~15 emval values a call (rows, cols and data of three matrices, the option
// fields; then the result object and its Float32Array): ≈ 15 µs, more than the core at T = 16. This path
// takes numbers only. outputOperands sizes Q, K, V and the key padding here and returns where they are;
// attention.js set()s the inputs straight into them through the module's HEAPF32/HEAPU8 (re-read after
// each call: the views are replaced when memory grows). outputRun computes and frees the inputs; JS
// slices the output out of the heap and outputRelease frees it, so nothing stays allocated between calls
// (tests/wasm/resources.test.mjs compares malloc's bytes). A failure leaves its message for outputError.
struct OutputCall {
  Matrix Q, K, V, output;
  KeyPadding padding;
  std::string error;
  // Byte addresses of Q, K, V and the padding's flags, then the output's address, rows and cols.
  std::uint32_t at[7] = {};
};
OutputCall output_call;

std::uint32_t address(const void* p) { return static_cast<std::uint32_t>(reinterpret_cast<std::uintptr_t>(p)); }

void free_output_operands() {
  OutputCall& c = output_call;
  c.Q.resize(0, 0);
  c.K.resize(0, 0);
  c.V.resize(0, 0);
  KeyPadding().swap(c.padding);
}

// Returns the byte address of `at`, or 0 (out of memory: see outputError).
std::uint32_t output_operands_js(Index q_rows, Index q_cols, Index k_rows, Index k_cols, Index v_rows, Index v_cols,
                                 std::size_t padding) {
  OutputCall& c = output_call;
  c.output.resize(0, 0);  // a previous call's, if JS never released it
  const bool ok = caught(
      [&] {
        c.Q.resize(q_rows, q_cols);
        c.K.resize(k_rows, k_cols);
        c.V.resize(v_rows, v_cols);
        c.padding.resize(padding);
      },
      c.error);
  if (!ok) {
    free_output_operands();
    return 0;
  }
  c.at[0] = address(c.Q.data());
  c.at[1] = address(c.K.data());
  c.at[2] = address(c.V.data());
  c.at[3] = address(c.padding.data());
  return address(c.at);
}

// flags: bits 0–2 the score (0: the default, scaled dot; else 1 + the value of the bound Score enum,
// as attention.js passes it), bit 3 causal, bit 4 handShortcuts. Returns 0, the output's place in `at`;
// or 1 (see outputError).
int output_run_js(unsigned flags, float temperature) {
  OutputCall& c = output_call;
  const bool ok = caught(
      [&] {
        const unsigned score = flags & 7u;
        if (score > static_cast<unsigned>(Score::Additive) + 1u) throw AttentionError("unknown score");
        AttentionOptions options;
        options.score = score == 0 ? Score::ScaledDot : static_cast<Score>(score - 1u);
        options.temperature = temperature;
        options.causal = (flags & 8u) != 0;
        options.hand_shortcuts = (flags & 16u) != 0;
        options.key_padding = std::move(c.padding);
        c.output = streaming_attention_output(c.Q, c.K, c.V, options);
      },
      c.error);
  free_output_operands();
  if (!ok) {
    c.output.resize(0, 0);
    return 1;
  }
  c.at[4] = address(c.output.data());
  c.at[5] = static_cast<std::uint32_t>(c.output.rows());
  c.at[6] = static_cast<std::uint32_t>(c.output.cols());
  return 0;
}

void output_release_js() { output_call.output.resize(0, 0); }

// The message of the last failure, once (its string is freed).
std::string output_error_js() {
  std::string message;
  message.swap(output_call.error);
  return message;
}

// The object bindings again (see the first push): minsize.
#pragma clang attribute push(__attribute__((minsize)), apply_to = function)
val terms_to_js(const QueryTerms& t) {
  val out = val::object();
  out.set("products", to_js(t.products));
  out.set("weighted", to_js(t.weighted));
  return out;
}

val query_terms_js(val steps, int query) {
  return guarded([&] {
    return terms_to_js(query_terms(to_matrix(steps["Q"]), to_matrix(steps["K"]), to_matrix(steps["V"]),
                                   to_matrix(steps["weights"]), query));
  });
}

// {heads: [{Wq, Wk, Wv, bq?, bk?, bv?}], Wo, bo?}
MultiHeadWeights to_multi_head(const val& weights) {
  MultiHeadWeights w;
  const val heads = weights["heads"];
  const unsigned count = heads["length"].as<unsigned>();
  for (unsigned h = 0; h < count; ++h) w.heads.push_back(to_head(heads[h]));
  w.W_O = to_matrix(weights["Wo"]);
  w.b_O = to_vector(weights["bo"]);
  return w;
}

val multi_head_to_js(const MultiHeadSteps& steps, unsigned keep) {
  val out = val::object();
  val head_steps = val::array();
  for (const AttentionSteps& s : steps.heads) head_steps.call<void>("push", to_js(s, keep));
  out.set("heads", head_steps);
  out.set("concat", to_js(steps.concat));
  out.set("output", to_js(steps.output));
  return out;
}

val multi_head_js(val X, val weights, val options) {
  return guarded([&] {
    return multi_head_to_js(multi_head_attention(to_matrix(X), to_multi_head(weights),
                                                 to_options(options, Score::ScaledDot)),
                            keep_of(options));
  });
}

val weighted_sum_js(val weights, val V) {
  return guarded([&] { return to_js(weighted_sum(to_matrix(weights), to_matrix(V))); });
}

val softmax_base3_terms_js(val logits, bool by_columns) {
  return guarded([&] {
    const Base3Terms t = softmax_base3_terms(to_matrix(logits), by_columns ? Axis::Columns : Axis::Rows);
    val out = val::object();
    out.set("powers", to_js(t.powers));
    out.set("sums", val::global("Float32Array")
                        .new_(emscripten::typed_memory_view(static_cast<std::size_t>(t.sums.size()), t.sums.data())));
    return out;
  });
}

const char* lookup_name(Lookup lookup) {
  switch (lookup) {
    case Lookup::Known: return "known";
    case Lookup::Stemmed: return "stemmed";
    case Lookup::Composed: return "composed";  // subword block below
    case Lookup::Unknown: break;
  }
  return "unknown";
}

val subword_pieces_js(std::string word);  // the subword block below

// An embedding's tokens as JS objects { text, lookup, matched }, and for a composed vector its pieces; for
// one composed from n-gram rows (in neither list) also `found`, the pieces whose rows were there, and
// `spelled` when it was spelled out from its letters' rows.
val tokens_of(const Embedding& e) {
  val tokens = val::array();
  for (const EmbeddedToken& t : e.tokens) {
    val token = val::object();
    token.set("text", t.text);
    token.set("lookup", std::string(lookup_name(t.lookup)));
    token.set("matched", t.matched);
    if (!t.found.empty()) {
      val found = val::array();
      for (const std::string& piece : t.found) found.call<void>("push", piece);
      token.set("found", found);
      // Spelled out (no n-gram of it trained): its pieces are its letters' rows ("<q>", "<t>"), not its n-grams.
      if (t.spelled) token.set("spelled", true);
      token.set("pieces", t.spelled ? found : subword_pieces_js(t.matched));
    } else if (t.lookup == Lookup::Composed) {
      token.set("pieces", subword_pieces_js(t.matched));
    }
    tokens.call<void>("push", token);
  }
  return tokens;
}

// The vector table lives on the wasm heap between calls; JS must delete() it.
class WordVectorsHandle {
 public:
  // Returns null on success, or an Error saying why the bytes are not a vectors file.
  val load(val bytes) {
    return guarded([&] {
      // The table keeps the file's bytes: hand it this copy rather than have it make a second one.
      table_ = WordVectors::parse(emscripten::convertJSArrayToNumberVector<std::uint8_t>(bytes));
      loaded_ = true;
      return val::null();
    });
  }
  // Attaches vectors composed from character n-grams (data/vectors-composed.bin or shards of it) for the
  // words the table lacks (WordVectors::with_composed; the subword block below). Null, or an Error.
  val attach_composed(val bytes) {
    return guarded([&] {
      if (!loaded_) throw AttentionError("load the word vectors before attaching composed ones");
      table_ = table_.with_composed(WordVectors::parse(emscripten::convertJSArrayToNumberVector<std::uint8_t>(bytes)));
      return val::null();
    });
  }
  unsigned size() const { return static_cast<unsigned>(table_.size()); }
  unsigned dim() const { return loaded_ ? static_cast<unsigned>(table_.dim()) : 0; }
  const WordVectors* table() const { return loaded_ ? &table_ : nullptr; }  // for NearestWordsHandle

  val embed(std::string text, unsigned max_tokens) const {
    return guarded([&] {
      if (!loaded_) throw AttentionError("no vectors are loaded");
      const Embedding e = table_.embed(text, max_tokens);
      val out = val::object();
      out.set("tokens", tokens_of(e));
      out.set("X", to_js(e.X));
      return out;
    });
  }

 private:
  WordVectors table_;
  bool loaded_ = false;
};

// ---- a sentence kept on the heap ------------------------------------------------------------------
// One crossing per change: the page's sentence is embedded and attended in one call, and its X (and the
// Q, K, V and weights of that head) stay here, so the multi-head view and the walkthrough's query terms
// read them without X or the steps crossing again. Only the kept steps are copied out (keep bits, with
// bit 7 for X). JS must delete() it (wasm/attention.js's SelfAttention does).
class SentenceHandle {
 public:
  // Embeds the first max_tokens tokens of text from the table and attends (see attend_held):
  // { tokens, total, ...attend_held's fields }.
  val embed_and_attend(const WordVectorsHandle& vectors, std::string text, unsigned max_tokens, val weights,
                       val options) {
    return guarded([&] {
      if (!vectors.table()) throw AttentionError("no vectors are loaded");
      Embedding e = vectors.table()->embed_first(text, max_tokens);
      clear();
      X_ = std::move(e.X);
      val out = attend_held(weights, options);
      out.set("tokens", tokens_of(e));
      out.set("total", static_cast<double>(e.total));
      return out;
    });
  }

  // The same over a given X (T × d, row convention): seed 003's rows.
  val attend_matrix(val X, val weights, val options) {
    return guarded([&] {
      clear();
      X_ = to_matrix(X);
      return attend_held(weights, options);
    });
  }

  // A copy of X, for a caller that did not keep it.
  val input() const {
    return guarded([&] {
      if (X_.size() == 0) throw AttentionError("this sentence holds no input");
      return to_js(X_);
    });
  }

  // Multi-head attention over the held X with the given heads (the weights cross, X does not).
  val multi_head(val weights, val options) const {
    return guarded([&] {
      if (X_.size() == 0) throw AttentionError("this sentence holds no input");
      return multi_head_to_js(multi_head_attention(X_, to_multi_head(weights), to_options(options, Score::ScaledDot)),
                              keep_of(options));
    });
  }

  // The terms of query i of the held head (its weights: the drawn ones, rows or columns).
  val query_terms(int query) const {
    return guarded([&] {
      if (!attended_) throw AttentionError("this sentence has not been attended");
      return terms_to_js(attn::query_terms(steps_.Q, steps_.K, steps_.V, steps_.weights, query));
    });
  }

 private:
  void clear() {
    X_.resize(0, 0);
    steps_ = AttentionSteps();
    attended_ = false;
  }

  // Attends over X_: parameter-free (weights null; the core picks the divisor for the score) or with
  // the projections {Wq, Wk, Wv, bq?, bk?, bv?}. Returns { T, d, dk, dv, divisor, steps: the kept ones,
  // X when kept }. Keeps Q, K, V and weights for query_terms and frees the rest.
  val attend_held(const val& weights, const val& options) {
    const AttentionOptions o = to_options(options, Score::ScaledDot);
    steps_ = weights.isNull() || weights.isUndefined() ? parameter_free_attention(X_, o)
                                                       : attention(X_, to_head(weights), o);
    attended_ = true;
    const unsigned keep = options["keep"].isUndefined() ? kAllSteps | kKeepX : keep_of(options);
    val out = val::object();
    out.set("steps", to_js(steps_, keep));
    if (keep & kKeepX) out.set("X", to_js(X_));
    out.set("T", static_cast<double>(X_.rows()));
    out.set("d", static_cast<double>(X_.cols()));
    out.set("dk", static_cast<double>(steps_.Q.cols()));
    out.set("dv", static_cast<double>(steps_.V.cols()));
    out.set("divisor", steps_.divisor);
    Matrix().swap(steps_.scores);
    Matrix().swap(steps_.scaled);
    Matrix().swap(steps_.output);
    return out;
  }

  Matrix X_;
  AttentionSteps steps_;
  bool attended_ = false;
};

// ---- nearest words (self-contained) ----------------------------------------------------------------
// The cosine index over a loaded table (attention/nearest.hpp), built on the first query rather than
// at load: it copies the table's int8 values (~1 MB), and most pages never ask. It reads the table's
// words, so JS deletes it before (or with) the table. Ids in as a typed array (wasm/attention.js turns
// excluded words into ids with find()), one entry point that can fail, and one out-of-line setter for
// the result objects.
__attribute__((noinline)) void put_field(val& object, const char* key, const val& value) { object.set(key, value); }

class NearestWordsHandle {
 public:
  explicit NearestWordsHandle(const WordVectorsHandle& vectors) : vectors_(&vectors) {}

  // The row of a word, or -1.
  int find(std::string word) const { return vectors_->table() ? static_cast<int>(vectors_->table()->find(word)) : -1; }

  // vector: dim values (Float32Array); exclude: row ids (Int32Array). Returns [{ word, id, similarity }],
  // best first, or an Error.
  val nearest(val vector, double k, val exclude) {
    return guarded([&] {
      const WordVectors* table = vectors_->table();
      if (!table) throw AttentionError("no vectors are loaded");
      if (!built_) index_ = NearestWords(*table);
      built_ = true;
      const std::vector<float> q = emscripten::convertJSArrayToNumberVector<float>(vector);
      const std::vector<int> ids = emscripten::convertJSArrayToNumberVector<int>(exclude);
      // k arrives as a JS number: clamped into Index's range (32 bits in wasm32) before the cast.
      const Index wanted = static_cast<Index>(
          std::clamp(k, double(std::numeric_limits<int>::min()), double(std::numeric_limits<int>::max())));
      val out = val::array();
      const std::vector<Index> skip(ids.begin(), ids.end());
      for (const Neighbour& n : index_.nearest(q.data(), static_cast<Index>(q.size()), wanted, skip)) {
        val neighbour = val::object();
        put_field(neighbour, "word", val(std::string(table->word(static_cast<std::size_t>(n.id)))));
        put_field(neighbour, "id", val(static_cast<double>(n.id)));
        put_field(neighbour, "similarity", val(static_cast<double>(n.similarity)));
        out.call<void>("push", neighbour);
      }
      return out;
    });
  }

 private:
  const WordVectorsHandle* vectors_;  // attention.js loads a table once per handle, before this exists
  NearestWords index_;
  bool built_ = false;
};

#if ATTN_WASM_MODEL
// The JS objects of a model run are built through these out-of-line setters: inlined, every
// val::set would add its own conversions and reference counting to the shipped wasm.
__attribute__((noinline)) void put(val& object, const char* key, const val& value) { object.set(key, value); }
__attribute__((noinline)) void put(val& object, const char* key, double value) { object.set(key, value); }
__attribute__((noinline)) void put(val& object, const char* key, const std::string& value) { object.set(key, value); }
__attribute__((noinline)) void push(val& array, const val& value) { array.call<void>("push", value); }

// A vector as a JS-owned Float32Array copy (see to_js for why a copy).
val to_js_vector(const Vector& v) {
  return val::global("Float32Array").new_(emscripten::typed_memory_view(static_cast<std::size_t>(v.size()), v.data()));
}

// The tokens of a run, each with its lookup (known, stemmed, unknown), vocabulary id and the index of the
// sentence's word it belongs to (a pieces model's pieces share their word's; a words model's token is its
// own word).
val tokens_to_js(const std::vector<ModelToken>& tokens) {
  val out = val::array();
  for (const ModelToken& t : tokens) {
    val token = val::object();
    put(token, "text", t.text);
    put(token, "lookup", std::string(lookup_name(t.lookup)));
    put(token, "matched", t.matched);
    put(token, "id", static_cast<double>(t.id));
    put(token, "word", static_cast<double>(t.word));
    push(out, token);
  }
  return out;
}

// How the page labels vocabulary entry `id`: a pieces model's piece the BertViz way ("sta", "##tion"), a
// words model's word as stored.
std::string entry_label(const LanguageModel& model, Index id) {
  if (model.pieces && id >= 0 && static_cast<std::size_t>(id) < model.pieces->size())
    return model.pieces->label(static_cast<std::uint32_t>(id));
  return model.vocabulary.at(static_cast<std::size_t>(id));
}

// The JS object of a run: the tokens, every step of every layer (of each head's steps only the kept
// ones, see to_js), the rollout, the predictions and the captions.
val run_to_js(const LanguageModel& model, const ModelRun& r, unsigned keep, const val& captions) {
  val out = val::object();
  put(out, "tokens", tokens_to_js(r.tokens));
  put(out, "input", to_js(r.steps.input));
  val layers = val::array();
  for (const LayerSteps& layer : r.steps.layers) {
    val heads = val::array();
    for (const AttentionSteps& head : layer.attention.heads) push(heads, to_js(head, keep));
    val steps = val::object();
    put(steps, "attentionInput", to_js(layer.attention_input));  // LN1(x): what the heads read
    put(steps, "heads", heads);
    put(steps, "concat", to_js(layer.attention.concat));           // the heads' outputs side by side
    put(steps, "multiHeadOutput", to_js(layer.attention.output));  // concat·W_O + b_O
    put(steps, "afterAttention", to_js(layer.after_attention));
    put(steps, "output", to_js(layer.output));
    push(layers, steps);
  }
  put(out, "layers", layers);
  put(out, "finalNorm", to_js(r.final_norm));
  put(out, "rollout", to_js(r.rollout));
  val predictions = val::array();
  for (const Prediction& p : r.predictions) {
    val prediction = val::object();
    put(prediction, "word", p.word);
    put(prediction, "id", static_cast<double>(p.id));
    put(prediction, "logit", static_cast<double>(p.logit));
    put(prediction, "probability", static_cast<double>(p.probability));
    // The guess's ids (a pieces encoder's whole word: one per masked position; otherwise [id]) and labels.
    val ids = val::array(), labels = val::array();
    for (const Index id : p.pieces) {
      push(ids, val(static_cast<double>(id)));
      push(labels, val(entry_label(model, id)));
    }
    put(prediction, "pieces", ids);
    put(prediction, "labels", labels);
    push(predictions, prediction);
  }
  put(out, "predictions", predictions);
  put(out, "captions", captions);
  return out;
}

// Every head's map and the rollout of a run merged to words (attn::merge_pieces_to_words: the sum over a
// word's keys, the mean over its queries), with each word's text: { words, labels, heads[layer][head],
// rollout }. A words model's maps come back as they are (each word is its own token).
val word_maps_to_js(const LanguageModel& model, const ModelRun& r) {
  std::vector<std::uint32_t> word_of;
  val labels = val::array();
  std::vector<std::uint32_t> ids;  // the current word's pieces, for its text
  const auto flush = [&] {         // a word the blank hides reads [MASK] once, not once per piece
    const bool masked = !model.causal && !ids.empty() && std::all_of(ids.begin(), ids.end(), [&](std::uint32_t id) {
      return Index(id) == model.mask_id;
    });
    if (!ids.empty())
      push(labels,
           val(masked ? model.vocabulary[static_cast<std::size_t>(model.mask_id)] : model.pieces->decode_word(ids)));
    ids.clear();
  };
  for (const ModelToken& t : r.tokens) {
    if (!word_of.empty() && static_cast<std::uint32_t>(t.word) != word_of.back() && model.pieces) flush();
    word_of.push_back(static_cast<std::uint32_t>(t.word));
    if (model.pieces)
      ids.push_back(static_cast<std::uint32_t>(t.id));
    else
      push(labels, val(t.text));
  }
  if (model.pieces) flush();
  val heads = val::array();
  for (const LayerSteps& layer : r.steps.layers) {
    val maps = val::array();
    for (const AttentionSteps& head : layer.attention.heads)
      push(maps, to_js(merge_pieces_to_words(head.weights, word_of)));
    push(heads, maps);
  }
  val out = val::object();
  put(out, "words", static_cast<double>(word_of.empty() ? 0 : word_of.back() + 1));
  put(out, "labels", labels);
  put(out, "heads", heads);
  put(out, "rollout", to_js(merge_pieces_to_words(r.rollout, word_of)));
  return out;
}

// What to switch off, as attention.js's asIntervention lays it out: { heads: Int32Array of (layer, head)
// pairs, mode: 0 zero, 1 mean, 2 uniform (for every listed head), layers: Int32Array, positions: bool },
// or undefined/null for none. The core checks the layers and heads against the model.
Intervention intervention_from_js(const val& off) {
  Intervention out;
  if (off.isUndefined() || off.isNull()) return out;
  const std::vector<int> heads = emscripten::convertJSArrayToNumberVector<int>(off["heads"]);
  const int mode = off["mode"].as<int>();
  if (mode < 0 || mode > 2) throw AttentionError("unknown way of switching heads off");
  for (std::size_t i = 0; i + 1 < heads.size(); i += 2)
    out.heads_off.push_back({heads[i], heads[i + 1], static_cast<Ablation>(mode)});
  for (const int layer : emscripten::convertJSArrayToNumberVector<int>(off["layers"])) out.layers_off.push_back(layer);
  out.positions_off = off["positions"].as<bool>();
  return out;
}

// The language model (the decoder of model.bin or the encoder of encoder.bin) lives on the wasm heap
// between calls; JS must delete() it.
class LanguageModelHandle {
 public:
  // Returns null on success, or an Error saying why the bytes are not a model file.
  val load(val bytes) {
    return guarded([&] {
      const std::vector<std::uint8_t> data = emscripten::convertJSArrayToNumberVector<std::uint8_t>(bytes);
      model_ = LanguageModel::parse(data.data(), data.size());
      loaded_ = true;
      return val::null();
    });
  }

  // Hyperparameters, the kind of model and the head captions ([layer][head]).
  val info() const {
    val out = val::object();
    put(out, "kind", std::string(model_.causal ? "decoder" : "encoder"));
    put(out, "vocabulary", std::string(model_.pieces ? "pieces" : "words"));
    put(out, "vocabularySize", static_cast<double>(model_.vocabulary.size()));
    put(out, "dModel", static_cast<double>(model_.d_model));
    put(out, "heads", static_cast<double>(model_.heads));
    put(out, "layers", static_cast<double>(model_.layers.size()));
    put(out, "dFF", static_cast<double>(model_.d_ff));
    put(out, "context", static_cast<double>(model_.context));
    if (!model_.causal) put(out, "maskToken", model_.vocabulary[static_cast<std::size_t>(model_.mask_id)]);
    put(out, "captions", captions());
    return out;
  }

  // Every step of the forward pass on a sentence, the rollout and (decoder) the top_k next words.
  // `off`: what to switch off (intervention_from_js).
  val run(std::string text, unsigned top_k, unsigned keep, val off) const {
    return guarded([&] {
      if (!loaded_) throw AttentionError("no model is loaded");
      val cut = val::null();
      std::size_t words = 0;
      if (keep & kFit) text = fit(text, cut, words);
      const ModelRun r = run_model(model_, text, top_k, intervention_from_js(off));
      val out = run_to_js(model_, r, keep, captions());
      if (keep & kWordMaps) put(out, "wordMaps", word_maps_to_js(model_, r));
      if (keep & kFit) put(out, "fitted", fitted_to_js(text, cut));
      return out;
    });
  }

  // Fill the blank (encoder): the sentence's tokens as written, the blank's position, the top_k guesses
  // for it, and the run on the sentence with that token replaced by [MASK].
  val fill(std::string text, double position, unsigned top_k, unsigned keep, val off) const {
    return guarded([&] {
      if (!loaded_) throw AttentionError("no model is loaded");
      // position arrives as a JS number: clamped into Index's range (32 bits in wasm32) before the cast;
      // fill_blank names the valid range.
      const Index at = static_cast<Index>(
          std::clamp(position, double(std::numeric_limits<int>::min()), double(std::numeric_limits<int>::max())));
      val cut = val::null();
      Index word = at;
      if (keep & kFit) {
        std::size_t words = 0;
        text = fit(text, cut, words);
        // A blank past the (cut) text's words moves to its last word, as the page keeps its blank.
        if (words > 0) word = std::min<Index>(at, static_cast<Index>(words) - 1);
      }
      const FilledBlank blank = fill_blank(model_, text, word, top_k, intervention_from_js(off));
      val run = run_to_js(model_, blank.run, keep, captions());
      if (keep & kWordMaps) put(run, "wordMaps", word_maps_to_js(model_, blank.run));
      val out = val::object();
      put(out, "tokens", tokens_to_js(blank.tokens));
      put(out, "position", static_cast<double>(blank.position));
      val masked = val::array();
      for (const Index t : blank.masked) push(masked, val(static_cast<double>(t)));
      put(out, "masked", masked);
      put(out, "guesses", run["predictions"]);
      put(out, "run", run);
      if (keep & kFit) put(out, "fitted", fitted_to_js(text, cut));
      return out;
    });
  }

  // The text cut to what the context holds, at a whole word (words joined by spaces tokenise back to
  // themselves, so the cut text runs as it reads); `cut` is set to { words, pieces, totalWords,
  // totalPieces } when it was cut (the counts of what is kept, then of the whole text), else left null;
  // word_count to the words it holds. A pieces model counts pieces: the first words whose pieces all fit.
  std::string fit(const std::string& text, val& cut, std::size_t& word_count) const {
    std::vector<std::string> words;
    std::size_t kept = 0, tokens = 0, total = 0;
    const std::size_t context = static_cast<std::size_t>(model_.context);
    if (model_.pieces) {
      const PieceEncoding encoding = model_.pieces->encode(text);
      words = encoding.words;
      word_count = words.size();
      total = encoding.ids.size();
      if (total <= context) return text;
      kept = encoding.word_of[context];  // the word of the first piece past the context: kept are those before it
      // A first word longer than the whole context cannot be cut at a word: the core refuses it by name.
      if (kept == 0) return text;
      tokens = static_cast<std::size_t>(
          std::find(encoding.word_of.begin(), encoding.word_of.end(), static_cast<std::uint32_t>(kept)) -
          encoding.word_of.begin());
    } else {
      words = tokenize(text);
      word_count = total = words.size();
      if (total <= context) return text;
      kept = tokens = context;
    }
    word_count = kept;
    std::string out;
    for (std::size_t w = 0; w < kept; ++w) out += (w ? " " : "") + words[w];
    cut = val::object();
    put(cut, "words", static_cast<double>(kept));
    put(cut, "pieces", static_cast<double>(tokens));
    put(cut, "totalWords", static_cast<double>(words.size()));
    put(cut, "totalPieces", static_cast<double>(total));
    return out;
  }
  static val fitted_to_js(const std::string& text, const val& cut) {
    val out = val::object();
    put(out, "text", text);
    put(out, "cut", cut);
    return out;
  }

  // Which heads matter for one guess (attn::head_effects): `off` the base intervention, `mode` (0 zero,
  // 1 mean, 2 uniform) how each head is switched off in turn. { target: { id, word, pieces }, probability,
  // rank, heads: [{ layer, head, probability, rank, drop }] }, layer-major; `pieces` the target's ids (a
  // pieces encoder: the hidden word's, else [id]). A pieces encoder's result and heads also have rankExact
  // (false: rank is a lower bound, past attn::kWordRankCap); a words model's and a decoder's ranks are
  // always exact, and their results keep their shape.
  val head_effects(std::string text, double position, val off, int mode) const {
    return guarded([&] {
      if (!loaded_) throw AttentionError("no model is loaded");
      if (mode < 0 || mode > 2) throw AttentionError("unknown way of switching heads off");
      const Index at = static_cast<Index>(
          std::clamp(position, double(std::numeric_limits<int>::min()), double(std::numeric_limits<int>::max())));
      const HeadEffects effects = attn::head_effects(model_, text, at, intervention_from_js(off),
                                                     static_cast<Ablation>(mode));
      const bool whole_word = model_.pieces && !model_.causal;  // ranks that may be lower bounds
      val target = val::object();
      put(target, "id", static_cast<double>(effects.target));
      put(target, "word", effects.word);
      val pieces = val::array();
      for (const Index id : effects.pieces) push(pieces, val(static_cast<double>(id)));
      put(target, "pieces", pieces);
      val heads = val::array();
      for (const HeadEffect& e : effects.heads) {
        val head = val::object();
        put(head, "layer", static_cast<double>(e.layer));
        put(head, "head", static_cast<double>(e.head));
        put(head, "probability", static_cast<double>(e.probability));
        put(head, "rank", static_cast<double>(e.rank));
        if (whole_word) put(head, "rankExact", val(e.rank_exact));
        put(head, "drop", static_cast<double>(e.drop));
        push(heads, head);
      }
      val out = val::object();
      put(out, "target", target);
      put(out, "probability", static_cast<double>(effects.probability));
      put(out, "rank", static_cast<double>(effects.rank));
      if (whole_word) put(out, "rankExact", val(effects.rank_exact));
      put(out, "heads", heads);
      return out;
    });
  }

  // A piece-level map (queries × keys) as a word-level one: attn::merge_pieces_to_words (the sum over a
  // word's keys, the mean over its queries). word_of: each piece's word (Int32Array, checked by
  // attention.js to hold whole numbers ≥ 0; the core checks the rest). Needs no model.
  static val merge_pieces(val weights, val word_of) {
    return guarded([&] {
      const Matrix piece_weights = to_matrix(weights);
      const std::vector<std::uint32_t> words = emscripten::convertJSArrayToNumberVector<std::uint32_t>(word_of);
      return to_js(merge_pieces_to_words(piece_weights, words));
    });
  }

  // A word's id in the vocabulary, or -1.
  int find(std::string word) const { return loaded_ ? static_cast<int>(model_.find(word)) : -1; }

  // The model's nearest words to a vector of its stream (attn::nearest_embeddings): vector d_model values
  // (Float32Array), exclude ids (Int32Array), final_norm: read through LN_f first. [{ word, id, similarity }],
  // `word` a pieces model's piece labelled as its tokens are.
  val nearest(val vector, double k, val exclude, bool final_norm) const {
    return guarded([&] {
      if (!loaded_) throw AttentionError("no model is loaded");
      const std::vector<float> q = emscripten::convertJSArrayToNumberVector<float>(vector);
      const std::vector<int> ids = emscripten::convertJSArrayToNumberVector<int>(exclude);
      const Index wanted = static_cast<Index>(
          std::clamp(k, double(std::numeric_limits<int>::min()), double(std::numeric_limits<int>::max())));
      val out = val::array();
      for (const Neighbour& n : nearest_embeddings(model_, q.data(), static_cast<Index>(q.size()), wanted,
                                                   std::vector<Index>(ids.begin(), ids.end()), final_norm)) {
        val neighbour = val::object();
        // A pieces model's neighbour is labelled as its tokens are (BertViz: "river", "##s"), not "▁river".
        put(neighbour, "word",
            model_.pieces ? model_.pieces->label(static_cast<std::uint32_t>(n.id))
                          : model_.vocabulary[static_cast<std::size_t>(n.id)]);
        put(neighbour, "id", static_cast<double>(n.id));
        put(neighbour, "similarity", static_cast<double>(n.similarity));
        push(out, neighbour);
      }
      return out;
    });
  }

  // One layer's learnt attention weights, copied out: per head Wq, Wk, Wv (d_model × d_k) and bq, bk,
  // bv (d_k entries), then Wo (heads·d_k × d_model) and bo (d_model entries). `layer` counts from 0.
  val attention_weights(double layer) const {
    return guarded([&] {
      if (!loaded_) throw AttentionError("no model is loaded");
      const std::size_t count = model_.layers.size();
      if (!(layer >= 0 && layer < static_cast<double>(count) && layer == std::floor(layer))) {
        char message[160];
        std::snprintf(message, sizeof message, "layer %g is out of range: the model has %zu layers, numbered 0 to %zu",
                      layer, count, count - 1);
        throw AttentionError(message);
      }
      const MultiHeadWeights& w = model_.layers[static_cast<std::size_t>(layer)].attention;
      val heads = val::array();
      for (const HeadWeights& head : w.heads) {
        val out = val::object();
        put(out, "Wq", to_js(head.W_Q));
        put(out, "Wk", to_js(head.W_K));
        put(out, "Wv", to_js(head.W_V));
        put(out, "bq", to_js_vector(head.b_Q));
        put(out, "bk", to_js_vector(head.b_K));
        put(out, "bv", to_js_vector(head.b_V));
        push(heads, out);
      }
      val out = val::object();
      put(out, "heads", heads);
      put(out, "Wo", to_js(w.W_O));
      put(out, "bo", to_js_vector(w.b_O));
      return out;
    });
  }

 private:
  val captions() const {
    val out = val::array();
    const std::size_t heads = static_cast<std::size_t>(model_.heads);
    for (std::size_t l = 0; l < model_.layers.size(); ++l) {
      val layer = val::array();
      for (std::size_t h = 0; h < heads && l * heads + h < model_.captions.size(); ++h)
        push(layer, val(model_.captions[l * heads + h]));
      push(out, layer);
    }
    return out;
  }

  LanguageModel model_;
  bool loaded_ = false;
};
#endif  // ATTN_WASM_MODEL

// For leak tests: the wasm heap's size and the bytes malloc has handed out and not had back.
val memory_stats_js() {
  const struct mallinfo info = mallinfo();
  val out = val::object();
  out.set("heapBytes", static_cast<double>(emscripten_get_heap_size()));
  out.set("mallocBytes", static_cast<double>(info.uordblks));
  return out;
}

// ---- subwords (issue 24): how a composed vector was made ------------------------------------------------
// fastText's character n-grams of a word (attention/subwords.hpp), "<" and ">" marking its ends: the
// pieces whose rows a composed vector averages. An empty word has none (an empty array, not an error).
val subword_pieces_js(std::string word) {
  val out = val::array();
  if (word.empty()) return out;
  for (const Subword& piece : fasttext_subwords(word)) out.call<void>("push", piece.text);
  return out;
}

#pragma clang attribute pop
}  // namespace

EMSCRIPTEN_BINDINGS(attention_core) {
  // The score vocabulary's one binding: attention.js's SCORES names these values (its `core` field).
  emscripten::enum_<Score>("Score")
      .value("Dot", Score::Dot)
      .value("ScaledDot", Score::ScaledDot)
      .value("Cosine", Score::Cosine)
      .value("Additive", Score::Additive);
  emscripten::function("memoryStats", &memory_stats_js);
  emscripten::function("softmax", &softmax_js);
  emscripten::function("tokenize", &tokenize_js);
  emscripten::function("stemCandidates", &stem_candidates_js);
  emscripten::function("parameterFree", &parameter_free_js);
  emscripten::function("attention", &attention_js);
  emscripten::function("multiHead", &multi_head_js);
  emscripten::function("attentionOutput", &attention_output_js);
  emscripten::function("outputOperands", &output_operands_js);
  emscripten::function("outputRun", &output_run_js);
  emscripten::function("outputRelease", &output_release_js);
  emscripten::function("outputError", &output_error_js);
  emscripten::function("queryTerms", &query_terms_js);
  emscripten::function("weightedSum", &weighted_sum_js);
  emscripten::function("softmaxBase3Terms", &softmax_base3_terms_js);
  emscripten::class_<WordVectorsHandle>("WordVectors")
      .constructor<>()
      .function("load", &WordVectorsHandle::load)
      .function("attachComposed", &WordVectorsHandle::attach_composed)
      .function("size", &WordVectorsHandle::size)
      .function("dim", &WordVectorsHandle::dim)
      .function("embed", &WordVectorsHandle::embed);
  emscripten::class_<SentenceHandle>("Sentence")
      .constructor<>()
      .function("embedAndAttend", &SentenceHandle::embed_and_attend)
      .function("attendMatrix", &SentenceHandle::attend_matrix)
      .function("input", &SentenceHandle::input)
      .function("multiHead", &SentenceHandle::multi_head)
      .function("queryTerms", &SentenceHandle::query_terms);
  emscripten::class_<NearestWordsHandle>("NearestWords")
      .constructor<const WordVectorsHandle&>()
      .function("find", &NearestWordsHandle::find)
      .function("nearest", &NearestWordsHandle::nearest);
#if ATTN_WASM_MODEL
  emscripten::class_<LanguageModelHandle>("LanguageModel")
      .constructor<>()
      .function("load", &LanguageModelHandle::load)
      .function("info", &LanguageModelHandle::info)
      .function("run", &LanguageModelHandle::run)
      .function("fill", &LanguageModelHandle::fill)
      .function("headEffects", &LanguageModelHandle::head_effects)
      .function("attentionWeights", &LanguageModelHandle::attention_weights)
      .function("find", &LanguageModelHandle::find)
      .function("nearest", &LanguageModelHandle::nearest)
      .class_function("mergePieces", &LanguageModelHandle::merge_pieces);
#endif
}

// The subword additions (issue 24), kept apart from the bindings above.
EMSCRIPTEN_BINDINGS(attention_subwords) { emscripten::function("subwordPieces", &subword_pieces_js); }

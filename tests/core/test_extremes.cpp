// Extremes: logits of ±1e4 and ±1e30, denormals, all-equal rows, T = 1, d = 1, fully masked rows,
// overflowing inputs, and NaN/Inf inputs. Every result is finite and defined (a fully masked row has
// zero weights); every NaN/Inf input, and every overflow, is refused with a message saying what.
#include <cstring>
#include <limits>

#include "attention/streaming.hpp"
#include "attention/text.hpp"
#include "helpers.hpp"

using namespace attn;
using Catch::Contains;

namespace {

const float kNaN = std::numeric_limits<float>::quiet_NaN();
const float kInf = std::numeric_limits<float>::infinity();
const float kDenorm = std::numeric_limits<float>::denorm_min();  // 1.4e-45
const float kMax = std::numeric_limits<float>::max();

HeadWeights identity_head(Index d) {
  return {Matrix::Identity(d, d), Matrix::Identity(d, d), Matrix::Identity(d, d), {}, {}, {}};
}

// Weights: finite, in [0, 1], each row summing to 1 (or all zero when `zero_rows` says so).
void require_weights(const Matrix& w, std::vector<Index> zero_rows = {}) {
  REQUIRE(w.allFinite());
  for (Index r = 0; r < w.rows(); ++r) {
    INFO("row " << r);
    REQUIRE(w.row(r).minCoeff() >= 0.0f);
    REQUIRE(w.row(r).maxCoeff() <= 1.0f);
    const bool zero = std::find(zero_rows.begin(), zero_rows.end(), r) != zero_rows.end();
    REQUIRE(w.row(r).sum() == Approx(zero ? 0.0f : 1.0f).margin(1e-6));
    if (zero) REQUIRE(w.row(r).isZero(0));
  }
}

}  // namespace

TEST_CASE("softmax of ±1e4 and ±1e30 logits is exact where the maths is", "[extremes]") {
  const Matrix w = softmax(
      rows({{1e4f, -1e4f, 0}, {1e30f, -1e30f, 0}, {-1e30f, -1e30f, -1e30f}, {1e4f, 1e4f - 1, -1e30f}}));
  require_weights(w);
  require_close(w.row(0), rows({{1, 0, 0}}), 0);
  require_close(w.row(1), rows({{1, 0, 0}}), 0);
  require_close(w.row(2), rows({{1.0f / 3, 1.0f / 3, 1.0f / 3}}), 1e-7f);
  // 1e4 and 9999 are 1 apart: e/(1+e) and 1/(1+e), whatever the offset.
  require_close(w.row(3), rows({{0.7310586f, 0.2689414f, 0}}), 1e-6f);
  // Columns too, and temperatures that make 1/T overflow or vanish.
  require_weights(softmax(rows({{1e30f, -1e30f}, {-1e30f, 1e30f}}), Axis::Columns).transpose());
  require_close(softmax(rows({{1, 2, 3}}), Axis::Rows, 1e-30f), rows({{0, 0, 1}}), 0);
  require_close(softmax(rows({{1e30f, -1e30f}}), Axis::Rows, 1e30f), rows({{0.8807971f, 0.1192029f}}), 1e-6f);
  require_close(softmax(rows({{1e30f, -1e30f}}), Axis::Rows, kMax), rows({{0.5f, 0.5f}}), 1e-6f);
}

TEST_CASE("denormal and all-equal logits give even weights", "[extremes]") {
  const Matrix w = softmax(rows({{kDenorm, 0, -kDenorm}, {5, 5, 5}, {-7e29f, -7e29f, -7e29f}, {kMax, kMax, kMax}}));
  require_weights(w);
  for (Index r = 0; r < 4; ++r) require_close(w.row(r), rows({{1.0f / 3, 1.0f / 3, 1.0f / 3}}), 1e-7f);
  // Through attention: denormal tokens score ~0 against each other, so every row is uniform, and the
  // output is the mean of the values.
  const Matrix X = Matrix::Constant(4, 3, 1e-40f);
  for (Score score : {Score::Dot, Score::ScaledDot, Score::Cosine}) {
    AttentionOptions o;
    o.score = score;
    const AttentionSteps s = attention(X, identity_head(3), o);
    require_weights(s.weights);
    require_close(s.weights, Matrix::Constant(4, 4, 0.25f), 1e-7f);
    REQUIRE(s.output.allFinite());
  }
}

TEST_CASE("cosine scores of huge and denormal vectors are the cosines", "[extremes]") {
  // |q|·|k| of such rows overflows (or underflows to 0) in float32; the result must not.
  const Matrix Q = rows({{1e30f, 1e30f}, {kDenorm, kDenorm}, {3e38f, -3e38f}, {0, 0}});
  const Matrix s = cosine_scores(Q, Q);
  REQUIRE(s.allFinite());
  require_close(s, rows({{1, 1, 0, 0}, {1, 1, 0, 0}, {0, 0, 1, 0}, {0, 0, 0, 0}}), 1e-6f);
  const Matrix streamed = streaming_attention_output(Q, Q, Matrix::Identity(4, 4), {Score::Cosine});
  REQUIRE(streamed.allFinite());
  AttentionOptions o;
  o.score = Score::Cosine;
  require_close(streamed, attention(Q, identity_head(2), o).weights * Matrix::Identity(4, 4), 1e-6f);
}

TEST_CASE("scores of ±1e4 and ±1e30 through every entry point", "[extremes]") {
  // Parameter-free: X·Xᵀ of ±1e15 entries is ±1e30.
  for (float x : {1e2f, 1e15f}) {
    const Matrix X = rows({{x, 0}, {-x, 0}, {0, x}});
    AttentionOptions o;
    o.score = Score::Dot;
    const AttentionSteps s = parameter_free_attention(X, 1.0f, o);
    require_weights(s.weights);
    // Each token's own score x² beats everything: one-hot weights, the output is the token itself.
    require_close(s.weights, Matrix::Identity(3, 3), 0);
    require_close(s.output, X, 0);
    const Matrix streamed = streaming_attention_output(X, X, X, o);
    require_close(streamed, X, 0);
  }
  // Multi-head and batched, scores ±1e4.
  const Matrix X = rows({{100, 0}, {0, 100}, {-100, 0}});
  const MultiHeadWeights w = split_heads(Matrix::Identity(2, 2), Matrix::Identity(2, 2), Matrix::Identity(2, 2),
                                         Matrix::Identity(2, 2), 2);
  AttentionOptions o;
  o.score = Score::Dot;
  const MultiHeadSteps m = multi_head_attention(X, w, o);
  for (const AttentionSteps& h : m.heads) require_weights(h.weights);
  REQUIRE(m.output.allFinite());
  Batch b(2, 3, 2);
  b.item(0) = X;
  b.item(1) = -X;
  const BatchResult r = batched_attention(b, w, o, {{0, 0, 1}, {1, 1, 0}});
  for (const auto& item : r.weights)
    for (const Matrix& weights : item) require_weights(weights);
  for (float x : r.output.data) REQUIRE(std::isfinite(x));
}

TEST_CASE("T = 1 and d = 1", "[extremes]") {
  const Matrix X = rows({{2.5f}});
  for (Score score : {Score::Dot, Score::ScaledDot, Score::Cosine}) {
    AttentionOptions o;
    o.score = score;
    o.causal = true;
    const AttentionSteps s = attention(X, identity_head(1), o);
    require_close(s.weights, rows({{1}}), 0);
    require_close(s.output, X, 0);
    require_close(attention_by_columns(X, identity_head(1), o).output, X, 0);
  }
  AttentionOptions o;
  o.score = Score::Dot;
  require_close(parameter_free_attention(X, 1.0f, o).output, X, 0);
  require_close(softmax(rows({{-1e30f}})), rows({{1}}), 0);
  // d = 1 with many tokens.
  const AttentionSteps s = attention(rows({{1}, {2}, {3}}), identity_head(1));
  require_weights(s.weights);
}

TEST_CASE("fully masked rows get zero weights and a zero output, never NaN", "[extremes]") {
  const Matrix X = rows({{1, 2}, {3, 4}, {5, 6}});
  for (Score score : {Score::Dot, Score::ScaledDot, Score::Cosine}) {
    AttentionOptions o;
    o.score = score;
    o.key_padding = {1, 1, 1};  // every key hidden
    AttentionSteps s = attention(X, identity_head(2), o);
    require_weights(s.weights, {0, 1, 2});
    REQUIRE(s.output.isZero(0));
    // Causal with key 0 padded: query 0 sees nothing, the others see key 1 and on.
    o.key_padding = {1, 0, 0};
    o.causal = true;
    s = attention(X, identity_head(2), o);
    require_weights(s.weights, {0});
    REQUIRE(s.output.row(0).isZero(0));
    REQUIRE(s.weights(1, 1) == 1.0f);
    require_close(streaming_attention_output(X, X, X, o), s.weights * X, 1e-5f);
  }
  require_weights(softmax(rows({{-kInf, -kInf}, {-kInf, 0}})), {0});
  require_weights(softmax_base3(rows({{-kInf, -kInf}, {-kInf, 0}})), {0});
  require_weights(softmax(rows({{-kInf, -kInf}, {-kInf, 0}}), Axis::Columns).transpose(), {0});
}

TEST_CASE("the 3^x hand softmax of very negative or many large scores still sums to 1", "[extremes]") {
  // 3^-100 underflows float32 to 0; ten of 3^79 overflow the sum.
  require_close(softmax_base3(rows({{-100, -100}})), rows({{0.5f, 0.5f}}), 1e-7f);
  require_close(softmax_base3(rows({{-1e30f, 0}})), rows({{0, 1}}), 0);
  require_weights(softmax_base3(Matrix::Constant(1, 10, 79)));
  require_close(softmax_base3(Matrix::Constant(1, 10, 79)), Matrix::Constant(1, 10, 0.1f), 1e-7f);
}

TEST_CASE("finite inputs that overflow float32 are refused with a clear error", "[extremes]") {
  const Matrix X = Matrix::Constant(2, 2, 1e20f);
  HeadWeights w = identity_head(2);
  w.W_V *= 1e20f;  // V = X·W_V = 1e40
  REQUIRE_THROWS_WITH(attention(X, w), Contains("V (2×2) overflows float32"));
  REQUIRE_THROWS_WITH(attention(X, identity_head(2), {Score::Dot}), Contains("scores (2×2) overflows float32"));
  AttentionOptions cold;
  cold.temperature = 1e-38f;  // 1e4 / 1e-38 = 1e42
  REQUIRE_THROWS_WITH(attention(Matrix::Constant(2, 2, 100), identity_head(2), cold), Contains("temperature"));
  REQUIRE_THROWS_WITH(streaming_attention_output(X, X, X, {Score::Dot}), Contains("overflows float32"));
  MultiHeadWeights m = split_heads(Matrix::Identity(2, 2), Matrix::Identity(2, 2), Matrix::Identity(2, 2),
                                   Matrix::Constant(2, 2, 3e38f), 1);
  REQUIRE_THROWS_WITH(multi_head_attention(Matrix::Constant(2, 2, 10), m),
                      Contains("W_O + b_O (2×2) overflows float32"));
}

TEST_CASE("NaN and Inf inputs are refused, naming the operand and the position", "[extremes]") {
  Matrix X = rows({{1, 2, 3}, {4, 5, 6}});
  for (float bad : {kNaN, kInf, -kInf}) {
    const std::string what = std::isnan(bad) ? "NaN" : bad > 0 ? "+Inf" : "-Inf";
    Matrix Xb = X;
    Xb(1, 2) = bad;
    REQUIRE_THROWS_WITH(attention(Xb, identity_head(3)), Contains("X (2×3) has " + what + " at row 1, column 2"));
    REQUIRE_THROWS_WITH(parameter_free_attention(Xb, 1.0f, {Score::Dot}), Contains("has " + what));
    REQUIRE_THROWS_WITH(attention_by_columns(Xb.transpose(), identity_head(2)), Contains("has " + what));
    HeadWeights w = identity_head(3);
    w.W_K(0, 1) = bad;
    REQUIRE_THROWS_WITH(attention(X, w), Contains("W_K (3×3) has " + what + " at row 0, column 1"));
    w = identity_head(3);
    w.b_V = vec({0, bad, 0});
    REQUIRE_THROWS_WITH(attention(X, w), Contains("b_V (length 3) has " + what + " at index 1"));
    AttentionOptions o;
    o.temperature = bad;
    REQUIRE_THROWS_WITH(attention(X, identity_head(3), o), Contains("temperature must be a finite number > 0"));
    o = {};
    o.score = Score::Additive;
    o.additive = {Matrix::Identity(3, 3), Matrix::Identity(3, 3), vec({1, bad, 1})};
    REQUIRE_THROWS_WITH(attention(X, identity_head(3), o), Contains("additive v (length 3) has " + what));
    MultiHeadWeights m = split_heads(Matrix::Identity(3, 3), Matrix::Identity(3, 3), Matrix::Identity(3, 3),
                                     Matrix::Identity(3, 3), 1);
    m.W_O(2, 2) = bad;
    REQUIRE_THROWS_WITH(multi_head_attention(X, m), Contains("W_O (3×3) has " + what));
    Batch b(1, 2, 3);
    b.item(0) = Xb;
    m.W_O(2, 2) = 1;
    REQUIRE_THROWS_WITH(batched_attention(b, m, {}), Contains("batch item 0: head 0: X (2×3) has " + what));
    REQUIRE_THROWS_WITH(streaming_attention_output(Xb, X, X), Contains("has " + what));
    REQUIRE_THROWS_AS(softmax(X, Axis::Rows, bad), AttentionError);
  }
  // softmax: -Inf is a mask, NaN and +Inf are errors.
  REQUIRE_THROWS_WITH(softmax(rows({{0, kNaN}})), Contains("NaN at row 0, column 1"));
  REQUIRE_THROWS_WITH(softmax(rows({{0}, {kInf}})), Contains("+Inf at row 1, column 0"));
  REQUIRE_THROWS_WITH(softmax_base3(rows({{kNaN}})), Contains("NaN"));
  REQUIRE_THROWS_WITH(softmax(rows({{1}}), Axis::Rows, 0.0f), Contains("temperature"));
}

TEST_CASE("empty and degenerate shapes are refused or empty, never undefined", "[extremes]") {
  REQUIRE(softmax(Matrix(0, 3), Axis::Columns).size() == 0);
  REQUIRE(softmax_base3(Matrix(0, 3), Axis::Columns).size() == 0);
  Matrix scores(0, 3);
  apply_mask(scores, false, {1, 0, 1});
  REQUIRE_THROWS_AS(split_heads(Matrix(0, 4), Matrix(0, 4), Matrix(0, 4), Matrix(4, 0), 2), AttentionError);
}

TEST_CASE("a vectors file whose scale would overflow the vectors is refused", "[extremes]") {
  auto file = [](float scale) {
    std::vector<std::uint8_t> out = {'A', 'T', 'T', 'N', 'V', 'E', 'C', '1', 1, 0,   0,
                                     0,   1,   0,   0,   0,   2,   0,   0,   0, 'a', '\n'};
    std::uint8_t bits[4];
    std::memcpy(bits, &scale, 4);
    out.insert(out.end(), bits, bits + 4);
    out.push_back(0x80);  // -128
    return out;
  };
  const auto big = file(3e38f);
  REQUIRE_THROWS_WITH(WordVectors::parse(big.data(), big.size()), Contains("the scale of \"a\" is"));
  const auto fine = file(kMax / 128.0f);
  const WordVectors v = WordVectors::parse(fine.data(), fine.size());
  REQUIRE(v.vector(0).allFinite());
  REQUIRE(v.vector(0)(0) == -kMax);
}

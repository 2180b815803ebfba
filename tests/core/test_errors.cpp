// Every error case: shapes, empty input, NaN/Inf, bad options. Each message names what was wrong.
#include <limits>

#include "helpers.hpp"

using namespace attn;
using Catch::Contains;

namespace {
const float kNaN = std::numeric_limits<float>::quiet_NaN();
const float kInf = std::numeric_limits<float>::infinity();
HeadWeights square_head(Index d) {
  return {Matrix::Identity(d, d), Matrix::Identity(d, d), Matrix::Identity(d, d), {}, {}, {}};
}
}  // namespace

TEST_CASE("empty input is refused", "[errors]") {
  REQUIRE_THROWS_WITH(attention(Matrix(0, 3), square_head(3)), Contains("X is 0×3"));
  REQUIRE_THROWS_WITH(parameter_free_attention(Matrix(2, 0), 1.0f, {Score::Dot}), Contains("X is 2×0"));
  REQUIRE_THROWS_WITH(multi_head_attention(Matrix::Ones(2, 2), {}), Contains("at least one head"));
  REQUIRE_THROWS_AS(batched_attention(Batch{}, {{square_head(2)}, Matrix::Identity(2, 2), {}}, {}), AttentionError);
}

TEST_CASE("mismatched projection shapes name both shapes", "[errors]") {
  const Matrix X = Matrix::Ones(3, 4);
  HeadWeights w = square_head(4);
  w.W_Q = Matrix::Ones(5, 3);
  REQUIRE_THROWS_WITH(attention(X, w), Contains("W_Q is 5×3 but must be 4×d_out"));
  w = square_head(4);
  w.W_K = Matrix::Ones(3, 4);
  REQUIRE_THROWS_WITH(attention(X, w), Contains("W_K is 3×4 but must be 4×d_out"));
  w = square_head(4);
  w.W_K = Matrix::Ones(4, 2);
  REQUIRE_THROWS_WITH(attention(X, w),
                      Contains("W_Q (4×4) and W_K (4×2) must give queries and keys of the same length"));
  w = square_head(4);
  w.b_V = vec({1, 2});
  REQUIRE_THROWS_WITH(attention(X, w), Contains("b_V has 2 entries"));
  // Column convention: weights are d_k × d_model.
  REQUIRE_THROWS_WITH(attention_by_columns(Matrix::Ones(6, 4),
                                           {Matrix::Ones(6, 3), Matrix::Ones(3, 6), Matrix::Ones(3, 6), {}, {}, {}}),
                      Contains("W_Q is 6×3 but must be d_out×6"));
}

TEST_CASE("score shape errors", "[errors]") {
  REQUIRE_THROWS_WITH(dot_scores(Matrix::Ones(2, 3), Matrix::Ones(2, 4)), Contains("Q (2×3) and keys K (2×4)"));
  REQUIRE_THROWS_WITH(additive_scores(Matrix::Ones(2, 3), Matrix::Ones(2, 3),
                                      {Matrix::Ones(4, 3), Matrix::Ones(4, 2), Vector::Ones(4)}),
                      Contains("W2 4×2"));
  AttentionOptions o;
  o.score = Score::Additive;  // no additive weights given
  REQUIRE_THROWS_WITH(attention(Matrix::Ones(2, 2), square_head(2), o), Contains("additive scores"));
}

TEST_CASE("NaN and Inf inputs are rejected with their position", "[errors]") {
  Matrix X = Matrix::Ones(3, 2);
  X(2, 1) = kNaN;
  REQUIRE_THROWS_WITH(attention(X, square_head(2)), Contains("X (3×2) has NaN at row 2, column 1"));
  X(2, 1) = -kInf;
  REQUIRE_THROWS_WITH(parameter_free_attention(X, 1.0f, {Score::Dot}), Contains("-Inf at row 2"));
  HeadWeights w = square_head(2);
  w.W_V(0, 1) = kInf;
  REQUIRE_THROWS_WITH(attention(Matrix::Ones(3, 2), w), Contains("W_V (2×2) has +Inf at row 0, column 1"));
  w = square_head(2);
  w.b_Q = vec({0, kNaN});
  REQUIRE_THROWS_WITH(attention(Matrix::Ones(3, 2), w), Contains("b_Q (length 2) has NaN at index 1"));
}

TEST_CASE("bad options are rejected", "[errors]") {
  const Matrix X = Matrix::Ones(3, 2);
  AttentionOptions o;
  o.temperature = 0;
  REQUIRE_THROWS_WITH(attention(X, square_head(2), o), Contains("temperature must be a finite number > 0, got 0"));
  o.temperature = 1;
  o.key_padding = {0, 1};
  REQUIRE_THROWS_WITH(attention(X, square_head(2), o), Contains("2 entries but there are 3 keys"));
  o.key_padding = {};
  o.score = Score::Cosine;
  o.hand_shortcuts = true;
  REQUIRE_THROWS_WITH(attention(X, square_head(2), o), Contains("dot and scaled-dot scores only"));
  REQUIRE_THROWS_WITH(parameter_free_attention(X, 0.0f, {Score::Dot}), Contains("constant c"));
  REQUIRE_THROWS_WITH(parameter_free_attention(X, 1.0f, {Score::ScaledDot}), Contains("plain dot product"));
}

TEST_CASE("multi-head and batch shape errors name the part", "[errors]") {
  const Matrix X = Matrix::Ones(3, 4);
  MultiHeadWeights w{{square_head(4), square_head(4)}, Matrix::Identity(4, 4), {}};
  REQUIRE_THROWS_WITH(multi_head_attention(X, w), Contains("W_O is 4×4 but the concatenated heads are 3×8"));
  w.heads[1].W_Q = Matrix::Ones(3, 4);
  REQUIRE_THROWS_WITH(multi_head_attention(X, w), Contains("head 1: W_Q is 3×4"));
  REQUIRE_THROWS_WITH(split_heads(Matrix::Ones(4, 4), Matrix::Ones(4, 4), Matrix::Ones(4, 4), Matrix::Ones(4, 4), 3),
                      Contains("into 3 equal heads"));
  Batch b(2, 3, 4);
  const MultiHeadWeights one{{square_head(4)}, Matrix::Identity(4, 4), {}};
  REQUIRE_THROWS_WITH(batched_attention(b, one, {}, {KeyPadding{0, 0, 0}}),
                      Contains("2 sequences but 1 padding masks"));
  b.data[13] = kNaN;
  REQUIRE_THROWS_WITH(batched_attention(b, one, {}), Contains("batch item 1: head 0: X (3×4) has NaN"));
  b.data.pop_back();
  REQUIRE_THROWS_WITH(batched_attention(b, one, {}), Contains("N·T·d values"));
}

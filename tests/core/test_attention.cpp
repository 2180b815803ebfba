// Single-head attention: seed 003's worked example to 1e-5, parameter-free attention, masks, biases,
// the column convention and the hand-exercise shortcuts.
#include <cmath>

#include "helpers.hpp"

using namespace attn;
using Catch::Contains;

namespace {

// Seed 003, "An illustrated guide to self-attention with PyTorch code".
const Matrix kInputs = rows({{1, 0, 1, 0}, {0, 2, 0, 2}, {1, 1, 1, 1}});
HeadWeights seed003_weights() {
  HeadWeights w;
  w.W_K = rows({{0, 0, 1}, {1, 1, 0}, {0, 1, 0}, {1, 1, 0}});
  w.W_Q = rows({{1, 0, 1}, {1, 0, 0}, {0, 0, 1}, {0, 1, 1}});
  w.W_V = rows({{0, 2, 0}, {0, 3, 0}, {1, 0, 3}, {1, 1, 0}});
  return w;
}
AttentionOptions unscaled() {
  AttentionOptions o;
  o.score = Score::Dot;  // the article's "dot-product attention" does not divide by √d_k
  return o;
}

}  // namespace

TEST_CASE("seed 003: keys, queries, values, scores, softmax and outputs", "[attention][seed003]") {
  const AttentionSteps s = attention(kInputs, seed003_weights(), unscaled());
  require_close(s.K, rows({{0, 1, 1}, {4, 4, 0}, {2, 3, 1}}), 1e-5f);
  require_close(s.Q, rows({{1, 0, 2}, {2, 2, 2}, {2, 1, 3}}), 1e-5f);
  require_close(s.V, rows({{1, 2, 3}, {2, 8, 0}, {2, 6, 3}}), 1e-5f);
  require_close(s.scores, rows({{2, 4, 4}, {4, 16, 12}, {4, 12, 10}}), 1e-5f);
  require_close(s.scaled, s.scores, 0.0f);
  require_close(s.weights,
                rows({{6.3379e-02f, 4.6831e-01f, 4.6831e-01f},
                      {6.0337e-06f, 9.8201e-01f, 1.7986e-02f},
                      {2.9539e-04f, 8.8054e-01f, 1.1917e-01f}}),
                1e-5f);
  require_close(
      s.output,
      rows({{1.936621f, 6.683105f, 1.595068f}, {1.999994f, 7.963992f, 0.053976f}, {1.999705f, 7.759892f, 0.358389f}}),
      1e-5f);
}

TEST_CASE("seed 003: the article's rounded weights give its printed outputs", "[attention][seed003]") {
  const AttentionSteps s = attention(kInputs, seed003_weights(), unscaled());
  // The article shows the weights to one decimal (0.0634 appears as 0.0) and sums with those.
  const Matrix printed = rows({{0.0f, 0.5f, 0.5f}, {0.0f, 1.0f, 0.0f}, {0.0f, 0.9f, 0.1f}});
  REQUIRE((s.weights - printed).cwiseAbs().maxCoeff() < 0.07f);
  require_close(weighted_sum(printed, s.V), rows({{2.0f, 7.0f, 1.5f}, {2.0f, 8.0f, 0.0f}, {2.0f, 7.8f, 0.3f}}), 1e-5f);
  // The weighted sum with the exact weights is the output itself.
  require_close(weighted_sum(s.weights, s.V), s.output, 1e-6f);
  REQUIRE_THROWS_WITH(weighted_sum(printed, s.V.topRows(2)), Contains("needs one row of V per column of the weights"));
}

TEST_CASE("seed 003 scaled by √3", "[attention][seed003]") {
  const AttentionSteps s = attention(kInputs, seed003_weights());  // default: ScaledDot
  require_close(s.scaled.row(0), rows({{2 / std::sqrt(3.0f), 4 / std::sqrt(3.0f), 4 / std::sqrt(3.0f)}}), 1e-5f);
  require_close(s.weights.row(0), rows({{0.136126f, 0.431937f, 0.431937f}}), 1e-5f);
}

TEST_CASE("weights rows sum to 1 and the output is the weighted sum of values", "[attention]") {
  const AttentionSteps s = attention(kInputs, seed003_weights());
  for (Index i = 0; i < s.weights.rows(); ++i) {
    REQUIRE(s.weights.row(i).sum() == Approx(1.0f).margin(1e-6));
    Eigen::RowVectorXf expected = Eigen::RowVectorXf::Zero(s.V.cols());
    for (Index j = 0; j < s.V.rows(); ++j) expected += s.weights(i, j) * s.V.row(j);  // A(i) = Σ α(i,j) v_j
    require_close(s.output.row(i), expected, 1e-5f);
  }
}

TEST_CASE("biases are added to every projected row", "[attention]") {
  HeadWeights w = seed003_weights();
  w.b_Q = vec({1, 0, 0});
  w.b_K = vec({0, 0, 1});
  w.b_V = vec({0.5f, 0, -1});
  const AttentionSteps s = attention(kInputs, w, unscaled());
  require_close(s.Q, rows({{2, 0, 2}, {3, 2, 2}, {3, 1, 3}}), 1e-6f);
  require_close(s.K, rows({{0, 1, 2}, {4, 4, 1}, {2, 3, 2}}), 1e-6f);
  require_close(s.V, rows({{1.5f, 2, 2}, {2.5f, 8, -1}, {2.5f, 6, 2}}), 1e-6f);
  require_close(s.scores, s.Q * s.K.transpose(), 1e-5f);
}

TEST_CASE("parameter-free attention is softmax(X·Xᵀ / c)·X", "[attention][parameter-free]") {
  const Matrix X = rows({{1, 0}, {0, 2}, {1, 1}});
  const AttentionSteps s = parameter_free_attention(X, 2.0f, unscaled());
  require_close(s.scores, rows({{1, 0, 1}, {0, 4, 2}, {1, 2, 2}}), 1e-6f);
  require_close(s.scaled, rows({{0.5f, 0, 0.5f}, {0, 2, 1}, {0.5f, 1, 1}}), 1e-6f);
  // Row 0 by hand: e^0.5, e^0, e^0.5 normalised.
  const float a = std::exp(0.5f), b = 1.0f, total = 2 * a + b;
  require_close(s.weights.row(0), rows({{a / total, b / total, a / total}}), 1e-6f);
  require_close(s.output, s.weights * X, 1e-6f);
  // No learned weights: identical inputs give identical weights.
  const AttentionSteps again = parameter_free_attention(X, 2.0f, unscaled());
  require_close(again.weights, s.weights, 0.0f);
}

TEST_CASE("temperature divides the scores before softmax", "[attention]") {
  AttentionOptions hot = unscaled();
  hot.temperature = 4.0f;
  const AttentionSteps s = attention(kInputs, seed003_weights(), hot);
  require_close(s.scaled, s.scores / 4.0f, 1e-6f);
  require_close(s.weights, softmax(s.scores, Axis::Rows, 4.0f), 1e-6f);
}

TEST_CASE("causal mask: query i sees keys j ≤ i only", "[attention][mask]") {
  AttentionOptions o = unscaled();
  o.causal = true;
  const AttentionSteps s = attention(kInputs, seed003_weights(), o);
  REQUIRE(s.weights(0, 0) == Approx(1.0f));
  REQUIRE(s.weights(0, 1) == 0.0f);
  REQUIRE(s.weights(0, 2) == 0.0f);
  REQUIRE(s.weights(1, 2) == 0.0f);
  // Row 1 is the softmax of its first two scores [4, 16].
  const float e = std::exp(4.0f - 16.0f);
  REQUIRE(s.weights(1, 0) == Approx(e / (1 + e)).margin(1e-7));
  REQUIRE(std::isinf(s.scaled(0, 2)));
  require_close(s.output.row(0), s.V.row(0), 1e-6f);
}

TEST_CASE("padding mask hides keys; a query with every key hidden gets zero weights, not NaN", "[attention][mask]") {
  AttentionOptions o = unscaled();
  o.key_padding = {0, 1, 0};
  const AttentionSteps s = attention(kInputs, seed003_weights(), o);
  for (Index i = 0; i < 3; ++i) {
    REQUIRE(s.weights(i, 1) == 0.0f);
    REQUIRE(s.weights.row(i).sum() == Approx(1.0f));
  }
  o.key_padding = {1, 1, 1};
  const AttentionSteps none = attention(kInputs, seed003_weights(), o);
  REQUIRE(all_finite(none.weights));
  REQUIRE(none.weights.isZero(0));
  REQUIRE(none.output.isZero(0));
  // Causal plus padding of the first key leaves query 0 with nothing to see.
  o.key_padding = {1, 0, 0};
  o.causal = true;
  const AttentionSteps both = attention(kInputs, seed003_weights(), o);
  REQUIRE(both.weights.row(0).isZero(0));
  REQUIRE(both.weights(1, 1) == Approx(1.0f));
}

TEST_CASE("column convention (by hand): Kᵀ·Q, softmax down columns, Z = V·A", "[attention][columns]") {
  HeadWeights row_w = seed003_weights();
  row_w.b_Q = vec({0.5f, -1, 0});
  HeadWeights col_w{row_w.W_Q.transpose(), row_w.W_K.transpose(), row_w.W_V.transpose(), row_w.b_Q, {}, {}};
  const AttentionSteps by_rows = attention(kInputs, row_w);
  const AttentionSteps by_cols = attention_by_columns(kInputs.transpose(), col_w);
  require_close(by_cols.Q, col_w.W_Q * kInputs.transpose() + row_w.b_Q.replicate(1, 3), 1e-5f);
  require_close(by_cols.scores, by_cols.K.transpose() * by_cols.Q, 1e-5f);
  for (Index c = 0; c < 3; ++c) REQUIRE(by_cols.weights.col(c).sum() == Approx(1.0f));
  require_close(by_cols.output, by_cols.V * by_cols.weights, 1e-5f);
  require_close(by_cols.weights, by_rows.weights.transpose(), 1e-6f);
  require_close(by_cols.output, by_rows.output.transpose(), 1e-5f);
}

TEST_CASE("hand shortcuts: 3^x for e^x and floor(x/2) for ÷√3, beside the exact values", "[attention][by-hand]") {
  // 4 tokens of dimension 6 as columns, weights 3×6, d_k = 3: the by-hand sheet's layout.
  const Matrix X = rows({{1, 0, 1, 0}, {0, 1, 1, 0}, {1, 1, 0, 0}, {0, 0, 1, 1}, {1, 0, 0, 1}, {0, 1, 0, 1}});
  HeadWeights w;
  w.W_Q = rows({{1, 0, 0, 0, 1, 0}, {0, 1, 0, 1, 0, 0}, {0, 0, 1, 0, 0, 1}});
  w.W_K = rows({{0, 1, 0, 0, 1, 0}, {1, 0, 0, 1, 0, 0}, {0, 0, 1, 0, 0, 1}});
  w.W_V = rows({{1, 1, 0, 0, 0, 0}, {0, 0, 1, 1, 0, 0}, {0, 0, 0, 0, 1, 1}});
  AttentionOptions o;
  o.hand_shortcuts = true;
  const AttentionSteps hand = attention_by_columns(X, w, o);
  const Matrix expected_scaled = hand.scores.unaryExpr([](float x) { return std::floor(x / 2); });
  require_close(hand.scaled, expected_scaled, 0.0f);
  // Each column of A is 3^x normalised down the column.
  for (Index c = 0; c < 4; ++c) {
    float total = 0;
    for (Index r = 0; r < 4; ++r) total += std::pow(3.0f, expected_scaled(r, c));
    for (Index r = 0; r < 4; ++r)
      REQUIRE(hand.weights(r, c) == Approx(std::pow(3.0f, expected_scaled(r, c)) / total).margin(1e-6));
  }
  require_close(hand.output, hand.V * hand.weights, 1e-5f);
  // The exact computation differs, as the sheet warns.
  const AttentionSteps exact = attention_by_columns(X, w);
  require_close(exact.scaled, exact.scores / std::sqrt(3.0f), 1e-6f);
  REQUIRE_FALSE(exact.weights.isApprox(hand.weights, 1e-3f));
}

TEST_CASE("query terms: q∘k rows sum to the scores, α·v rows sum to the output", "[attention][terms]") {
  const AttentionSteps s = attention(kInputs, seed003_weights(), unscaled());
  const QueryTerms t = query_terms(s.Q, s.K, s.V, s.weights, 1);
  // Query 2 of seed 003: q = [2, 2, 2], keys [0,1,1], [4,4,0], [2,3,1].
  require_close(t.products, rows({{0, 2, 2}, {8, 8, 0}, {4, 6, 2}}), 0.0f);
  require_close(t.products.rowwise().sum().transpose(), s.scores.row(1), 1e-5f);
  require_close(t.weighted.row(1), s.weights(1, 1) * s.V.row(1), 1e-6f);
  require_close(t.weighted.colwise().sum(), s.output.row(1), 1e-5f);
  REQUIRE_THROWS_WITH(query_terms(s.Q, s.K, s.V, s.weights, 3), Contains("query 3 is outside 0..2"));
  REQUIRE_THROWS_WITH(query_terms(s.Q, s.K, s.V, Matrix::Ones(3, 2), 0), Contains("do not belong together"));
}

TEST_CASE("softmax down the columns, then the weighted sum: each key's weights over the queries sum to 1",
          "[attention][axis]") {
  const AttentionSteps s = attention(kInputs, seed003_weights(), unscaled());
  const Matrix by_columns = softmax(s.scaled, Axis::Columns);
  for (Index c = 0; c < 3; ++c) REQUIRE(std::abs(by_columns.col(c).sum() - 1.0f) < 1e-6f);
  REQUIRE(std::abs(by_columns.row(0).sum() - 1.0f) > 0.1f);  // rows no longer sum to 1
  require_close(weighted_sum(by_columns, s.V), by_columns * s.V, 1e-5f);
}

TEST_CASE("parameter-free attention with cosine scores", "[attention][cosine]") {
  AttentionOptions o;
  o.score = Score::Cosine;
  const Matrix X = rows({{3, 4}, {6, 8}, {0, 1}});
  const AttentionSteps s = parameter_free_attention(X, 1.0f, o);
  // Parallel vectors score 1 whatever their lengths; (3,4)·(0,1) / (5·1) = 0.8.
  REQUIRE(s.scores(0, 1) == Approx(1.0f));
  REQUIRE(s.scores(0, 0) == Approx(1.0f));
  REQUIRE(s.scores(0, 2) == Approx(0.8f));
  require_close(s.weights, softmax(s.scores), 1e-6f);
  o.score = Score::ScaledDot;
  REQUIRE_THROWS_WITH(parameter_free_attention(X, 1.0f, o), Contains("set score to Dot or Cosine"));
}

// The core entry points behind "one crossing per change": the softmax direction as an option of
// attention (AttentionOptions::axis), the one place the score divisor is chosen (score_divisor, and
// steps.divisor saying what was used), parameter-free attention with the divisor picked by the core, and
// embedding the first max_tokens tokens of a longer text (WordVectors::embed_first).
#include <cmath>
#include <random>

#include "../support/vectors_file.hpp"
#include "attention/streaming.hpp"
#include "attention/text.hpp"
#include "helpers.hpp"

using namespace attn;
using Catch::Contains;

namespace {

// Exactly equal, entry by entry (-inf included): the new options run the same code as the old calls.
void require_same(const Matrix& a, const Matrix& b) {
  REQUIRE(a.rows() == b.rows());
  REQUIRE(a.cols() == b.cols());
  for (Index i = 0; i < a.size(); ++i) {
    INFO("entry " << i);
    REQUIRE(a.data()[i] == b.data()[i]);
  }
}

HeadWeights seed003_weights() {
  HeadWeights w;
  w.W_K = rows({{0, 0, 1}, {1, 1, 0}, {0, 1, 0}, {1, 1, 0}});
  w.W_Q = rows({{1, 0, 1}, {1, 0, 0}, {0, 0, 1}, {0, 1, 1}});
  w.W_V = rows({{0, 2, 0}, {0, 3, 0}, {1, 0, 3}, {1, 1, 0}});
  return w;
}

}  // namespace

TEST_CASE("score_divisor: √d for scaled dot, 1 for the others", "[crossing][divisor]") {
  CHECK(score_divisor(Score::ScaledDot, 50) == std::sqrt(50.0));
  CHECK(score_divisor(Score::ScaledDot, 3) == std::sqrt(3.0));
  CHECK(score_divisor(Score::Dot, 50) == 1.0);
  CHECK(score_divisor(Score::Cosine, 50) == 1.0);
  CHECK(score_divisor(Score::Additive, 50) == 1.0);
}

TEST_CASE("every entry divides by what score_divisor chose, and says so in steps.divisor", "[crossing][divisor]") {
  std::mt19937 rng(23);
  const Matrix X = seeded_matrix(6, 8, rng);
  HeadWeights w{seeded_matrix(8, 5, rng), seeded_matrix(8, 5, rng), seeded_matrix(8, 3, rng), {}, {}, {}};
  for (Score score : {Score::Dot, Score::ScaledDot, Score::Cosine}) {
    AttentionOptions o;
    o.score = score;
    o.temperature = 0.7f;
    const AttentionSteps s = attention(X, w, o);
    CHECK(s.divisor == score_divisor(score, 5));  // d_k = W_Q's width
    // scaled = scores ÷ divisor ÷ temperature (one rounding from the double sum for dot and scaled dot).
    for (Index i = 0; i < s.scores.size(); ++i)
      REQUIRE(s.scaled.data()[i] == Approx(s.scores.data()[i] / s.divisor / 0.7).epsilon(1e-5).margin(1e-6));
    // The multi-head heads and the streaming path divide the same way.
    MultiHeadWeights mw;
    mw.heads = {w};
    mw.W_O = Matrix::Identity(3, 3);
    CHECK(multi_head_attention(X, mw, o).heads[0].divisor == s.divisor);
    require_close(streaming_attention_output(s.Q, s.K, s.V, o), s.output, 1e-5f);
  }
}

TEST_CASE("parameter-free attention with the divisor chosen by the core equals the constant it stands for",
          "[crossing][divisor]") {
  std::mt19937 rng(5);
  const Matrix X = seeded_matrix(7, 50, rng, 0.3f);
  AttentionOptions o;
  o.temperature = 0.5f;
  o.causal = true;
  SECTION("scaled: ÷√d_model, as the page's old float constant") {
    o.score = Score::ScaledDot;
    const AttentionSteps s = parameter_free_attention(X, o);
    AttentionOptions dot = o;
    dot.score = Score::Dot;
    const AttentionSteps old = parameter_free_attention(X, static_cast<float>(std::sqrt(50.0)), dot);
    require_same(s.scaled, old.scaled);
    require_same(s.weights, old.weights);
    require_same(s.output, old.output);
    CHECK(s.divisor == static_cast<float>(std::sqrt(50.0)));
  }
  SECTION("dot and cosine: ÷1") {
    for (Score score : {Score::Dot, Score::Cosine}) {
      o.score = score;
      const AttentionSteps s = parameter_free_attention(X, o);
      require_same(s.weights, parameter_free_attention(X, 1.0f, o).weights);
      CHECK(s.divisor == 1.0);
    }
  }
  SECTION("additive has no weights to score with") {
    o.score = Score::Additive;
    REQUIRE_THROWS_WITH(parameter_free_attention(X, o), Contains("set score to Dot, ScaledDot or Cosine"));
  }
}

TEST_CASE("the column softmax as an option equals softmax(scaled, Columns) and its weighted sum",
          "[crossing][columns]") {
  std::mt19937 rng(11);
  const Matrix X = seeded_matrix(9, 6, rng);
  HeadWeights w{seeded_matrix(6, 4, rng), seeded_matrix(6, 4, rng), seeded_matrix(6, 5, rng), {}, {}, {}};
  for (bool causal : {false, true})
    for (float temperature : {1.0f, 0.3f}) {
      INFO("causal " << causal << ", temperature " << temperature);
      AttentionOptions rows_o;
      rows_o.causal = causal;
      rows_o.temperature = temperature;
      AttentionOptions columns_o = rows_o;
      columns_o.axis = Axis::Columns;
      const AttentionSteps by_rows = attention(X, w, rows_o);
      const AttentionSteps by_columns = attention(X, w, columns_o);
      // The old sequence: the row attention, then a softmax down the columns of its scaled scores, then
      // the weighted sum.
      const Matrix weights = softmax(by_rows.scaled, Axis::Columns);
      require_same(by_columns.scaled, by_rows.scaled);
      require_same(by_columns.weights, weights);
      require_same(by_columns.output, weighted_sum(weights, by_rows.V));
      // Each key's column sums to 1 over the queries that see it.
      for (Index j = 0; j < by_columns.weights.cols(); ++j)
        REQUIRE(by_columns.weights.col(j).sum() == Approx(1.0f).epsilon(1e-5));
      // Parameter-free too.
      const AttentionSteps free_rows = parameter_free_attention(X, rows_o);
      AttentionOptions free_columns = rows_o;
      free_columns.axis = Axis::Columns;
      require_same(parameter_free_attention(X, free_columns).weights, softmax(free_rows.scaled, Axis::Columns));
    }
}

TEST_CASE("the column softmax of seed 003's scores", "[crossing][columns][seed003]") {
  const Matrix X = rows({{1, 0, 1, 0}, {0, 2, 0, 2}, {1, 1, 1, 1}});
  AttentionOptions o;
  o.score = Score::Dot;
  o.axis = Axis::Columns;
  const AttentionSteps s = attention(X, seed003_weights(), o);
  // scores (rows: queries) {{2,4,4},{4,16,12},{4,12,10}}: column 0 is softmax(2, 4, 4) down the queries.
  const double e2 = std::exp(2.0), e4 = std::exp(4.0);
  CHECK(s.weights(0, 0) == Approx(e2 / (e2 + 2 * e4)).epsilon(1e-6));
  CHECK(s.weights(1, 0) == Approx(e4 / (e2 + 2 * e4)).epsilon(1e-6));
  CHECK(s.divisor == 1.0);
}

TEST_CASE("the entries that normalise rows only refuse the column axis with a reason", "[crossing][columns]") {
  const Matrix X = rows({{1, 0}, {0, 1}});
  AttentionOptions o;
  o.axis = Axis::Columns;
  HeadWeights w{Matrix::Identity(2, 2), Matrix::Identity(2, 2), Matrix::Identity(2, 2), {}, {}, {}};
  REQUIRE_THROWS_WITH(attention_by_columns(X, w, o), Contains("already normalises down its columns"));
  REQUIRE_THROWS_WITH(streaming_attention_output(X, X, X, o), Contains("online softmax"));
}

TEST_CASE("embed_first: the first max_tokens tokens, and how many the text had", "[crossing][text]") {
  const auto bytes = attn_test::vectors_file({"the", "station", "train"}, 2, {1, 1, 1}, {1, 0, 0, 2, 1, 1});
  const WordVectors table = WordVectors::parse(bytes.data(), bytes.size());
  const Embedding whole = table.embed("the train left the station", 5);
  CHECK(whole.total == 5);
  const Embedding first = table.embed_first("the train left the station", 3);
  REQUIRE(first.tokens.size() == 3);
  CHECK(first.total == 5);
  CHECK(first.tokens[2].text == "left");
  require_same(first.X, whole.X.topRows(3));
  // A text within the cap is embedded whole, as embed does.
  const Embedding all = table.embed_first("the train left the station", 64);
  CHECK(all.total == 5);
  require_same(all.X, whole.X);
  REQUIRE_THROWS_WITH(table.embed_first("  ", 3), Contains("the text is empty"));
  REQUIRE_THROWS_WITH(table.embed_first("the", 0), Contains("max_tokens is 0"));
}

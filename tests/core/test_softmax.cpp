// Softmax: sums to 1 along the chosen axis, stable for huge logits, masks with -inf, the 3^x variant.
#include <cmath>
#include <limits>

#include "helpers.hpp"

using namespace attn;

TEST_CASE("softmax rows sum to 1 and match the definition", "[softmax]") {
  const Matrix logits = rows({{1, 2, 3}, {0, 0, 0}, {-1, 5, 2}});
  const Matrix w = softmax(logits);
  for (Index r = 0; r < 3; ++r) {
    REQUIRE(w.row(r).sum() == Approx(1.0f).margin(1e-6));
    double total = 0;
    for (Index c = 0; c < 3; ++c) total += std::exp(double(logits(r, c)));
    for (Index c = 0; c < 3; ++c) REQUIRE(w(r, c) == Approx(std::exp(double(logits(r, c))) / total).margin(1e-7));
  }
  REQUIRE(w(1, 0) == Approx(1.0f / 3));
}

TEST_CASE("softmax down columns sums each column to 1", "[softmax]") {
  const Matrix logits = rows({{1, 2}, {3, 0}, {0, -1}});
  const Matrix w = softmax(logits, Axis::Columns);
  for (Index c = 0; c < 2; ++c) REQUIRE(w.col(c).sum() == Approx(1.0f).margin(1e-6));
  require_close(w, softmax(Matrix(logits.transpose())).transpose(), 1e-7f);
}

TEST_CASE("temperature flattens or sharpens", "[softmax]") {
  const Matrix logits = rows({{1, 2, 3}});
  require_close(softmax(logits, Axis::Rows, 2.0f), softmax(Matrix(logits / 2.0f)), 1e-7f);
  const Matrix cold = softmax(logits, Axis::Rows, 1e-3f);
  REQUIRE(cold(0, 2) == Approx(1.0f));
  const Matrix frozen = softmax(logits, Axis::Rows, 1e-42f);  // 1/T overflows to +inf
  REQUIRE(all_finite(frozen));
  REQUIRE(frozen(0, 2) == 1.0f);
}

TEST_CASE("logits of ±1e4 and ±1e30 give finite weights", "[softmax][extremes]") {
  for (float big : {1e4f, 1e30f, std::numeric_limits<float>::max()}) {
    const Matrix logits = rows({{big, -big, 0}, {-big, -big, -big}, {big, big, big}});
    const Matrix w = softmax(logits);
    INFO("big = " << big);
    REQUIRE(all_finite(w));
    REQUIRE(w(0, 0) == Approx(1.0f));
    REQUIRE(w(0, 1) == 0.0f);
    REQUIRE(w(1, 0) == Approx(1.0f / 3));
    REQUIRE(w(2, 2) == Approx(1.0f / 3));
  }
}

TEST_CASE("a logit of -inf masks an entry; an all-masked row is all zeros", "[softmax][mask]") {
  const float inf = std::numeric_limits<float>::infinity();
  const Matrix w = softmax(rows({{0, -inf, 0}, {-inf, -inf, -inf}}));
  REQUIRE(w(0, 0) == Approx(0.5f));
  REQUIRE(w(0, 1) == 0.0f);
  REQUIRE(w.row(1).isZero(0));
}

TEST_CASE("softmax with 3^x (the by-hand shortcut)", "[softmax][by-hand]") {
  const Matrix w = softmax_base3(rows({{0, 1, 2}}));
  REQUIRE(w(0, 0) == Approx(1.0f / 13));
  REQUIRE(w(0, 1) == Approx(3.0f / 13));
  REQUIRE(w(0, 2) == Approx(9.0f / 13));
  const Matrix cols = softmax_base3(rows({{0, 2}, {1, 2}}), Axis::Columns);
  REQUIRE(cols(0, 0) == Approx(0.25f));
  REQUIRE(cols(1, 1) == Approx(0.5f));
}

TEST_CASE("softmax rejects NaN and +Inf and a bad temperature", "[softmax][errors]") {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  REQUIRE_THROWS_WITH(softmax(rows({{0, nan}})), Catch::Contains("NaN at row 0, column 1"));
  REQUIRE_THROWS_WITH(softmax(rows({{std::numeric_limits<float>::infinity()}})), Catch::Contains("+Inf"));
  REQUIRE_THROWS_WITH(softmax(rows({{1}}), Axis::Rows, 0.0f), Catch::Contains("temperature"));
  REQUIRE_THROWS_WITH(softmax(rows({{1}}), Axis::Rows, -1.0f), Catch::Contains("temperature"));
  REQUIRE_THROWS_WITH(softmax(rows({{1}}), Axis::Rows, nan), Catch::Contains("temperature"));
  REQUIRE_THROWS_WITH(softmax_base3(rows({{200}})), Catch::Contains("overflows"));
}

TEST_CASE("the worksheet's 3^x terms: powers and line sums that give softmax_base3", "[softmax][base3]") {
  const Matrix logits = rows({{2, 0, 1}, {1, 1, -std::numeric_limits<float>::infinity()}});
  const Base3Terms byRow = softmax_base3_terms(logits, Axis::Rows);
  require_close(byRow.powers, rows({{9, 1, 3}, {3, 3, 0}}), 0.0f);
  REQUIRE(byRow.sums.size() == 2);
  REQUIRE(byRow.sums(0) == 13.0f);
  REQUIRE(byRow.sums(1) == 6.0f);
  const Base3Terms byCol = softmax_base3_terms(logits, Axis::Columns);
  REQUIRE(byCol.sums.size() == 3);
  REQUIRE(byCol.sums(0) == 12.0f);
  REQUIRE(byCol.sums(2) == 3.0f);
  const Matrix w = softmax_base3(logits, Axis::Columns);
  for (Index r = 0; r < 2; ++r)
    for (Index c = 0; c < 3; ++c) REQUIRE(w(r, c) == Approx(byCol.powers(r, c) / byCol.sums(c)));
  REQUIRE_THROWS_WITH(softmax_base3_terms(rows({{200}})), Catch::Contains("overflows float"));
}

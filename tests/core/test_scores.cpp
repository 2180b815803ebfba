// Score functions against straightforward loops written from the formulas.
#include <cmath>
#include "helpers.hpp"

using namespace attn;

namespace {

float dot_loop(const Matrix& A, Index i, const Matrix& B, Index j) {
  double s = 0;
  for (Index k = 0; k < A.cols(); ++k) s += double(A(i, k)) * B(j, k);
  return float(s);
}

}  // namespace

TEST_CASE("dot and scaled dot scores equal their loops", "[scores]") {
  std::mt19937 rng(7);
  const Matrix Q = seeded_matrix(5, 8, rng), K = seeded_matrix(6, 8, rng);
  const Matrix dot = dot_scores(Q, K), scaled = scaled_dot_scores(Q, K);
  REQUIRE(dot.rows() == 5);
  REQUIRE(dot.cols() == 6);
  for (Index i = 0; i < 5; ++i)
    for (Index j = 0; j < 6; ++j) {
      REQUIRE(dot(i, j) == Approx(dot_loop(Q, i, K, j)).margin(1e-5));
      REQUIRE(scaled(i, j) == Approx(dot_loop(Q, i, K, j) / std::sqrt(8.0f)).margin(1e-5));
    }
}

TEST_CASE("cosine scores equal dot / (|q| |k|), and 0 for a zero vector", "[scores]") {
  std::mt19937 rng(11);
  Matrix Q = seeded_matrix(4, 5, rng), K = seeded_matrix(3, 5, rng);
  K.row(1).setZero();
  const Matrix cos = cosine_scores(Q, K);
  for (Index i = 0; i < 4; ++i)
    for (Index j = 0; j < 3; ++j) {
      const float nq = std::sqrt(dot_loop(Q, i, Q, i)), nk = std::sqrt(dot_loop(K, j, K, j));
      const float expected = nk == 0 ? 0.0f : dot_loop(Q, i, K, j) / (nq * nk);
      REQUIRE(cos(i, j) == Approx(expected).margin(1e-5));
      REQUIRE(std::abs(cos(i, j)) <= 1.0f + 1e-5f);
    }
  REQUIRE(cosine_scores(Q, Q).diagonal().isOnes(1e-5f));
}

TEST_CASE("additive scores equal vᵀ tanh(W1 q + W2 k) computed by loops", "[scores]") {
  std::mt19937 rng(3);
  const Matrix Q = seeded_matrix(3, 4, rng), K = seeded_matrix(5, 4, rng);
  AdditiveWeights w{seeded_matrix(6, 4, rng), seeded_matrix(6, 4, rng), seeded_matrix(6, 1, rng).col(0)};
  const Matrix scores = additive_scores(Q, K, w);
  REQUIRE(scores.rows() == 3);
  REQUIRE(scores.cols() == 5);
  for (Index i = 0; i < 3; ++i)
    for (Index j = 0; j < 5; ++j) {
      double total = 0;
      for (Index a = 0; a < 6; ++a) {
        double hidden = 0;
        for (Index k = 0; k < 4; ++k) hidden += double(w.W1(a, k)) * Q(i, k) + double(w.W2(a, k)) * K(j, k);
        total += w.v(a) * std::tanh(hidden);
      }
      REQUIRE(scores(i, j) == Approx(total).margin(1e-5));
    }
}

TEST_CASE("attention uses the chosen score function", "[scores][attention]") {
  std::mt19937 rng(5);
  const Matrix X = seeded_matrix(4, 6, rng);
  HeadWeights w{seeded_matrix(6, 3, rng), seeded_matrix(6, 3, rng), seeded_matrix(6, 2, rng), {}, {}, {}};
  AttentionOptions o;
  o.score = Score::Cosine;
  AttentionSteps s = attention(X, w, o);
  require_close(s.scores, cosine_scores(s.Q, s.K), 1e-6f);
  require_close(s.scaled, s.scores, 0.0f);  // cosine is not divided by √d_k
  o.score = Score::Additive;
  o.additive = {seeded_matrix(5, 3, rng), seeded_matrix(5, 3, rng), seeded_matrix(5, 1, rng).col(0)};
  s = attention(X, w, o);
  require_close(s.scores, additive_scores(s.Q, s.K, o.additive), 1e-6f);
  require_close(s.weights, softmax(s.scores), 1e-6f);
}

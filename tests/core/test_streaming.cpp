// The streaming (online-softmax) output-only path agrees with the full T×T path to 1e-5, and with a
// double-precision reference.
#include "attention/streaming.hpp"
#include "helpers.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

using namespace attn;
using Catch::Contains;

namespace {

// The full path on Q, K, V directly: identity projections make attention() use them as given.
Matrix full_output(const Matrix& Q, const Matrix& K, const Matrix& V, const AttentionOptions& o) {
  AttentionSteps s;
  s.scores = o.score == Score::Cosine ? cosine_scores(Q, K) : dot_scores(Q, K);
  s.scaled = s.scores / ((o.score == Score::ScaledDot ? std::sqrt(float(Q.cols())) : 1.0f) * o.temperature);
  apply_mask(s.scaled, o.causal, o.key_padding);
  return softmax(s.scaled) * V;
}

}  // namespace

TEST_CASE("streaming output equals softmax(QKᵀ/√d_k)·V across block edges", "[streaming]") {
  std::mt19937 rng(17);
  for (Index T : {1, 5, 63, 64, 65, 130, 300}) {
    const Matrix Q = seeded_matrix(T, 16, rng, 2.0f), K = seeded_matrix(T, 16, rng, 2.0f), V = seeded_matrix(T, 8, rng);
    for (Score score : {Score::Dot, Score::ScaledDot, Score::Cosine})
      for (bool causal : {false, true}) {
        AttentionOptions o;
        o.score = score;
        o.causal = causal;
        o.temperature = causal ? 0.5f : 1.5f;
        INFO("T = " << T << ", score " << int(score) << ", causal " << causal);
        require_close(streaming_attention_output(Q, K, V, o), full_output(Q, K, V, o), 1e-5f);
      }
  }
}

TEST_CASE("streaming with padding: masked keys ignored, a query with no visible key gets zeros", "[streaming][mask]") {
  std::mt19937 rng(4);
  const Index T = 150;
  const Matrix Q = seeded_matrix(T, 8, rng), K = seeded_matrix(T, 8, rng), V = seeded_matrix(T, 4, rng);
  AttentionOptions o;
  o.key_padding.assign(T, 0);
  for (Index j = 60; j < 140; ++j) o.key_padding[static_cast<std::size_t>(j)] = 1;  // whole middle tile hidden
  require_close(streaming_attention_output(Q, K, V, o), full_output(Q, K, V, o), 1e-5f);
  o.key_padding[0] = 1;
  o.causal = true;  // query 0 now sees nothing
  const Matrix out = streaming_attention_output(Q, K, V, o);
  REQUIRE(out.row(0).isZero(0));
  REQUIRE(out.allFinite());
  require_close(out, full_output(Q, K, V, o), 1e-5f);
}

TEST_CASE("streaming survives huge logits and refuses what it does not support", "[streaming][errors]") {
  const Matrix Q = rows({{100, 0}, {-100, 0}}), K = rows({{100, 0}, {0, 100}}), V = rows({{1, 2}, {3, 4}});
  AttentionOptions o;
  o.score = Score::Dot;  // scores of ±1e4
  const Matrix out = streaming_attention_output(Q, K, V, o);
  REQUIRE(out.allFinite());
  require_close(out, full_output(Q, K, V, o), 1e-5f);
  o.score = Score::Additive;
  REQUIRE_THROWS_WITH(streaming_attention_output(Q, K, V, o), Contains("dot, scaled-dot and cosine"));
  REQUIRE_THROWS_WITH(streaming_attention_output(Q, rows({{1, 2, 3}}), V), Contains("must share d_k"));
  REQUIRE_THROWS_WITH(streaming_attention_output(Matrix(0, 2), K, V), Contains("non-empty"));
}

TEST_CASE("streaming output stays close to a double-precision reference over 16 key tiles", "[streaming][accuracy]") {
  // Each tile's exps are summed on their own and then added to the running sum: adding 1,024 terms one by
  // one into a single float sum instead made the error here six times larger (3.1e-6 → 2.0e-5).
  constexpr Index T = 1024, d = 64;
  std::mt19937 rng(29);
  const Matrix X = seeded_matrix(T, d, rng, 1.15f);  // Q = K = V, like the benchmark: the diagonal dominates
  const Matrix streamed = streaming_attention_output(X, X, X);
  double worst = 0;
  std::vector<double> w(T);
  for (Index i = 0; i < T; ++i) {
    double max = -INFINITY, sum = 0;
    for (Index j = 0; j < T; ++j) {
      double s = 0;
      for (Index p = 0; p < d; ++p) s += double(X(i, p)) * X(j, p);
      w[j] = s / 8;  // √d_k
      max = std::max(max, w[j]);
    }
    for (double& x : w) sum += (x = std::exp(x - max));
    for (Index p = 0; p < d; ++p) {
      double o = 0;
      for (Index j = 0; j < T; ++j) o += w[j] * X(j, p);
      worst = std::max(worst, std::abs(o / sum - streamed(i, p)));
    }
  }
  INFO("max |streamed - exact| = " << worst);
  REQUIRE(worst < 8e-6);
}

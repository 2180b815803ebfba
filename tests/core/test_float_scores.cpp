// The streaming path's float-summed tiles (issue 27 §1): a tile is summed in float only when the proven
// bound on its scores' error (kernels::float_score_error_bound, derived in kernels.cpp) is within
// kernels::kFloatScoreBudget, and then its output stays within E of the float32 floor o(ŝ), the bound
// tests/core/test_accuracy.cpp holds the double path to (its formula is repeated here, not changed).
#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "attention/streaming.hpp"
#include "helpers.hpp"
#include "kernels.hpp"

using namespace attn;

namespace {

constexpr double u = 0x1p-24;  // float32's unit roundoff

struct Run {
  Matrix out;
  Index float_tiles = 0;
};

Run stream(const Matrix& Q, const Matrix& K, const Matrix& V, bool allow_float, bool causal = false,
           const std::vector<unsigned char>& padding = {}) {
  Run r;
  r.out.resize(Q.rows(), V.cols());
  kernels::streaming_output(Q.data(), K.data(), V.data(), Q.rows(), K.rows(), Q.cols(), V.cols(),
                            1.0 / std::sqrt(double(Q.cols())), causal, padding.empty() ? nullptr : padding.data(),
                            r.out.data(), allow_float, &r.float_tiles);
  return r;
}

// softmax(s)·V of one query in double, from given scores (-inf masked), with the weights and gaps.
struct Row {
  std::vector<double> w, g, out;
};
Row exact_row(const std::vector<double>& s, const Matrix& V) {
  Row r;
  const std::size_t T = s.size();
  r.w.assign(T, 0);
  r.g.assign(T, 0);
  r.out.assign(static_cast<std::size_t>(V.cols()), 0);
  const double max = *std::max_element(s.begin(), s.end());
  if (max == -INFINITY) return r;
  double sum = 0;
  for (std::size_t j = 0; j < T; ++j)
    if (s[j] != -INFINITY) sum += r.w[j] = std::exp(r.g[j] = s[j] - max);
  for (double& w : r.w) w /= sum;
  for (Index c = 0; c < V.cols(); ++c)
    for (std::size_t j = 0; j < T; ++j) r.out[static_cast<std::size_t>(c)] += r.w[j] * V(static_cast<Index>(j), c);
  return r;
}

// E of tests/core/test_accuracy.cpp (rounding_bound), the same formula.
std::vector<double> rounding_bound(const Row& r, const Matrix& V) {
  const std::size_t T = r.w.size();
  const double merges = 24 + 5 * std::ceil(double(T) / 64);
  double sum_terms = 0;
  for (const double w : r.w) sum_terms += std::min(u, w);
  std::vector<double> E(static_cast<std::size_t>(V.cols()));
  for (Index c = 0; c < V.cols(); ++c) {
    double A = 0, per_value = 0, additions = 0;
    for (std::size_t j = 0; j < T; ++j) A += r.w[j] * std::fabs(V(static_cast<Index>(j), c));
    for (std::size_t j = 0; j < T; ++j) {
      const double term = r.w[j] * std::fabs(V(static_cast<Index>(j), c));
      per_value += (7 + std::fabs(r.g[j])) * term;
      additions += std::min(u * A, term);
    }
    E[static_cast<std::size_t>(c)] = 1.001 * (u * per_value + (sum_terms + 2 * merges * u) * A + additions);
  }
  return E;
}

// max over the outputs of |out − o(ŝ)| / E, ŝ the correctly rounded scaled scores (double sums of exact
// products, then rounded to float32: the floor).
double worst_over_floor(const Matrix& Q, const Matrix& K, const Matrix& V, const Matrix& out, bool causal,
                        const std::vector<unsigned char>& padding) {
  const double c = 1.0 / std::sqrt(double(Q.cols()));
  double worst = 0;
  for (Index i = 0; i < Q.rows(); ++i) {
    std::vector<double> s(static_cast<std::size_t>(K.rows()));
    for (Index j = 0; j < K.rows(); ++j) {
      double dot = 0;
      for (Index p = 0; p < Q.cols(); ++p) dot += double{Q(i, p)} * K(j, p);
      const bool hidden = (causal && j > i) || (!padding.empty() && padding[static_cast<std::size_t>(j)]);
      s[static_cast<std::size_t>(j)] = hidden ? -INFINITY : double(static_cast<float>(dot * c));
    }
    const Row floor = exact_row(s, V);
    const std::vector<double> E = rounding_bound(floor, V);
    for (Index col = 0; col < V.cols(); ++col) {
      const double diff = std::fabs(out(i, col) - floor.out[static_cast<std::size_t>(col)]);
      const double e = E[static_cast<std::size_t>(col)];
      worst = std::max(worst, e > 0 ? diff / e : diff > 0 ? INFINITY : 0.0);
    }
  }
  return worst;
}

double largest_norm(const Matrix& M) {
  double largest = 0;
  for (Index r = 0; r < M.rows(); ++r) largest = std::max(largest, double(M.row(r).cast<double>().norm()));
  return largest;
}

}  // namespace

TEST_CASE("float scores: the bound is γ_{d+3}·c·‖q‖·‖k‖ (plus underflow), rounded up", "[kernels][float-scores]") {
  for (const Index d : {1, 8, 33, 64, 128}) {
    const double n = double(d) + 3, gamma = n * u / (1 - n * u);
    for (const double x : {1e-30, 1e-3, 0.5, 7.0}) {
      const double bound = kernels::float_score_error_bound(x, 2 * x, d, 0.125);
      REQUIRE(bound >= gamma * 0.125 * x * 2 * x);
      REQUIRE(bound >= (2 * double(d) + 1) * 0x1p-150);
      REQUIRE(bound <= gamma * 0.125 * x * 2 * x * (1 + 1e-9) + (2 * double(d) + 1) * 0x1p-150 * (1 + 1e-9));
    }
  }
  REQUIRE(kernels::kFloatScoreBudget == u / 2);
}

TEST_CASE("float scores: the bound holds for float sums in the kernel's order, worst-case signs",
          "[kernels][float-scores]") {
  // The float path's arithmetic for one score, as kernels.cpp describes it: q'_p = fl(q_p·fl(c)), then
  // one accumulator from 0 over p in order. All products of one sign make the sum's error largest.
  std::mt19937 rng(5);
  std::uniform_real_distribution<float> uniform(0.5f, 1.0f);
  for (const Index d : {8, 64, 100}) {
    const double c = 1.0 / std::sqrt(double(d));
    const float c_f = static_cast<float>(c);
    double worst = 0;
    for (int trial = 0; trial < 2000; ++trial) {
      std::vector<float> q(static_cast<std::size_t>(d)), k(q.size());
      for (std::size_t p = 0; p < q.size(); ++p) {
        q[p] = uniform(rng) * (trial % 7 == 0 ? 1e3f : 1.0f);
        k[p] = uniform(rng) * (trial % 5 == 0 ? 1e-3f : 1.0f);
      }
      float acc = 0;
      double exact = 0, qq = 0, kk = 0;
      for (std::size_t p = 0; p < q.size(); ++p) {
        const float scaled = q[p] * c_f;
        acc += k[p] * scaled;
        exact += double{q[p]} * k[p];
        qq += double{q[p]} * q[p];
        kk += double{k[p]} * k[p];
      }
      const double rounded = static_cast<float>(exact * c);  // ŝ, the double path's score
      const double bound = kernels::float_score_error_bound(std::sqrt(qq), std::sqrt(kk), d, c);
      worst = std::max(worst, std::fabs(double{acc} - rounded) / bound);
    }
    INFO("d = " << d << ": worst |s̃ − ŝ| / bound = " << worst);
    REQUIRE(worst <= 1.0);
  }
}

TEST_CASE("float scores: small-norm tiles sum in float and stay within E of the float32 floor",
          "[kernels][float-scores][accuracy]") {
  // Q's first block and K's first two tiles have tiny norms (their tiles may sum in float), the rest
  // scores in the hundreds (double); sizes across tile and panel edges, every mask.
  std::mt19937 rng(27);
  for (const Index T : {17, 64, 130, 200}) {
    for (const int variant : {0, 1, 2}) {
      const Index d = 64, d_v = 9;
      Matrix Q = seeded_matrix(T, d, rng, 0.02f), K = seeded_matrix(T, d, rng, 0.02f);
      const Matrix V = seeded_matrix(T, d_v, rng, 4.0f);
      for (Index i = 64; i < T; ++i) Q.row(i) *= 1500.0f;   // blocks after the first: large scores
      for (Index j = 128; j < T; ++j) K.row(j) *= 1500.0f;  // tiles after the second: large scores
      const bool causal = variant == 1;
      std::vector<unsigned char> padding;
      if (variant == 2) {
        padding.assign(static_cast<std::size_t>(T), 0);
        for (Index j = 1; j < T; j += 3) padding[static_cast<std::size_t>(j)] = 1;
      }
      const Run fast = stream(Q, K, V, true, causal, padding), exact = stream(Q, K, V, false, causal, padding);
      INFO("T = " << T << ", variant " << variant << ": " << fast.float_tiles << " float tiles");
      REQUIRE(fast.float_tiles >= 1);  // the first block's tiles with the first two key tiles at least
      REQUIRE(exact.float_tiles == 0);
      const double worst_fast = worst_over_floor(Q, K, V, fast.out, causal, padding);
      const double worst_double = worst_over_floor(Q, K, V, exact.out, causal, padding);
      INFO("max |out − floor| / E: float tiles " << worst_fast << ", all double " << worst_double);
      REQUIRE(worst_fast <= 1.0);
      REQUIRE(worst_double <= 1.0);
      // Rows outside the first block never take the float path: their outputs are the double path's, bit
      // for bit, when no tile of theirs passes.
      const double q_rest = largest_norm(Q.bottomRows(std::max<Index>(0, T - 64)));
      if (T > 64 && kernels::float_score_error_bound(q_rest, largest_norm(K), d, 0.125) > kernels::kFloatScoreBudget)
        REQUIRE(fast.out.bottomRows(T - 64) == exact.out.bottomRows(T - 64));
    }
  }
}

TEST_CASE("float scores: a tile whose bound exceeds the budget always sums in double", "[kernels][float-scores]") {
  constexpr Index T = 64, d = 64;  // one block, one tile
  std::mt19937 rng(3);
  Matrix Q = seeded_matrix(T, d, rng, 0.01f), K = seeded_matrix(T, d, rng, 0.01f);
  const Matrix V = seeded_matrix(T, 5, rng);
  const double c = 1.0 / 8;
  REQUIRE(kernels::float_score_error_bound(largest_norm(Q), largest_norm(K), d, c) <= kernels::kFloatScoreBudget);
  REQUIRE(stream(Q, K, V, true).float_tiles == 1);
  // One key (the last) scaled so that the tile's bound sits just above, then just below, the budget: the
  // decision follows the bound of the largest norm, whichever key it is.
  const double others = largest_norm(K.topRows(T - 1));
  const double at_budget = kernels::kFloatScoreBudget /
                           kernels::float_score_error_bound(largest_norm(Q), K.row(T - 1).cast<double>().norm(), d, c);
  for (const double f : {1.0001, 1.01, 10.0, 1e6}) {
    Matrix K2 = K;
    K2.row(T - 1) *= static_cast<float>(at_budget * f);
    REQUIRE(kernels::float_score_error_bound(largest_norm(Q), largest_norm(K2), d, c) > kernels::kFloatScoreBudget);
    const Run fast = stream(Q, K2, V, true), exact = stream(Q, K2, V, false);
    REQUIRE(fast.float_tiles == 0);
    REQUIRE(fast.out == exact.out);  // the double path, bit for bit
  }
  Matrix K3 = K;
  K3.row(T - 1) *= static_cast<float>(at_budget * 0.999);
  if (largest_norm(K3) >= others) REQUIRE(stream(Q, K3, V, true).float_tiles == 1);
  // A large query norm does the same.
  Matrix Q2 = Q;
  Q2.row(7) *= 300.0f;
  REQUIRE(kernels::float_score_error_bound(largest_norm(Q2), largest_norm(K), d, c) > kernels::kFloatScoreBudget);
  REQUIRE(stream(Q2, K, V, true).float_tiles == 0);
  REQUIRE(stream(Q2, K, V, true).out == stream(Q2, K, V, false).out);
}

TEST_CASE("float scores: typical rows (the benchmark's inputs) stay on the double path", "[kernels][float-scores]") {
  // Q, K uniform in [-2, 2) as bench/common.mjs makes them: c·‖q‖·‖k‖ ≈ 10.7, ~1,400 times what the
  // float path may take at d = 64 (docs/performance.md).
  std::mt19937 rng(11);
  std::uniform_real_distribution<float> uniform(-2.0f, 2.0f);
  Matrix Q(256, 64), K(256, 64), V(256, 64);
  for (Matrix* M : {&Q, &K, &V})
    for (Index i = 0; i < M->size(); ++i) M->data()[i] = uniform(rng);
  REQUIRE(stream(Q, K, V, true).float_tiles == 0);
  REQUIRE(stream(Q, K, V, true).out == streaming_attention_output(Q, K, V));
}

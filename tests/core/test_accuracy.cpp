// Accuracy at the float32 floor, at large scores (the largest scaled score of every case is ≥ 242).
//
// The floor: round the scaled scores s = q·k / (√d_k·T) of the float inputs to float32, then do everything
// after (the softmax, the weighted sum of values) exactly. No float32 computation can do better in
// general, since the scores themselves must be float32. Error bounds below are in units of
// u = 2⁻²⁴, the unit roundoff of float32.
//
// What the core is held to, per case (each derived in the comments of the checks):
//  1. every scaled score it returns is the correctly rounded exact value: |ŝ − s| ≤ u·|s| (the
//     floor's own rounding; summing q·k in float lost up to ~30 times that here), up to the error of a
//     double sum;
//  2. its output is within E of the floor's output o(ŝ), E the float rounding the softmax and the
//     weighted sum may add after the scores (derived in rounding_bound below);
// so |output − exact| ≤ |o(ŝ) − exact| + E: the floor, plus a bound that the scores do not enter.
// The reference is computed here in double from the same float inputs (exact products, sums within
// d_k·2⁻⁵³ of their magnitudes, far below float32's rounding); for attention() with
// projections, from the core's own float32 Q, K, V (the steps it returns), so the floor there is the
// one of those inputs.
#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "attention/streaming.hpp"
#include "helpers.hpp"

using namespace attn;

namespace {

using LD = double;  // the reference's precision (long double is only double under valgrind, and buys nothing here)
constexpr LD u = 1.0 / (1 << 24);  // float32's unit roundoff, 2⁻²⁴

struct Case {
  Matrix Q, K, V;
  AttentionOptions o;
  double divisor = 1;  // √d_k for scaled dot, the constant c for parameter-free attention
};

// Exact scaled scores of a case (double sums of the exact products), with -inf where masked.
std::vector<std::vector<LD>> exact_scores(const Case& c) {
  const Index T_q = c.Q.rows(), T_k = c.K.rows();
  std::vector<std::vector<LD>> s(static_cast<std::size_t>(T_q), std::vector<LD>(static_cast<std::size_t>(T_k)));
  for (Index i = 0; i < T_q; ++i)
    for (Index j = 0; j < T_k; ++j) {
      const bool hidden = (c.o.causal && j > i) ||
                          (!c.o.key_padding.empty() && c.o.key_padding[static_cast<std::size_t>(j)]);
      LD dot = 0;
      for (Index p = 0; p < c.Q.cols(); ++p) dot += LD{c.Q(i, p)} * LD{c.K(j, p)};
      s[i][j] = hidden ? -std::numeric_limits<LD>::infinity() : dot / (LD{c.divisor} * LD{c.o.temperature});
    }
  return s;
}

// What the output of one query is made of, computed exactly from given scores: the weights, the output,
// and the error bound E of rounding_bound for each output column.
struct Row {
  std::vector<LD> w, g;  // softmax weights and the gaps g_j = s_j − max s (visible keys; 0 elsewhere)
  std::vector<LD> out;   // Σ_j w_j v_j
};

Row exact_row(const std::vector<LD>& s, const Matrix& V) {
  Row r;
  const std::size_t T = s.size();
  r.w.assign(T, 0);
  r.g.assign(T, 0);
  r.out.assign(static_cast<std::size_t>(V.cols()), 0);
  const LD max = *std::max_element(s.begin(), s.end());
  if (max == -std::numeric_limits<LD>::infinity()) return r;  // every key masked: zeros
  LD sum = 0;
  for (std::size_t j = 0; j < T; ++j)
    if (s[j] != -std::numeric_limits<LD>::infinity()) {
      r.g[j] = s[j] - max;
      sum += r.w[j] = std::exp(r.g[j]);
    }
  for (std::size_t j = 0; j < T; ++j) r.w[j] /= sum;
  for (Index c = 0; c < V.cols(); ++c)
    for (std::size_t j = 0; j < T; ++j) r.out[static_cast<std::size_t>(c)] += r.w[j] * LD{V(static_cast<Index>(j), c)};
  return r;
}

// E: how far float arithmetic may take the output from o(ŝ) once the scores ŝ are float32. With w_j the
// exact weights of ŝ, g_j = ŝ_j − max ŝ and A = Σ_j w_j |v_j| (per output column):
//  * the gap g_j is exact when ŝ_j ≥ max/2 (Sterbenz) and within u·|g_j| otherwise;
//  * exp(g_j) is within 2 ulp (Cephes' polynomial; ≤ 4u relative);
//  * 1/L and e_j·(1/L) round once each, and so does each product ŵ_j·v_j: 3u;
//  * the sum L = Σ e_j and the sum Σ ŵ_j v_j: an addition errs by at most min(u·|sum|, |the smaller
//    operand|) (either operand is a float candidate for the result), so adding term j errs by at most
//    min(u, w_j) of L and min(u·A, w_j·|v_j|) of the output; the additions that merge partial sums
//    (2·W vector lanes, each 64-key tile of the streaming path with its rescale by exp(m_old − m_new),
//    whose own 4u + u·|m_old − m_new|·e^-|m_old − m_new| ≤ 5u error scales the earlier tiles) add
//    `merges`·u·A each way.
// Adding these (first order, with a 1e-3 margin for the second): per output column c,
//   E_c = u·Σ_j w_j (7 + |g_j|) |v_jc| + (Σ_j min(u, w_j) + 2·merges·u)·A_c + Σ_j min(u·A_c, w_j |v_jc|).
std::vector<LD> rounding_bound(const Row& r, const Matrix& V) {
  const std::size_t T = r.w.size();
  const LD merges = 24 + 5 * std::ceil(LD(T) / 64);
  LD sum_terms = 0;
  for (const LD w : r.w) sum_terms += std::min(u, w);
  std::vector<LD> E(static_cast<std::size_t>(V.cols()));
  for (Index c = 0; c < V.cols(); ++c) {
    LD A = 0, per_value = 0, additions = 0;
    for (std::size_t j = 0; j < T; ++j) A += r.w[j] * std::fabs(LD{V(static_cast<Index>(j), c)});
    for (std::size_t j = 0; j < T; ++j) {
      const LD term = r.w[j] * std::fabs(LD{V(static_cast<Index>(j), c)});
      per_value += (7 + std::fabs(r.g[j])) * term;
      additions += std::min(u * A, term);
    }
    E[static_cast<std::size_t>(c)] = 1.001 * (u * per_value + (sum_terms + 2 * merges * u) * A + additions);
  }
  return E;
}

// The worst errors over the cases checked, for the record (printed by the last test).
struct Record {
  double core = 0, floor = 0, before_bound = 0;  // max |core − exact|, max |o(ŝ) − exact|, max (core − o(ŝ)) / E
};

// Check 2 for one output (T_q × d_v) against the case's exact scores; returns the worst errors. (One
// REQUIRE per case, naming the worst entry: a REQUIRE per entry would make the test slow.)
Record check_output(const Case& c, const Matrix& output, const char* what) {
  const auto s = exact_scores(c);
  Record rec;
  std::string worst;
  for (Index i = 0; i < c.Q.rows(); ++i) {
    const std::vector<LD>& exact_s = s[static_cast<std::size_t>(i)];
    std::vector<LD> rounded = exact_s;
    for (LD& x : rounded) x = static_cast<float>(x);  // the floor: the scores rounded to float32, -inf kept
    const Row exact = exact_row(exact_s, c.V), floor = exact_row(rounded, c.V);
    const std::vector<LD> E = rounding_bound(floor, c.V);
    for (Index col = 0; col < c.V.cols(); ++col) {
      const std::size_t k = static_cast<std::size_t>(col);
      const LD got = output(i, col), from_floor = std::fabs(got - floor.out[k]);
      rec.core = std::max(rec.core, double(std::fabs(got - exact.out[k])));
      rec.floor = std::max(rec.floor, double(std::fabs(floor.out[k] - exact.out[k])));
      const double ratio = E[k] > 0 ? double(from_floor / E[k]) : from_floor > 0 ? INFINITY : 0.0;
      if (ratio > rec.before_bound) {
        rec.before_bound = ratio;
        std::ostringstream m;
        m << what << ": query " << i << ", column " << col << ": core " << double(got) << ", floor "
          << double(floor.out[k]) << ", exact " << double(exact.out[k]) << "; |core − floor| = " << double(from_floor)
          << ", E = " << double(E[k]);
        worst = m.str();
      }
    }
  }
  INFO(worst);
  REQUIRE(rec.before_bound <= 1.0);
  return rec;
}

// Check 1: the scaled scores (and the raw ones) are the correctly rounded exact values, -inf where masked:
// within half an ulp (u·|s|), up to what a double sum of the d_k products may be off by itself,
// d_k·2⁻⁵³·Σ|q_p·k_p| (with 4 more for the double scale), and as much again for the reference's own
// double sums.
void check_scores(const Case& c, const AttentionSteps& steps, const char* what) {
  const auto s = exact_scores(c);
  const Index d_k = c.Q.cols();
  LD largest = 0, worst = 0;  // worst: max |ŝ − s| / bound, over raw and scaled scores
  Index wi = 0, wj = 0;
  bool masks_kept = true;
  for (Index i = 0; i < steps.scaled.rows(); ++i)
    for (Index j = 0; j < steps.scaled.cols(); ++j) {
      const LD exact = s[static_cast<std::size_t>(i)][static_cast<std::size_t>(j)], got = steps.scaled(i, j);
      if (exact == -std::numeric_limits<LD>::infinity()) {
        masks_kept = masks_kept && got == -std::numeric_limits<float>::infinity();
        continue;
      }
      LD magnitude = 0;
      for (Index p = 0; p < d_k; ++p) magnitude += std::fabs(LD{c.Q(i, p)} * LD{c.K(j, p)});
      const LD sums = 2 * LD(d_k + 4) * std::ldexp(1.0, -53) * magnitude, factor = LD{c.divisor} * c.o.temperature;
      const LD raw = exact * factor;
      const LD error = std::max(std::fabs(got - exact) / (u * std::fabs(exact) + sums / factor),
                                std::fabs(LD{steps.scores(i, j)} - raw) / (u * std::fabs(raw) + sums));
      if (error > worst) std::tie(worst, wi, wj) = std::make_tuple(error, i, j);
      largest = std::max(largest, exact);
    }
  INFO(what << ": the worst scaled score is (" << wi << ", " << wj << "), " << steps.scaled(wi, wj) << " against "
            << double(s[static_cast<std::size_t>(wi)][static_cast<std::size_t>(wj)]) << ": " << double(worst)
            << " of the correct-rounding bound");
  REQUIRE(masks_kept);
  REQUIRE(worst <= 1);
  REQUIRE(largest >= 242);  // what makes these large-score cases
}

// A case whose largest scaled score is `target`: Q and K (or X and the Q/K biases) are scaled by the
// square root of what it takes. K's rows lean towards Q's so scores are large, and several keys of a row
// compete within a few units of the max (a softmax that is not one-hot, where score errors show).
Case make_case(std::mt19937& rng, Index T, Index d_k, Index d_v, float temperature, bool causal, bool padding,
               float target) {
  Case c;
  c.Q = seeded_matrix(T, d_k, rng);
  c.K = seeded_matrix(T, d_k, rng);
  c.V = seeded_matrix(T, d_v, rng, 4.0f);
  for (Index j = 0; j < T; ++j) c.K.row(j) = 0.8f * c.Q.row((j * 5 + 1) % T) + 0.2f * c.K.row(j);
  c.o.score = Score::ScaledDot;
  c.o.temperature = temperature;
  c.o.causal = causal;
  if (padding) {
    c.o.key_padding.assign(static_cast<std::size_t>(T), 0);
    for (Index j = 1; j < T; j += 3) c.o.key_padding[static_cast<std::size_t>(j)] = 1;
  }
  c.divisor = std::sqrt(double(d_k));
  LD largest = 0;
  for (const auto& row : exact_scores(c))
    for (const LD x : row) largest = std::max(largest, x);
  const float f = std::sqrt(target / float(largest));
  c.Q *= f;
  c.K *= f;
  return c;
}

// The cases: sizes across tile and vector edges, d_k a power of 4 or not (√d_k exact or not), every
// mask, temperatures below and above 1.
std::vector<Case> cases() {
  std::mt19937 rng(242);
  std::vector<Case> out;
  const Index sizes[][3] = {{17, 8, 5}, {64, 64, 16}, {65, 24, 7}, {130, 33, 8}, {200, 16, 4}, {40, 64, 3}};
  int n = 0;
  for (const auto& [T, d_k, d_v] : sizes)
    for (const float temperature : {1.0f, 0.5f, 1.7f})
      for (const float target : {250.0f, 700.0f, 1900.0f}) {
        ++n;
        out.push_back(make_case(rng, T, d_k, d_v, temperature, n % 2 == 0, n % 3 == 0, target));
      }
  return out;
}

Record& record() {
  static Record r;
  return r;
}

void keep(const Record& r) {
  record().core = std::max(record().core, r.core);
  record().floor = std::max(record().floor, r.floor);
  record().before_bound = std::max(record().before_bound, r.before_bound);
}

}  // namespace

TEST_CASE("accuracy: attention from Q, K, V rounds each scaled score once and adds at most E after", "[accuracy]") {
  for (const Case& c : cases()) {
    const AttentionSteps s = attention_from_qkv(c.Q, c.K, c.V, c.o);
    check_scores(c, s, "attention_from_qkv");
    keep(check_output(c, s.output, "attention_from_qkv"));
  }
}

TEST_CASE("accuracy: the streaming path is at the same floor", "[accuracy][streaming]") {
  for (const Case& c : cases()) keep(check_output(c, streaming_attention_output(c.Q, c.K, c.V, c.o), "streaming"));
}

TEST_CASE("accuracy: attention() with biases, and parameter-free attention, at large scores", "[accuracy]") {
  std::mt19937 rng(7);
  int n = 0;
  for (const auto& [T, d_model, d_k] : {std::array<Index, 3>{33, 12, 8}, {70, 20, 24}, {129, 16, 64}}) {
    for (const float temperature : {1.0f, 0.6f}) {
      ++n;
      // attention(): X·W + b, the biases large enough to matter; scaled so the largest score is ~500.
      HeadWeights w{seeded_matrix(d_model, d_k, rng),
                    seeded_matrix(d_model, d_k, rng),
                    seeded_matrix(d_model, 6, rng),
                    Vector::Zero(d_k),
                    Vector::Zero(d_k),
                    Vector::Zero(6)};
      w.b_Q = seeded_matrix(1, d_k, rng, 2.0f).row(0).transpose();
      w.b_K = w.b_Q + Vector(seeded_matrix(1, d_k, rng, 0.3f).row(0).transpose());
      w.b_V = seeded_matrix(1, 6, rng).row(0).transpose();
      Matrix X = seeded_matrix(T, d_model, rng, 0.3f);
      AttentionOptions o;
      o.temperature = temperature;
      o.causal = n % 2 == 1;
      if (n % 3 == 0) {
        o.key_padding.assign(static_cast<std::size_t>(T), 0);
        for (Index j = 2; j < T; j += 4) o.key_padding[static_cast<std::size_t>(j)] = 1;
      }
      const float largest = attention(X, w, o).scaled.maxCoeff();
      const float f = std::sqrt(500.0f / largest);  // scores are quadratic in X and the Q/K biases
      X *= f;
      w.b_Q *= f;
      w.b_K *= f;
      const AttentionSteps s = attention(X, w, o);
      Case c{s.Q, s.K, s.V, o, std::sqrt(double(d_k))};  // the floor of its own float32 Q, K, V
      check_scores(c, s, "attention() with biases");
      keep(check_output(c, s.output, "attention() with biases"));

      // Parameter-free: Q = K = V = X, ÷ c; the diagonal wins, so the causal rows' first keys compete.
      Matrix Y = seeded_matrix(T, d_model, rng);
      AttentionOptions p = o;
      p.score = Score::Dot;
      const float constant = 3.0f;
      const Case unscaled{Y, Y, Y, p, constant};
      LD top = 0;
      for (const auto& row : exact_scores(unscaled))
        for (const LD x : row) top = std::max(top, x);
      Y *= std::sqrt(300.0f / float(top));
      const AttentionSteps q = parameter_free_attention(Y, constant, p);
      const Case pc{Y, Y, Y, p, constant};
      check_scores(pc, q, "parameter-free");
      keep(check_output(pc, q.output, "parameter-free"));
    }
  }
}

TEST_CASE("accuracy: the streaming output equals attention().output to 1e-5 of max |V| at large scores",
          "[accuracy][streaming]") {
  // Both round the same exact scores once (the same double sums), so they differ only by the float
  // arithmetic after: at most E each, which these cases keep under 1e-5·max|V| (wasm/attention.d.ts).
  double worst = 0;
  for (const Case& c : cases()) {
    const Matrix full = attention_from_qkv(c.Q, c.K, c.V, c.o).output;
    const Matrix streamed = streaming_attention_output(c.Q, c.K, c.V, c.o);
    const double scale = c.V.cwiseAbs().maxCoeff();
    worst = std::max(worst, double((full - streamed).cwiseAbs().maxCoeff() / scale));
  }
  INFO("max |streamed − full| / max |V| = " << worst);
  REQUIRE(worst <= 1e-5);
  WARN("large-score cases: max |core − exact| " << record().core << ", max |floor − exact| " << record().floor
                                                << ", max |core − floor| / E " << record().before_bound
                                                << "; max |streamed − full| / max|V| " << worst);
}

// Score functions: how much each query matches each key (row convention, result T_q × T_k).
#include <cmath>
#include <limits>

#include "attention/attention.hpp"
#include "checks.hpp"
#include "kernels.hpp"

namespace attn {
namespace {

using detail::fail;
using detail::ll;

void require_same_width(const Matrix& Q, const Matrix& K, const char* what) {
  if (Q.cols() != K.cols())
    fail("%s: queries Q (%s) and keys K (%s) must have the same width d_k", what, shape_of(Q).c_str(),
         shape_of(K).c_str());
  if (Q.cols() == 0) fail("%s: d_k is 0; vectors need at least one entry", what);
}

}  // namespace

// score(i, j) = q_i · k_j
Matrix dot_scores(const Matrix& Q, const Matrix& K) {
  require_same_width(Q, K, "dot scores");
  return kernels::multiply_transposed(Q, K);  // Q·Kᵀ: T_q×d_k · d_k×T_k = T_q×T_k, vectorised (kernels.hpp)
}

// score(i, j) = q_i · k_j / √d_k — keeps the variance of the scores near 1 so softmax does not saturate.
Matrix scaled_dot_scores(const Matrix& Q, const Matrix& K) {
  require_same_width(Q, K, "scaled dot scores");
  return kernels::multiply_transposed(Q, K, 1.0 / score_divisor(Score::ScaledDot, Q.cols()));  // rounded once
}

// Each row ÷ its largest |entry| first, then ÷ the norm of what is left, so the norm of a huge (or tiny)
// finite row cannot overflow (or underflow to 0/0). A zero row has no direction: it stays zero.
Matrix unit_rows(const Matrix& M) {
  Matrix U = M;
  if (U.cols() == 0) return U;  // no entries to scale
  for (Index i = 0; i < U.rows(); ++i) {
    const float largest = U.row(i).cwiseAbs().maxCoeff();
    if (largest == 0.0f) continue;
    U.row(i) /= largest;
    U.row(i) /= U.row(i).norm();
  }
  return U;
}

// score(i, j) = q_i · k_j / (|q_i| |k_j|): the dot product of unit vectors; a zero vector scores 0.
Matrix cosine_scores(const Matrix& Q, const Matrix& K) {
  require_same_width(Q, K, "cosine scores");
  return dot_scores(unit_rows(Q), unit_rows(K));
}

// score(i, j) = vᵀ tanh(W1·q_i + W2·k_j)   (W1, W2: d_a × d_k; v: d_a)
Matrix additive_scores(const Matrix& Q, const Matrix& K, const AdditiveWeights& w) {
  require_same_width(Q, K, "additive scores");
  const Index d_k = Q.cols();
  if (w.W1.cols() != d_k || w.W2.cols() != d_k || w.W1.rows() != w.W2.rows() || w.v.size() != w.W1.rows() ||
      w.W1.rows() == 0)
    fail(
        "additive scores: need W1 and W2 of shape d_a×%lld and v of length d_a (d_a ≥ 1); got W1 %s, W2 %s, v of "
        "length %lld",
        ll(d_k), shape_of(w.W1).c_str(), shape_of(w.W2).c_str(), ll(w.v.size()));
  require_finite(w.W1, "additive W1");
  require_finite(w.W2, "additive W2");
  require_finite(w.v, "additive v");
  // Project once per query and once per key, then combine every pair.
  const Matrix q_proj = Q * w.W1.transpose();  // T_q × d_a
  const Matrix k_proj = K * w.W2.transpose();  // T_k × d_a
  Matrix scores(Q.rows(), K.rows());
  for (Index i = 0; i < Q.rows(); ++i)
    for (Index j = 0; j < K.rows(); ++j)
      scores(i, j) = (q_proj.row(i) + k_proj.row(j)).array().tanh().matrix().dot(w.v);
  return scores;
}

void apply_mask(Matrix& scores, bool causal, const KeyPadding& key_padding) {
  const float masked = -std::numeric_limits<float>::infinity();
  detail::require_key_padding(key_padding, scores.cols());
  if (!key_padding.empty()) {
    for (Index j = 0; j < scores.cols() && scores.rows() > 0; ++j)  // no column views of a 0-row matrix
      if (key_padding[static_cast<std::size_t>(j)]) scores.col(j).setConstant(masked);
  }
  if (causal) {
    detail::require_causal_square(scores.rows(), scores.cols());
    for (Index i = 0; i < scores.rows(); ++i)
      for (Index j = i + 1; j < scores.cols(); ++j) scores(i, j) = masked;
  }
}

}  // namespace attn

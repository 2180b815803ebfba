// Softmax along rows or columns: exact (numerically stable) and the by-hand 3^x version.
#include <cmath>
#include <limits>

#include "attention/attention.hpp"
#include "kernels.hpp"
#include "checks.hpp"

namespace attn {
namespace {

using detail::fail;
using detail::ll;

// -inf marks a masked entry; anything else non-finite is a caller's bug we refuse to hide.
void require_logits(const Matrix& logits) {
  for (Index r = 0; r < logits.rows(); ++r)
    for (Index c = 0; c < logits.cols(); ++c) {
      const float x = logits(r, c);
      if (std::isnan(x) || x == std::numeric_limits<float>::infinity())
        fail("softmax: logits (%s) have %s at row %lld, column %lld (only -Inf, meaning masked, is allowed)",
             shape_of(logits).c_str(), std::isnan(x) ? "NaN" : "+Inf", ll(r), ll(c));
    }
}

// Softmax of one row (contiguous view of a row-major matrix, or a column copied out).
// exp(x - max) keeps every power ≤ 1, so logits of ±1e4 or ±1e30 cannot overflow; if every entry is
// masked, the weights are all zero rather than 0/0 = NaN.
template <typename Row>
void softmax_in_place(Row row, float inv_temperature) {
  const float neg_inf = -std::numeric_limits<float>::infinity();
  float max = neg_inf;
  for (Index j = 0; j < row.size(); ++j) max = std::max(max, row(j));
  if (max == neg_inf) {
    row.setZero();
    return;
  }
  double sum = 0;
  for (Index j = 0; j < row.size(); ++j) {
    // (x - max) / T, not x/T - max/T: huge logits would lose the difference.
    // The max maps to exp(0) = 1 exactly, even when a tiny temperature makes 1/T infinite.
    const float gap = row(j) - max;
    const float e = row(j) == neg_inf ? 0.0f : gap == 0.0f ? 1.0f : std::exp(gap * inv_temperature);
    row(j) = e;
    sum += e;
  }
  row /= static_cast<float>(sum);  // sum ≥ 1: the max itself contributes exp(0)
}

}  // namespace

Matrix softmax(const Matrix& logits, Axis axis, float temperature) {
  detail::require_temperature(temperature);
  require_logits(logits);
  if (logits.size() == 0) return logits;  // nothing to normalise (and no rows/columns to take views of)
  Matrix weights = logits;
  const float inv_t = 1.0f / temperature;
  if (axis == Axis::Rows && kernels::kUseForSoftmax) {
    // The same steps, vectorised (exp included): see kernels.hpp.
    kernels::softmax_rows(weights.data(), weights.rows(), weights.cols(), weights.cols(), inv_t);
  } else if (axis == Axis::Rows) {
    for (Index r = 0; r < weights.rows(); ++r) softmax_in_place(weights.row(r), inv_t);
  } else {
    for (Index c = 0; c < weights.cols(); ++c) softmax_in_place(weights.col(c), inv_t);
  }
  return weights;
}

Matrix softmax_base3(const Matrix& logits, Axis axis) {
  require_logits(logits);
  if (logits.size() == 0) return logits;
  // On paper: raise 3 to each score, add up the row (or column), divide. Masked (-inf) → 3^-inf = 0.
  Matrix powers = logits.unaryExpr([](float x) { return std::pow(3.0f, x); });
  for (Index r = 0; r < powers.rows(); ++r)
    for (Index c = 0; c < powers.cols(); ++c)
      if (!std::isfinite(powers(r, c)))
        fail("softmax with 3^x: 3^%g overflows float; the hand shortcut is meant for the small integer scores of "
             "the sheet", double{logits(r, c)});
  // 3^x / Σ 3^x, evaluated as 3^(x - max) / Σ 3^(x - max) in double: the same numbers, but a line of
  // very negative scores (3^-100 underflows float to 0) or many large ones (the sum overflows) still
  // sums to 1. A line that is all -inf (masked) stays all zero.
  auto normalise = [](auto in, auto out) {
    const float neg_inf = -std::numeric_limits<float>::infinity();
    float max = neg_inf;
    for (Index j = 0; j < in.size(); ++j) max = std::max(max, in(j));
    if (max == neg_inf) {
      out.setZero();
      return;
    }
    double sum = 0;
    for (Index j = 0; j < in.size(); ++j) sum += std::pow(3.0, static_cast<double>(in(j)) - max);
    for (Index j = 0; j < in.size(); ++j)
      out(j) = static_cast<float>(std::pow(3.0, static_cast<double>(in(j)) - max) / sum);
  };
  if (axis == Axis::Rows) {
    for (Index r = 0; r < powers.rows(); ++r) normalise(logits.row(r), powers.row(r));
  } else {
    for (Index c = 0; c < powers.cols(); ++c) normalise(logits.col(c), powers.col(c));
  }
  return powers;
}

}  // namespace attn

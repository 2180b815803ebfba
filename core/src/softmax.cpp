// Softmax along rows or columns: exact (numerically stable) and the by-hand 3^x version.
#include <cmath>
#include <limits>

#include "attention/attention.hpp"
#include "checks.hpp"
#include "kernels.hpp"

namespace attn {
namespace {

using detail::fail;
using detail::ll;

// 3^x for every entry (3^-inf = 0: masked), refused where it overflows float.
Matrix base3_powers(const Matrix& logits) {
  Matrix powers = logits.unaryExpr([](float x) { return std::pow(3.0f, x); });
  for (Index r = 0; r < powers.rows(); ++r)
    for (Index c = 0; c < powers.cols(); ++c)
      if (!std::isfinite(powers(r, c)))
        fail(
            "softmax with 3^x: 3^%g overflows float; the hand shortcut is meant for the small integer scores of the "
            "sheet",
            double{logits(r, c)});
  return powers;
}

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

}  // namespace

// softmax(z / T) = exp((z - max z) / T) / Σ exp((z - max z) / T): kernels::softmax_rows (kernels.hpp) runs
// it, reference::softmax_rows is the same written plainly. Down columns = along the rows of the transpose.
Matrix softmax(const Matrix& logits, Axis axis, float temperature) {
  detail::require_temperature(temperature);
  require_logits(logits);
  Matrix weights = axis == Axis::Rows ? logits : Matrix(logits.transpose());
  kernels::softmax_rows(weights.data(), weights.rows(), weights.cols(), weights.cols(), 1.0f / temperature);
  if (axis == Axis::Columns) weights.transposeInPlace();
  return weights;
}

Matrix softmax_base3(const Matrix& logits, Axis axis) {
  require_logits(logits);
  if (logits.size() == 0) return logits;
  // On paper: raise 3 to each score, add up the row (or column), divide. Masked (-inf) → 3^-inf = 0.
  Matrix powers = base3_powers(logits);
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

Base3Terms softmax_base3_terms(const Matrix& logits, Axis axis) {
  require_logits(logits);
  Base3Terms t;
  t.powers = base3_powers(logits);
  t.sums = axis == Axis::Rows ? Vector(t.powers.rowwise().sum()) : Vector(t.powers.colwise().sum().transpose());
  return t;
}

}  // namespace attn

// The plain versions of the kernels (see reference.hpp): readable first, fast never.
#include "reference.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace attn::reference {

void softmax_rows(Matrix& m, float inv_temperature) {
  const float neg_inf = -std::numeric_limits<float>::infinity();
  for (Index r = 0; r < m.rows(); ++r) {
    auto row = m.row(r);
    const float max = row.size() ? row.maxCoeff() : neg_inf;
    if (max == neg_inf) {  // every entry masked: weights 0, not 0/0
      row.setZero();
      continue;
    }
    double sum = 0;
    for (Index j = 0; j < row.size(); ++j) {
      // (x - max) / T, not x/T - max/T: huge logits would lose the difference. exp(x - max) ≤ 1 cannot
      // overflow, and the max maps to exp(0) = 1 exactly, even when a tiny temperature makes 1/T infinite.
      const float gap = row(j) - max;
      row(j) = row(j) == neg_inf ? 0.0f : gap == 0.0f ? 1.0f : std::exp(gap * inv_temperature);
      sum += row(j);
    }
    row /= static_cast<float>(sum);  // sum ≥ 1: the max itself contributes exp(0)
  }
}

Matrix streaming_output(const Matrix& Q, const Matrix& K, const Matrix& V, double inv_divisor, bool causal,
                        const KeyPadding& key_padding) {
  constexpr Index kBlock = 64;
  const float neg_inf = -std::numeric_limits<float>::infinity();
  const Index T_q = Q.rows(), T_k = K.rows(), d_v = V.cols();
  Matrix output(T_q, d_v);
  Matrix scores;                    // one tile: up to kBlock × kBlock
  Vector running_max, running_sum;  // per query of the block
  Matrix accumulated;               // block × d_v
  for (Index q0 = 0; q0 < T_q; q0 += kBlock) {
    const Index nq = std::min(kBlock, T_q - q0);
    running_max.setConstant(nq, neg_inf);
    running_sum.setZero(nq);
    accumulated.setZero(nq, d_v);
    // With a causal mask, keys after the block's last query are never seen.
    const Index k_end = causal ? std::min(T_k, q0 + nq) : T_k;
    for (Index k0 = 0; k0 < k_end; k0 += kBlock) {
      const Index nk = std::min(kBlock, k_end - k0);
      // nq × nk, each q·k summed in double and rounded once after the scale.
      scores = (Q.middleRows(q0, nq).cast<double>() * K.middleRows(k0, nk).cast<double>().transpose() * inv_divisor)
                   .cast<float>();
      for (Index i = 0; i < nq; ++i) {
        float* s = &scores(i, 0);
        float tile_max = neg_inf;
        for (Index j = 0; j < nk; ++j) {
          const bool hidden = (causal && k0 + j > q0 + i) ||
                              (!key_padding.empty() && key_padding[static_cast<std::size_t>(k0 + j)]);
          if (hidden) s[j] = neg_inf;
          tile_max = std::max(tile_max, s[j]);
        }
        if (tile_max == neg_inf) continue;  // nothing visible in this tile for query i
        const float new_max = std::max(running_max(i), tile_max);
        // Rescale what was summed under the old maximum (exp(-inf) = 0 for the first visible tile).
        const float correction = std::exp(running_max(i) - new_max);
        float tile_sum = 0;
        for (Index j = 0; j < nk; ++j) {
          s[j] = s[j] == neg_inf ? 0.0f : std::exp(s[j] - new_max);
          tile_sum += s[j];
        }
        running_sum(i) = running_sum(i) * correction + tile_sum;
        accumulated.row(i) = accumulated.row(i) * correction + scores.row(i).head(nk) * V.middleRows(k0, nk);
        running_max(i) = new_max;
      }
    }
    for (Index i = 0; i < nq; ++i) {
      // A query that saw no key at all keeps a zero row, as the full path's all-zero weights give.
      if (running_sum(i) > 0)
        output.row(q0 + i) = accumulated.row(i) / running_sum(i);
      else
        output.row(q0 + i).setZero();
    }
  }
  return output;
}

}  // namespace attn::reference

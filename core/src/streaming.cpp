// Online-softmax attention (Milakov & Gimelshein 2018; the recurrence FlashAttention tiles): for each
// query keep the running maximum m, the running sum l of exp(s - m) and the running weighted sum of
// values; when a new block raises the maximum, rescale what was accumulated by exp(m_old - m_new).
#include "attention/streaming.hpp"
#include "kernels.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "checks.hpp"

namespace attn {
namespace {

constexpr Index kBlock = 64;  // queries and keys per tile: 64×64 scores = 16 KB, cache-resident

using detail::fail;

void require_inputs(const Matrix& Q, const Matrix& K, const Matrix& V, const AttentionOptions& o) {
  detail::require_qkv(Q, K, V, "streaming attention");
  detail::require_temperature(o.temperature);
  if (o.score == Score::Additive || o.hand_shortcuts)
    fail("streaming attention supports dot, scaled-dot and cosine scores without hand shortcuts");
  if (o.causal) detail::require_causal_square(Q.rows(), K.rows());
  detail::require_key_padding(o.key_padding, K.rows());
}

// Cosine scores are dot products of unit vectors; a zero vector stays zero (it scores 0). Each row is
// first divided by its largest |entry|, so the norm of a huge (or tiny) finite row cannot overflow.
Matrix unit_rows(const Matrix& M) {
  Matrix out = M;
  for (Index r = 0; r < out.rows(); ++r) {
    const float largest = out.row(r).cwiseAbs().maxCoeff();
    if (largest == 0.0f) continue;
    out.row(r) /= largest;
    out.row(r) /= out.row(r).norm();
  }
  return out;
}

}  // namespace

Matrix streaming_attention_output(const Matrix& Q_in, const Matrix& K_in, const Matrix& V,
                                  const AttentionOptions& o) {
  require_inputs(Q_in, K_in, V, o);
  const bool cosine = o.score == Score::Cosine;
  Matrix Q_unit, K_unit;  // only for cosine scores; otherwise Q and K are the inputs themselves, not copies
  if (cosine) {
    Q_unit = unit_rows(Q_in);
    K_unit = unit_rows(K_in);
  }
  const Matrix& Q = cosine ? Q_unit : Q_in;
  const Matrix& K = cosine ? K_unit : K_in;
  const Index T_q = Q.rows(), T_k = K.rows(), d_v = V.cols();
  const float scale = o.score == Score::ScaledDot ? std::sqrt(static_cast<float>(Q.cols())) : 1.0f;
  const float inv_divisor = 1.0f / (scale * o.temperature);
  const float neg_inf = -std::numeric_limits<float>::infinity();

  Matrix output(T_q, d_v);
  if constexpr (kernels::kUseForStreaming) {
    // The same recurrence with packed K/V and vectorised tiles and exp: see kernels.hpp.
    kernels::streaming_output(Q.data(), K.data(), V.data(), T_q, T_k, Q.cols(), d_v, inv_divisor, o.causal,
                              o.key_padding.empty() ? nullptr : o.key_padding.data(), output.data());
    detail::require_no_overflow(output, "streaming attention: the output");
  return output;
  }
  Matrix scores;                               // one tile: up to kBlock × kBlock
  Vector running_max, running_sum;             // per query of the block
  Matrix accumulated;                          // block × d_v
  for (Index q0 = 0; q0 < T_q; q0 += kBlock) {
    const Index nq = std::min(kBlock, T_q - q0);
    running_max.setConstant(nq, neg_inf);
    running_sum.setZero(nq);
    accumulated.setZero(nq, d_v);
    // With a causal mask, keys after the block's last query are never seen.
    const Index k_end = o.causal ? std::min(T_k, q0 + nq) : T_k;
    for (Index k0 = 0; k0 < k_end; k0 += kBlock) {
      const Index nk = std::min(kBlock, k_end - k0);
      scores.noalias() = Q.middleRows(q0, nq) * K.middleRows(k0, nk).transpose();  // nq × nk
      scores *= inv_divisor;
      for (Index i = 0; i < nq; ++i) {
        float* s = &scores(i, 0);
        float block_max = neg_inf;
        for (Index j = 0; j < nk; ++j) {
          const bool hidden = (o.causal && k0 + j > q0 + i) ||
                              (!o.key_padding.empty() && o.key_padding[static_cast<std::size_t>(k0 + j)]);
          if (hidden) s[j] = neg_inf;
          block_max = std::max(block_max, s[j]);
        }
        if (block_max == neg_inf) continue;  // nothing visible in this tile for query i
        const float new_max = std::max(running_max(i), block_max);
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
  detail::require_no_overflow(output, "streaming attention: the output");
  return output;
}

}  // namespace attn

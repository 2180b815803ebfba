// Output-only attention with the online softmax (Milakov & Gimelshein 2018; the recurrence FlashAttention
// tiles): for each query keep the running maximum m, the running sum l of exp(s - m) and the running
// weighted sum of values; when a new block of keys raises the maximum, rescale what was accumulated by
// exp(m_old - m_new). kernels::streaming_output runs it; reference::streaming_output is the same
// recurrence written plainly, which the tests hold the kernel to. The scores are rounded to float once,
// from double sums, as the full path's: both are at the float32 floor (tests/core/test_accuracy.cpp).
#include "attention/streaming.hpp"

#include <cmath>

#include "checks.hpp"
#include "kernels.hpp"

namespace attn {

Matrix streaming_attention_output(const Matrix& Q_in, const Matrix& K_in, const Matrix& V, const AttentionOptions& o) {
  detail::require_qkv(Q_in, K_in, V, "streaming attention");
  detail::require_temperature(o.temperature);
  if (o.score == Score::Additive || o.hand_shortcuts)
    detail::fail("streaming attention supports dot, scaled-dot and cosine scores without hand shortcuts");
  if (o.axis != Axis::Rows)
    detail::fail(
        "streaming attention normalises each query's row (the online softmax); a column softmax needs attention()");
  if (o.causal) detail::require_causal_square(Q_in.rows(), K_in.rows());
  detail::require_key_padding(o.key_padding, K_in.rows());

  // Cosine scores are the dot products of unit vectors.
  const bool cosine = o.score == Score::Cosine;
  Matrix Q_unit, K_unit;  // only for cosine scores; otherwise Q and K are the inputs themselves, not copies
  if (cosine) {
    Q_unit = unit_rows(Q_in);
    K_unit = unit_rows(K_in);
  }
  const Matrix& Q = cosine ? Q_unit : Q_in;
  const Matrix& K = cosine ? K_unit : K_in;
  const double scale = score_divisor(o.score, Q.cols());
  const double inv_divisor = 1.0 / (scale * o.temperature);  // applied to each double sum before rounding

  Matrix output(Q.rows(), V.cols());
  kernels::streaming_output(Q.data(), K.data(), V.data(), Q.rows(), K.rows(), Q.cols(), V.cols(), inv_divisor, o.causal,
                            o.key_padding.empty() ? nullptr : o.key_padding.data(), output.data());
  // Finite inputs can still overflow float32 in q·k or ÷ a tiny temperature (the full path refuses them too).
  detail::require_no_overflow(output, "streaming attention: the output");
  return output;
}

}  // namespace attn

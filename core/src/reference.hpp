// Internal to core/src (not part of the API): the plain versions of the kernels of kernels.hpp — the same
// maths written the obvious way, with Eigen products, std::exp and scalar loops. No build routes the core
// through them: the tests (tests/core/test_kernels.cpp) hold the kernels to them, and the benchmark times
// them as the baseline the kernels replaced. (Q·Kᵀ and weights·V need no function here: they are Eigen's
// products, Q·Kᵀ in double and rounded once, as kernels::multiply_transposed does.)
#pragma once

#include "attention/attention.hpp"

namespace attn::reference {

// Each row of m becomes softmax(row · inv_temperature), in place: the max subtracted first, -inf (masked)
// gives 0, the max gives exactly exp(0) = 1 even when inv_temperature is infinite, the sum is kept in
// double, and a row that is all -inf becomes zeros. What kernels::softmax_rows computes.
void softmax_rows(Matrix& m, float inv_temperature);

// softmax(Q·Kᵀ · inv_divisor, masks)·V by the online softmax (Milakov & Gimelshein 2018), 64 queries ×
// 64 keys at a time: for each query keep the running max m, the running sum l of exp(s - m) and the
// running weighted sum of values; when a tile raises the max, rescale both by exp(m_old - m_new). A query
// that sees no key gets a zero row. The scores are summed in double and rounded to float once, after
// inv_divisor. What kernels::streaming_output computes.
Matrix streaming_output(const Matrix& Q, const Matrix& K, const Matrix& V, double inv_divisor, bool causal,
                        const KeyPadding& key_padding);

}  // namespace attn::reference

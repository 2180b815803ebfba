// The hot loops of attention (QKᵀ, row softmax, weights·V) written so they vectorise where Eigen does
// not: Eigen 3.4.0 has no WebAssembly SIMD backend, so on wasm it falls back to scalar code (or to
// whatever clang's autovectoriser finds). These kernels use GCC/clang vector extensions, which clang
// lowers to f32x4 with -msimd128, to SSE/AVX natively, and to plain scalar code otherwise (the
// fallback of a wasm build without -msimd128).
//
// The core always computes Q·Kᵀ, the softmax and the output-only path with them; reference.hpp keeps the
// plain versions the tests compare them with. Only weights·V (and the projections X·W) depend on the
// target, as the flag below says. Internal to core/src (not part of the API); bench/ includes it through
// a private include path to time each step both ways.
#pragma once

#include "attention/attention.hpp"

namespace attn {
namespace kernels {

// Whether weights·V and X·W go through multiply() below (measured in bench/, docs/performance.md): on
// wasm yes (Eigen 3.4 has no wasm SIMD backend); natively no, Eigen's SSE/AVX + FMA product wins there
// (long inner dimension T).
#if defined(__wasm__)
inline constexpr bool kUseForWeightsV = true;
#else
inline constexpr bool kUseForWeightsV = false;
#endif

// Which vector width the kernels compiled to ("f32x4 (wasm simd128)", "8 × f32 (AVX)", "scalar", ...).
const char* vector_description();

// ---- products ----------------------------------------------------------------------------------------
// C (m×n) = A (m×k) · Bᵀ · scale where B is n×k: the scores Q·Kᵀ. Row-major with the given leading
// dimensions. Each dot product is summed in double and rounded to float once, after the scale: C holds the
// correctly rounded exact values, the float32 floor. If C2 is given (C's layout) it gets A·Bᵀ·scale2 from
// the same sums: the raw and the scaled scores in one pass.
void multiply_transposed(const float* A, Index lda, const float* B, Index ldb, float* C, Index ldc, Index m, Index n,
                         Index k, double scale = 1.0, float* C2 = nullptr, double scale2 = 1.0);
// C (m×n) = A (m×k) · B (k×n) (+ C if accumulate): weights·V.
void multiply(const float* A, Index lda, const float* B, Index ldb, float* C, Index ldc, Index m, Index n, Index k,
              bool accumulate = false);

Matrix multiply_transposed(const Matrix& A, const Matrix& B, double scale = 1.0);  // A·Bᵀ·scale
Matrix multiply(const Matrix& A, const Matrix& B);                                 // A·B

// ---- softmax -----------------------------------------------------------------------------------------
// Each row of the rows×cols block at `data` (row stride ld) becomes softmax(row · inv_temperature), in
// place, with the semantics of attn::softmax: the max is subtracted first, -inf (masked) gives 0, the max
// itself gives exactly exp(0) = 1 even if inv_temperature is infinite, an all -inf row becomes zeros.
// Inputs must not be NaN or +inf (attn::softmax checks that before calling).
void softmax_rows(float* data, Index rows, Index cols, Index ld, float inv_temperature);

// out[j] = exp(in[j]) for n values, vectorised (Cephes' polynomial, ≤ 2 ulp); in ≤ -87.3 (and -inf) → 0.
void exp_array(const float* in, float* out, Index n);

// ---- output-only attention ------------------------------------------------------------------------
// softmax(Q·Kᵀ · inv_divisor, masks)·V with the online softmax over 64-key tiles, never forming T×T; the
// scores are summed in double and rounded once, as multiply_transposed's. Q: T_q×d_k, K: T_k×d_k,
// V: T_k×d_v, out: T_q×d_v, all contiguous row-major. key_padding: null or T_k flags. Scratch: the packed
// K (doubles) and V (O(T_k·d)) and one tile of min(T_k, 64) keys × min(T_q, 64) queries (rounded up to a
// panel), not zero-filled.
void streaming_output(const float* Q, const float* K, const float* V, Index T_q, Index T_k, Index d_k, Index d_v,
                      double inv_divisor, bool causal, const unsigned char* key_padding, float* out);

}  // namespace kernels
}  // namespace attn

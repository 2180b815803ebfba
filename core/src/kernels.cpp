// Hand-vectorised hot loops of attention (see kernels.hpp for why and where they are used).
//
// One source for every target: `vf` is a vector of W floats written with GCC/clang vector extensions.
// clang turns it into f32x4 with -msimd128, SSE2 or AVX natively; without any SIMD (a wasm build
// without -msimd128) W is 1 and vf is a plain float, so the same loops are the scalar fallback.
#include "kernels.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <vector>

// Register tile of the micro-kernel: MR rows × NV vectors of C (measured in bench/: on wasm, where V8
// keeps 16 SIMD registers, 2 × 4 f32x4 beats 1 × 4, 2 × 2, 4 × 2, 3 × 4 and 4 × 4; so natively with SSE2).
// Natively with AVX (16 ymm registers, FMA) 6 × 2 wins instead.
#if !defined(ATTN_MR) && defined(__AVX__)
#define ATTN_MR 6
#define ATTN_NV 2
#endif
#ifndef ATTN_MR
#define ATTN_MR 2
#endif
#ifndef ATTN_NV
#define ATTN_NV 4
#endif
namespace attn {
namespace kernels {
namespace {

#if defined(__AVX__)
#define ATTN_VECTOR_WIDTH 8
constexpr int W = 8;
typedef float vf __attribute__((vector_size(32)));
typedef int vi __attribute__((vector_size(32)));
constexpr const char* kDescription = "8 x f32 (AVX)";
#elif defined(__wasm_simd128__) || defined(__SSE2__) || defined(__ARM_NEON)
#define ATTN_VECTOR_WIDTH 4
constexpr int W = 4;
typedef float vf __attribute__((vector_size(16)));
typedef int vi __attribute__((vector_size(16)));
#if defined(__wasm_simd128__) && defined(ATTN_RELAXED_SIMD)
constexpr const char* kDescription = "f32x4 (wasm simd128, relaxed madd)";
#elif defined(__wasm_simd128__)
constexpr const char* kDescription = "f32x4 (wasm simd128)";
#else
constexpr const char* kDescription = "4 x f32 (SSE2/NEON)";
#endif
#else
#define ATTN_VECTOR_WIDTH 1
constexpr int W = 1;  // scalar fallback: the same loops on plain floats
typedef float vf;
constexpr const char* kDescription = "scalar";
#endif

// ATTN_MADD(acc, x, y): acc += x·y. The default builds write it as a multiply and an add, exactly as
// before. The relaxed-SIMD variant of the wasm module (ATTN_RELAXED_SIMD, built with -mrelaxed-simd; see
// wasm/CMakeLists.txt) makes it one relaxed multiply-add, which browsers with relaxed SIMD run as a fused
// multiply-add where the core has one (one rounding instead of two). clang 14 only has the prototype
// builtin; scripts/relaxed-simd.mjs renumbers its opcode to the final f32x4/f64x2.relaxed_madd, whose
// operands are (x, y, acc) → x·y + acc. In the double sums of the scores a float times a float is exact,
// so fusing leaves them bit for bit the same; only weights·V (float sums) rounds differently.
#if defined(ATTN_RELAXED_SIMD)
#if !defined(__wasm_relaxed_simd__)
#error "ATTN_RELAXED_SIMD needs -mrelaxed-simd"
#endif
#define ATTN_MADD(acc, x, y) ((acc) = __builtin_wasm_fma_f32x4((x), (y), (acc)))
#define ATTN_MADD_D(acc, x, y) ((acc) = __builtin_wasm_fma_f64x2((x), (y), (acc)))
#else
#define ATTN_MADD(acc, x, y) ((acc) += (x) * (y))
#define ATTN_MADD_D(acc, x, y) ((acc) += (x) * (y))
#endif

constexpr int MR = ATTN_MR;  // rows of C per micro-kernel call
constexpr int NV = ATTN_NV;  // vectors per row of C per micro-kernel call
constexpr int NR = NV * W;   // columns of C per micro-kernel call
constexpr float kNegInf = -std::numeric_limits<float>::infinity();

inline vf load(const float* p) {
  vf v;
  std::memcpy(&v, p, sizeof v);
  return v;
}
inline void store(float* p, vf v) { std::memcpy(p, &v, sizeof v); }
inline vf splat(float x) { return vf{} + x; }

// n values of scratch, left uninitialised: for buffers that are written before they are read. A
// std::vector zero-fills, which for the streaming path's tile scratch was most of a small call's time.
template <class T>
std::unique_ptr<T[]> scratch(Index n) {
  return std::unique_ptr<T[]>(new T[static_cast<std::size_t>(n)]);
}

// ---- packing: B (stored k×n: V for weights·V) as column panels of NR, element (p, c) of panel j at
// panel[j][p*NR + c] ----------------------------------------------------------------------------------------
void pack(const float* B, Index ldb, Index k, Index n, float* packed) {
  for (Index j0 = 0; j0 < n; j0 += NR) {
    float* panel = packed + (j0 / NR) * k * NR;
    const Index nc = std::min<Index>(NR, n - j0);
    for (Index p = 0; p < k; ++p) {
      const float* row = B + p * ldb + j0;
      for (Index c = 0; c < nc; ++c) panel[p * NR + c] = row[c];
      for (Index c = nc; c < NR; ++c) panel[p * NR + c] = 0.0f;
    }
  }
}
inline Index packed_size(Index k, Index n) { return ((n + NR - 1) / NR) * NR * k; }

// ---- the micro-kernel: R rows of A (R ≤ MR) times one panel, into (or added to) R×NR of C ---------------
// A arrives p-major (row r of step p at a[p*a_step + r]: packed rows have a_step = MR; the streaming path
// passes its key-major tile of weights, a_step = the tile's row stride), so every load of the inner loop is
// at a constant offset from one of two pointers: on wasm that is one address computation per step instead
// of one per row.
template <int R>
inline void micro(const float* a, Index a_step, const float* panel, Index k, float* C, Index ldc, Index nc,
                  bool accumulate) {
  vf acc[R][NV];
  for (int r = 0; r < R; ++r)
    for (int v = 0; v < NV; ++v) acc[r][v] = vf{};
  for (Index p = 0; p < k; ++p, a += a_step, panel += NR) {
    vf b[NV];
    for (int v = 0; v < NV; ++v) b[v] = load(panel + v * W);
    for (int r = 0; r < R; ++r) {
      const vf x = splat(a[r]);
      for (int v = 0; v < NV; ++v) ATTN_MADD(acc[r][v], x, b[v]);
    }
  }
  for (int r = 0; r < R; ++r) {
    float* c = C + r * ldc;
    if (nc == NR) {
      for (int v = 0; v < NV; ++v) {
        vf out = acc[r][v];
        if (accumulate) out += load(c + v * W);
        store(c + v * W, out);
      }
    } else {
      float tmp[NR];
      for (int v = 0; v < NV; ++v) store(tmp + v * W, acc[r][v]);
      for (Index j = 0; j < nc; ++j) c[j] = accumulate ? c[j] + tmp[j] : tmp[j];
    }
  }
}

template <int R>
void row_block(const float* a, Index a_step, const float* packed, Index panel_stride, Index n, Index k, float* C,
               Index ldc, bool accumulate) {
  for (Index j0 = 0; j0 < n; j0 += NR)
    micro<R>(a, a_step, packed + (j0 / NR) * panel_stride, k, C + j0, ldc, std::min<Index>(NR, n - j0), accumulate);
}

// row_block<rows> for 1 ≤ rows ≤ R.
template <int R>
void dispatch(Index rows, const float* a, Index a_step, const float* packed, Index panel_stride, Index n, Index k,
              float* C, Index ldc, bool accumulate) {
  if constexpr (R > 1)
    if (rows < R) return dispatch<R - 1>(rows, a, a_step, packed, panel_stride, n, k, C, ldc, accumulate);
  row_block<R>(a, a_step, packed, panel_stride, n, k, C, ldc, accumulate);
}

// C (m×n) = A (m×k) · packed (k×n) (+ C). Panel j starts at packed + j·panel_stride.
// `a` is scratch for MR packed rows of A (resized as needed).
void compute(const float* A, Index lda, const float* packed, Index panel_stride, Index m, Index n, Index k, float* C,
             Index ldc, bool accumulate, std::vector<float>& a) {
  if (a.size() < static_cast<std::size_t>(k * MR)) a.resize(static_cast<std::size_t>(k * MR));
  for (Index i = 0; i < m; i += MR) {
    const Index rows = std::min<Index>(MR, m - i);
    for (Index p = 0; p < k; ++p)
      for (Index r = 0; r < MR; ++r) a[static_cast<std::size_t>(p * MR + r)] = r < rows ? A[(i + r) * lda + p] : 0.0f;
    float* c = C + i * ldc;
    dispatch<MR>(rows, a.data(), MR, packed, panel_stride, n, k, c, ldc, accumulate);
  }
}

// ---- scores: A·Bᵀ summed in double --------------------------------------------------------------------
// A float times a float is exact in double, and a sum of k such products in double is off by at most
// k·2⁻⁵³ of their magnitudes, so rounding sum·scale to float once gives the correctly rounded score: all
// that float32 allows (tests/core/test_accuracy.cpp). Summed in float, the low bits of large partial sums
// were lost instead: at scaled scores of a few hundred, up to ~30 times that rounding, and the softmax
// turns an error δ in a score into a relative error δ in its weight. It costs twice the vector operations
// of a float product (a vector holds half as many doubles) on half of attention's multiply-adds:
// docs/performance.md has the measured price.
#if ATTN_VECTOR_WIDTH > 1
constexpr int WD = W / 2;  // doubles per vector
typedef double vd __attribute__((vector_size(W * sizeof(float))));
#else
constexpr int WD = 1;
typedef double vd;
#endif
// Register tile: MRD rows × NRD columns of C. On wasm and SSE2 (16 registers of 2 doubles) 2 × 8 keeps
// 8 accumulators; with AVX (4 doubles, FMA) 6 × 8 keeps 12, enough independent sums to hide the latency.
#if defined(__AVX__)
constexpr int MRD = 6;
#else
constexpr int MRD = 2;
#endif
constexpr int NRD = 8;
constexpr int NVD = NRD / WD;  // vectors per row of C

inline vd load_d(const double* p) {
  vd v;
  std::memcpy(&v, p, sizeof v);
  return v;
}
inline vd splat_d(double x) { return vd{} + x; }
// Rounds WD doubles to floats at `out` (one conversion instruction per vector). Past float's range the
// result is ±inf, which the callers refuse as an overflow.
#if ATTN_VECTOR_WIDTH > 1
typedef float vf_half __attribute__((vector_size(WD * sizeof(float))));
inline void store_rounded(float* out, vd x) {
  const vf_half f = __builtin_convertvector(x, vf_half);
  std::memcpy(out, &f, sizeof f);
}
#else
inline void store_rounded(float* out, vd x) { *out = static_cast<float>(x); }
#endif

// B stored n×k (K for Q·Kᵀ) as column panels of NRD doubles: element (p, c) of panel j at
// packed[j·k·NRD + p·NRD + c]; the columns past n are zero.
void pack_transposed_d(const float* B, Index ldb, Index n, Index k, double* packed) {
  for (Index j0 = 0; j0 < n; j0 += NRD) {
    double* panel = packed + (j0 / NRD) * k * NRD;
    const Index nc = std::min<Index>(NRD, n - j0);
    for (Index p = 0; p < k; ++p)
      for (Index c = 0; c < NRD; ++c) panel[p * NRD + c] = c < nc ? B[(j0 + c) * ldb + p] : 0.0;
  }
}
inline Index packed_size_d(Index k, Index n) { return (n + NRD - 1) / NRD * NRD * k; }

// R rows of A (doubles, p-major: row r of step p at a[p·a_step + r]) times one panel, rounded into the
// R × nc block of C as fl(sum·scale), and of C2 (same layout) as fl(sum·scale2) when C2 is given.
template <int R>
void micro_d(const double* a, Index a_step, const double* panel, Index k, float* C, Index ldc, Index nc, double scale,
             float* C2, double scale2) {
  vd acc[R][NVD];
  for (int r = 0; r < R; ++r)
    for (int v = 0; v < NVD; ++v) acc[r][v] = vd{};
  for (Index p = 0; p < k; ++p, a += a_step, panel += NRD) {
    vd b[NVD];
    for (int v = 0; v < NVD; ++v) b[v] = load_d(panel + v * WD);
    for (int r = 0; r < R; ++r) {
      const vd x = splat_d(a[r]);
      for (int v = 0; v < NVD; ++v) ATTN_MADD_D(acc[r][v], x, b[v]);
    }
  }
  auto round_into = [&](float* out, double factor) {
    for (int r = 0; r < R; ++r) {
      float rounded[NRD];
      for (int v = 0; v < NVD; ++v) store_rounded(rounded + v * WD, acc[r][v] * splat_d(factor));
      if (nc == NRD)
        std::memcpy(out + r * ldc, rounded, sizeof rounded);  // a fixed size: no call to memcpy
      else
        std::copy(rounded, rounded + nc, out + r * ldc);
    }
  };
  round_into(C, scale);
  if (C2) round_into(C2, scale2);
}

// micro_d<rows> for 1 ≤ rows ≤ R.
template <int R = MRD>
void micro_d_rows(Index rows, const double* a, Index a_step, const double* panel, Index k, float* C, Index ldc,
                  Index nc, double scale, float* C2, double scale2) {
  if constexpr (R > 1)
    if (rows < R) return micro_d_rows<R - 1>(rows, a, a_step, panel, k, C, ldc, nc, scale, C2, scale2);
  micro_d<R>(a, a_step, panel, k, C, ldc, nc, scale, C2, scale2);
}

// ---- exp ----------------------------------------------------------------------------------------------
#if ATTN_VECTOR_WIDTH > 1
inline vf select(vi mask, vf yes, vf no) { return (vf)((mask & (vi)yes) | (~mask & (vi)no)); }
#if defined(__wasm_simd128__)
inline vf vmax(vf a, vf b) { return __builtin_wasm_pmax_f32x4(b, a); }  // one f32x4.pmax: b < a ? a : b
#else
inline vf vmax(vf a, vf b) { return select(a > b, a, b); }
#endif

// Cephes' expf: e^x = 2^n · e^r with n = round(x / ln 2), |r| ≤ ln2 / 2, e^r by a degree-6 polynomial.
// ≤ 2 ulp over the range; x below -87.34 (where e^x leaves the normal floats), and -inf, give 0.
inline vf vexp(vf x) {
  const vi underflow = x < splat(-87.3365448f);
  x = select(x > splat(88.0f), splat(88.0f), x);
  x = select(underflow, splat(0.0f), x);
  const vf magic = splat(12582912.0f);  // 1.5·2^23: adding it rounds to an integer, kept in the low bits
  const vf t = x * splat(1.44269504088896341f) + magic;
  const vf n = t - magic;
  const vi ni = (vi)t - (vi)magic;
  const vf r = x - n * splat(0.693359375f) - n * splat(-2.12194440e-4f);
  vf y = splat(1.9875691500e-4f);
  y = y * r + splat(1.3981999507e-3f);
  y = y * r + splat(8.3334519073e-3f);
  y = y * r + splat(4.1665795894e-2f);
  y = y * r + splat(1.6666665459e-1f);
  y = y * r + splat(5.0000001201e-1f);
  y = y * r * r + r + splat(1.0f);
  const vf scale = (vf)((ni + 127) << 23);
  return select(underflow, splat(0.0f), y * scale);
}
#endif

inline float sexp(float x) { return x == kNegInf ? 0.0f : std::exp(x); }
#if ATTN_VECTOR_WIDTH > 1
inline vf finite_or_zero(vf x) { return select(x == splat(kNegInf), vf{}, x); }  // -inf → 0
#else
inline vf vmax(vf a, vf b) { return std::max(a, b); }
inline vf vexp(vf x) { return sexp(x); }
inline vf finite_or_zero(vf x) { return x == kNegInf ? 0.0f : x; }
#endif

// One row: max, exp((x - max)·inv_t) with exp(0) = 1 exactly, sum, normalise. A row that is all -inf
// (every key masked) becomes all zeros.
void softmax_row(float* x, Index n, float inv_t) {
  float max = kNegInf;
  Index j = 0;
#if ATTN_VECTOR_WIDTH > 1
  if (n >= W) {
    vf m = load(x);
    for (j = W; j + W <= n; j += W) m = vmax(m, load(x + j));
    float lanes[W];
    store(lanes, m);
    for (int l = 0; l < W; ++l) max = std::max(max, lanes[l]);
  }
#endif
  for (; j < n; ++j) max = std::max(max, x[j]);
  if (max == kNegInf) {
    std::fill(x, x + n, 0.0f);
    return;
  }
  float sum = 0;
  j = 0;
#if ATTN_VECTOR_WIDTH > 1
  {
    vf s0{}, s1{};
    const vf vm = splat(max), vt = splat(inv_t), zero{};
    for (; j + 2 * W <= n; j += 2 * W) {
      const vf g0 = load(x + j) - vm, g1 = load(x + j + W) - vm;
      // gap 0 (the max) → exactly 1, even when inv_t is infinite (0·inf would be NaN).
      const vf e0 = vexp(select(g0 == zero, zero, g0 * vt)), e1 = vexp(select(g1 == zero, zero, g1 * vt));
      store(x + j, e0);
      store(x + j + W, e1);
      s0 += e0;
      s1 += e1;
    }
    float lanes[W];
    store(lanes, s0 + s1);
    for (int l = 0; l < W; ++l) sum += lanes[l];
  }
#endif
  for (; j < n; ++j) {
    const float gap = x[j] - max;
    const float e = x[j] == kNegInf ? 0.0f : gap == 0.0f ? 1.0f : std::exp(gap * inv_t);
    x[j] = e;
    sum += e;
  }
  const float inv_sum = 1.0f / sum;  // sum ≥ 1: the max contributes exp(0)
  j = 0;
#if ATTN_VECTOR_WIDTH > 1
  for (; j + W <= n; j += W) store(x + j, load(x + j) * splat(inv_sum));
#endif
  for (; j < n; ++j) x[j] *= inv_sum;
}

}  // namespace

const char* vector_description() { return kDescription; }

void multiply_transposed(const float* A, Index lda, const float* B, Index ldb, float* C, Index ldc, Index m, Index n,
                         Index k, double scale, float* C2, double scale2) {
  if (m == 0 || n == 0) return;
  std::vector<double> panels(static_cast<std::size_t>(packed_size_d(k, n)));
  pack_transposed_d(B, ldb, n, k, panels.data());
  // A as groups of MRD rows, each p-major (row r of step p at group[p·MRD + r]); missing rows are zero.
  const Index groups = (m + MRD - 1) / MRD;
  std::vector<double> a(static_cast<std::size_t>(groups * MRD * k));
  for (Index g = 0; g < groups; ++g)
    for (Index p = 0; p < k; ++p)
      for (Index r = 0; r < MRD; ++r) {
        const Index row = g * MRD + r;
        a[static_cast<std::size_t>((g * k + p) * MRD + r)] = row < m ? A[row * lda + p] : 0.0;
      }
  // Four panels (32 columns, 16 KB at d_k = 64) stay in L1 while every group of rows passes over them.
  constexpr Index kColumns = 4 * NRD;
  for (Index j1 = 0; j1 < n; j1 += kColumns)
    for (Index g = 0; g < groups; ++g) {
      const Index i = g * MRD;
      for (Index j0 = j1; j0 < std::min(n, j1 + kColumns); j0 += NRD)
        micro_d_rows(std::min<Index>(MRD, m - i), a.data() + g * MRD * k, MRD, panels.data() + (j0 / NRD) * k * NRD, k,
                     C + i * ldc + j0, ldc, std::min<Index>(NRD, n - j0), scale, C2 ? C2 + i * ldc + j0 : nullptr,
                     scale2);
    }
}

void multiply(const float* A, Index lda, const float* B, Index ldb, float* C, Index ldc, Index m, Index n, Index k,
              bool accumulate) {
  if (m == 0 || n == 0) return;
  std::vector<float> packed(static_cast<std::size_t>(packed_size(k, n)));
  pack(B, ldb, k, n, packed.data());
  std::vector<float> scratch;
  compute(A, lda, packed.data(), k * NR, m, n, k, C, ldc, accumulate, scratch);
}

Matrix multiply_transposed(const Matrix& A, const Matrix& B, double scale) {
  Matrix C(A.rows(), B.rows());
  if (A.cols() == 0) {
    C.setZero();
    return C;
  }
  multiply_transposed(A.data(), A.cols(), B.data(), B.cols(), C.data(), C.cols(), A.rows(), B.rows(), A.cols(), scale);
  return C;
}

Matrix multiply(const Matrix& A, const Matrix& B) {
  Matrix C(A.rows(), B.cols());
  if (A.cols() == 0) {
    C.setZero();
    return C;
  }
  multiply(A.data(), A.cols(), B.data(), B.cols(), C.data(), C.cols(), A.rows(), B.cols(), A.cols());
  return C;
}

void softmax_rows(float* data, Index rows, Index cols, Index ld, float inv_temperature) {
  for (Index r = 0; r < rows; ++r) softmax_row(data + r * ld, cols, inv_temperature);
}

void exp_array(const float* in, float* out, Index n) {
  Index j = 0;
#if ATTN_VECTOR_WIDTH > 1
  for (; j + W <= n; j += W) store(out + j, vexp(load(in + j)));
#endif
  for (; j < n; ++j) out[j] = sexp(in[j]);
}

void streaming_output(const float* Q, const float* K, const float* V, Index T_q, Index T_k, Index d_k, Index d_v,
                      double inv_divisor, bool causal, const unsigned char* key_padding, float* out) {
  // The tile is computed transposed, keys × queries (S_tileᵀ = K_tile·Q_blockᵀ), so that
  //  * the softmax runs down its columns: W queries per vector, their running max and sum kept in vectors,
  //    no horizontal reduction per row;
  //  * the weights are already p-major for weights·V (row i of P at p·ld + i): no packing of P.
  constexpr Index kBlock = 64;  // queries and keys per tile: a multiple of NR, NRD and W
  static_assert(kBlock % NR == 0 && kBlock % NRD == 0 && NRD % W == 0, "tiles must start on a panel boundary");
  if (T_q == 0) return;
  if (T_k == 0) {  // no key at all: zero rows, as a query whose every key is masked gets below
    std::fill(out, out + T_q * d_v, 0.0f);
    return;
  }
  // The scratch is sized for this call, not for full tiles: one query needs one panel of NRD queries, not
  // 64 (full-tile buffers are ≈ 96 KB at d = 64, and filling them cost more than a T = 1 call's maths).
  // None of it is zero-filled (scratch() above): each buffer is written before it is read, as said below.
  const Index block_q = std::min(kBlock, T_q);       // queries of the largest block
  const Index block_k = std::min(kBlock, T_k);       // keys of the largest tile
  const Index ld = (block_q + NRD - 1) / NRD * NRD;  // the tile's row stride: whole panels of queries
  const Index groups = (kBlock + MRD - 1) / MRD;     // MRD-key groups of a full key tile
  const Index tiles = (T_k + kBlock - 1) / kBlock;
  const Index last_groups = (T_k - (tiles - 1) * kBlock + MRD - 1) / MRD;  // the groups the last tile uses
  // Packed once, O(T_k·d) scratch: K as the rows of Kᵀ·Q, in double for the scores (per tile, MRD keys
  // interleaved p-major: key t·kBlock + g·MRD + r, step p at [((t·groups + g)·d_k + p)·MRD + r]; only the
  // groups that hold keys, each written whole, its rows past the keys as zeros), and V as the columns of
  // weights·V (NR-wide panels, written whole by pack()).
  auto k_packed = scratch<double>(((tiles - 1) * groups + last_groups) * MRD * d_k);
  for (Index t = 0; t < tiles; ++t) {
    const Index nk = std::min(kBlock, T_k - t * kBlock);
    for (Index g = 0; g * MRD < nk; ++g) {
      double* a = k_packed.get() + (t * groups + g) * MRD * d_k;
      for (Index r = 0; r < MRD; ++r) {
        const Index in_tile = g * MRD + r, key = t * kBlock + in_tile;
        const bool real = in_tile < nk;
        for (Index p = 0; p < d_k; ++p) a[p * MRD + r] = real ? K[key * d_k + p] : 0.0;
      }
    }
  }
  auto v_packed = scratch<float>(packed_size(T_k, d_v));
  pack(V, d_v, T_k, d_v, v_packed.get());
  const Index v_panel = T_k * NR;

  // Per query block: Q_blockᵀ as ld / NRD panels (d_k × NRD doubles each, written whole by
  // pack_transposed_d, the padding queries as zeros); the tile sᵀ, keys × queries (block_k × ld, written
  // at [0, nk) × [0, nq_padded) before the softmax and weights·V read that same part); the accumulated
  // weights·V, queries × d_v (zeroed per block: it is added to).
  auto q_panels = scratch<double>(packed_size_d(d_k, block_q));
  auto weights = scratch<float>(block_k * ld);
  auto acc = scratch<float>(block_q * d_v);
  alignas(16) float running_max[kBlock], running_sum[kBlock], correction[kBlock];
  for (Index q0 = 0; q0 < T_q; q0 += kBlock) {
    const Index nq = std::min(kBlock, T_q - q0);
    const Index nq_padded = (nq + NRD - 1) / NRD * NRD;  // whole panels; the padding queries are zero
    pack_transposed_d(Q + q0 * d_k, d_k, nq, d_k, q_panels.get());
    std::fill(running_max, running_max + kBlock, kNegInf);
    std::fill(running_sum, running_sum + kBlock, 0.0f);
    std::fill(acc.get(), acc.get() + nq * d_v, 0.0f);
    // With a causal mask, keys after the block's last query are never seen.
    const Index k_end = causal ? std::min(T_k, q0 + nq) : T_k;
    for (Index k0 = 0; k0 < k_end; k0 += kBlock) {
      const Index nk = std::min(kBlock, k_end - k0);
      float* s = weights.get();
      // sᵀ (nk × nq_padded) = K[k0 .. k0+nk) · Q_blockᵀ · inv_divisor, summed in double, rounded once.
      const double* k_tile = k_packed.get() + (k0 / kBlock) * groups * MRD * d_k;
      for (Index j = 0; j < nk; j += MRD)
        for (Index i = 0; i < nq_padded; i += NRD)
          micro_d_rows(std::min<Index>(MRD, nk - j), k_tile + (j / MRD) * MRD * d_k, MRD,
                       q_panels.get() + (i / NRD) * d_k * NRD, d_k, s + j * ld + i, ld, NRD, inv_divisor, nullptr, 0.0);
      if (causal || key_padding)
        for (Index j = 0; j < nk; ++j)
          for (Index i = 0; i < nq; ++i)
            if ((causal && k0 + j > q0 + i) || (key_padding && key_padding[k0 + j])) s[j * ld + i] = kNegInf;
      // Online softmax down the columns, W queries at a time: new max, rescale factor for what was summed
      // under the old one (exp(-inf) = 0 for the first visible tile), exp and sum of this tile.
      for (Index i = 0; i < nq_padded; i += W) {
        vf tile_max = load(s + i);
        for (Index j = 1; j < nk; ++j) tile_max = vmax(tile_max, load(s + j * ld + i));
        const vf old_max = load(running_max + i), new_max = vmax(old_max, tile_max);
        // A query that has seen no visible key yet keeps max -inf; shift by 0 there so exp(-inf) = 0.
        const vf shift = finite_or_zero(new_max);
        const vf rescale = vexp(old_max - shift);
        vf sum0{}, sum1{};  // this tile's sum, added to the running one once: less rounding than one long sum
        Index j = 0;
        for (; j + 1 < nk; j += 2) {
          const vf e0 = vexp(load(s + j * ld + i) - shift), e1 = vexp(load(s + (j + 1) * ld + i) - shift);
          store(s + j * ld + i, e0);
          store(s + (j + 1) * ld + i, e1);
          sum0 += e0;
          sum1 += e1;
        }
        if (j < nk) {
          const vf e = vexp(load(s + j * ld + i) - shift);
          store(s + j * ld + i, e);
          sum0 += e;
        }
        store(running_sum + i, load(running_sum + i) * rescale + (sum0 + sum1));
        store(running_max + i, new_max);
        store(correction + i, rescale);
      }
      for (Index i = 0; i < nq; ++i)
        if (correction[i] != 1.0f) {
          float* a = acc.get() + i * d_v;
          for (Index c = 0; c < d_v; ++c) a[c] *= correction[i];
        }
      // acc (nq × d_v) += P (nq × nk) · V[k0 .. k0+nk), P read straight from the key-major tile.
      for (Index i = 0; i < nq; i += MR)
        dispatch<MR>(std::min<Index>(MR, nq - i), s + i, ld, v_packed.get() + k0 * NR, v_panel, d_v, nk,
                     acc.get() + i * d_v, d_v, true);
    }
    for (Index i = 0; i < nq; ++i) {
      float* o = out + (q0 + i) * d_v;
      // A query that saw no key at all keeps a zero row, as the full path's all-zero weights give.
      const float inv = running_sum[i] > 0 ? 1.0f / running_sum[i] : 0.0f;
      for (Index c = 0; c < d_v; ++c) o[c] = acc[static_cast<std::size_t>(i * d_v + c)] * inv;
    }
  }
}

}  // namespace kernels
}  // namespace attn

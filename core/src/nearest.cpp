// Nearest words by cosine similarity over the whole word-vector table (see attention/nearest.hpp).
#include "attention/nearest.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>

namespace attn {
namespace {

// How far the single-precision first pass may put a similarity from the double-precision one. The dot
// product of the unit query with a word's int8 row, summed over d terms, errs by at most about
// (d + 1)·2⁻²⁴·Σ|u_k v_k| ≤ (d + 1)·2⁻²⁴·|v| (Cauchy–Schwarz, |u| = 1): ≈ 3e-6 of the cosine for
// d = 50; the unit query, 1/|v| and the last product add a few roundings of 2⁻²⁴. Every word within
// the margin of the k-th best is rescored exactly, so the margin only has to exceed that bound: 1e-4,
// or 4·d·2⁻²⁴ for a table wider than 1,600 dimensions.
float margin_for(std::size_t dim) { return std::max(1e-4f, 4.0f * static_cast<float>(dim) * 0x1p-24f); }

// Bins of the histogram that finds the k-th best similarity: 2/1024 ≈ 0.002 wide over [-1, 1], so the
// bin holding the k-th best adds only the few words that share it to the exact rescoring.
constexpr std::size_t kBins = 1024;

// Words per block of the dot-product pass: the block's float accumulators (4 KiB) stay in L1 cache
// while the `dim` rows of int8 values stream past them. A multiple of kLanes.
constexpr std::size_t kBlock = 1024;

// The dot-product pass handles words kLanes at a time with GCC/clang vector extensions (f32x4 and i32x4
// with -msimd128, SSE2 natively, plain scalar code without SIMD); each row of the transposed table is
// padded with zeros to a multiple of kLanes, so there is no remainder loop.
constexpr std::size_t kLanes = 16;
typedef std::int8_t i8xN __attribute__((vector_size(kLanes)));
typedef std::int32_t i32xN __attribute__((vector_size(4 * kLanes)));
typedef float f32xN __attribute__((vector_size(4 * kLanes)));

// acc[0 .. kLanes) += u × values[0 .. kLanes). The int8 values are not converted to float directly:
// clang 14 turns that into one lane at a time on wasm (extract_lane, convert, replace_lane), which made
// the whole search several times slower. Widened to int32 instead, each lane plus the bits of 1.5·2²³
// is the float 1.5·2²³ + v exactly (|v| < 2²²), and subtracting 1.5·2²³ leaves v.
inline void add_scaled(float* acc, float u, const std::int8_t* values) {
  i8xN bytes;
  f32xN sum;
  std::memcpy(&bytes, values, sizeof bytes);
  std::memcpy(&sum, acc, sizeof sum);
  sum += u * ((f32xN)(__builtin_convertvector(bytes, i32xN) + 0x4B400000) - 12582912.0f);
  std::memcpy(acc, &sum, sizeof sum);
}

const char* describe(float value) { return std::isnan(value) ? "NaN" : value > 0 ? "+Inf" : "-Inf"; }

// Out of line, so each check costs a call rather than an inlined string build and throw.
[[noreturn]] __attribute__((noinline)) void fail(const std::string& message) {
  throw AttentionError("nearest words: " + message);
}

}  // namespace

NearestWords::NearestWords(const WordVectors& table)
    : count_(table.size()),
      dim_(table.dim()),
      stride_((count_ + kLanes - 1) / kLanes * kLanes),
      values_t_(static_cast<std::size_t>(dim_) * stride_),
      scales_(count_),
      inverse_norms_(stride_) {
  const std::size_t d = static_cast<std::size_t>(dim_);
  for (std::size_t i = 0; i < count_; ++i) {
    const std::int8_t* row = table.values(i);
    std::int32_t squares = 0;  // at most d·127², exact in 32 bits for any d below 133,000
    for (std::size_t k = 0; k < d; ++k) {
      values_t_[k * stride_ + i] = row[k];
      squares += std::int32_t{row[k]} * row[k];
    }
    scales_[i] = table.scale(i);
    // A zero scale de-quantises to the zero vector, which has no direction: similarity 0, as
    // cosine_scores gives it.
    inverse_norms_[i] = squares == 0 || scales_[i] == 0 ? 0.0f : static_cast<float>(1.0 / std::sqrt(double(squares)));
  }
}

double NearestWords::exact_similarity(const float* q, double q_norm, std::size_t i) const {
  double dot = 0, squares = 0;
  for (Index k = 0; k < dim_; ++k) {
    // De-quantised as WordVectors does it (one float multiply), then widened.
    const double x = scales_[i] * static_cast<float>(values_t_[static_cast<std::size_t>(k) * stride_ + i]);
    dot += double(q[k]) * x;
    squares += x * x;
  }
  return squares == 0 ? 0.0 : dot / (q_norm * std::sqrt(squares));
}

std::vector<Neighbour> NearestWords::nearest(const float* vector, Index length, Index k,
                                             const std::vector<Index>& exclude) const {
  if (length != dim_)
    fail("the vector has " + std::to_string(length) + " values; the word vectors have " + std::to_string(dim_));
  if (k < 1) fail("k is " + std::to_string(k) + "; it must be at least 1");
  const std::size_t d = static_cast<std::size_t>(dim_);
  // Squares in double: no finite float can overflow them, and no non-zero one underflows to 0.
  double q_squares = 0;
  for (std::size_t j = 0; j < d; ++j) {
    if (!std::isfinite(vector[j]))
      fail(std::string("the vector has ") + describe(vector[j]) + " at index " + std::to_string(j) +
           "; every value must be a finite number");
    q_squares += double(vector[j]) * vector[j];
  }
  if (q_squares == 0) fail("the vector is all zeros, so it has no direction and no nearest words");
  const double q_norm = std::sqrt(q_squares);

  // The unit query in float: the dot products below then stay within ±127·√d whatever the scale of q.
  std::vector<float> unit(d);
  for (std::size_t j = 0; j < d; ++j) unit[j] = static_cast<float>(vector[j] / q_norm);

  // Single precision, every word: approx[i] = (unit · values_i) / |values_i| (the padding gets 0).
  std::vector<float> approx(stride_);
  for (std::size_t start = 0; start < stride_; start += kBlock) {
    const std::size_t n = std::min(kBlock, stride_ - start);
    float* acc = approx.data() + start;
    std::fill(acc, acc + n, 0.0f);
    for (std::size_t j = 0; j < d; ++j) {
      const float u = unit[j];
      const std::int8_t* column = values_t_.data() + j * stride_ + start;
      for (std::size_t i = 0; i < n; i += kLanes) add_scaled(acc + i, u, column + i);
    }
    const float* inverse = inverse_norms_.data() + start;
    for (std::size_t i = 0; i < n; ++i) acc[i] *= inverse[i];
  }
  approx.resize(count_);

  // Excluded words drop out: -inf is below every similarity.
  std::size_t left = count_;
  for (const Index id : exclude) {
    if (id < 0 || static_cast<std::size_t>(id) >= count_)
      fail("cannot exclude word " + std::to_string(id) + "; the vocabulary has words 0 to " +
           std::to_string(count_ - 1));
    float& excluded = approx[static_cast<std::size_t>(id)];
    if (excluded != -INFINITY) --left;
    excluded = -INFINITY;
  }
  const std::size_t wanted = std::min(static_cast<std::size_t>(k), left);
  if (wanted == 0) return {};

  // Where the wanted-th best approximate similarity lies, from a histogram of them all: one pass, no
  // sorting of 20,000 numbers. Counting down from the top bin, the bin where the count reaches
  // `wanted` holds it; every word from that bin's lower edge (less the margin) up is a candidate.
  std::vector<std::uint32_t> bins(kBins, 0);
  const auto bin_of = [](float x) {
    return static_cast<std::size_t>(std::clamp((x + 1.0f) * (kBins / 2.0f), 0.0f, kBins - 1.0f));
  };
  for (const float x : approx)
    if (x != -INFINITY) ++bins[bin_of(x)];
  std::size_t bin = kBins, reached = 0;
  while (reached < wanted) reached += bins[--bin];
  // The lowest bin also takes everything below -1 (rounding): no lower edge then.
  const float threshold = bin == 0 ? -INFINITY : static_cast<float>(bin) / (kBins / 2.0f) - 1.0f - margin_for(d);

  // Every word that could belong in the answer, scored in double precision and rounded to the float
  // that is reported. Best first; equal floats go to the lower row (the more frequent word). Ranking
  // the rounded values makes a tie mean what the caller sees, and not a difference of 1e-16 that
  // depends on how the double was summed (the same direction at two scales, say).
  std::vector<Neighbour> out;
  for (std::size_t i = 0; i < count_; ++i)
    if (approx[i] != -INFINITY && approx[i] >= threshold)
      out.push_back({static_cast<Index>(i), static_cast<float>(exact_similarity(vector, q_norm, i))});
  std::partial_sort(out.begin(), out.begin() + static_cast<std::ptrdiff_t>(wanted), out.end(), ranks_before);
  out.resize(wanted);
  return out;
}

}  // namespace attn

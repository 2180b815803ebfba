// Shared helpers of the libFuzzer targets: the tests' vectors-file writer and invariant checks that abort
// (so libFuzzer records a crash) when the core returns something its contract rules out.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "../support/vectors_file.hpp"
#include "attention/attention.hpp"
#include "attention/text.hpp"

namespace fuzz {

// Aborts with a message: libFuzzer saves the input as a crash.
[[noreturn]] inline void fail(const std::string& what) {
  std::fprintf(stderr, "INVARIANT VIOLATED: %s\n", what.c_str());
  std::abort();
}
#define FUZZ_CHECK(cond, what)                                     \
  do {                                                             \
    if (!(cond)) ::fuzz::fail(std::string(what) + " [" #cond "]"); \
  } while (0)

using attn_test::vectors_file;

// Softmax weights: finite, in [0, 1], and each row (or column) sums to 1, or is all zero when every
// entry of it was masked (-inf in `scaled`).
inline void check_weights(const attn::Matrix& weights, const attn::Matrix& scaled, bool by_columns) {
  FUZZ_CHECK(weights.rows() == scaled.rows() && weights.cols() == scaled.cols(), "weights shape");
  if (weights.size() == 0) return;
  const attn::Index lines = by_columns ? weights.cols() : weights.rows();
  for (attn::Index i = 0; i < lines; ++i) {
    const auto w = by_columns ? attn::Matrix(weights.col(i)) : attn::Matrix(weights.row(i));
    const auto s = by_columns ? attn::Matrix(scaled.col(i)) : attn::Matrix(scaled.row(i));
    bool all_masked = true;
    double sum = 0;
    for (attn::Index j = 0; j < w.size(); ++j) {
      const float x = w(j);
      FUZZ_CHECK(std::isfinite(x) && x >= 0.0f && x <= 1.0f, "weight outside [0, 1] or not finite");
      const float logit = s(j);
      FUZZ_CHECK(!std::isnan(logit), "NaN in scaled scores");
      if (logit == -INFINITY)
        FUZZ_CHECK(x == 0.0f, "a masked entry got weight");
      else
        all_masked = false;
      sum += x;
    }
    if (all_masked)
      FUZZ_CHECK(sum == 0.0, "a fully masked line has weights");
    else
      FUZZ_CHECK(std::fabs(sum - 1.0) < 1e-3, "weights do not sum to 1");
  }
}

inline void check_finite(const attn::Matrix& m, const char* what) {
  FUZZ_CHECK(m.allFinite(), std::string(what) + " has a NaN or Inf");
}

}  // namespace fuzz

// Shape and value checks shared by every entry point, and the one error helper, so each message names
// what was wrong.
#include "checks.hpp"

#include <algorithm>
#include <cmath>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>

namespace attn {

namespace detail {

void fail(const char* format, ...) {
  std::va_list args, again;
  va_start(args, format);
  va_copy(again, args);
  const int length = std::vsnprintf(nullptr, 0, format, args);  // measure, then write: never truncated
  va_end(args);
  std::string message(static_cast<std::size_t>(std::max(length, 0)), '\0');
  std::vsnprintf(message.data(), message.size() + 1, format, again);
  va_end(again);
  throw AttentionError(message);
}

void require_temperature(float temperature) {
  if (!(temperature > 0) || !std::isfinite(temperature))
    fail("temperature must be a finite number > 0, got %g", double{temperature});
}

void require_key_padding(const KeyPadding& key_padding, Index keys) {
  if (!key_padding.empty() && static_cast<Index>(key_padding.size()) != keys)
    fail("key padding mask has %zu entries but there are %lld keys", key_padding.size(), ll(keys));
}

void require_causal_square(Index queries, Index keys) {
  if (queries != keys)
    fail("causal mask needs as many queries as keys; there are %lld queries and %lld keys", ll(queries), ll(keys));
}

void require_qkv(const Matrix& Q, const Matrix& K, const Matrix& V, const char* who) {
  if (Q.size() == 0 || K.size() == 0 || V.size() == 0)
    fail("%s needs non-empty Q, K, V; got Q %s, K %s, V %s", who, shape_of(Q).c_str(), shape_of(K).c_str(),
         shape_of(V).c_str());
  if (Q.cols() != K.cols() || K.rows() != V.rows())
    fail("%s: Q %s and K %s must share d_k, and K and V %s must have one row per key", who, shape_of(Q).c_str(),
         shape_of(K).c_str(), shape_of(V).c_str());
  require_finite(Q, "Q");
  require_finite(K, "K");
  require_finite(V, "V");
}

void require_length(const Vector& v, Index length, const char* name, const char* giver) {
  if (v.size() != length)
    fail("%s has %lld entries but %s gives vectors of length %lld", name, ll(v.size()), giver, ll(length));
  require_finite(v, name);
}

bool all_finite(const float* values, Index n) {
  // A float is finite iff its bits without the sign are below +inf's (NaNs are above): one unsigned max over
  // the values, which clang vectorises (i32x4.max_u on wasm), where a float test per value with an early
  // exit, or Eigen's allFinite() without a wasm SIMD backend, stayed scalar. It runs over every input and
  // output of a call: ≈ 13 % of an output-only call at T = 64 on wasm before.
  std::uint32_t largest = 0;
  for (Index i = 0; i < n; ++i) {
    std::uint32_t bits;
    std::memcpy(&bits, values + i, sizeof bits);
    largest = std::max(largest, bits & 0x7fffffffu);
  }
  return largest < 0x7f800000u;
}

void require_no_overflow(const Matrix& m, const char* what) {
  if (!all_finite(m.data(), m.size()))
    fail("%s (%s) overflows float32: the inputs are too large for it (|value| > 3.4e38)", what, shape_of(m).c_str());
}

}  // namespace detail

using detail::fail;
using detail::ll;

std::string shape_of(const Matrix& m) {
  char text[48];
  std::snprintf(text, sizeof text, "%lld×%lld", detail::ll(m.rows()), detail::ll(m.cols()));
  return text;
}

static const char* describe(float value) {
  if (std::isnan(value)) return "NaN";
  return value > 0 ? "+Inf" : "-Inf";
}

void require_finite(const Matrix& m, const char* name) {
  if (detail::all_finite(m.data(), m.size())) return;
  for (Index r = 0; r < m.rows(); ++r)
    for (Index c = 0; c < m.cols(); ++c)
      if (!std::isfinite(m(r, c)))
        fail("%s (%s) has %s at row %lld, column %lld; every value must be a finite number", name, shape_of(m).c_str(),
             describe(m(r, c)), ll(r), ll(c));
}

void require_finite(const Vector& v, const char* name) {
  if (detail::all_finite(v.data(), v.size())) return;
  for (Index i = 0; i < v.size(); ++i)
    if (!std::isfinite(v(i)))
      fail("%s (length %lld) has %s at index %lld; every value must be a finite number", name, ll(v.size()),
           describe(v(i)), ll(i));
}

}  // namespace attn

// Internal to core/src (not part of the API): the one way the core reports a problem, detail::fail, and
// the checks that more than one entry point makes, each written once here (checks.cpp).
#pragma once

#include "attention/attention.hpp"

namespace attn::detail {

// printf's integer types, for the arguments of fail: fail("%lld tokens", ll(T)).
using ll = long long;
using ull = unsigned long long;

// Throws AttentionError with a printf-formatted message. Every refusal of the core goes through it: one
// out-of-line formatter, where string arithmetic inlined at each refusal (with its exception clean-ups)
// would bloat the shipped wasm.
[[noreturn]] __attribute__((format(printf, 1, 2))) void fail(const char* format, ...);

// "temperature must be a finite number > 0, got 0": softmax(z / T) needs a T it can divide by.
void require_temperature(float temperature);

// key_padding is empty (no padding) or holds one flag per key.
void require_key_padding(const KeyPadding& key_padding, Index keys);

// A causal mask hides the keys after each query, so there must be as many queries as keys.
void require_causal_square(Index queries, Index keys);

// Q, K, V given as they are (no projections): non-empty, Q and K of the same width d_k, one row of V per
// key, every value finite. `who` starts the message ("streaming attention").
void require_qkv(const Matrix& Q, const Matrix& K, const Matrix& V, const char* who);

// v has `length` entries, each finite, to go with the vectors `giver` gives: "b_Q has 2 entries but W_Q
// gives vectors of length 3".
void require_length(const Vector& v, Index length, const char* name, const char* giver);

// Whether the n floats at `values` are all finite (no NaN, no ±inf), in one vectorised pass.
bool all_finite(const float* values, Index n);

// Finite inputs can still overflow float32 on the way (X·W, q·k, ÷ a tiny temperature, a residual sum):
// refuse the result by name rather than return Inf/NaN (or mistake a -Inf score for a mask).
void require_no_overflow(const Matrix& m, const char* what);

}  // namespace attn::detail

// Small helpers shared by the core tests: building matrices from literals and comparing them.
#pragma once

#include <catch2/catch.hpp>
#include <initializer_list>

#include "attention/attention.hpp"

inline attn::Matrix rows(std::initializer_list<std::initializer_list<float>> values) {
  attn::Matrix m(static_cast<attn::Index>(values.size()), static_cast<attn::Index>(values.begin()->size()));
  attn::Index r = 0;
  for (const auto& row : values) {
    attn::Index c = 0;
    for (float v : row) m(r, c++) = v;
    ++r;
  }
  return m;
}

inline attn::Vector vec(std::initializer_list<float> values) {
  attn::Vector v(static_cast<attn::Index>(values.size()));
  attn::Index i = 0;
  for (float x : values) v(i++) = x;
  return v;
}

// Every entry within `tolerance` (absolute), reporting the first mismatch.
inline void require_close(const attn::Matrix& actual, const attn::Matrix& expected, float tolerance) {
  REQUIRE(actual.rows() == expected.rows());
  REQUIRE(actual.cols() == expected.cols());
  for (attn::Index r = 0; r < actual.rows(); ++r)
    for (attn::Index c = 0; c < actual.cols(); ++c) {
      INFO("at (" << r << ", " << c << ")");
      REQUIRE(actual(r, c) == Approx(expected(r, c)).margin(tolerance).epsilon(0));
    }
}

inline bool all_finite(const attn::Matrix& m) { return m.allFinite(); }

// Small helpers shared by the core tests: building matrices from literals and comparing them.
#pragma once

#include <catch2/catch.hpp>
#include <initializer_list>
#include <random>

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

// A matrix of normal(0, spread) samples from a seeded generator: the same numbers on every run.
inline attn::Matrix seeded_matrix(attn::Index r, attn::Index c, std::mt19937& rng, float spread = 1.0f) {
  std::normal_distribution<float> normal(0.0f, spread);
  attn::Matrix m(r, c);
  for (attn::Index i = 0; i < r; ++i)
    for (attn::Index j = 0; j < c; ++j) m(i, j) = normal(rng);
  return m;
}

inline bool all_finite(const attn::Matrix& m) { return m.allFinite(); }

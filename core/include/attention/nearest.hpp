/// \file
/// Nearest words: the vocabulary words whose vectors point most nearly the way a given vector does
/// (cosine similarity), searched over the whole word-vector table. Maths only: no I/O, no globals.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "attention/attention.hpp"
#include "attention/text.hpp"

namespace attn {

/// A word of a nearest list and how near it is.
struct Neighbour {
  Index id;          ///< the word's row in the table: WordVectors::word(id)
  float similarity;  ///< cosine similarity with the query, in [-1, 1]; 0 for a word whose vector is zero
};

/// The order nearest lists are given in: higher similarity first; equal similarities (as the floats
/// returned, so a tie is what the caller sees) to the lower id, the more frequent word.
inline bool ranks_before(const Neighbour& a, const Neighbour& b) {
  return a.similarity != b.similarity ? a.similarity > b.similarity : a.id < b.id;
}

/// A cosine-similarity index over a WordVectors table, built once per table (it copies what it needs,
/// so the table may go away). Cosine does not depend on a word's quantisation scale (a de-quantised
/// row, scale × value rounded to float, stays proportional to its int8 values within 2⁻²⁴), so the
/// search runs on the int8 values as stored, transposed (dim × words): one query is `dim` passes of
/// a contiguous multiply-add over every word, which the compiler vectorises (wasm SIMD128 included),
/// reading 1 byte per value instead of 4. The few words that come out near the k-th are then scored
/// again in double precision from the de-quantised float vectors, exactly as WordVectors gives them,
/// so the order and the similarities are those of a double-precision brute-force search.
class NearestWords {
 public:
  NearestWords() = default;  ///< an empty index (no words)
  /// Builds the index over every word of table.
  explicit NearestWords(const WordVectors& table);

  std::size_t size() const { return count_; }  ///< how many words
  Index dim() const { return dim_; }           ///< the length of a vector

  /// The k words most similar to `vector` (`length` values, which must be dim()), best first; equal
  /// similarities (as the floats returned) in row order, the more frequent word first. Rows listed in
  /// `exclude` are skipped (repeats are fine). Returns fewer than k only when fewer words are left.
  /// Throws AttentionError when length is not dim(), a value is NaN or ±Inf, the vector is all zeros
  /// (it has no direction), k < 1, or an excluded row is outside the table.
  std::vector<Neighbour> nearest(const float* vector, Index length, Index k,
                                 const std::vector<Index>& exclude = {}) const;

 private:
  /// Word i's cosine with q computed in double precision from its de-quantised vector.
  double exact_similarity(const float* q, double q_norm, std::size_t i) const;

  std::size_t count_ = 0;
  Index dim_ = 0;
  std::size_t stride_ = 0;             ///< count_ rounded up to the kernel's vector width (nearest.cpp)
  std::vector<std::int8_t> values_t_;  ///< dim_ × stride_: values_t_[k * stride_ + i] is word i's k-th value
  std::vector<float> scales_;          ///< count_: word i's vector is scales_[i] × its values
  std::vector<float> inverse_norms_;   ///< stride_: 1 / |values of word i|, 0 for a zero vector and the padding
};

}  // namespace attn

/// \file
/// Word vectors for words outside the table, composed from character n-grams the way fastText composes
/// them (Bojanowski et al., "Enriching Word Vectors with Subword Information", 2017). Maths only: the
/// n-gram rows come in as a WordVectors table the caller parsed from bytes it already holds.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "attention/text.hpp"

namespace attn {

/// How a table of n-gram rows names its rows (compose_subwords).
enum class NgramKeys : std::uint8_t {
  /// by the n-gram's text ("<mu", "urp"): tests/reference/subword_ngrams.bin
  Text = 0,
  /// by fastText's bucket, written bucket_key(bucket) ("#123456"): data/vectors-ngrams.bin. Two n-grams that
  /// share a bucket share its row, as in fastText, so a word's n-gram that collides with a trained one gets
  /// that row as print-word-vectors gives it. A key with '#' is never a token (the tokenizer splits '#'
  /// off), so such rows can sit in the composed table beside its words.
  Bucket = 1,
};

/// fastText's n-gram lengths and bucket count as the project trains them (data/build_vectors.sh:
/// -minn 3 -maxn 6, the default -bucket 2000000), and how an n-gram table names its rows.
struct SubwordOptions {
  int minn = 3;                      ///< shortest n-gram, in Unicode characters
  int maxn = 6;                      ///< longest n-gram, in Unicode characters
  std::uint32_t buckets = 2000000;   ///< how many rows the n-grams are hashed into
  NgramKeys keys = NgramKeys::Text;  ///< how compose_subwords finds an n-gram's row
};

/// The key of a bucket's row in a table keyed by bucket (NgramKeys::Bucket): "#" and the bucket in decimal.
std::string bucket_key(std::uint32_t bucket);

/// One character n-gram of a word and the bucket (row of fastText's n-gram matrix) it hashes to.
struct Subword {
  std::string text;      ///< the n-gram's bytes, '<' and '>' marking the word's start and end ("<mu", "hy>")
  std::uint32_t bucket;  ///< fastText's hash of text, modulo the bucket count
};

/// fastText's 32-bit FNV-1a variant: each byte is sign-extended before the xor, so bytes ≥ 0x80
/// hash differently from plain FNV-1a.
std::uint32_t fasttext_hash(std::string_view bytes);

/// The n-grams fastText averages for a word: every run of minn…maxn Unicode characters of "<word>"
/// (a UTF-8 character is never cut), in fastText's order (by start, then by length), repeats kept.
/// Throws AttentionError when the word is empty or the options are out of range (1 ≤ minn ≤ maxn ≤ 64,
/// buckets ≥ 1).
std::vector<Subword> fasttext_subwords(std::string_view word, const SubwordOptions& options = {});

/// A word's vector composed from its n-grams.
struct ComposedVector {
  Matrix vector;                    ///< 1 × dim: the sum of the n-gram rows found over the number of n-grams
  std::vector<std::string> pieces;  ///< the n-grams whose rows were found, in order, repeats kept
  std::size_t missing = 0;          ///< n-grams the table has no row for (zero rows in the mean)
};

/// fastText's vector of a word outside its vocabulary: the mean of the rows of the word's n-grams.
/// `ngrams` holds those rows keyed by the n-gram's text or by its bucket (options.keys; data/build_subwords.py
/// writes both kinds). fastText's buckets start at zero and
/// only the n-grams of its vocabulary's words are trained, so a table need only hold the non-zero rows:
/// an n-gram it lacks counts as a zero row (in the mean's divisor, not its sum) and in `missing`. With
/// every non-zero row present this is fastText's print-word-vectors vector up to the int8 quantisation;
/// a word none of whose n-grams was trained gets a zero vector, as in fastText.
/// Throws AttentionError as fasttext_subwords does.
ComposedVector compose_subwords(std::string_view word, const WordVectors& ngrams, const SubwordOptions& options = {});

}  // namespace attn

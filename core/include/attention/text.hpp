/// \file
/// Text side of the core: the tokenizer and the word-vector table that turns a sentence into X (T × d).
/// No I/O: the vector table is parsed from bytes the caller already holds (a file, a fetch, a test).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "attention/attention.hpp"

namespace attn {

/// Splits text into lower-case tokens: words (ASCII letters, digits, any non-ASCII byte, with ' or -
/// kept when a word character stands on both sides) and single punctuation marks. Whitespace separates.
/// Only ASCII is lower-cased; other bytes pass through unchanged, so UTF-8 stays valid.
/// The same function tokenises the training corpus (tools/tokenize) and the reader's sentence.
std::vector<std::string> tokenize(std::string_view text);

/// The stems tried, in order, when a word is not in a vocabulary: common English inflections stripped
/// ("stations" -> "station", "cities" -> "city", "cashing" -> "cash", then "cashe"), then contractions
/// ("you've" -> "you", "aren't" -> "are", "won't" -> "will"), past tenses and comparatives ("replied" ->
/// "reply", "happier" -> "happy", "smarter" -> "smart", "bigger" -> "big"), rounder numbers ("95" -> "90",
/// "3rd" -> "3") and a hyphenated word's last part ("non-linear" -> "linear"). Only stems of at least
/// 2 bytes are returned, except numbers. The word vectors and the language model (model.hpp) both fall
/// back on them; the rules that were first come first, so a word stems as it always did.
std::vector<std::string> stem_candidates(std::string_view word);

/// How a token found its vector.
enum class Lookup : std::uint8_t {
  Known = 0,    ///< the token itself is in the vocabulary
  Stemmed = 1,  ///< an inflection stripped ("stations" -> "station") is in the vocabulary
  Unknown = 2,  ///< nothing matched: the vector is all zeros, so its scores against every word are 0
  /// the token (or a stem of it) is in the attached table of vectors composed from character n-grams
  /// (WordVectors::with_composed, attention/subwords.hpp): fastText's vector for a word it never saw
  Composed = 3,
};

/// A token of an Embedding and where its vector came from.
struct EmbeddedToken {
  std::string text;     ///< the token as typed (lower-cased)
  Lookup lookup;        ///< how its vector was found
  std::string matched;  ///< the vocabulary word whose vector is used ("" when Unknown)
  /// A vector composed from n-gram rows (Lookup::Composed, matched == text, the word in neither the table nor
  /// the composed list): the n-grams whose rows were found, in fastText's order. Empty for every other token.
  std::vector<std::string> found;
  /// For such a vector, how many n-grams the mean is over (found ones and untrained ones, zero rows); 0 for
  /// every other token.
  std::size_t ngrams = 0;
  /// None of the word's n-grams was trained ("qt", "svg", "3d"): `found` holds the one-character n-grams of
  /// its letters and digits ("<q>", "<t>") and the vector is their rows' mean (spelled out, not fastText's).
  bool spelled = false;
};

/// A text as X: its tokens and one vector per token.
struct Embedding {
  std::vector<EmbeddedToken> tokens;  ///< T tokens
  Matrix X;                           ///< T × dim, row t is the vector of tokens[t]
  std::size_t total = 0;              ///< the text's token count (more than T when embed_first cut it)
};

/// A vocabulary of word vectors, parsed from the project's vectors file (format in data/README.md):
///   "ATTNVEC1" | u32 count | u32 dim | u32 words_bytes | words ('\n'-terminated, UTF-8)
///   | f32 scale[count] | i8 values[count × dim]          (all little-endian; vector = scale × values)
/// The table keeps the file's bytes and de-quantises only the rows asked for: parsing runs while the page
/// waits for its first heatmap, and a sentence needs a few dozen of the ~20,000 rows.
class WordVectors {
 public:
  /// Throws AttentionError naming the problem when the bytes are not a well-formed vectors file.
  /// The first form copies the bytes; the second keeps the caller's buffer (no copy of the ~1 MB file).
  ///@{
  static WordVectors parse(const std::uint8_t* bytes, std::size_t size);
  static WordVectors parse(std::vector<std::uint8_t>&& bytes);
  ///@}

  std::size_t size() const { return count_; }  ///< how many words
  Index dim() const { return dim_; }           ///< the length of every vector
  /// Vocabulary entry i, for i < size(); the view lives as long as the table.
  std::string_view word(std::size_t i) const;

  /// Row i as stored, for i < size(): its scale and its dim() int8 values (the vector is scale × values).
  ///@{
  float scale(std::size_t i) const;
  const std::int8_t* values(std::size_t i) const;
  ///@}

  /// Row index of a word, or -1.
  Index find(std::string_view word) const;
  /// The vector of vocabulary entry i (1 × dim).
  Matrix vector(Index i) const;

  /// This table with a second one attached: vectors composed from character n-grams (data/vectors-composed.bin,
  /// or a part of it) for words this table lacks. A token that neither this table nor its stems find is
  /// looked up there, itself and then its stems (Lookup::Composed); this table always comes first, so every
  /// word it had embeds as before. The attached table may also hold fastText's n-gram rows keyed by bucket
  /// (data/vectors-ngrams.bin or shards of it; NgramKeys::Bucket): a token in neither list is then composed
  /// from them as fastText composes a word it never saw (compose_subwords; Lookup::Composed with `found`). Throws
  /// AttentionError when the two tables' dimensions differ.
  WordVectors with_composed(WordVectors composed) const;
  /// The attached composed table, or null.
  const WordVectors* composed() const { return composed_.get(); }

  /// Tokenises text and stacks one row per token; an unknown token gets a zero row and is marked.
  /// Throws AttentionError when the text has no tokens or more than max_tokens of them.
  Embedding embed(std::string_view text, std::size_t max_tokens) const;
  /// The first max_tokens tokens of a longer text (all of a shorter one); total says how many it had.
  /// Throws AttentionError when the text has no tokens or max_tokens is 0.
  Embedding embed_first(std::string_view text, std::size_t max_tokens) const;

 private:
  void dequantise(Index i, float* out) const;  ///< writes row i's dim() floats
  Embedding embed_tokens(std::vector<std::string> tokens) const;

  /// The whole file as read. Everything below holds offsets into it, not pointers, so that a copied
  /// table does not point into its original.
  std::vector<std::uint8_t> file_;
  std::size_t count_ = 0;
  Index dim_ = 0;
  std::size_t scales_at_ = 0, values_at_ = 0;  ///< where those blocks start in file_
  std::vector<std::uint32_t> starts_;  ///< count_ + 1 offsets in the words block; word i ends at starts_[i + 1] - 1
  std::vector<std::uint32_t> slots_;   ///< hash table of the words (core/src/word_table.hpp): 0 = empty, else row + 1
  /// The composed table (with_composed), shared by copies: it is never changed once attached.
  std::shared_ptr<const WordVectors> composed_;
};

}  // namespace attn

/// \file
/// Subword pieces (issue 24 §3): a SentencePiece BPE vocabulary with byte fallback, read from the plain text
/// of data/pieces.vocab, and the encoder that splits each word of a sentence into pieces exactly as
/// SentencePiece's own encoder does for that vocabulary, so no input is ever unknown. Maths only: the
/// vocabulary comes in as text the caller already holds.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "attention/attention.hpp"

namespace attn {

/// A sentence split into pieces: the tokenizer's words, then each word's pieces, word after word.
struct PieceEncoding {
  std::vector<std::string> words;      ///< attn::tokenize's tokens
  std::vector<std::uint32_t> ids;      ///< the pieces' ids in the vocabulary
  std::vector<std::uint32_t> word_of;  ///< for each piece, the index in `words` of the word it belongs to
};

/// A BPE vocabulary (data/pieces.vocab, written by data/build_pieces.py; format in data/README.md):
///   line 1: "attention-pieces 1 bpe"; then one line per piece, id = line number − 2: the piece's UTF-8
///   text, a tab, its score (a decimal float). Piece 0 is `<unk>`; the 256 byte pieces `<0x00>` … `<0xFF>`
///   must all be present (byte fallback); every other line is a normal piece, "▁" (U+2581) marking a
///   word's start ("▁station" is a whole word, "tion" continues one).
class PieceVocabulary {
 public:
  /// The word-start mark, U+2581 in UTF-8: SentencePiece's stand-in for the space before a word.
  static constexpr std::string_view word_start = "\xE2\x96\x81";

  /// Throws AttentionError naming the line and the problem when the text is not such a vocabulary.
  static PieceVocabulary parse(std::string_view text);

  std::size_t size() const { return pieces_.size(); }  ///< how many pieces, `<unk>` and bytes included
  /// Piece `id`'s text as stored ("▁sta", "tion", `<0xE2>`); throws AttentionError for id ≥ size().
  std::string_view piece(std::uint32_t id) const;
  float score(std::uint32_t id) const;   ///< its score (BPE: higher merges first); throws as piece()
  bool is_byte(std::uint32_t id) const;  ///< a byte-fallback piece, `<0xNN>`
  /// The id of a piece's text (any kind), or -1.
  std::int64_t find(std::string_view piece) const;
  /// How the page labels a piece, the way BertViz draws WordPiece: a word's first piece without its "▁"
  /// ("sta"), a continuing piece after "##" ("##tion"), byte pieces and `<unk>` as stored.
  std::string label(std::uint32_t id) const;

  /// One word's pieces: "▁" + word split into characters (UTF-8; a byte that starts no valid character is
  /// a character of its own), then, as long as two neighbours join into a piece of the vocabulary, the
  /// pair with the highest score is joined (the leftmost of equal scores): SentencePiece's BPE encoder.
  /// A character left outside the vocabulary becomes its bytes' pieces. Never empty; never `<unk>`.
  std::vector<std::uint32_t> encode_word(std::string_view word) const;
  /// attn::tokenize(text), then each word's pieces (empty for a text without words). The same ids as
  /// SentencePiece gives for the tokens joined by single spaces: no piece spans two words.
  PieceEncoding encode(std::string_view text) const;

  /// The bytes of a word's pieces joined, byte pieces as their byte, the leading "▁" dropped:
  /// decode_word(encode_word(w)) == w for every byte string w. `<unk>` decodes as "⁇", as in SentencePiece.
  std::string decode_word(const std::vector<std::uint32_t>& ids) const;
  /// SentencePiece's decoding of a sequence: the pieces joined, every "▁" a space, the first one dropped.
  /// decode(encode(text).ids) is the text's tokens joined by single spaces (unless a token itself holds
  /// a "▁"). Unlike SentencePiece, bytes that are not valid UTF-8 stay as they are (it writes U+FFFD).
  std::string decode(const std::vector<std::uint32_t>& ids) const;

 private:
  std::vector<std::string> pieces_;
  std::vector<float> scores_;
  std::unordered_map<std::string, std::uint32_t> normal_;  ///< the pieces BPE may join into, by text
  std::unordered_map<std::string, std::uint32_t> all_;     ///< every piece by text
  std::array<std::uint32_t, 256> byte_ids_{};              ///< byte b's fallback piece
  std::vector<bool> is_byte_;
  std::size_t longest_ = 0;  ///< bytes of the longest normal piece: longer joins need no lookup
};

/// A piece-level attention map (queries × keys, one row and column per piece) as a word-level one, so a
/// word split into pieces reads as one word: weight(word a → word b) = the mean over a's pieces (as
/// queries) of the sum of their weights on b's pieces (as keys). Rows that sum to 1 still do. word_of[p]
/// is piece p's word (PieceEncoding::word_of): it starts at 0 and rises by 0 or 1 from piece to piece.
/// Throws AttentionError when the map is not square with one row per entry of word_of, or word_of is not so.
Matrix merge_pieces_to_words(const Matrix& piece_weights, const std::vector<std::uint32_t>& word_of);

}  // namespace attn

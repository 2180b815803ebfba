// libFuzzer target: the subword pieces (attention/pieces.hpp) on arbitrary bytes, with the committed
// vocabulary (data/pieces.vocab). First byte 0–84: one word (any bytes, invalid UTF-8 included) must give
// pieces that are never <unk>, cover every byte ("▁" + the word, joined, byte pieces as their byte) and
// decode back to the word. 85–169: a sentence: every word gets at least one piece, in order, each word's
// pieces decode to it, decode() gives the words joined by spaces, and the word-level map of a piece map
// stays finite with rows summing to 1. 170–255: the rest parsed as a vocabulary file: refused with
// AttentionError or, when accepted, encodes and round-trips a few words.
#include <cmath>
#include <fstream>
#include <iterator>
#include <string_view>

#include "attention/pieces.hpp"

#include "common.hpp"

using namespace attn;

namespace {

const PieceVocabulary& committed() {
  static const PieceVocabulary v = [] {
    std::ifstream file(ATTN_PIECES_VOCAB, std::ios::binary);
    const std::string text{std::istreambuf_iterator<char>(file), std::istreambuf_iterator<char>()};
    return PieceVocabulary::parse(text);
  }();
  return v;
}

// The bytes a piece stands for: a byte piece's byte, else its text.
std::string bytes_of(const PieceVocabulary& v, std::uint32_t id) {
  if (!v.is_byte(id)) return std::string(v.piece(id));
  const std::string_view p = v.piece(id);
  return std::string(1, static_cast<char>(std::stoi(std::string(p.substr(3, 2)), nullptr, 16)));
}

void check_word(const PieceVocabulary& v, std::string_view word) {
  const auto ids = v.encode_word(word);
  FUZZ_CHECK(!ids.empty(), "a word has pieces");
  std::string covered;
  for (const auto id : ids) {
    FUZZ_CHECK(id != 0 && id < v.size(), "a piece is never <unk> and is in the vocabulary");
    covered += bytes_of(v, id);
  }
  FUZZ_CHECK(covered == std::string(PieceVocabulary::word_start) + std::string(word), "the pieces cover every byte");
  FUZZ_CHECK(v.decode_word(ids) == word, "decode_word(encode_word(w)) == w");
}

void check_sentence(const PieceVocabulary& v, std::string_view text) {
  const PieceEncoding e = v.encode(text);
  FUZZ_CHECK(e.ids.size() == e.word_of.size(), "one word index per piece");
  std::string joined;
  bool has_mark = false;
  std::size_t at = 0;
  for (std::size_t w = 0; w < e.words.size(); ++w) {
    std::vector<std::uint32_t> ids;
    while (at < e.ids.size() && e.word_of[at] == w) ids.push_back(e.ids[at++]);
    FUZZ_CHECK(!ids.empty(), "every word gets a piece");
    FUZZ_CHECK(v.decode_word(ids) == e.words[w], "a word's pieces decode to it");
    joined += (w ? " " : "") + e.words[w];
    has_mark = has_mark || e.words[w].find(PieceVocabulary::word_start) != std::string::npos;
  }
  FUZZ_CHECK(at == e.ids.size(), "the pieces go word after word");
  if (!has_mark) FUZZ_CHECK(v.decode(e.ids) == joined, "decode(encode(text)) is the words joined by spaces");
  if (e.ids.empty() || e.ids.size() > 256) return;
  // A map with every row uniform: its word-level view has rows summing to 1, every entry finite.
  const auto n = static_cast<Index>(e.ids.size());
  const Matrix uniform = Matrix::Constant(n, n, 1.0f / static_cast<float>(n));
  const Matrix words = merge_pieces_to_words(uniform, e.word_of);
  FUZZ_CHECK(words.rows() == static_cast<Index>(e.words.size()), "one row per word");
  for (Index r = 0; r < words.rows(); ++r) {
    FUZZ_CHECK(words.row(r).allFinite(), "word-level weights are finite");
    FUZZ_CHECK(std::abs(words.row(r).sum() - 1.0f) < 1e-4f, "word-level rows sum to 1");
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::string_view rest(reinterpret_cast<const char*>(data + 1), size - 1);
  if (data[0] < 85) {
    check_word(committed(), rest);
  } else if (data[0] < 170) {
    check_sentence(committed(), rest);
  } else {
    try {
      const PieceVocabulary v = PieceVocabulary::parse(rest);
      for (const std::string_view word : {"a", "station", "\xFF", "z\xE2\x96\x81"}) check_word(v, word);
    } catch (const AttentionError&) {
      // refused, with a message: fine
    }
  }
  return 0;
}

// libFuzzer target: the tokenizer and WordVectors::embed on arbitrary text (any bytes, invalid UTF-8
// included). Checks that tokenising loses and invents nothing: the tokens, concatenated, are the input
// with whitespace (ASCII and Unicode) removed and ASCII lower-cased, and every token is a word or one punctuation byte.
// Every token's fastText n-grams and composed vector (issue 24): in range, finite, every n-gram accounted for.
#include <cmath>
#include <string_view>

#include "attention/subwords.hpp"

#include "common.hpp"

using namespace attn;

namespace {

bool is_space(unsigned char c) { return c == ' ' || (c >= '\t' && c <= '\r'); }

// Independent of the tokenizer's byte patterns: decode one UTF-8 character at text[i] (strictly, so a
// broken sequence is one byte) and report its length and code point (-1 when it is not valid UTF-8).
std::size_t decode(std::string_view text, std::size_t i, long& code_point) {
  const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(text[i + k]); };
  const unsigned char lead = byte(0);
  const std::size_t length = lead >= 0xF0 && lead <= 0xF4 ? 4 : lead >= 0xE0 ? 3 : lead >= 0xC2 && lead <= 0xDF ? 2 : 1;
  code_point = lead < 0x80 ? lead : -1;
  if (length == 1 || i + length > text.size()) return 1;
  long value = lead & (0x3F >> (length - 1));
  for (std::size_t k = 1; k < length; ++k) {
    if ((byte(k) & 0xC0) != 0x80) return 1;
    value = (value << 6) | (byte(k) & 0x3F);
  }
  // Overlong forms ("F0 82 80 A9" for U+2029) and surrogates are not valid UTF-8 either.
  const long smallest = length == 2 ? 0x80 : length == 3 ? 0x800 : 0x10000;
  if (value < smallest || value > 0x10FFFF || (value >= 0xD800 && value <= 0xDFFF)) return 1;
  code_point = value;
  return length;
}

// Unicode White_Space above ASCII; the tokenizer separates on these like on ' '.
bool is_unicode_space(long cp) {
  return cp == 0x85 || cp == 0xA0 || cp == 0x1680 || (cp >= 0x2000 && cp <= 0x200A) || cp == 0x2028 || cp == 0x2029 ||
         cp == 0x202F || cp == 0x205F || cp == 0x3000;
}
bool is_word(unsigned char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c >= 0x80; }

const WordVectors& table() {
  static const WordVectors t = [] {
    const std::vector<std::string> words = {"the",  "train", "left", "station", "on",         "time", "bank", "run",
                                            "city", "-",     "'",    "don't",   "well-known", "é",    "日本"};
    const std::uint32_t dim = 4;
    std::vector<float> scales;
    std::vector<std::int8_t> values;
    for (std::size_t i = 0; i < words.size(); ++i) {
      scales.push_back(0.01f * static_cast<float>(i + 1));
      for (std::uint32_t k = 0; k < dim; ++k) values.push_back(static_cast<std::int8_t>((i * 37 + k * 11) % 255 - 127));
    }
    const auto bytes = fuzz::vectors_file(words, dim, scales, values);
    return WordVectors::parse(bytes.data(), bytes.size());
  }();
  return t;
}

// A few n-gram rows, for compose_subwords on whatever the tokens are.
const WordVectors& ngram_table() {
  static const WordVectors t = [] {
    const std::vector<std::string> grams = {"<th", "the", "he>", "<the", "the>", "<the>", "sta", "tio", "ion", "on>"};
    std::vector<float> scales(grams.size(), 0.5f);
    std::vector<std::int8_t> values;
    for (std::size_t i = 0; i < grams.size(); ++i)
      for (int k = 0; k < 4; ++k) values.push_back(static_cast<std::int8_t>((i * 53 + k * 29) % 255 - 127));
    const auto bytes = fuzz::vectors_file(grams, 4, scales, values);
    return WordVectors::parse(bytes.data(), bytes.size());
  }();
  return t;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const std::vector<std::string> tokens = tokenize(text);
  std::string expected, joined;
  for (std::size_t i = 0; i < text.size();) {
    long cp;
    const std::size_t length = decode(text, i, cp);
    if (is_unicode_space(cp)) {
      i += length;
      continue;
    }
    const unsigned char c = static_cast<unsigned char>(text[i++]);  // byte by byte from here
    if (!is_space(c)) expected += static_cast<char>(c >= 'A' && c <= 'Z' ? c + ('a' - 'A') : c);
  }
  for (const std::string& t : tokens) {
    FUZZ_CHECK(!t.empty(), "empty token");
    const unsigned char first = static_cast<unsigned char>(t[0]);
    if (is_word(first)) {
      for (std::size_t i = 0; i < t.size(); ++i) {
        const unsigned char c = static_cast<unsigned char>(t[i]);
        const bool joiner = (c == '\'' || c == '-') && i > 0 && i + 1 < t.size();
        FUZZ_CHECK(is_word(c) || joiner, "a word token holds a non-word byte");
      }
    } else {
      FUZZ_CHECK(t.size() == 1, "a punctuation token longer than one byte");
    }
    joined += t;
  }
  FUZZ_CHECK(joined == expected, "tokens do not spell the input without whitespace");

  // fastText's n-grams of every token: complete pieces of "<token>", buckets in range; the composed vector
  // finite, each n-gram found or counted missing, zero exactly when none was found.
  for (const std::string& t : tokens) {
    const std::vector<Subword> pieces = fasttext_subwords(t);
    const std::string marked = "<" + t + ">";
    for (const Subword& p : pieces) {
      FUZZ_CHECK(!p.text.empty() && p.bucket < SubwordOptions{}.buckets, "n-gram empty or bucket out of range");
      FUZZ_CHECK(marked.find(p.text) != std::string::npos, "an n-gram that is not a piece of <token>");
    }
    const ComposedVector c = compose_subwords(t, ngram_table());
    FUZZ_CHECK(c.pieces.size() + c.missing == pieces.size(), "an n-gram neither found nor missing");
    FUZZ_CHECK(c.vector.rows() == 1 && c.vector.cols() == 4 && c.vector.allFinite(), "composed vector shape or NaN");
    if (c.pieces.empty()) FUZZ_CHECK(c.vector.isZero(0), "a vector from no piece");
  }

  // Embedding: the same tokens, one row each, Known/Stemmed rows are vocabulary vectors.
  const std::size_t max_tokens = size ? 1 + data[0] % 64 : 1;
  try {
    const Embedding e = table().embed(text, max_tokens);
    FUZZ_CHECK(e.tokens.size() == tokens.size() && !tokens.empty() && tokens.size() <= max_tokens,
               "embed accepted a bad count");
    FUZZ_CHECK(e.X.rows() == static_cast<Index>(tokens.size()) && e.X.cols() == 4, "embedding shape");
    for (std::size_t t = 0; t < tokens.size(); ++t) {
      FUZZ_CHECK(e.tokens[t].text == tokens[t], "embedded token differs from tokenize()");
      if (e.tokens[t].lookup == Lookup::Known)
        FUZZ_CHECK(e.tokens[t].matched == tokens[t], "known token matched another word");
      if (e.tokens[t].lookup != Lookup::Unknown)
        FUZZ_CHECK(e.X.row(static_cast<Index>(t)) == table().vector(table().find(e.tokens[t].matched)), "wrong vector");
      else
        FUZZ_CHECK(e.X.row(static_cast<Index>(t)).isZero(0), "unknown token not zero");
    }
  } catch (const AttentionError&) {
    FUZZ_CHECK(tokens.empty() || tokens.size() > max_tokens, "embed refused a valid sentence");
  }
  return 0;
}

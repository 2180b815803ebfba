// The project's one tokenizer: lower-case words with punctuation split off (see attention/text.hpp).
#include <cstdint>

#include "attention/text.hpp"

namespace attn {
namespace {

bool is_space(unsigned char c) { return c == ' ' || (c >= '\t' && c <= '\r'); }

// Bytes taken by a non-ASCII Unicode space (White_Space: U+0085, U+00A0, U+1680, U+2000–200A,
// U+2028, U+2029, U+202F, U+205F, U+3000) starting at text[i], or 0. Pasted text is full of no-break
// spaces; without this they would glue two words into one unknown token.
std::size_t unicode_space_length(std::string_view text, std::size_t i) {
  auto at = [&](std::size_t k) { return i + k < text.size() ? static_cast<unsigned char>(text[i + k]) : 0u; };
  if (at(0) == 0xC2 && (at(1) == 0x85 || at(1) == 0xA0)) return 2;
  if (at(0) == 0xE1 && at(1) == 0x9A && at(2) == 0x80) return 3;
  if (at(0) == 0xE2 && at(1) == 0x80 &&
      ((at(2) >= 0x80 && at(2) <= 0x8A) || at(2) == 0xA8 || at(2) == 0xA9 || at(2) == 0xAF))
    return 3;
  if (at(0) == 0xE2 && at(1) == 0x81 && at(2) == 0x9F) return 3;
  if (at(0) == 0xE3 && at(1) == 0x80 && at(2) == 0x80) return 3;
  return 0;
}

// Letters, digits and every byte of a multi-byte UTF-8 character count as word characters, so
// accented words, scripts other than Latin and emoji stay whole.
bool is_word_char(unsigned char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c >= 0x80;
}

// ' and - join two word characters ("don't", "well-known"); anywhere else they are punctuation.
bool is_joiner(unsigned char c) { return c == '\'' || c == '-'; }

char lower(unsigned char c) { return static_cast<char>(c >= 'A' && c <= 'Z' ? c + ('a' - 'A') : c); }

}  // namespace

std::vector<std::string> tokenize(std::string_view text) {
  std::vector<std::string> tokens;
  const std::size_t n = text.size();
  auto at = [&](std::size_t i) { return static_cast<unsigned char>(text[i]); };
  std::size_t i = 0;
  while (i < n) {
    const unsigned char c = at(i);
    if (is_space(c)) {
      ++i;
    } else if (const std::size_t space = unicode_space_length(text, i)) {
      i += space;
    } else if (is_word_char(c)) {
      std::string word;
      while (i < n && unicode_space_length(text, i) == 0) {
        if (is_word_char(at(i))) {
          word += lower(at(i));
          ++i;
        } else if (is_joiner(at(i)) && i + 1 < n && is_word_char(at(i + 1)) && unicode_space_length(text, i + 1) == 0) {
          word += static_cast<char>(at(i));
          ++i;
        } else {
          break;
        }
      }
      tokens.push_back(std::move(word));
    } else {
      tokens.emplace_back(1, static_cast<char>(c));  // one punctuation mark (or control byte)
      ++i;
    }
  }
  return tokens;
}

}  // namespace attn

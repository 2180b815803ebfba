// The project's one tokenizer: lower-case words with punctuation split off (see attention/text.hpp).
#include <cstdint>

#include "attention/text.hpp"

namespace attn {
namespace {

bool is_space(unsigned char c) { return c == ' ' || (c >= '\t' && c <= '\r'); }

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
    } else if (is_word_char(c)) {
      std::string word;
      while (i < n) {
        if (is_word_char(at(i))) {
          word += lower(at(i));
          ++i;
        } else if (is_joiner(at(i)) && i + 1 < n && is_word_char(at(i + 1))) {
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

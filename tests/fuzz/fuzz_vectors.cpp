// libFuzzer target: the vectors-file loader (WordVectors::parse) on arbitrary bytes, then lookups and
// embedding on whatever table it accepts. Must never crash, leak, read out of bounds or throw anything
// but AttentionError; an accepted table must be self-consistent.
#include <string_view>

#include "common.hpp"

using namespace attn;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  WordVectors table;
  try {
    table = WordVectors::parse(data, size);
  } catch (const AttentionError&) {
    return 0;  // refused with a message: fine
  }
  FUZZ_CHECK(table.size() >= 1 && table.dim() >= 1, "accepted an empty table");
  const std::size_t n = table.size();
  std::string sentence;
  for (std::size_t i = 0; i < n && i < 32; ++i) {
    const std::string_view w = table.word(i);
    FUZZ_CHECK(!w.empty(), "empty word accepted");
    FUZZ_CHECK(table.find(w) == static_cast<Index>(i), "find() does not return the word's row");
    const Matrix v = table.vector(static_cast<Index>(i));
    FUZZ_CHECK(v.rows() == 1 && v.cols() == table.dim(), "vector shape");
    fuzz::check_finite(v, "vector");
    sentence.append(w).append(" ");
  }
  try {
    (void)table.vector(static_cast<Index>(n));
    fuzz::fail("vector(size()) did not throw");
  } catch (const AttentionError&) {
  }
  // Embed the vocabulary's own words (the tokenizer may split them differently) and a fixed sentence.
  for (std::string_view text : {std::string_view(sentence), std::string_view("the stations' trains left, running")}) {
    try {
      const Embedding e = table.embed(text, 4096);
      FUZZ_CHECK(e.X.rows() == static_cast<Index>(e.tokens.size()) && e.X.cols() == table.dim(), "embedding shape");
      fuzz::check_finite(e.X, "embedding");
      for (std::size_t t = 0; t < e.tokens.size(); ++t) {
        const EmbeddedToken& tok = e.tokens[t];
        if (tok.lookup == Lookup::Unknown) {
          FUZZ_CHECK(e.X.row(static_cast<Index>(t)).isZero(0), "unknown token has a non-zero vector");
        } else {
          const Index row = table.find(tok.matched);
          FUZZ_CHECK(row >= 0, "matched word is not in the vocabulary");
          FUZZ_CHECK(e.X.row(static_cast<Index>(t)) == table.vector(row), "token row is not its word's vector");
        }
      }
    } catch (const AttentionError&) {
    }
  }
  return 0;
}

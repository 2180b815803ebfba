// libFuzzer target: the n-gram last resort (issue 24 §1). Arbitrary bytes as a sentence, embedded by the
// committed table with the committed n-gram rows attached (data/vectors.bin, data/vectors-ngrams.bin): never
// a crash, a NaN or an exception other than AttentionError; an unknown token has a zero row; a token composed
// from n-grams has exactly compose_subwords's vector and found pieces; and every alphabetic token (ASCII
// letters) gets a vector, as every such word has at least one trained n-gram (checked here, not assumed).
#include <fstream>
#include <iterator>
#include <string_view>

#include "attention/subwords.hpp"

#include "common.hpp"

using namespace attn;

namespace {

std::vector<std::uint8_t> read_file(const char* path) {
  std::ifstream file(path, std::ios::binary);
  if (!file) fuzz::fail(std::string("cannot read ") + path);
  return {std::istreambuf_iterator<char>(file), std::istreambuf_iterator<char>()};
}

const WordVectors& committed() {
  static const WordVectors table =
      WordVectors::parse(read_file(ATTN_VECTORS_FILE)).with_composed(WordVectors::parse(read_file(ATTN_NGRAMS_FILE)));
  return table;
}

bool alphabetic(std::string_view token) {
  for (const char c : token)
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'))) return false;
  return !token.empty();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const WordVectors& table = committed();
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  Embedding e;
  try {
    e = table.embed_first(text, 512);
  } catch (const AttentionError&) {
    return 0;  // no token: refused with a message
  }
  FUZZ_CHECK(e.X.rows() == static_cast<Index>(e.tokens.size()) && e.X.cols() == table.dim(), "embedding shape");
  fuzz::check_finite(e.X, "embedding");
  SubwordOptions by_bucket;
  by_bucket.keys = NgramKeys::Bucket;
  for (std::size_t t = 0; t < e.tokens.size(); ++t) {
    const EmbeddedToken& tok = e.tokens[t];
    const auto row = e.X.row(static_cast<Index>(t));
    if (tok.lookup == Lookup::Unknown) FUZZ_CHECK(row.isZero(0), "an unknown token has a non-zero vector");
    if (!tok.found.empty()) {
      FUZZ_CHECK(tok.lookup == Lookup::Composed && tok.matched == tok.text, "n-gram composition marked as such");
      const ComposedVector c = compose_subwords(tok.text, *table.composed(), by_bucket);
      if (tok.spelled) {
        // No n-gram of it trained: its letters' and digits' one-character rows, in order.
        FUZZ_CHECK(c.pieces.empty(), "a spelled word has no trained n-gram");
        std::vector<std::string> letters;
        for (const char ch : tok.text)
          if ((ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9')) letters.push_back(std::string("<") + ch + ">");
        FUZZ_CHECK(tok.found == letters, "a spelled word's pieces are its letters and digits");
        FUZZ_CHECK(tok.ngrams == letters.size(), "the mean is over its letters");
        FUZZ_CHECK(!row.isZero(0), "a spelled word has a vector");
      } else {
        FUZZ_CHECK(c.pieces == tok.found, "found pieces are compose_subwords's");
        FUZZ_CHECK(tok.ngrams == fasttext_subwords(tok.text).size(), "the mean is over every n-gram");
        FUZZ_CHECK(row == c.vector.row(0), "the row is compose_subwords's vector");
      }
    }
    if (alphabetic(tok.text)) FUZZ_CHECK(tok.lookup != Lookup::Unknown, "an alphabetic token got no vector");
  }
  return 0;
}

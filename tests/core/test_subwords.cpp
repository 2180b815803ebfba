// fastText's character n-grams and hash, and word vectors composed from n-gram rows, held to fastText's own
// print-word-vectors output for words outside the table (tests/reference/subword_*, data/build_vectors.sh).
#include <algorithm>
#include <cmath>
#include <cstring>
#include <fstream>
#include <iterator>
#include <sstream>

#include "attention/subwords.hpp"
#include "helpers.hpp"

using namespace attn;
using Catch::Contains;

namespace {

std::vector<std::string> texts(const std::vector<Subword>& pieces) {
  std::vector<std::string> out;
  for (const Subword& p : pieces) out.push_back(p.text);
  return out;
}

std::vector<std::uint8_t> read_bytes(const char* path) {
  std::ifstream file(path, std::ios::binary);
  INFO("file: " << path);
  REQUIRE(file.good());
  return {std::istreambuf_iterator<char>(file), std::istreambuf_iterator<char>()};
}

}  // namespace

TEST_CASE("fastText's hash: FNV-1a with each byte sign-extended", "[subwords]") {
  REQUIRE(fasttext_hash("") == 2166136261u);
  // ASCII bytes are the same as plain FNV-1a ("a": (2166136261 ^ 97) * 16777619 mod 2^32).
  REQUIRE(fasttext_hash("a") == 0xe40c292cu);
  // 0xE9 is xor-ed as 0xFFFFFFE9, so the high bits differ from plain FNV-1a's (hash ^ 0xE9) * prime.
  const std::uint32_t plain = (2166136261u ^ 0xE9u) * 16777619u;
  REQUIRE(fasttext_hash("\xE9") == ((2166136261u ^ 0xFFFFFFE9u) * 16777619u));
  REQUIRE(fasttext_hash("\xE9") != plain);
}

TEST_CASE("fastText's n-grams: 3 to 6 characters of <word>, by start then length", "[subwords]") {
  REQUIRE(texts(fasttext_subwords("mur")) == std::vector<std::string>{"<mu", "<mur", "<mur>", "mur", "mur>", "ur>"});
  REQUIRE(texts(fasttext_subwords("a")) == std::vector<std::string>{"<a>"});
  // A UTF-8 character counts once and is never cut: "é" is two bytes, one character.
  REQUIRE(texts(fasttext_subwords("\xC3\xA9t\xC3\xA9")) ==
          std::vector<std::string>{"<\xC3\xA9t", "<\xC3\xA9t\xC3\xA9", "<\xC3\xA9t\xC3\xA9>", "\xC3\xA9t\xC3\xA9",
                                   "\xC3\xA9t\xC3\xA9>", "t\xC3\xA9>"});
  // Repeats are kept, as fastText averages them twice: "aaaa" has "aaa" twice.
  const auto aaaa = texts(fasttext_subwords("aaaa"));
  REQUIRE(std::count(aaaa.begin(), aaaa.end(), "aaa") == 2);
  // Every piece's bucket is its hash modulo the bucket count.
  for (const Subword& p : fasttext_subwords("station", {3, 6, 1000})) REQUIRE(p.bucket == fasttext_hash(p.text) % 1000);
  REQUIRE(fasttext_subwords("station").size() == 22);  // "<station>", 9 characters: 7 + 6 + 5 + 4
  REQUIRE_THROWS_WITH(fasttext_subwords(""), Contains("empty word"));
  REQUIRE_THROWS_WITH(fasttext_subwords("a", {0, 6, 10}), Contains("minn"));
  REQUIRE_THROWS_WITH(fasttext_subwords("a", {4, 3, 10}), Contains("minn"));
  REQUIRE_THROWS_WITH(fasttext_subwords("a", {3, 6, 0}), Contains("bucket"));
}

TEST_CASE("a composed vector is the mean over all n-grams, a missing one a zero row", "[subwords]") {
  // Rows: "<ab" = 2 × (1, 0), "ab>" = 1 × (0, 3); "<ab>" is missing (an untrained, zero bucket).
  const std::vector<std::string> words = {"<ab", "ab>"};
  std::vector<std::uint8_t> bytes = {'A', 'T', 'T', 'N', 'V', 'E', 'C', '1', 2, 0, 0, 0, 2, 0, 0, 0, 8, 0, 0, 0};
  for (const std::string& w : words) {
    bytes.insert(bytes.end(), w.begin(), w.end());
    bytes.push_back('\n');
  }
  for (const float scale : {2.0f, 1.0f}) {
    std::uint8_t b[4];
    std::memcpy(b, &scale, 4);  // the test machines are little-endian, as the format is
    bytes.insert(bytes.end(), b, b + 4);
  }
  for (const std::int8_t v : {1, 0, 0, 3}) bytes.push_back(static_cast<std::uint8_t>(v));
  const WordVectors table = WordVectors::parse(bytes.data(), bytes.size());
  const ComposedVector c = compose_subwords("ab", table);
  REQUIRE(c.pieces == std::vector<std::string>{"<ab", "ab>"});
  REQUIRE(c.missing == 1);
  REQUIRE(c.vector(0, 0) == static_cast<float>(2.0 / 3.0));
  REQUIRE(c.vector(0, 1) == 1.0f);
  const ComposedVector none = compose_subwords("zzzz", table);
  REQUIRE(none.pieces.empty());
  REQUIRE(none.vector.isZero(0));
  REQUIRE(none.vector.cols() == 2);
}

TEST_CASE("composed vectors match fastText's print-word-vectors for words outside the table", "[subwords][data]") {
  // tests/reference/subword_ngrams.bin holds the non-zero rows of these words' n-grams.
  const WordVectors ngrams = WordVectors::parse(read_bytes(ATTN_SUBWORD_NGRAMS));
  std::ifstream reference(ATTN_SUBWORD_VECTORS);
  REQUIRE(reference.good());
  std::string line;
  std::size_t words = 0, zeros = 0;
  double worst = 1.0;
  while (std::getline(reference, line)) {
    std::istringstream fields(line);
    std::string word;
    fields >> word;
    Matrix expected(1, ngrams.dim());
    for (Index k = 0; k < ngrams.dim(); ++k) REQUIRE(fields >> expected(0, k));
    const ComposedVector c = compose_subwords(word, ngrams);
    INFO(word);
    REQUIRE(c.pieces.size() + c.missing == fasttext_subwords(word).size());
    ++words;
    if (expected.isZero(0)) {  // none of its n-grams was trained ("cc"): fastText gives zeros, and so do we
      REQUIRE(c.vector.isZero(0));
      ++zeros;
      continue;
    }
    const double cosine = c.vector.cast<double>().row(0).dot(expected.cast<double>().row(0)) /
                          (c.vector.cast<double>().norm() * expected.cast<double>().norm());
    REQUIRE(cosine >= 0.99);
    // The length too, not only the direction: the missing n-grams count in the mean as zeros.
    REQUIRE(c.vector.norm() == Approx(expected.norm()).epsilon(0.02));
    worst = std::min(worst, cosine);
  }
  INFO("words " << words << " (" << zeros << " all-zero), lowest cosine " << worst);
  REQUIRE(words >= 250);
  REQUIRE(zeros < 10);
  REQUIRE(worst >= 0.99);
}

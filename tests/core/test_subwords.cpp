// fastText's character n-grams and hash, and word vectors composed from n-gram rows, held to fastText's own
// print-word-vectors output for words outside the table (tests/reference/subword_*, data/build_vectors.sh).
#include <algorithm>
#include <cmath>
#include <cstring>
#include <fstream>
#include <iterator>
#include <sstream>

#include "../support/vectors_file.hpp"
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

/** How a file of fastText's vectors compared with ours: the words it held and the lowest cosine. */
struct FastTextAgreement {
  std::vector<std::string> words;
  std::size_t untrained = 0;  // words with no trained n-gram, set aside by the caller's rule
  double worst = 1.0;
};

/**
 * Reads fastText's print-word-vectors output at `path` (a word, then its vector, a line each), composes
 * each word from `ngrams` and holds it to fastText's vector: every n-gram found or missing, the direction to
 * cosine 0.99 and the length to 2 % (the missing n-grams count in the mean as zeros, so the length is
 * checked too, not only the direction). A word `untrained(c, expected)` says has no trained n-gram is
 * checked by that rule instead (the two references set such words out differently) and counted.
 */
template <class Untrained>
FastTextAgreement compare_with_fasttext(const char* path, const WordVectors& ngrams, const SubwordOptions& options,
                                        Untrained untrained) {
  FastTextAgreement out;
  std::ifstream reference(path);
  INFO("file: " << path);
  REQUIRE(reference.good());
  for (std::string line; std::getline(reference, line);) {
    std::istringstream fields(line);
    std::string word;
    fields >> word;
    INFO(word);
    Matrix expected(1, ngrams.dim());
    for (Index k = 0; k < ngrams.dim(); ++k) REQUIRE(fields >> expected(0, k));
    const ComposedVector c = compose_subwords(word, ngrams, options);
    REQUIRE(c.pieces.size() + c.missing == fasttext_subwords(word).size());
    out.words.push_back(word);
    if (untrained(c, expected)) {
      ++out.untrained;
      continue;
    }
    const double cosine = c.vector.cast<double>().row(0).dot(expected.cast<double>().row(0)) /
                          (c.vector.cast<double>().norm() * expected.cast<double>().norm());
    REQUIRE(cosine >= 0.99);
    REQUIRE(c.vector.norm() == Approx(expected.norm()).epsilon(0.02));
    out.worst = std::min(out.worst, cosine);
  }
  return out;
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
  // None of its n-grams was trained ("cc"): fastText gives zeros, and so do we.
  const FastTextAgreement a = compare_with_fasttext(ATTN_SUBWORD_VECTORS, ngrams, {},
                                                    [](const ComposedVector& c, const Matrix& expected) {
                                                      if (!expected.isZero(0)) return false;
                                                      REQUIRE(c.vector.isZero(0));
                                                      return true;
                                                    });
  INFO("words " << a.words.size() << " (" << a.untrained << " all-zero), lowest cosine " << a.worst);
  REQUIRE(a.words.size() >= 250);
  REQUIRE(a.untrained < 10);
  REQUIRE(a.worst >= 0.99);
}

// ---- the n-gram last resort (issue 24 §1): data/vectors-ngrams.bin, fastText's trained rows keyed by bucket ----

TEST_CASE("bucket keys: '#' and the bucket in decimal, looked up by the n-gram's bucket", "[subwords]") {
  REQUIRE(bucket_key(0) == "#0");
  REQUIRE(bucket_key(1999999) == "#1999999");
  // One row, keyed by the bucket of "<ab": "ab" finds it under NgramKeys::Bucket, not under Text.
  const std::uint32_t bucket = fasttext_hash("<ab") % 2000000;
  const std::vector<std::uint8_t> bytes = attn_test::vectors_file({bucket_key(bucket)}, 2, {4.0f}, {1, 0});
  const WordVectors table = WordVectors::parse(bytes.data(), bytes.size());
  SubwordOptions by_bucket;
  by_bucket.keys = NgramKeys::Bucket;
  const ComposedVector c = compose_subwords("ab", table, by_bucket);
  REQUIRE(c.pieces == std::vector<std::string>{"<ab"});
  REQUIRE(c.missing == 2);
  REQUIRE(c.vector(0, 0) == Approx(4.0 / 3.0).epsilon(0.01));
  REQUIRE(compose_subwords("ab", table).pieces.empty());
}

TEST_CASE("the shipped n-gram rows compose fastText's print-word-vectors for words outside both lists",
          "[subwords][data]") {
  // tests/reference/ngram_words.txt: words of real text (Debian's package descriptions) that neither
  // data/vectors.bin nor data/vectors-composed.bin reaches; ngram_vectors.txt: fastText's vectors for them.
  const WordVectors ngrams = WordVectors::parse(read_bytes(ATTN_NGRAMS_FILE));
  const WordVectors table = WordVectors::parse(read_bytes(ATTN_VECTORS_FILE));
  const WordVectors composed = WordVectors::parse(read_bytes(ATTN_COMPOSED_FILE));
  SubwordOptions by_bucket;
  by_bucket.keys = NgramKeys::Bucket;
  // None of its n-grams was trained ("qt", "3d"): fastText gives zeros or the mean of untrained buckets'
  // initial values (fastText 0.9.2 with -thread 1 initialises the first tenth of the input matrix,
  // uniformly in ±1/dim), never a trained direction. The core spells such a word out instead (below).
  const float initial = 1.0f / static_cast<float>(ngrams.dim());
  const FastTextAgreement a = compare_with_fasttext(ATTN_NGRAM_VECTORS, ngrams, by_bucket,
                                                    [initial](const ComposedVector& c, const Matrix& expected) {
                                                      if (!c.pieces.empty()) return false;
                                                      REQUIRE(c.vector.isZero(0));
                                                      REQUIRE(expected.cwiseAbs().maxCoeff() <= initial);
                                                      return true;
                                                    });
  for (const std::string& word : a.words) {
    INFO(word);
    REQUIRE(table.find(word) < 0);
    REQUIRE(composed.find(word) < 0);
  }
  const std::size_t words = a.words.size();
  INFO("words " << words << " (" << a.untrained << " all-zero), lowest cosine " << a.worst);
  REQUIRE(words >= 250);
  REQUIRE(a.untrained <= words / 10);
  REQUIRE(a.worst >= 0.99);
  WARN("n-gram rows: " << words << " words outside both lists, " << a.untrained
                       << " with no trained n-gram, lowest cosine " << a.worst);
}

TEST_CASE("embedding with the n-gram rows attached: a word in neither list is composed, marks stay unknown",
          "[subwords][data]") {
  const WordVectors table = WordVectors::parse(read_bytes(ATTN_VECTORS_FILE));
  const WordVectors with = table.with_composed(WordVectors::parse(read_bytes(ATTN_NGRAMS_FILE)));
  const Embedding plain = table.embed("the debcargo tool packs rust crates *", 64);
  const Embedding e = with.embed("the debcargo tool packs rust crates *", 64);
  REQUIRE(e.tokens.size() == 7);
  SubwordOptions by_bucket;
  by_bucket.keys = NgramKeys::Bucket;
  for (std::size_t t = 0; t < e.tokens.size(); ++t) {
    const EmbeddedToken& tok = e.tokens[t];
    INFO(tok.text);
    if (plain.tokens[t].lookup != Lookup::Unknown) {
      // The table always comes first: every word it had keeps its vector to the bit.
      REQUIRE(tok.lookup == plain.tokens[t].lookup);
      REQUIRE(e.X.row(static_cast<Index>(t)) == plain.X.row(static_cast<Index>(t)));
      REQUIRE(tok.found.empty());
    }
  }
  const EmbeddedToken& debcargo = e.tokens[1];
  REQUIRE(debcargo.lookup == Lookup::Composed);
  REQUIRE(debcargo.matched == "debcargo");
  const ComposedVector c = compose_subwords("debcargo", *with.composed(), by_bucket);
  REQUIRE(debcargo.found == c.pieces);
  REQUIRE(debcargo.ngrams == fasttext_subwords("debcargo").size());
  REQUIRE(debcargo.found.size() > debcargo.ngrams / 2);
  REQUIRE(e.X.row(1) == c.vector.row(0));
  REQUIRE_FALSE(e.X.row(1).isZero(0));
  // A word none of whose n-grams was trained is spelled out: the mean of its letters' rows "<q>", "<t>".
  const Embedding qt = with.embed("qt", 4);
  REQUIRE(qt.tokens[0].lookup == Lookup::Composed);
  REQUIRE(qt.tokens[0].spelled);
  REQUIRE(qt.tokens[0].found == std::vector<std::string>{"<q>", "<t>"});
  REQUIRE(compose_subwords("qt", *with.composed(), by_bucket).pieces.empty());
  const Matrix q = compose_subwords("q", *with.composed(), by_bucket).vector,
               tt = compose_subwords("t", *with.composed(), by_bucket).vector;
  // compose_subwords("q") is "<q>"'s row over its one n-gram: the row itself.
  for (Index k = 0; k < q.cols(); ++k) REQUIRE(qt.X(0, k) == Approx((q(0, k) + tt(0, k)) / 2).margin(1e-6));
  REQUIRE(debcargo.found.size() < debcargo.ngrams);
  REQUIRE_FALSE(debcargo.spelled);
  // A punctuation mark the table lacks gets no vector from n-grams (fastText trained none for it).
  REQUIRE(e.tokens[6].text == "*");
  REQUIRE(e.tokens[6].lookup == Lookup::Unknown);
  REQUIRE(e.X.row(6).isZero(0));
}

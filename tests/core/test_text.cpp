// Tokenizer, vectors-file parser (well-formed and hostile bytes), embedding, and the sanity the
// committed WordNet vectors must pass.
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>

#include "../support/vectors_file.hpp"
#include "attention/text.hpp"
#include "helpers.hpp"

using namespace attn;
using Catch::Contains;

namespace {

using Strings = std::vector<std::string>;

// A vectors file (tests/support/vectors_file.hpp) from one row of int8 values per word.
std::vector<std::uint8_t> vectors_file(const Strings& words, const std::vector<std::vector<std::int8_t>>& values,
                                       const std::vector<float>& scales) {
  std::vector<std::int8_t> flat;
  for (const auto& row : values) flat.insert(flat.end(), row.begin(), row.end());
  return attn_test::vectors_file(words, static_cast<std::uint32_t>(values.empty() ? 0 : values[0].size()), scales,
                                 flat);
}

WordVectors small_table() {
  const auto bytes = vectors_file({"the", "station", "train", "check"}, {{1, 0}, {0, 2}, {1, 1}, {-3, 4}},
                                  {0.5f, 1, 1, 0.25f});
  return WordVectors::parse(bytes.data(), bytes.size());
}

// data/vectors.bin, or $ATTN_VECTORS_FILE (data/build_vectors.sh checks a new file before keeping it).
WordVectors committed_table() {
  const char* override_path = std::getenv("ATTN_VECTORS_FILE");
  const std::string path = override_path && *override_path ? override_path : ATTN_VECTORS_FILE;
  std::ifstream file(path, std::ios::binary);
  INFO("vectors file: " << path);
  REQUIRE(file.good());
  const std::vector<std::uint8_t> bytes((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  return WordVectors::parse(bytes.data(), bytes.size());
}

// Parameter-free attention on a sentence with the committed vectors.
struct SentenceAttention {
  Strings tokens;
  AttentionSteps steps;
  Index at(const std::string& word) const {
    for (std::size_t i = 0; i < tokens.size(); ++i)
      if (tokens[i] == word) return static_cast<Index>(i);
    FAIL("no token " << word);
    return -1;
  }
};
SentenceAttention attend_sentence(const WordVectors& table, const std::string& sentence) {
  Embedding e = table.embed(sentence, 64);
  SentenceAttention out;
  for (const auto& t : e.tokens) {
    REQUIRE(t.lookup == Lookup::Known);
    out.tokens.push_back(t.text);
  }
  out.steps = parameter_free_attention(e.X, std::sqrt(static_cast<float>(table.dim())), {Score::Dot});
  return out;
}

}  // namespace

TEST_CASE("tokenize: lower-case words, punctuation split off", "[text][tokenize]") {
  REQUIRE(tokenize("The train left the station on time.") ==
          Strings{"the", "train", "left", "the", "station", "on", "time", "."});
  REQUIRE(tokenize("  He cashed a CHECK, at the bank!\n") ==
          Strings{"he", "cashed", "a", "check", ",", "at", "the", "bank", "!"});
  REQUIRE(tokenize("don't well-known -x- 'quoted' 3.5") ==
          Strings{"don't", "well-known", "-", "x", "-", "'", "quoted", "'", "3", ".", "5"});
  REQUIRE(tokenize("<img src=x onerror=alert(1)>") ==
          Strings{"<", "img", "src", "=", "x", "onerror", "=", "alert", "(", "1", ")", ">"});
  REQUIRE(tokenize("") == Strings{});
  REQUIRE(tokenize(" \t\n ") == Strings{});
  // UTF-8 passes through whole: accents, emoji, right-to-left script.
  REQUIRE(tokenize("Café 🚂 שלום") == Strings{"café", "🚂", "שלום"});
  // Unicode spaces separate like ASCII ones: no-break, em, ideographic, line separator.
  REQUIRE(tokenize("the\u00a0train\u2003left\u3000the\u2028station") ==
          Strings{"the", "train", "left", "the", "station"});
  REQUIRE(tokenize("\u00a0 \u2003") == Strings{});
  REQUIRE(tokenize("well-\u00a0known") == Strings{"well", "-", "known"});
  REQUIRE(tokenize("na\u00efve caf\u00e9s") == Strings{"na\u00efve", "caf\u00e9s"});  // C2/C3 letters are not spaces
}

TEST_CASE("a vectors file parses into words and de-quantised vectors", "[text][vectors]") {
  const WordVectors table = small_table();
  REQUIRE(table.size() == 4);
  REQUIRE(table.dim() == 2);
  REQUIRE(table.find("train") == 2);
  REQUIRE(table.find("bus") == -1);
  require_close(table.vector(0), rows({{0.5f, 0}}), 0.0f);
  require_close(table.vector(3), rows({{-0.75f, 1}}), 0.0f);
  REQUIRE_THROWS_WITH(table.vector(4), Contains("outside the vocabulary"));
}

// Bit-for-bit equality (0.0f == -0.0f would pass ==, and the table must give back exactly scale × value).
bool same_bits(const Matrix& a, const Matrix& b) {
  return a.rows() == b.rows() && a.cols() == b.cols() &&
         std::memcmp(a.data(), b.data(), sizeof(float) * static_cast<std::size_t>(a.size())) == 0;
}

TEST_CASE("every row is de-quantised exactly, by vector() and by embed()", "[text][vectors]") {
  // 300 words, enough for hash collisions: int8 extremes (-128, 127), zero, and scales that are 0,
  // tiny, non-dyadic (1/3) and large, all distinct per row so a wrong row or scale shows.
  Strings words;
  std::vector<std::vector<std::int8_t>> values;
  std::vector<float> scales;
  for (int i = 0; i < 300; ++i) {
    words.push_back("w" + std::to_string(i));
    values.push_back({-128, 127, static_cast<std::int8_t>(i % 256 - 128), 0, static_cast<std::int8_t>(-i % 128)});
    scales.push_back(i % 7 == 0 ? 0.0f : static_cast<float>(i) / 3.0f * (i % 2 ? 1e-30f : 1e30f));
  }
  std::vector<std::uint8_t> bytes = vectors_file(words, values, scales);
  std::vector<WordVectors> tables;
  tables.push_back(WordVectors::parse(bytes.data(), bytes.size()));
  {
    const WordVectors original = WordVectors::parse(bytes.data(), bytes.size());
    tables.push_back(original);  // a copy that outlives its original
  }
  tables.push_back(WordVectors::parse(std::move(bytes)));  // the form that keeps the caller's buffer
  for (const WordVectors& table : tables) {
    REQUIRE(table.size() == 300);
    REQUIRE(table.dim() == 5);
    for (int i = 0; i < 300; ++i) {
      INFO("word " << i);
      REQUIRE(table.word(static_cast<std::size_t>(i)) == words[static_cast<std::size_t>(i)]);
      REQUIRE(table.find(words[static_cast<std::size_t>(i)]) == i);
      Matrix expected(1, 5);
      for (Index k = 0; k < 5; ++k)
        expected(0, k) = scales[static_cast<std::size_t>(i)] *
                         static_cast<float>(values[static_cast<std::size_t>(i)][static_cast<std::size_t>(k)]);
      REQUIRE(same_bits(table.vector(i), expected));
    }
    for (const char* absent : {"w300", "w", "w01", "w1 ", "", "W1"}) REQUIRE(table.find(absent) == -1);
    const Embedding e = table.embed("w299 w0 nothing w150s w7", 10);
    REQUIRE(e.tokens[2].lookup == Lookup::Unknown);
    REQUIRE(e.tokens[3].lookup == Lookup::Stemmed);
    for (const auto& [t, row] : {std::pair{0, 299}, {1, 0}, {3, 150}, {4, 7}}) {
      INFO("token " << t);
      REQUIRE(same_bits(e.X.row(t), table.vector(row)));
    }
    REQUIRE(same_bits(e.X.row(2), Matrix::Zero(1, 5)));
  }
  // Spelled out for one row: 0.5 × (-128, 127, 0) and a zero scale giving -0 for -128.
  const auto small = vectors_file({"a", "b"}, {{-128, 127, 0}, {-128, 127, 1}}, {0.5f, 0.0f});
  const WordVectors two = WordVectors::parse(small.data(), small.size());
  REQUIRE(same_bits(two.vector(0), rows({{-64.0f, 63.5f, 0.0f}})));
  REQUIRE(same_bits(two.vector(1), rows({{-0.0f, 0.0f, 0.0f}})));
  REQUIRE_THROWS_WITH(two.vector(2), "word index 2 is outside the vocabulary of 2");
  REQUIRE_THROWS_WITH(two.vector(-1), "word index -1 is outside the vocabulary of 2");
  // A default-constructed table (the wasm binding holds one before its first load) finds nothing.
  REQUIRE(WordVectors().find("a") == -1);
  REQUIRE(WordVectors().size() == 0);
}

TEST_CASE("a duplicate anywhere in a large vocabulary is refused by name", "[text][vectors][errors]") {
  Strings words;
  for (int i = 0; i < 300; ++i) words.push_back("w" + std::to_string(i));
  words[250] = "w17";
  const auto bytes = vectors_file(words, std::vector<std::vector<std::int8_t>>(300, {1}),
                                  std::vector<float>(300, 1.0f));
  REQUIRE_THROWS_WITH(WordVectors::parse(bytes.data(), bytes.size()), "vectors file: the word \"w17\" appears twice");
}

TEST_CASE("embed marks unknown words with a zero vector and stems inflections", "[text][vectors]") {
  const WordVectors table = small_table();
  const Embedding e = table.embed("The trains left the STATION", 10);
  REQUIRE(e.tokens.size() == 5);
  REQUIRE(e.X.rows() == 5);
  REQUIRE(e.tokens[0].lookup == Lookup::Known);
  REQUIRE(e.tokens[1].lookup == Lookup::Stemmed);
  REQUIRE(e.tokens[1].matched == "train");
  require_close(e.X.row(1), table.vector(2), 0.0f);
  REQUIRE(e.tokens[2].lookup == Lookup::Unknown);
  REQUIRE(e.tokens[2].matched.empty());
  REQUIRE(e.X.row(2).isZero(0));
  REQUIRE(e.tokens[4].text == "station");
  REQUIRE_THROWS_WITH(table.embed("  ", 10), Contains("empty"));
  REQUIRE_THROWS_WITH(table.embed("the the the", 2), Contains("3 tokens; at most 2"));
}

TEST_CASE("stem candidates: the old rules first, then contractions, -ied/-ier/-iest, numbers, hyphens",
          "[text][stems]") {
  // The original nine rules keep their order, so a word that stemmed before stems the same way.
  REQUIRE(stem_candidates("stations") == Strings{"station"});
  REQUIRE(stem_candidates("cities") == Strings{"city", "citi", "citie"});
  REQUIRE(stem_candidates("cashing") == Strings{"cash", "cashe"});
  REQUIRE(stem_candidates("you've") == Strings{"you"});
  REQUIRE(stem_candidates("aren't") == Strings{"are"});
  REQUIRE(stem_candidates("they'll") == Strings{"they"});
  REQUIRE(stem_candidates("i'd") == Strings{});  // "i" is one byte: too short to be trusted
  REQUIRE(stem_candidates("won't")[0] == "will");
  REQUIRE(stem_candidates("students'") == Strings{"student"});
  REQUIRE(stem_candidates("replied") == Strings{"repli", "replie", "reply"});
  REQUIRE(stem_candidates("happier") == Strings{"happy", "happi", "happie"});
  REQUIRE(stem_candidates("happiest") == Strings{"happy", "happi", "happie"});
  REQUIRE(stem_candidates("smarter") == Strings{"smart", "smarte"});
  REQUIRE(stem_candidates("bigger")[0] == "big");
  REQUIRE(stem_candidates("stopped") == Strings{"stopp", "stoppe", "stop"});
  REQUIRE(stem_candidates("95") == Strings{"90"});
  REQUIRE(stem_candidates("1987") == Strings{"1980", "1900", "1000"});
  REQUIRE(stem_candidates("3rd") == Strings{"3"});
  REQUIRE(stem_candidates("95th") == Strings{"95", "90"});
  REQUIRE(stem_candidates("100") == Strings{});
  REQUIRE(stem_candidates("3x") == Strings{});  // not a number, not an ordinal
  REQUIRE(stem_candidates("non-linear") == Strings{"linear"});
  REQUIRE(stem_candidates("well-paid") == Strings{"paid"});
  REQUIRE(stem_candidates("x-5") == Strings{"5"});
  REQUIRE(stem_candidates("a-") == Strings{});
  REQUIRE(stem_candidates("") == Strings{});
  REQUIRE(stem_candidates("-") == Strings{});
}

TEST_CASE("malformed vectors files are refused with a reason", "[text][vectors][errors]") {
  auto bytes = vectors_file({"a", "b"}, {{1}, {2}}, {1, 1});
  auto parse = [](const std::vector<std::uint8_t>& b) { return WordVectors::parse(b.data(), b.size()); };
  REQUIRE_NOTHROW(parse(bytes));
  REQUIRE_THROWS_WITH(parse({}), Contains("ATTNVEC1"));
  auto bad_magic = bytes;
  bad_magic[0] = 'X';
  REQUIRE_THROWS_WITH(parse(bad_magic), Contains("ATTNVEC1"));
  for (std::size_t cut : {9u, 15u, 20u, 25u}) {
    INFO("truncated to " << cut);
    REQUIRE_THROWS_AS(parse(std::vector<std::uint8_t>(bytes.begin(), bytes.begin() + cut)), AttentionError);
  }
  auto huge = bytes;
  huge[8] = huge[9] = huge[10] = huge[11] = 0xff;  // 4 billion words promised
  REQUIRE_THROWS_WITH(parse(huge), Contains("does not match its header"));
  REQUIRE_THROWS_WITH(parse(vectors_file({"a", "a"}, {{1}, {2}}, {1, 1})), Contains("appears twice"));
  REQUIRE_THROWS_WITH(parse(vectors_file({"a", ""}, {{1}, {2}}, {1, 1})), Contains("empty"));
  REQUIRE_THROWS_WITH(parse(vectors_file({"a", "b"}, {{1}, {2}}, {1, -1})), Contains("scale"));
  REQUIRE_THROWS_WITH(parse(vectors_file({"a b"}, {{1}, {2}}, {1, 1})), Contains("does not match"));
  REQUIRE_THROWS_WITH(WordVectors::parse(nullptr, 3), Contains("null"));
}

TEST_CASE("committed vectors: 'train' attends most to 'station'", "[text][data]") {
  const WordVectors table = committed_table();
  REQUIRE(table.size() > 10000);
  const SentenceAttention s = attend_sentence(table, "the train left the station on time");
  const Index train = s.at("train");
  Index best = -1;
  for (Index j = 0; j < static_cast<Index>(s.tokens.size()); ++j)
    if (j != train && (best < 0 || s.steps.weights(train, j) > s.steps.weights(train, best))) best = j;
  INFO("row of 'train': " << s.steps.weights.row(train));
  REQUIRE(s.tokens[static_cast<std::size_t>(best)] == "station");
}

TEST_CASE("committed vectors: 'check' weighs 'cashed' and 'bank' above the function words", "[text][data]") {
  const WordVectors table = committed_table();
  const SentenceAttention s = attend_sentence(table, "he cashed a check at the bank");
  const Index check = s.at("check");
  INFO("row of 'check': " << s.steps.weights.row(check));
  for (const char* content : {"cashed", "bank"})
    for (const char* function : {"he", "a", "at", "the"}) {
      INFO(content << " vs " << function);
      REQUIRE(s.steps.weights(check, s.at(content)) > s.steps.weights(check, s.at(function)));
    }
}

TEST_CASE("committed vectors: the contractions, inflections, numbers and compounds readers type", "[text][data]") {
  // Issue 24's words that used to get a zero vector, and the word whose vector each now borrows.
  const WordVectors table = committed_table();
  const std::vector<std::pair<const char*, const char*>> expected = {{"you've", "you"},        {"aren't", "are"},
                                                                     {"they'll", "they"},      {"replied", "reply"},
                                                                     {"smarter", "smart"},     {"95", "90"},
                                                                     {"3rd", "3rd"},           {"95th", "90"},
                                                                     {"non-linear", "linear"}, {"happiest", "happy"}};
  for (const auto& [word, matched] : expected) {
    INFO(word);
    REQUIRE((table.find(word) == -1 || std::string(word) == matched));
    const Embedding e = table.embed(word, 1);
    REQUIRE(e.tokens[0].matched == matched);
    REQUIRE(e.tokens[0].lookup == (std::string(word) == matched ? Lookup::Known : Lookup::Stemmed));
    REQUIRE(!e.X.row(0).isZero(0));
  }
}

TEST_CASE("an attached composed table fills in words the table and its stems lack", "[text][vectors][subwords]") {
  const WordVectors table = small_table();
  const auto composed_bytes = vectors_file({"murphy", "zebra", "train"}, {{3, 4}, {-1, 1}, {9, 9}}, {1, 0.5f, 1});
  const WordVectors both = table.with_composed(WordVectors::parse(composed_bytes.data(), composed_bytes.size()));
  REQUIRE(table.composed() == nullptr);
  REQUIRE(both.composed() != nullptr);
  const Embedding e = both.embed("the zebra met murphy's trains nowhere", 10);
  REQUIRE(e.tokens[0].lookup == Lookup::Known);
  REQUIRE(e.tokens[1].lookup == Lookup::Composed);
  REQUIRE(e.tokens[1].matched == "zebra");
  REQUIRE(same_bits(e.X.row(1), rows({{-0.5f, 0.5f}})));
  REQUIRE(e.tokens[2].lookup == Lookup::Unknown);  // "met": in neither table
  REQUIRE(e.X.row(2).isZero(0));
  REQUIRE(e.tokens[3].lookup == Lookup::Composed);  // a stem found in the composed table
  REQUIRE(e.tokens[3].matched == "murphy");
  REQUIRE(same_bits(e.X.row(3), rows({{3.0f, 4.0f}})));
  // The table comes first: "trains" stems to the table's "train", not to the composed table's row.
  REQUIRE(e.tokens[4].lookup == Lookup::Stemmed);
  REQUIRE(same_bits(e.X.row(4), table.vector(2)));
  // A copy shares the composed table; the original table is unchanged.
  const WordVectors copy = both;
  REQUIRE(copy.embed("zebra", 1).tokens[0].lookup == Lookup::Composed);
  REQUIRE(table.embed("zebra", 1).tokens[0].lookup == Lookup::Unknown);
  const auto wide = vectors_file({"x"}, {{1, 2, 3}}, {1});
  REQUIRE_THROWS_WITH(table.with_composed(WordVectors::parse(wide.data(), wide.size())),
                      "the composed vectors have 3 dimensions, the word vectors 2");
}

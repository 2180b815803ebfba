// Subword pieces: the vocabulary file's parser and its refusals, the BPE encoder held to SentencePiece's own
// output on data/pieces.vocab (tests/reference/pieces_cases.txt), decoding, and word-level attention maps.
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>

#include "attention/pieces.hpp"
#include "helpers.hpp"

using namespace attn;
using Catch::Contains;

namespace {

std::string read_text(const char* path) {
  std::ifstream file(path, std::ios::binary);
  INFO("file: " << path);
  REQUIRE(file.good());
  return {std::istreambuf_iterator<char>(file), std::istreambuf_iterator<char>()};
}

const PieceVocabulary& committed() {
  static const PieceVocabulary vocabulary = PieceVocabulary::parse(read_text(ATTN_PIECES_VOCAB));
  return vocabulary;
}

// A small vocabulary by hand: <unk>, the 256 bytes, then normal pieces with the given scores.
std::string tiny_vocabulary(const std::string& normal) {
  std::string text = "attention-pieces 1 bpe\n<unk>\t0\n";
  for (int b = 0; b < 256; ++b) {
    char piece[16];
    std::snprintf(piece, sizeof piece, "<0x%02X>\t0\n", b);
    text += piece;
  }
  return text + normal;
}

std::vector<std::uint32_t> parse_ids(const std::string& text) {
  std::istringstream in(text);
  std::vector<std::uint32_t> ids;
  for (std::uint32_t id; in >> id;) ids.push_back(id);
  return ids;
}

}  // namespace

TEST_CASE("pieces: the committed vocabulary parses, with <unk>, 256 byte pieces and the word-start mark", "[pieces]") {
  const PieceVocabulary& v = committed();
  REQUIRE(v.size() == 8000);
  REQUIRE(v.piece(0) == "<unk>");
  REQUIRE(v.find("<0x41>") >= 0);
  REQUIRE(v.is_byte(static_cast<std::uint32_t>(v.find("<0x41>"))));
  REQUIRE(v.find("\xE2\x96\x81") >= 0);
  REQUIRE(v.find("no such piece") == -1);
  REQUIRE_THROWS_WITH(v.piece(8000), Contains("outside the vocabulary"));
}

TEST_CASE("pieces: the encoder gives SentencePiece's ids on thousands of words and sentences", "[pieces]") {
  const PieceVocabulary& v = committed();
  std::istringstream cases(read_text(ATTN_PIECES_CASES));
  std::size_t words = 0, sentences = 0;
  for (std::string line; std::getline(cases, line);) {
    if (line.empty() || line[0] == '#') continue;
    const std::size_t a = line.find('\t'), b = line.rfind('\t');
    REQUIRE(a != b);
    const std::string kind = line.substr(0, a), text = line.substr(a + 1, b - a - 1);
    const std::vector<std::uint32_t> expected = parse_ids(line.substr(b + 1));
    INFO(kind << ": " << text);
    if (kind == "word") {
      const auto ids = v.encode_word(text);
      REQUIRE(ids == expected);
      REQUIRE(v.decode_word(ids) == text);
      ++words;
    } else {
      REQUIRE(kind == "sentence");
      const PieceEncoding e = v.encode(text);
      REQUIRE(e.ids == expected);
      REQUIRE(e.word_of.size() == e.ids.size());
      std::string joined;
      for (const std::string& w : e.words) joined += (joined.empty() ? "" : " ") + w;
      REQUIRE(v.decode(e.ids) == joined);
      ++sentences;
    }
  }
  REQUIRE(words > 5000);
  REQUIRE(sentences > 400);
}

TEST_CASE("pieces: a word is never unknown; bytes outside the vocabulary fall back to byte pieces", "[pieces]") {
  const PieceVocabulary& v = committed();
  for (const std::string word : {"station", "zorblaxian", "\xF0\x9F\xA6\x9C", "\xFF\xFE", "\x80", "a\xC3"}) {
    INFO(word);
    const auto ids = v.encode_word(word);
    REQUIRE(!ids.empty());
    for (const auto id : ids) REQUIRE(id != 0);
    REQUIRE(v.decode_word(ids) == word);  // invalid UTF-8 included: every byte comes back
  }
  // A byte that starts no character falls back alone: "\xFF" is <0xFF>, after the word-start piece.
  const auto ids = v.encode_word("\xFF");
  REQUIRE(ids.back() == static_cast<std::uint32_t>(v.find("<0xFF>")));
}

TEST_CASE("pieces: BPE joins the highest-scoring pair first, the leftmost of equal scores", "[pieces]") {
  // "▁" is piece 257; then a, b, ▁a, ab, bb (scores decide the order, not the file's).
  const std::string mark = "\xE2\x96\x81";
  const auto v = PieceVocabulary::parse(
      tiny_vocabulary(mark + "\t0\na\t-1\nb\t-1\n" + mark + "a\t-5\nab\t-2\nbb\t-3\n"));
  const auto id = [&](const std::string& p) { return static_cast<std::uint32_t>(v.find(p)); };
  // ▁ a b: "ab" (-2) beats "▁a" (-5), then nothing joins "▁" + "ab".
  REQUIRE(v.encode_word("ab") == std::vector<std::uint32_t>{id(mark), id("ab")});
  // ▁ b b b: "bb" at 1 and at 2 tie; the leftmost joins: ▁ bb b.
  REQUIRE(v.encode_word("bbb") == std::vector<std::uint32_t>{id(mark), id("bb"), id("b")});
  // "c" is in no piece: its byte.
  REQUIRE(v.encode_word("ac") == std::vector<std::uint32_t>{id(mark + "a"), id("<0x63>")});
  REQUIRE(v.label(id(mark + "a")) == "a");
  REQUIRE(v.label(id("ab")) == "##ab");
  REQUIRE(v.label(id("<0x63>")) == "<0x63>");
  REQUIRE(v.decode({id(mark + "a"), id("b"), id(mark), id("<0x63>")}) == "ab c");
}

TEST_CASE("pieces: a bad vocabulary is refused with the line and the problem", "[pieces]") {
  const std::string good = tiny_vocabulary("x\t-1\n");
  REQUIRE_NOTHROW(PieceVocabulary::parse(good));
  REQUIRE_THROWS_WITH(PieceVocabulary::parse(""), Contains("empty"));
  REQUIRE_THROWS_WITH(PieceVocabulary::parse("pieces\n"), Contains("line 1 must be"));
  REQUIRE_THROWS_WITH(PieceVocabulary::parse("attention-pieces 1 bpe\n"), Contains("no pieces"));
  REQUIRE_THROWS_WITH(PieceVocabulary::parse("attention-pieces 1 bpe\nx\t0\n"), Contains("piece 0 must be"));
  REQUIRE_THROWS_WITH(PieceVocabulary::parse(good + "y -1\n"), Contains("line 260 has no tab"));
  REQUIRE_THROWS_WITH(PieceVocabulary::parse(good + "\t-1\n"), Contains("empty piece"));
  REQUIRE_THROWS_WITH(PieceVocabulary::parse(good + "y\tnan\n"), Contains("not a finite number"));
  REQUIRE_THROWS_WITH(PieceVocabulary::parse(good + "y\t-1x\n"), Contains("not a finite number"));
  REQUIRE_THROWS_WITH(PieceVocabulary::parse(good + "y\t\n"), Contains("not a finite number"));
  REQUIRE_THROWS_WITH(PieceVocabulary::parse(good + "x\t-2\n"), Contains("repeats the piece"));
  REQUIRE_THROWS_WITH(PieceVocabulary::parse(good + "y\r\t-2\n"), Contains("whitespace"));
  std::string missing = good;
  missing.erase(missing.find("<0x7F>\t0\n"), 9);
  REQUIRE_THROWS_WITH(PieceVocabulary::parse(missing), Contains("<0x7F> is missing"));
}

TEST_CASE("pieces: a piece-level map merged to words sums over keys and averages over queries", "[pieces]") {
  // Pieces: sta ##tion | on (words 0, 0, 1).
  const Matrix weights = rows({{0.5f, 0.3f, 0.2f}, {0.1f, 0.1f, 0.8f}, {0.2f, 0.2f, 0.6f}});
  const Matrix words = merge_pieces_to_words(weights, {0, 0, 1});
  // Word 0 as a query: mean of rows 0 and 1 of (sum of columns 0–1, column 2) = mean((0.8, 0.2), (0.2, 0.8)).
  require_close(words, rows({{0.5f, 0.5f}, {0.4f, 0.6f}}), 1e-6f);
  REQUIRE(words.row(0).sum() == Approx(1.0f));
  require_close(merge_pieces_to_words(weights, {0, 1, 2}), weights, 0.0f);  // one piece a word: unchanged
  REQUIRE_THROWS_WITH(merge_pieces_to_words(weights, {0, 1}), Contains("3 pieces") || Contains("2 pieces"));
  REQUIRE_THROWS_WITH(merge_pieces_to_words(weights, {1, 1, 2}), Contains("word 0"));
  REQUIRE_THROWS_WITH(merge_pieces_to_words(weights, {0, 2, 2}), Contains("in order"));
}

// Subword pieces: the BPE vocabulary's parser, SentencePiece's BPE encoder with byte fallback, decoding,
// and the word-level view of a piece-level attention map (attention/pieces.hpp).
#include "attention/pieces.hpp"

#include <cmath>
#include <cstdlib>

#include "attention/text.hpp"
#include "checks.hpp"

namespace attn {
namespace {

constexpr std::string_view kHeader = "attention-pieces 1 bpe";
constexpr std::string_view kUnknown = "<unk>";
constexpr std::string_view kUnknownText = "\xE2\x81\x87";  // ⁇, SentencePiece's rendering of <unk>
constexpr std::size_t kMaxPieces = 1u << 22;               // far above any vocabulary a 1 MB model could embed

// "<0xNN>" (upper-case hex, as SentencePiece writes it) → NN, else -1.
int byte_of_piece(std::string_view piece) {
  if (piece.size() != 6 || piece.substr(0, 3) != "<0x" || piece[5] != '>') return -1;
  int value = 0;
  for (std::size_t k = 3; k < 5; ++k) {
    const char c = piece[k];
    const int digit = c >= '0' && c <= '9' ? c - '0' : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
    if (digit < 0) return -1;
    value = value * 16 + digit;
  }
  return value;
}

// Bytes of the UTF-8 character starting at s[i], or 1 when no valid character starts there (a stray
// continuation byte, a truncated or over-long sequence, a surrogate): such a byte is a character of its own
// and, being in no piece, falls back to its byte piece.
std::size_t character_length(std::string_view s, std::size_t i) {
  const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned lead = byte(i);
  std::size_t n;
  unsigned low = 0x80, high = 0xBF;  // the allowed range of the second byte
  if (lead < 0x80) return 1;
  if (lead >= 0xC2 && lead <= 0xDF) {
    n = 2;
  } else if (lead >= 0xE0 && lead <= 0xEF) {
    n = 3;
    if (lead == 0xE0) low = 0xA0;   // over-long
    if (lead == 0xED) high = 0x9F;  // surrogates
  } else if (lead >= 0xF0 && lead <= 0xF4) {
    n = 4;
    if (lead == 0xF0) low = 0x90;
    if (lead == 0xF4) high = 0x8F;  // above U+10FFFF
  } else {
    return 1;
  }
  if (i + n > s.size()) return 1;
  if (byte(i + 1) < low || byte(i + 1) > high) return 1;
  for (std::size_t k = 2; k < n; ++k)
    if ((byte(i + k) & 0xC0) != 0x80) return 1;
  return n;
}

}  // namespace

PieceVocabulary PieceVocabulary::parse(std::string_view text) {
  PieceVocabulary v;
  std::size_t at = 0, line_number = 0;
  bool header = false;
  v.byte_ids_.fill(0);
  std::array<bool, 256> have_byte{};
  while (at < text.size()) {
    std::size_t end = text.find('\n', at);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view line = text.substr(at, end - at);
    at = end + 1;
    ++line_number;
    if (!header) {
      if (line != kHeader)
        detail::fail("pieces vocabulary: line 1 must be \"attention-pieces 1 bpe\", got \"%.*s\"",
                     static_cast<int>(std::min<std::size_t>(line.size(), 40)), line.data());
      header = true;
      continue;
    }
    const std::size_t tab = line.find('\t');
    if (tab == std::string_view::npos)
      detail::fail("pieces vocabulary: line %zu has no tab between the piece and its score", line_number);
    const std::string_view piece = line.substr(0, tab), score_text = line.substr(tab + 1);
    if (piece.empty()) detail::fail("pieces vocabulary: line %zu has an empty piece", line_number);
    for (const char c : piece)
      if (c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f')
        detail::fail("pieces vocabulary: line %zu: a piece holds no whitespace (a CR line ending?)", line_number);
    const std::string score_copy(score_text);  // strtof needs a terminated string
    char* score_end = nullptr;
    const float score = std::strtof(score_copy.c_str(), &score_end);
    if (score_copy.empty() || score_end != score_copy.c_str() + score_copy.size() || !std::isfinite(score))
      detail::fail("pieces vocabulary: line %zu: the score \"%.*s\" is not a finite number", line_number,
                   static_cast<int>(std::min<std::size_t>(score_text.size(), 40)), score_text.data());
    if (v.pieces_.size() == kMaxPieces) detail::fail("pieces vocabulary: more than %zu pieces", kMaxPieces);
    const auto id = static_cast<std::uint32_t>(v.pieces_.size());
    if (id == 0 && piece != kUnknown)
      detail::fail("pieces vocabulary: piece 0 must be \"<unk>\", got \"%.*s\"", static_cast<int>(piece.size()),
                   piece.data());
    if (!v.all_.emplace(std::string(piece), id).second)
      detail::fail("pieces vocabulary: line %zu repeats the piece \"%.*s\"", line_number,
                   static_cast<int>(piece.size()), piece.data());
    const int byte = byte_of_piece(piece);
    if (byte >= 0) {
      v.byte_ids_[static_cast<std::size_t>(byte)] = id;
      have_byte[static_cast<std::size_t>(byte)] = true;
    } else if (id != 0) {
      v.normal_.emplace(std::string(piece), id);
      v.longest_ = std::max(v.longest_, piece.size());
    }
    v.is_byte_.push_back(byte >= 0);
    v.pieces_.emplace_back(piece);
    v.scores_.push_back(score);
  }
  if (!header) detail::fail("pieces vocabulary: the text is empty");
  if (v.pieces_.empty()) detail::fail("pieces vocabulary: no pieces after the header");
  for (int b = 0; b < 256; ++b)
    if (!have_byte[static_cast<std::size_t>(b)])
      detail::fail("pieces vocabulary: the byte piece <0x%02X> is missing: without all 256, a word could be unknown",
                   b);
  return v;
}

std::string_view PieceVocabulary::piece(std::uint32_t id) const {
  if (id >= pieces_.size()) detail::fail("piece id %u is outside the vocabulary of %zu pieces", id, pieces_.size());
  return pieces_[id];
}

float PieceVocabulary::score(std::uint32_t id) const {
  piece(id);  // the range check
  return scores_[id];
}

bool PieceVocabulary::is_byte(std::uint32_t id) const {
  piece(id);
  return is_byte_[id];
}

std::int64_t PieceVocabulary::find(std::string_view piece) const {
  const auto it = all_.find(std::string(piece));
  return it == all_.end() ? -1 : static_cast<std::int64_t>(it->second);
}

std::string PieceVocabulary::label(std::uint32_t id) const {
  const std::string_view text = piece(id);
  if (id == 0 || is_byte_[id]) return std::string(text);
  if (text.substr(0, word_start.size()) == word_start) return std::string(text.substr(word_start.size()));
  return "##" + std::string(text);
}

std::vector<std::uint32_t> PieceVocabulary::encode_word(std::string_view word) const {
  const std::string text = std::string(word_start) + std::string(word);
  struct Symbol {
    std::size_t start, length;
  };
  std::vector<Symbol> symbols;
  for (std::size_t i = 0; i < text.size();) {
    const std::size_t n = character_length(text, i);
    symbols.push_back({i, n});
    i += n;
  }
  // joined[i]: the id of symbols i and i + 1 joined, or -1. Only the two neighbours of a join change.
  const auto join_id = [&](std::size_t i) -> std::int64_t {
    const std::size_t length = symbols[i].length + symbols[i + 1].length;
    if (length > longest_) return -1;
    const auto it = normal_.find(text.substr(symbols[i].start, length));
    return it == normal_.end() ? -1 : static_cast<std::int64_t>(it->second);
  };
  std::vector<std::int64_t> joined(symbols.size() > 1 ? symbols.size() - 1 : 0);
  for (std::size_t i = 0; i + 1 < symbols.size(); ++i) joined[i] = join_id(i);
  while (true) {
    std::size_t best = joined.size();
    for (std::size_t i = 0; i < joined.size(); ++i)  // strictly higher: the leftmost of equal scores wins
      if (joined[i] >= 0 && (best == joined.size() || scores_[joined[i]] > scores_[joined[best]])) best = i;
    if (best == joined.size()) break;
    symbols[best].length += symbols[best + 1].length;
    symbols.erase(symbols.begin() + static_cast<std::ptrdiff_t>(best) + 1);
    joined.erase(joined.begin() + static_cast<std::ptrdiff_t>(best));
    if (best > 0) joined[best - 1] = join_id(best - 1);
    if (best < joined.size()) joined[best] = join_id(best);
  }
  std::vector<std::uint32_t> ids;
  for (const Symbol& s : symbols) {
    const auto it = all_.find(text.substr(s.start, s.length));
    if (it != all_.end() && it->second != 0) {
      ids.push_back(it->second);
      continue;
    }
    for (std::size_t k = 0; k < s.length; ++k)  // byte fallback
      ids.push_back(byte_ids_[static_cast<unsigned char>(text[s.start + k])]);
  }
  return ids;
}

PieceEncoding PieceVocabulary::encode(std::string_view text) const {
  PieceEncoding out;
  out.words = tokenize(text);
  for (std::size_t w = 0; w < out.words.size(); ++w) {
    for (const std::uint32_t id : encode_word(out.words[w])) {
      out.ids.push_back(id);
      out.word_of.push_back(static_cast<std::uint32_t>(w));
    }
  }
  return out;
}

std::string PieceVocabulary::decode_word(const std::vector<std::uint32_t>& ids) const {
  std::string out;
  for (const std::uint32_t id : ids) {
    const std::string_view text = piece(id);
    if (id == 0) {
      out += kUnknownText;
    } else if (is_byte_[id]) {
      out += static_cast<char>(byte_of_piece(text));
    } else {
      out += text;
    }
  }
  if (out.compare(0, word_start.size(), word_start) == 0) out.erase(0, word_start.size());
  return out;
}

std::string PieceVocabulary::decode(const std::vector<std::uint32_t>& ids) const {
  std::string joined;
  for (const std::uint32_t id : ids) {
    if (id == 0) {
      joined += kUnknownText;
    } else if (is_byte(id)) {
      joined += static_cast<char>(byte_of_piece(pieces_[id]));
    } else {
      joined += pieces_[id];
    }
  }
  std::string out;
  for (std::size_t i = 0; i < joined.size();) {
    if (joined.compare(i, word_start.size(), word_start) == 0) {
      if (!out.empty() || i != 0) out += ' ';
      i += word_start.size();
    } else {
      out += joined[i++];
    }
  }
  return out;
}

Matrix merge_pieces_to_words(const Matrix& piece_weights, const std::vector<std::uint32_t>& word_of) {
  const auto pieces = static_cast<Index>(word_of.size());
  if (piece_weights.rows() != pieces || piece_weights.cols() != pieces)
    detail::fail("merge_pieces_to_words: the map is %lld × %lld but there are %lld pieces",
                 detail::ll(piece_weights.rows()), detail::ll(piece_weights.cols()), detail::ll(pieces));
  if (pieces == 0) return Matrix(0, 0);
  if (word_of[0] != 0) detail::fail("merge_pieces_to_words: the first piece must belong to word 0");
  for (std::size_t p = 1; p < word_of.size(); ++p)
    if (word_of[p] != word_of[p - 1] && word_of[p] != word_of[p - 1] + 1)
      detail::fail("merge_pieces_to_words: piece %zu belongs to word %u after word %u (words go 0, 1, 2, … in order)",
                   p, word_of[p], word_of[p - 1]);
  const Index words = static_cast<Index>(word_of.back()) + 1;
  // Keys: sum a word's columns (its share of the attention). Queries: average a word's rows.
  Matrix by_key = Matrix::Zero(pieces, words);
  for (Index k = 0; k < pieces; ++k) by_key.col(word_of[static_cast<std::size_t>(k)]) += piece_weights.col(k);
  Matrix out = Matrix::Zero(words, words);
  std::vector<Index> count(static_cast<std::size_t>(words), 0);
  for (Index q = 0; q < pieces; ++q) {
    out.row(word_of[static_cast<std::size_t>(q)]) += by_key.row(q);
    ++count[word_of[static_cast<std::size_t>(q)]];
  }
  for (Index w = 0; w < words; ++w) out.row(w) /= static_cast<float>(count[static_cast<std::size_t>(w)]);
  return out;
}

}  // namespace attn

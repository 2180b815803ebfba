// The word-vector table: parses the project's vectors file from bytes and embeds tokenised sentences.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <utility>

#include "attention/subwords.hpp"
#include "attention/text.hpp"
#include "byte_reader.hpp"
#include "word_table.hpp"

namespace attn {
namespace {

constexpr char kMagic[8] = {'A', 'T', 'T', 'N', 'V', 'E', 'C', '1'};
constexpr std::size_t kHeaderSize = sizeof kMagic + 3 * 4;  // magic, count, dim, words_bytes; then the words

using detail::f32_le;
using detail::fail;
using detail::ull;

using detail::fnv1a_step;
using detail::kFnvBasis;

bool ends_with(const std::string& s, const char* suffix) {
  const std::size_t n = std::strlen(suffix);
  return s.size() > n && s.compare(s.size() - n, n, suffix) == 0;
}

}  // namespace

namespace {

bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_vowel(char c) { return c == 'a' || c == 'e' || c == 'i' || c == 'o' || c == 'u'; }

// The inflection and contraction rules for one word (no hyphen or number handling), appended to `stems`.
// The first nine are the original rules, in their original order: a word they stemmed before still
// stems to the same word, so the trained models see the same ids for every word they saw before.
// What follows only reaches words that used to fall through.
void suffix_stems(const std::string& w, std::vector<std::string>& stems) {
  auto strip = [&](const char* suffix, const char* replacement) {
    if (!ends_with(w, suffix)) return;
    std::string stem = w.substr(0, w.size() - std::strlen(suffix)) + replacement;
    if (stem.size() >= 2) stems.push_back(std::move(stem));
  };
  // A doubled final consonant is undone too: "bigger" -> "big", "stopped" -> "stop".
  auto strip_doubled = [&](const char* suffix) {
    const std::size_t n = std::strlen(suffix);
    if (!ends_with(w, suffix) || w.size() < n + 3) return;
    const char a = w[w.size() - n - 1], b = w[w.size() - n - 2];
    if (a == b && !is_vowel(a) && a >= 'a' && a <= 'z') stems.push_back(w.substr(0, w.size() - n - 1));
  };
  strip("'s", "");
  strip("ies", "y");
  strip("es", "");
  strip("s", "");
  strip("ing", "");
  strip("ing", "e");
  strip("ed", "");
  strip("ed", "e");
  strip("ly", "");
  // Contractions: the word the reader contracted ("you've" -> "you", "aren't" -> "are"). One token with
  // its head word's vector, not "you" + "'ve": the corpus the vectors and the models were trained on was
  // tokenised with the apostrophe inside the word, so splitting it would change every model's inputs.
  if (w == "won't") stems.emplace_back("will");
  if (w == "shan't") stems.emplace_back("shall");
  if (w == "can't") stems.emplace_back("can");
  for (const char* contraction : {"n't", "'ve", "'re", "'ll", "'d", "'m", "s'"}) strip(contraction, "");
  // Past tense and comparatives: "replied" -> "reply", "happier" -> "happy", "smarter" -> "smart".
  strip("ied", "y");
  strip("ier", "y");
  strip("iest", "y");
  strip_doubled("ed");
  strip_doubled("ing");
  strip_doubled("er");
  strip_doubled("est");
  strip("er", "");
  strip("er", "e");
  strip("est", "");
  strip("est", "e");
}

// Numbers the table lacks: "95" -> "90", "1987" -> "1980" -> "1900" -> "1000" (the nearest rounder
// number the corpus is likely to have); an ordinal's number first ("95th" -> "95" -> "90"). These stems
// may be one digit long ("5th" -> "5").
void number_stems(const std::string& w, std::vector<std::string>& stems) {
  std::size_t digits = 0;
  while (digits < w.size() && is_digit(w[digits])) ++digits;
  if (digits == 0) return;
  const std::string rest = w.substr(digits);
  if (!rest.empty() && rest != "st" && rest != "nd" && rest != "rd" && rest != "th" && rest != "s") return;
  std::string number = w.substr(0, digits);
  if (!rest.empty()) stems.push_back(number);
  for (std::size_t k = number.size(); k-- > 1;) {
    if (number[k] == '0') continue;
    number[k] = '0';
    stems.push_back(number);
  }
}

}  // namespace

std::vector<std::string> stem_candidates(std::string_view word) {
  const std::string w(word);
  std::vector<std::string> stems;
  suffix_stems(w, stems);
  number_stems(w, stems);
  // A hyphenated word the table lacks takes its last part, the head of an English compound
  // ("non-linear" -> "linear", "well-paid" -> "paid"), or that part's stems.
  const std::size_t hyphen = w.rfind('-');
  if (hyphen != std::string::npos && hyphen + 1 < w.size()) {
    const std::string last = w.substr(hyphen + 1);
    if (last.size() >= 2 || is_digit(last[0])) stems.push_back(last);
    suffix_stems(last, stems);
    number_stems(last, stems);
  }
  return stems;
}

WordVectors WordVectors::parse(const std::uint8_t* bytes, std::size_t size) {
  if (bytes == nullptr && size != 0) fail("vectors file: null data");
  return parse(std::vector<std::uint8_t>(bytes, bytes + size));
}

WordVectors WordVectors::parse(std::vector<std::uint8_t>&& bytes) {
  WordVectors table;
  table.file_ = std::move(bytes);
  detail::ByteReader in(table.file_.data(), table.file_.size(), "vectors file");
  if (table.file_.size() < sizeof kMagic || std::memcmp(in.take(sizeof kMagic, "magic"), kMagic, sizeof kMagic) != 0)
    fail("not a vectors file: it must start with \"ATTNVEC1\"");
  const std::uint32_t count = in.u32("word count");
  const std::uint32_t dim = in.u32("dimension");
  const std::uint32_t words_bytes = in.u32("words size");
  if (count == 0 || dim == 0) fail("vectors file has %u words of dimension %u; both must be at least 1", count, dim);
  // The sizes must add up exactly, checked before anything is allocated from them (64-bit: no overflow).
  const std::uint64_t expected = std::uint64_t{words_bytes} + 4ull * count + std::uint64_t{count} * dim;
  if (expected != in.remaining())
    fail(
        "vectors file size does not match its header: %u words × %u dims and %u bytes of words need %llu more "
        "bytes, the file has %zu",
        count, dim, words_bytes, ull(expected), in.remaining());
  const char* words = reinterpret_cast<const char*>(in.take(words_bytes, "words"));
  const std::uint8_t* scales = in.take(4ull * count, "scales");
  const std::uint8_t* values = in.take(std::uint64_t{count} * dim, "values");
  table.count_ = count;
  table.dim_ = static_cast<Index>(dim);
  table.scales_at_ = static_cast<std::size_t>(scales - table.file_.data());
  table.values_at_ = static_cast<std::size_t>(values - table.file_.data());

  // One pass over the words block finds where each word starts, hashes it and enters it in the table.
  // Every newline-terminated word is counted, even past `count`, so that the mismatch message can say how
  // many the block holds; a duplicate is only noted, as that mismatch is reported first.
  // The parser hashes each word byte by byte while it looks for the word's end (word_table.hpp's fnv1a
  // in steps), rather than in a second pass.
  table.slots_ = detail::empty_slots(count);
  auto word_of = [&](std::uint32_t row) { return table.word(row); };
  table.starts_.reserve(std::size_t{count} + 1);
  std::size_t found = 0, start = 0, duplicate = count;
  std::uint32_t hash = kFnvBasis;
  for (std::size_t i = 0; i < words_bytes; ++i) {
    const unsigned char c = static_cast<unsigned char>(words[i]);
    if (c != '\n') {
      hash = fnv1a_step(hash, c);
      continue;
    }
    if (i == start) fail("vectors file: word %zu is empty", found);
    if (found < count) {
      table.starts_.push_back(static_cast<std::uint32_t>(start));
      std::uint32_t& slot = table.slots_[detail::slot_of(table.slots_, {words + start, i - start}, hash, word_of)];
      if (slot == 0)
        slot = static_cast<std::uint32_t>(found) + 1;
      else if (duplicate == count)
        duplicate = found;
    }
    ++found;
    start = i + 1;
    hash = kFnvBasis;
  }
  if (start != words_bytes || found != count)
    fail("vectors file: the header promises %u newline-terminated words, the words block holds %zu%s", count, found,
         start != words_bytes ? " and an unterminated tail" : "");
  table.starts_.push_back(words_bytes);
  if (duplicate != count)
    fail("vectors file: the word \"%s\" appears twice", std::string(table.word(duplicate)).c_str());

  // Every scale is checked now, so a bad file is refused at load rather than by the first sentence that
  // uses the word; the values need no check (any int8 times a valid scale is finite).
  for (std::uint32_t w = 0; w < count; ++w) {
    const float scale = f32_le(scales + 4ull * w);
    // scale × 127 (or × -128) must stay finite too: a scale above FLT_MAX / 128 would give Inf vectors.
    if (!std::isfinite(scale) || scale < 0 || scale > std::numeric_limits<float>::max() / 128.0f)
      fail("vectors file: the scale of \"%s\" is %g; it must be finite, ≥ 0 and at most %g",
           std::string(table.word(w)).c_str(), double{scale}, double{std::numeric_limits<float>::max() / 128.0f});
  }
  return table;
}

std::string_view WordVectors::word(std::size_t i) const {
  const char* words = reinterpret_cast<const char*>(file_.data()) + kHeaderSize;
  return {words + starts_[i], starts_[i + 1] - starts_[i] - 1};  // without its '\n'
}

Index WordVectors::find(std::string_view word) const {
  if (slots_.empty()) return -1;  // a default-constructed table
  auto word_of = [this](std::uint32_t row) { return this->word(row); };
  const std::uint32_t row_plus_1 = slots_[detail::slot_of(slots_, word, detail::fnv1a(word), word_of)];
  return row_plus_1 == 0 ? -1 : static_cast<Index>(row_plus_1 - 1);
}

float WordVectors::scale(std::size_t i) const { return f32_le(file_.data() + scales_at_ + 4 * i); }

const std::int8_t* WordVectors::values(std::size_t i) const {
  return reinterpret_cast<const std::int8_t*>(file_.data() + values_at_ + i * static_cast<std::size_t>(dim_));
}

// One float multiply per value (vector = scale × values, as the format defines it), so a row comes out the
// same to the bit whichever caller asks for it.
void WordVectors::dequantise(Index i, float* out) const {
  const std::size_t row = static_cast<std::size_t>(i);
  const float scale = f32_le(file_.data() + scales_at_ + 4 * row);
  const std::uint8_t* values = file_.data() + values_at_ + row * static_cast<std::size_t>(dim_);
  for (Index k = 0; k < dim_; ++k) out[k] = scale * static_cast<float>(static_cast<std::int8_t>(values[k]));
}

Matrix WordVectors::vector(Index i) const {
  if (i < 0 || static_cast<std::size_t>(i) >= count_)
    fail("word index %lld is outside the vocabulary of %zu", detail::ll(i), count_);
  Matrix row(1, dim_);
  dequantise(i, row.data());
  return row;
}

Embedding WordVectors::embed(std::string_view text, std::size_t max_tokens) const {
  std::vector<std::string> tokens = tokenize(text);
  if (tokens.empty()) fail("there is no word to attend to: the text is empty");
  if (tokens.size() > max_tokens)
    fail("the text has %zu tokens; at most %zu can be shown at once", tokens.size(), max_tokens);
  return embed_tokens(std::move(tokens));
}

Embedding WordVectors::embed_first(std::string_view text, std::size_t max_tokens) const {
  std::vector<std::string> tokens = tokenize(text);
  if (tokens.empty()) fail("there is no word to attend to: the text is empty");
  if (max_tokens == 0) fail("max_tokens is 0: at least one token must be shown");
  const std::size_t total = tokens.size();
  if (total > max_tokens) tokens.resize(max_tokens);
  Embedding out = embed_tokens(std::move(tokens));
  out.total = total;
  return out;
}

WordVectors WordVectors::with_composed(WordVectors composed) const {
  if (composed.size() > 0 && size() > 0 && composed.dim() != dim())
    fail("the composed vectors have %lld dimensions, the word vectors %lld", detail::ll(composed.dim()),
         detail::ll(dim()));
  WordVectors out = *this;
  out.composed_ = std::make_shared<const WordVectors>(std::move(composed));
  return out;
}

namespace {
// A punctuation mark the table lacks ("*", "<") is not composed from n-grams: fastText trained none for it
// (its one n-gram "<*>" is trained only for a word "*", which the table would hold), so any row its bucket
// has belongs to other n-grams by hash collision. It stays unknown, a zero vector.
bool ascii_alnum(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'); }

bool lone_mark(const std::string& token) {
  return token.size() == 1 && static_cast<unsigned char>(token[0]) < 0x80 && !ascii_alnum(token[0]);
}

// A word none of whose n-grams was trained ("qt", "svg", "3d": fastText gives it zeros, or the untrained
// initial values of its buckets) is spelled out: the mean of the n-gram rows "<q>", "<t>" of its ASCII
// letters and digits as one-character words (every one is a trained word of the table, so each has that
// row). Not fastText's vector, and marked as such (`spelled`); it gives every alphabetic word a vector
// that stays inside the rows the last resort ships. Other characters are skipped; none found: unknown.
[[gnu::noinline]] void spell(EmbeddedToken& token, const WordVectors& ngrams, float* row) {
  std::vector<double> sum(static_cast<std::size_t>(ngrams.dim()), 0.0);
  for (const char ch : token.text) {
    if (!ascii_alnum(ch)) continue;
    const char piece[3] = {'<', ch, '>'};
    const Index r = ngrams.find(bucket_key(fasttext_hash({piece, 3}) % SubwordOptions{}.buckets));
    if (r < 0) continue;
    const float scale = ngrams.scale(static_cast<std::size_t>(r));
    const std::int8_t* values = ngrams.values(static_cast<std::size_t>(r));
    for (std::size_t k = 0; k < sum.size(); ++k) sum[k] += double{scale} * values[k];
    token.found.emplace_back(piece, 3);
  }
  if (token.found.empty()) return;
  for (std::size_t k = 0; k < sum.size(); ++k)
    row[k] = static_cast<float>(sum[k] / static_cast<double>(token.found.size()));
  token.lookup = Lookup::Composed;
  token.matched = token.text;
  token.ngrams = token.found.size();
  token.spelled = true;
}
}  // namespace

Embedding WordVectors::embed_tokens(std::vector<std::string> tokens) const {
  Embedding out;
  out.total = tokens.size();
  out.X = Matrix::Zero(static_cast<Index>(tokens.size()), dim());
  for (std::size_t t = 0; t < tokens.size(); ++t) {
    EmbeddedToken token{std::move(tokens[t]), Lookup::Unknown, {}, {}, 0, false};
    Index row = find(token.text);
    if (row >= 0) {
      token.lookup = Lookup::Known;
      token.matched = token.text;
    } else {
      // Inflections the corpus may lack ("stations", "cashing"): take the first stem the vocabulary has.
      const std::vector<std::string> stems = stem_candidates(token.text);
      for (const std::string& stem : stems)
        if ((row = find(stem)) >= 0) {
          token.lookup = Lookup::Stemmed;
          token.matched = stem;
          break;
        }
      // Then the composed table: the word as typed, else its stems ("murphy's" -> "murphy").
      if (row < 0 && composed_ && composed_->size() > 0 && composed_->dim() == dim()) {
        Index composed_row = composed_->find(token.text);
        if (composed_row >= 0) token.matched = token.text;
        for (std::size_t s = 0; composed_row < 0 && s < stems.size(); ++s)
          if ((composed_row = composed_->find(stems[s])) >= 0) token.matched = stems[s];
        if (composed_row >= 0) {
          token.lookup = Lookup::Composed;
          composed_->dequantise(composed_row, out.X.data() + static_cast<Index>(t) * dim());
        } else if (!lone_mark(token.text)) {
          // The last resort: the word as typed, composed from the n-gram rows attached with the list (keyed
          // by bucket, so fastText's hash collisions give the rows print-word-vectors uses). A word none of
          // whose n-grams was trained composes to nothing and stays unknown, as fastText gives it zeros.
          SubwordOptions by_bucket;
          by_bucket.keys = NgramKeys::Bucket;
          ComposedVector c = compose_subwords(token.text, *composed_, by_bucket);
          if (!c.pieces.empty()) {
            token.lookup = Lookup::Composed;
            token.matched = token.text;
            token.ngrams = c.pieces.size() + c.missing;
            token.found = std::move(c.pieces);
            std::copy(c.vector.data(), c.vector.data() + dim(), out.X.data() + static_cast<Index>(t) * dim());
          } else {
            spell(token, *composed_, out.X.data() + static_cast<Index>(t) * dim());  // X is row-major
          }
        }
      }
    }
    if (row >= 0) dequantise(row, out.X.data() + static_cast<Index>(t) * dim());  // X is row-major
    out.tokens.push_back(std::move(token));
  }
  return out;
}

}  // namespace attn

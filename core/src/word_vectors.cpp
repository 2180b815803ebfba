// The word-vector table: parses the project's vectors file from bytes and embeds tokenised sentences.
#include <cmath>
#include <cstring>
#include <limits>
#include <sstream>

#include "attention/text.hpp"
#include "byte_reader.hpp"

namespace attn {
namespace {

constexpr char kMagic[8] = {'A', 'T', 'T', 'N', 'V', 'E', 'C', '1'};

using detail::f32_le;

bool ends_with(const std::string& s, const char* suffix) {
  const std::size_t n = std::strlen(suffix);
  return s.size() > n && s.compare(s.size() - n, n, suffix) == 0;
}

}  // namespace

std::vector<std::string> stem_candidates(std::string_view word) {
  const std::string w(word);
  std::vector<std::string> stems;
  auto strip = [&](const char* suffix, const char* replacement) {
    if (!ends_with(w, suffix)) return;
    std::string stem = w.substr(0, w.size() - std::strlen(suffix)) + replacement;
    if (stem.size() >= 2) stems.push_back(std::move(stem));
  };
  strip("'s", ""); strip("ies", "y"); strip("es", ""); strip("s", "");
  strip("ing", ""); strip("ing", "e"); strip("ed", ""); strip("ed", "e"); strip("ly", "");
  return stems;
}

WordVectors WordVectors::parse(const std::uint8_t* bytes, std::size_t size) {
  if (bytes == nullptr && size != 0) throw AttentionError("vectors file: null data");
  detail::ByteReader in(bytes, size, "vectors file");
  if (size < sizeof kMagic || std::memcmp(in.take(sizeof kMagic, "magic"), kMagic, sizeof kMagic) != 0)
    throw AttentionError("not a vectors file: it must start with \"ATTNVEC1\"");
  const std::uint32_t count = in.u32("word count");
  const std::uint32_t dim = in.u32("dimension");
  const std::uint32_t words_bytes = in.u32("words size");
  if (count == 0 || dim == 0) {
    std::ostringstream s;
    s << "vectors file has " << count << " words of dimension " << dim << "; both must be at least 1";
    throw AttentionError(s.str());
  }
  // The sizes must add up exactly, checked before anything is allocated (64-bit: no overflow).
  const std::uint64_t expected = std::uint64_t{words_bytes} + 4ull * count + std::uint64_t{count} * dim;
  if (expected != in.remaining()) {
    std::ostringstream s;
    s << "vectors file size does not match its header: " << count << " words × " << dim << " dims and "
      << words_bytes << " bytes of words need " << expected << " more bytes, the file has " << in.remaining();
    throw AttentionError(s.str());
  }

  WordVectors table;
  const char* words = reinterpret_cast<const char*>(in.take(words_bytes, "words"));
  table.words_.reserve(count);
  std::size_t start = 0;
  for (std::size_t i = 0; i < words_bytes; ++i) {
    if (words[i] != '\n') continue;
    if (i == start) throw AttentionError("vectors file: word " + std::to_string(table.words_.size()) + " is empty");
    table.words_.emplace_back(words + start, i - start);
    start = i + 1;
  }
  if (start != words_bytes || table.words_.size() != count) {
    std::ostringstream s;
    s << "vectors file: the header promises " << count << " newline-terminated words, the words block holds "
      << table.words_.size() << (start != words_bytes ? " and an unterminated tail" : "");
    throw AttentionError(s.str());
  }
  for (std::size_t i = 0; i < table.words_.size(); ++i)
    if (!table.index_.emplace(table.words_[i], static_cast<Index>(i)).second)
      throw AttentionError("vectors file: the word \"" + table.words_[i] + "\" appears twice");

  const std::uint8_t* scales = in.take(4ull * count, "scales");
  const std::uint8_t* values = in.take(std::uint64_t{count} * dim, "values");
  table.vectors_.resize(count, dim);
  for (std::uint32_t w = 0; w < count; ++w) {
    const float scale = f32_le(scales + 4ull * w);
    // scale × 127 (or × -128) must stay finite too: a scale above FLT_MAX / 128 would give Inf vectors.
    if (!std::isfinite(scale) || scale < 0 || scale > std::numeric_limits<float>::max() / 128.0f) {
      std::ostringstream s;
      s << "vectors file: the scale of \"" << table.words_[w] << "\" is " << scale
        << "; it must be finite, ≥ 0 and at most " << std::numeric_limits<float>::max() / 128.0f;
      throw AttentionError(s.str());
    }
    for (std::uint32_t k = 0; k < dim; ++k)
      table.vectors_(w, k) = scale * static_cast<float>(static_cast<std::int8_t>(values[std::uint64_t{w} * dim + k]));
  }
  return table;
}

Index WordVectors::find(std::string_view word) const {
  const auto it = index_.find(std::string(word));
  return it == index_.end() ? -1 : it->second;
}

Matrix WordVectors::vector(Index i) const {
  if (i < 0 || i >= vectors_.rows())
    throw AttentionError("word index " + std::to_string(i) + " is outside the vocabulary of " +
                         std::to_string(vectors_.rows()));
  return vectors_.row(i);
}

Embedding WordVectors::embed(std::string_view text, std::size_t max_tokens) const {
  std::vector<std::string> tokens = tokenize(text);
  if (tokens.empty()) throw AttentionError("there is no word to attend to: the text is empty");
  if (tokens.size() > max_tokens) {
    std::ostringstream s;
    s << "the text has " << tokens.size() << " tokens; at most " << max_tokens << " can be shown at once";
    throw AttentionError(s.str());
  }
  Embedding out;
  out.X = Matrix::Zero(static_cast<Index>(tokens.size()), dim());
  for (std::size_t t = 0; t < tokens.size(); ++t) {
    EmbeddedToken token{std::move(tokens[t]), Lookup::Unknown, {}};
    Index row = find(token.text);
    if (row >= 0) {
      token.lookup = Lookup::Known;
      token.matched = token.text;
    } else {
      // Inflections the corpus may lack ("stations", "cashing"): take the first stem the vocabulary has.
      for (const std::string& stem : stem_candidates(token.text))
        if ((row = find(stem)) >= 0) {
          token.lookup = Lookup::Stemmed;
          token.matched = stem;
          break;
        }
    }
    if (row >= 0) out.X.row(static_cast<Index>(t)) = vectors_.row(row);
    out.tokens.push_back(std::move(token));
  }
  return out;
}

}  // namespace attn

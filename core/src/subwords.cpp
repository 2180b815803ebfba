// fastText's character n-grams of a word and the word vector composed from their rows (attention/subwords.hpp).
#include "attention/subwords.hpp"

#include "checks.hpp"

namespace attn {

std::uint32_t fasttext_hash(std::string_view bytes) {
  std::uint32_t h = 2166136261u;
  for (const char c : bytes) {
    // fastText xors the byte as a signed char widened to 32 bits: 0xC3 becomes 0xFFFFFFC3.
    h ^= static_cast<std::uint32_t>(static_cast<std::int32_t>(static_cast<std::int8_t>(c)));
    h *= 16777619u;
  }
  return h;
}

// Not inlined (here and below): the page's module calls these from two places, and one copy keeps it small.
[[gnu::noinline]] std::vector<Subword> fasttext_subwords(std::string_view word, const SubwordOptions& options) {
  if (word.empty()) detail::fail("an empty word has no character n-grams");
  if (options.minn < 1 || options.maxn < options.minn || options.maxn > 64)
    detail::fail("n-gram lengths %d…%d: they must satisfy 1 ≤ minn ≤ maxn ≤ 64", options.minn, options.maxn);
  if (options.buckets == 0) detail::fail("the n-gram bucket count must be at least 1");
  const std::string marked = "<" + std::string(word) + ">";
  auto continuation = [&](std::size_t k) { return (static_cast<unsigned char>(marked[k]) & 0xC0) == 0x80; };
  std::vector<Subword> out;
  for (std::size_t i = 0; i < marked.size(); ++i) {
    if (continuation(i)) continue;  // n-grams start on a character, never inside one
    std::string ngram;
    std::size_t j = i;
    for (int n = 1; j < marked.size() && n <= options.maxn; ++n) {
      ngram += marked[j++];
      while (j < marked.size() && continuation(j)) ngram += marked[j++];
      // fastText also drops a 1-gram that is "<" or ">" alone; with minn ≥ 1 that is the same rule.
      if (n >= options.minn && !(n == 1 && (i == 0 || j == marked.size())))
        out.push_back({ngram, fasttext_hash(ngram) % options.buckets});
    }
  }
  return out;
}

std::string bucket_key(std::uint32_t bucket) {
  // By hand rather than std::to_string: the page's wasm module stays as small as it was.
  char digits[11];
  int n = 0;
  do digits[n++] = static_cast<char>('0' + bucket % 10);
  while ((bucket /= 10) != 0);
  std::string out = "#";
  while (n > 0) out += digits[--n];
  return out;
}

[[gnu::noinline]] ComposedVector compose_subwords(std::string_view word, const WordVectors& ngrams,
                                                  const SubwordOptions& options) {
  ComposedVector out;
  out.vector = Matrix::Zero(1, ngrams.dim());
  const std::vector<Subword> pieces = fasttext_subwords(word, options);
  // Summed in double and divided once (fastText sums in float: the difference is far below the int8 step).
  // Plain loops, not Eigen expressions: this runs for a few words, and the page's wasm module stays small.
  std::vector<double> sum(static_cast<std::size_t>(ngrams.dim()), 0.0);
  for (const Subword& piece : pieces) {
    const Index row = ngrams.find(options.keys == NgramKeys::Bucket ? bucket_key(piece.bucket) : piece.text);
    if (row < 0) {
      ++out.missing;  // an untrained bucket: fastText's row is zero, so it adds nothing but counts
      continue;
    }
    const float scale = ngrams.scale(static_cast<std::size_t>(row));
    const std::int8_t* values = ngrams.values(static_cast<std::size_t>(row));
    for (std::size_t k = 0; k < sum.size(); ++k) sum[k] += double{scale} * values[k];
    out.pieces.push_back(piece.text);
  }
  if (!out.pieces.empty())
    for (std::size_t k = 0; k < sum.size(); ++k)
      out.vector(0, static_cast<Index>(k)) = static_cast<float>(sum[k] / static_cast<double>(pieces.size()));
  return out;
}

}  // namespace attn

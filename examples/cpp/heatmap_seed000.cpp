// Example: seed 000's heatmap of "the train left the station on time", printed as a table. Parameter-free
// self-attention over the project's word vectors: A = softmax(X Xᵀ / √d), row i = who word i attends to.
// Usage: heatmap_seed000 [data/vectors.bin] [sentence]
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "attention/attention.hpp"
#include "attention/text.hpp"

int main(int argc, char** argv) {
  const char* path = argc > 1 ? argv[1] : "data/vectors.bin";
  const std::string sentence = argc > 2 ? argv[2] : "the train left the station on time";
  // The core does no I/O: the program reads the file and hands the table its bytes.
  std::ifstream file(path, std::ios::binary);
  if (!file) {
    std::fprintf(stderr, "cannot read %s\n", path);
    return 1;
  }
  std::vector<std::uint8_t> bytes((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  const attn::WordVectors vectors = attn::WordVectors::parse(std::move(bytes));

  // X: one word vector per token (T × d).
  const attn::Embedding e = vectors.embed(sentence, 64);
  // A = softmax(X Xᵀ / √d): the default score is scaled dot, and the divisor for X itself is √d_model.
  const attn::AttentionSteps s = attn::parameter_free_attention(e.X, attn::AttentionOptions{});
  const attn::Matrix& A = s.weights;

  std::printf("%d-dimensional vectors, divisor sqrt(d); row = query, column = key; rows sum to 1\n",
              static_cast<int>(e.X.cols()));
  std::printf("%10s", "");
  for (const attn::EmbeddedToken& t : e.tokens) std::printf(" %8s", t.text.c_str());
  std::printf("\n");
  for (attn::Index i = 0; i < A.rows(); ++i) {
    std::printf("%10s", e.tokens[i].text.c_str());
    for (attn::Index j = 0; j < A.cols(); ++j) std::printf(" %8.4f", A(i, j));
    std::printf("\n");
  }
  return 0;
}

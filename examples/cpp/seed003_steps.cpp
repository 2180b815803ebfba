// Example: seed 003's worked example ("An illustrated guide to self-attention", ../shared/SOURCES.md),
// its eight steps printed as the core computes them. Unscaled dot-product scores, as the article uses.
#include <cstdio>

#include "attention/attention.hpp"

using attn::Matrix;

static void print(const char* name, const Matrix& m) {
  std::printf("%s\n", name);
  for (attn::Index i = 0; i < m.rows(); ++i) {
    for (attn::Index j = 0; j < m.cols(); ++j) std::printf(" %9.4f", m(i, j));
    std::printf("\n");
  }
}

int main() {
  // 1. Prepare inputs: three tokens of four features, one per row.
  Matrix X(3, 4);
  X << 1, 0, 1, 0, /**/ 0, 2, 0, 2, /**/ 1, 1, 1, 1;
  // 2. Initialise weights: W_K, W_Q (4 × 3) and W_V (4 × 3; d_v could differ).
  attn::HeadWeights w;
  w.W_K.resize(4, 3);
  w.W_K << 0, 0, 1, /**/ 1, 1, 0, /**/ 0, 1, 0, /**/ 1, 1, 0;
  w.W_Q.resize(4, 3);
  w.W_Q << 1, 0, 1, /**/ 1, 0, 0, /**/ 0, 0, 1, /**/ 0, 1, 1;
  w.W_V.resize(4, 3);
  w.W_V << 0, 2, 0, /**/ 0, 3, 0, /**/ 1, 0, 3, /**/ 1, 1, 0;

  attn::AttentionOptions options;
  options.score = attn::Score::Dot;  // the article divides by nothing (not √d_k)
  const attn::AttentionSteps s = attn::attention(X, w, options);

  print("3. keys K = X W_K", s.K);
  print("3. queries Q = X W_Q", s.Q);
  print("3. values V = X W_V", s.V);
  // 4. Scores for input 1 (row 0), and 8. the same for inputs 2 and 3: every row at once.
  print("4. scores Q K^T", s.scores);
  // 5. Softmax along each row: input 1 attends 0.0634, 0.4683, 0.4683.
  print("5. softmax(Q K^T)", s.weights);
  // 6. Multiply each value by its weight, for input 1: alpha_1j v_j.
  Matrix weighted(3, 3);
  for (attn::Index j = 0; j < 3; ++j) weighted.row(j) = s.weights(0, j) * s.V.row(j);
  print("6. weighted values for input 1: alpha_1j v_j", weighted);
  // 7. Sum them: output 1. 8. Outputs 2 and 3 the same way: softmax(Q K^T) V.
  print("7. output 1 = sum_j alpha_1j v_j", weighted.colwise().sum());
  print("8. all outputs softmax(Q K^T) V", s.output);
  return 0;
}

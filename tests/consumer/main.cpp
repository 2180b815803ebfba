// The consumer test's program: seed 003 through the installed core, printing softmax row 1 for
// scripts/consumer-test.sh to check (0.0634 0.4683 0.4683). Built by CMake and by pkg-config.
#include <attention/attention.hpp>
#include <cstdio>

int main() {
  attn::Matrix X(3, 4);
  X << 1, 0, 1, 0, /**/ 0, 2, 0, 2, /**/ 1, 1, 1, 1;
  attn::HeadWeights w;
  w.W_K.resize(4, 3);
  w.W_K << 0, 0, 1, /**/ 1, 1, 0, /**/ 0, 1, 0, /**/ 1, 1, 0;
  w.W_Q.resize(4, 3);
  w.W_Q << 1, 0, 1, /**/ 1, 0, 0, /**/ 0, 0, 1, /**/ 0, 1, 1;
  w.W_V.resize(4, 3);
  w.W_V << 0, 2, 0, /**/ 0, 3, 0, /**/ 1, 0, 3, /**/ 1, 1, 0;
  attn::AttentionOptions options;
  options.score = attn::Score::Dot;
  const attn::Matrix A = attn::attention(X, w, options).weights;
  std::printf("softmax row 1: %.4f %.4f %.4f\n", A(0, 0), A(0, 1), A(0, 2));
  return 0;
}

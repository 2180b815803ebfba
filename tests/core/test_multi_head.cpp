// Multi-head attention against per-head calls, head splitting, and batches N×T×d with padding.
#include "helpers.hpp"

using namespace attn;

TEST_CASE("multi-head output = concat(per-head outputs)·W_O + b_O", "[multi-head]") {
  std::mt19937 rng(42);
  const Index T = 5, d_model = 8, heads = 2, d_k = 4;
  const Matrix X = seeded_matrix(T, d_model, rng);
  MultiHeadWeights w = split_heads(seeded_matrix(d_model, d_model, rng), seeded_matrix(d_model, d_model, rng),
                                   seeded_matrix(d_model, d_model, rng), seeded_matrix(d_model, d_model, rng), heads);
  w.b_O = seeded_matrix(d_model, 1, rng).col(0);
  REQUIRE(w.heads.size() == 2);
  REQUIRE(w.heads[1].W_Q.cols() == d_k);
  const MultiHeadSteps m = multi_head_attention(X, w);
  for (Index h = 0; h < heads; ++h) {
    const AttentionSteps alone = attention(X, w.heads[static_cast<std::size_t>(h)]);
    require_close(m.heads[static_cast<std::size_t>(h)].weights, alone.weights, 1e-6f);
    require_close(m.concat.middleCols(h * d_k, d_k), alone.output, 1e-6f);
  }
  Matrix expected = m.concat * w.W_O;
  expected.rowwise() += w.b_O.transpose();
  require_close(m.output, expected, 1e-5f);
}

TEST_CASE("one head with W_O = I is plain attention", "[multi-head]") {
  std::mt19937 rng(1);
  const Matrix X = seeded_matrix(3, 4, rng);
  HeadWeights head{seeded_matrix(4, 4, rng), seeded_matrix(4, 4, rng), seeded_matrix(4, 4, rng), {}, {}, {}};
  const MultiHeadSteps m = multi_head_attention(X, {{head}, Matrix::Identity(4, 4), {}});
  require_close(m.output, attention(X, head).output, 1e-6f);
}

TEST_CASE("batched attention equals one call per sequence, with per-sequence padding", "[multi-head][batch]") {
  std::mt19937 rng(9);
  const Index N = 3, T = 4, d = 6;
  Batch X(N, T, d);
  for (float& v : X.data) v = std::uniform_real_distribution<float>(-1, 1)(rng);
  const MultiHeadWeights w = split_heads(seeded_matrix(d, d, rng), seeded_matrix(d, d, rng), seeded_matrix(d, d, rng),
                                         seeded_matrix(d, d, rng), 3);
  AttentionOptions o;
  o.causal = true;
  const std::vector<KeyPadding> padding = {{0, 0, 0, 0}, {0, 0, 1, 1}, {0, 0, 0, 1}};
  const BatchResult r = batched_attention(X, w, o, padding);
  REQUIRE(r.output.N == N);
  REQUIRE(r.output.T == T);
  REQUIRE(r.output.d == d);
  REQUIRE(r.weights.size() == 3);
  for (Index n = 0; n < N; ++n) {
    AttentionOptions item = o;
    item.key_padding = padding[static_cast<std::size_t>(n)];
    const MultiHeadSteps alone = multi_head_attention(X.item(n), w, item);
    require_close(r.output.item(n), alone.output, 1e-6f);
    for (std::size_t h = 0; h < 3; ++h)
      require_close(r.weights[static_cast<std::size_t>(n)][h], alone.heads[h].weights, 0.0f);
  }
  // Padded keys get no weight.
  REQUIRE(r.weights[1][0].col(2).isZero(0));
  REQUIRE(r.weights[1][2].col(3).isZero(0));
}

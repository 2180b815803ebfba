// Multi-head attention (heads side by side, concatenated, projected by W_O) and its batched form.
#include "attention/attention.hpp"
#include "checks.hpp"

namespace attn {

using detail::fail;
using detail::ll;

MultiHeadSteps multi_head_attention(const Matrix& X, const MultiHeadWeights& w, const AttentionOptions& options) {
  if (w.heads.empty()) fail("multi-head attention needs at least one head");
  MultiHeadSteps out;
  out.heads.reserve(w.heads.size());
  Index concat_width = 0;
  for (std::size_t h = 0; h < w.heads.size(); ++h) {
    try {
      out.heads.push_back(attention(X, w.heads[h], options));  // each head: T×d_v(h)
    } catch (const AttentionError& e) {
      fail("head %zu: %s", h, e.what());
    }
    concat_width += out.heads.back().output.cols();
  }
  // Concat: the heads' outputs side by side, T × Σd_v.
  out.concat.resize(X.rows(), concat_width);
  Index col = 0;
  for (const AttentionSteps& head : out.heads) {
    out.concat.middleCols(col, head.output.cols()) = head.output;
    col += head.output.cols();
  }
  if (w.W_O.rows() != concat_width || w.W_O.cols() == 0)
    fail("W_O is %s but the concatenated heads are %s; W_O needs %lld rows", shape_of(w.W_O).c_str(),
         shape_of(out.concat).c_str(), ll(concat_width));
  require_finite(w.W_O, "W_O");
  if (w.b_O.size() != 0) detail::require_length(w.b_O, w.W_O.cols(), "b_O", "W_O");
  // Output projection: T×Σd_v · Σd_v×d_out.
  out.output = out.concat * w.W_O;
  if (w.b_O.size() != 0) out.output.rowwise() += w.b_O.transpose();
  detail::require_no_overflow(out.output, "the output concat·W_O + b_O");
  return out;
}

MultiHeadWeights split_heads(const Matrix& W_Q, const Matrix& W_K, const Matrix& W_V, const Matrix& W_O, Index heads) {
  const Index d_model = W_Q.rows();
  if (heads <= 0 || W_Q.cols() % heads != 0 || W_Q.cols() == 0 || d_model == 0)
    fail("cannot split W_Q (%s) into %lld equal heads", shape_of(W_Q).c_str(), ll(heads));
  if (W_K.rows() != d_model || W_K.cols() != W_Q.cols() || W_V.rows() != d_model || W_V.cols() % heads != 0 ||
      W_O.rows() != W_V.cols())
    fail(
        "split_heads: W_Q %s, W_K %s, W_V %s, W_O %s do not fit together (W_K like W_Q, W_V with d_model rows, W_O "
        "with W_V's columns as rows)",
        shape_of(W_Q).c_str(), shape_of(W_K).c_str(), shape_of(W_V).c_str(), shape_of(W_O).c_str());
  const Index d_k = W_Q.cols() / heads, d_v = W_V.cols() / heads;
  MultiHeadWeights w;
  for (Index h = 0; h < heads; ++h) {
    HeadWeights head;
    head.W_Q = W_Q.middleCols(h * d_k, d_k);
    head.W_K = W_K.middleCols(h * d_k, d_k);
    head.W_V = W_V.middleCols(h * d_v, d_v);
    w.heads.push_back(std::move(head));
  }
  w.W_O = W_O;
  return w;
}

BatchResult batched_attention(const Batch& X, const MultiHeadWeights& w, const AttentionOptions& options,
                              const std::vector<KeyPadding>& key_padding) {
  if (X.N <= 0 || X.T <= 0 || X.d <= 0 || X.data.size() != static_cast<std::size_t>(X.N * X.T * X.d))
    fail("batch is %lld×%lld×%lld with %zu values; it needs N, T, d ≥ 1 and N·T·d values", ll(X.N), ll(X.T), ll(X.d),
         X.data.size());
  if (!key_padding.empty() && static_cast<Index>(key_padding.size()) != X.N)
    fail("batch has %lld sequences but %zu padding masks", ll(X.N), key_padding.size());
  BatchResult result;
  AttentionOptions item_options = options;
  for (Index n = 0; n < X.N; ++n) {
    if (!key_padding.empty()) item_options.key_padding = key_padding[static_cast<std::size_t>(n)];
    MultiHeadSteps steps;
    try {
      steps = multi_head_attention(X.item(n), w, item_options);
    } catch (const AttentionError& e) {
      fail("batch item %lld: %s", ll(n), e.what());
    }
    if (n == 0) result.output = Batch(X.N, X.T, steps.output.cols());
    result.output.item(n) = steps.output;
    std::vector<Matrix> weights;
    for (AttentionSteps& head : steps.heads) weights.push_back(std::move(head.weights));
    result.weights.push_back(std::move(weights));
  }
  return result;
}

}  // namespace attn

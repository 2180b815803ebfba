// Multi-head attention (heads side by side, concatenated, projected by W_O) and its batched form.
#include <sstream>

#include "attention/attention.hpp"

namespace attn {

MultiHeadSteps multi_head_attention(const Matrix& X, const MultiHeadWeights& w, const AttentionOptions& options) {
  if (w.heads.empty()) throw AttentionError("multi-head attention needs at least one head");
  MultiHeadSteps out;
  out.heads.reserve(w.heads.size());
  Index concat_width = 0;
  for (std::size_t h = 0; h < w.heads.size(); ++h) {
    try {
      out.heads.push_back(attention(X, w.heads[h], options));  // each head: T×d_v(h)
    } catch (const AttentionError& e) {
      throw AttentionError("head " + std::to_string(h) + ": " + e.what());
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
  if (w.W_O.rows() != concat_width || w.W_O.cols() == 0) {
    std::ostringstream s;
    s << "W_O is " << shape_of(w.W_O) << " but the concatenated heads are " << shape_of(out.concat)
      << "; W_O needs " << concat_width << " rows";
    throw AttentionError(s.str());
  }
  require_finite(w.W_O, "W_O");
  if (w.b_O.size() != 0 && w.b_O.size() != w.W_O.cols()) {
    std::ostringstream s;
    s << "b_O has " << w.b_O.size() << " entries but W_O gives vectors of length " << w.W_O.cols();
    throw AttentionError(s.str());
  }
  require_finite(w.b_O, "b_O");
  // Output projection: T×Σd_v · Σd_v×d_out.
  out.output = out.concat * w.W_O;
  if (w.b_O.size() != 0) out.output.rowwise() += w.b_O.transpose();
  if (!out.output.allFinite())
    throw AttentionError("the output concat·W_O + b_O (" + shape_of(out.output) +
                         ") overflows float32: the inputs are too large for it (|value| > 3.4e38)");
  return out;
}

MultiHeadWeights split_heads(const Matrix& W_Q, const Matrix& W_K, const Matrix& W_V, const Matrix& W_O,
                             Index heads) {
  const Index d_model = W_Q.rows();
  if (heads <= 0 || W_Q.cols() % heads != 0 || W_Q.cols() == 0 || d_model == 0) {
    std::ostringstream s;
    s << "cannot split W_Q (" << shape_of(W_Q) << ") into " << heads << " equal heads";
    throw AttentionError(s.str());
  }
  if (W_K.rows() != d_model || W_K.cols() != W_Q.cols() || W_V.rows() != d_model || W_V.cols() % heads != 0 ||
      W_O.rows() != W_V.cols()) {
    std::ostringstream s;
    s << "split_heads: W_Q " << shape_of(W_Q) << ", W_K " << shape_of(W_K) << ", W_V " << shape_of(W_V)
      << ", W_O " << shape_of(W_O) << " do not fit together (W_K like W_Q, W_V with d_model rows, W_O with "
      << "W_V's columns as rows)";
    throw AttentionError(s.str());
  }
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
  if (X.N <= 0 || X.T <= 0 || X.d <= 0 || X.data.size() != static_cast<std::size_t>(X.N * X.T * X.d)) {
    std::ostringstream s;
    s << "batch is " << X.N << "×" << X.T << "×" << X.d << " with " << X.data.size()
      << " values; it needs N, T, d ≥ 1 and N·T·d values";
    throw AttentionError(s.str());
  }
  if (!key_padding.empty() && static_cast<Index>(key_padding.size()) != X.N) {
    std::ostringstream s;
    s << "batch has " << X.N << " sequences but " << key_padding.size() << " padding masks";
    throw AttentionError(s.str());
  }
  BatchResult result;
  AttentionOptions item_options = options;
  for (Index n = 0; n < X.N; ++n) {
    if (!key_padding.empty()) item_options.key_padding = key_padding[static_cast<std::size_t>(n)];
    MultiHeadSteps steps;
    try {
      steps = multi_head_attention(X.item(n), w, item_options);
    } catch (const AttentionError& e) {
      throw AttentionError("batch item " + std::to_string(n) + ": " + e.what());
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

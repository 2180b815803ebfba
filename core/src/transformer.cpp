// Transformer building blocks around attention: embedding, positions, LayerNorm, feed-forward, layers.
#include "attention/transformer.hpp"

#include <cmath>

#include "checks.hpp"

namespace attn {

using detail::fail;
using detail::ll;
using detail::require_length;
using detail::require_no_overflow;

Matrix embed_tokens(const Matrix& table, const std::vector<Index>& ids) {
  if (table.rows() == 0 || table.cols() == 0)
    fail("the embedding table is %s; it needs at least one row and column", shape_of(table).c_str());
  if (ids.empty()) fail("there are no token ids to embed");
  Matrix X(static_cast<Index>(ids.size()), table.cols());  // T × d_model
  for (std::size_t t = 0; t < ids.size(); ++t) {
    if (ids[t] < 0 || ids[t] >= table.rows())
      fail("token id %lld at position %zu is outside the embedding table (%lld rows)", ll(ids[t]), t, ll(table.rows()));
    X.row(static_cast<Index>(t)) = table.row(ids[t]);
  }
  return X;
}

Matrix sinusoidal_positions(Index T, Index d_model) {
  if (T <= 0 || d_model <= 0)
    fail("positional encoding needs T ≥ 1 and d_model ≥ 1, got T = %lld, d_model = %lld", ll(T), ll(d_model));
  Matrix pe(T, d_model);
  for (Index pos = 0; pos < T; ++pos)
    for (Index k = 0; k < d_model; ++k) {
      // Columns 2i and 2i+1 share the frequency 1 / 10000^(2i / d_model); computed in double so long
      // sequences keep their phase.
      const double i2 = static_cast<double>(k - k % 2);
      const double angle = static_cast<double>(pos) / std::pow(10000.0, i2 / static_cast<double>(d_model));
      pe(pos, k) = static_cast<float>(k % 2 == 0 ? std::sin(angle) : std::cos(angle));
    }
  return pe;
}

Matrix layer_norm(const Matrix& X, const Vector& gamma, const Vector& beta, float eps) {
  if (X.rows() == 0 || X.cols() == 0) fail("LayerNorm input is %s; it is empty", shape_of(X).c_str());
  require_finite(X, "LayerNorm input");
  require_length(gamma, X.cols(), "LayerNorm gamma", "the input");
  require_length(beta, X.cols(), "LayerNorm beta", "the input");
  if (!(eps > 0) || !std::isfinite(eps)) fail("LayerNorm eps must be a finite number > 0");
  Matrix out(X.rows(), X.cols());
  for (Index r = 0; r < X.rows(); ++r) {
    // Mean and variance in double: a row with a large offset keeps its small spread.
    const Eigen::RowVectorXd row = X.row(r).cast<double>();
    const double mean = row.mean();
    const double variance = (row.array() - mean).square().mean();
    const double inv_std = 1.0 / std::sqrt(variance + static_cast<double>(eps));
    out.row(r) = (((row.array() - mean) * inv_std).cast<float>() * gamma.transpose().array() + beta.transpose().array())
                     .matrix();
  }
  require_no_overflow(out, "the LayerNorm output");
  return out;
}

Matrix feed_forward(const Matrix& X, const FeedForward& f) {
  const Index d_model = X.cols();
  if (f.W1.rows() != d_model || f.W1.cols() == 0 || f.W2.rows() != f.W1.cols() || f.W2.cols() == 0)
    fail(
        "feed-forward weights W1 %s and W2 %s do not fit an input of %lld columns (need W1 d_model×d_ff and W2 "
        "d_ff×d_out)",
        shape_of(f.W1).c_str(), shape_of(f.W2).c_str(), ll(d_model));
  require_finite(X, "feed-forward input");
  require_finite(f.W1, "feed-forward W1");
  require_finite(f.W2, "feed-forward W2");
  require_length(f.b1, f.W1.cols(), "feed-forward b1", "W1");
  require_length(f.b2, f.W2.cols(), "feed-forward b2", "W2");
  Matrix hidden = X * f.W1;  // T × d_ff
  hidden.rowwise() += f.b1.transpose();
  if (f.activation == Activation::ReLU) {
    hidden = hidden.cwiseMax(0.0f);
  } else {
    // GELU(x) = x · Φ(x) = x/2 · (1 + erf(x / √2))
    hidden = hidden.unaryExpr([](float x) { return 0.5f * x * (1.0f + std::erf(x * 0.70710678118654752f)); });
  }
  require_no_overflow(hidden, "the feed-forward hidden layer");
  Matrix out = hidden * f.W2;  // T × d_out
  out.rowwise() += f.b2.transpose();
  require_no_overflow(out, "the feed-forward output");
  return out;
}

namespace {

// One layer, either norm placement, with whatever mask the options ask for.
LayerSteps run_layer(const Matrix& X, const TransformerLayer& layer, NormPlacement placement,
                     const AttentionOptions& options) {
  // Residual connections add each sublayer's output to its input, so both must map back to d_model.
  const Index d_model = X.cols();
  if (layer.attention.W_O.cols() != d_model || layer.ffn.W2.cols() != d_model)
    fail("W_O (%s) and the feed-forward W2 (%s) must both give %lld columns, the width of the residual stream",
         shape_of(layer.attention.W_O).c_str(), shape_of(layer.ffn.W2).c_str(), ll(d_model));
  LayerSteps s;
  if (placement == NormPlacement::Post) {
    // x = LN1(x + MHA(x)); x = LN2(x + FFN(x))
    s.attention_input = X;
    s.attention = multi_head_attention(s.attention_input, layer.attention, options);
    s.after_attention = layer_norm(X + s.attention.output, layer.norm1_gamma, layer.norm1_beta);
    s.output = layer_norm(s.after_attention + feed_forward(s.after_attention, layer.ffn), layer.norm2_gamma,
                          layer.norm2_beta);
  } else {
    // x = x + MHA(LN1(x)); x = x + FFN(LN2(x))
    s.attention_input = layer_norm(X, layer.norm1_gamma, layer.norm1_beta);  // LN1(x), T × d_model
    s.attention = multi_head_attention(s.attention_input, layer.attention, options);
    s.after_attention = X + s.attention.output;
    s.output = s.after_attention +
               feed_forward(layer_norm(s.after_attention, layer.norm2_gamma, layer.norm2_beta), layer.ffn);
    require_no_overflow(s.output, "the layer's output");
  }
  return s;
}

// Layers one after another; `what` names the stack in its errors ("an encoder").
StackSteps run_stack(const Matrix& X, const std::vector<TransformerLayer>& layers, NormPlacement placement,
                     const AttentionOptions& options, const char* what) {
  if (layers.empty()) fail("%s needs at least one layer", what);
  StackSteps steps;
  steps.input = X;
  steps.layers.reserve(layers.size());  // `current` points into this vector: it must not reallocate
  const Matrix* current = &steps.input;
  for (std::size_t l = 0; l < layers.size(); ++l) {
    try {
      steps.layers.push_back(run_layer(*current, layers[l], placement, options));
    } catch (const AttentionError& e) {
      fail("layer %zu: %s", l, e.what());
    }
    current = &steps.layers.back().output;
  }
  steps.output = *current;
  return steps;
}

// What makes a stack a decoder: causal scaled dot-product attention.
AttentionOptions causal_options() {
  AttentionOptions causal;
  causal.score = Score::ScaledDot;  // softmax(Q·Kᵀ / √d_k)
  causal.causal = true;
  return causal;
}

}  // namespace

LayerSteps encoder_layer(const Matrix& X, const TransformerLayer& layer, NormPlacement placement,
                         const AttentionOptions& options) {
  return run_layer(X, layer, placement, options);
}

StackSteps encoder(const Matrix& X, const std::vector<TransformerLayer>& layers, NormPlacement placement,
                   const AttentionOptions& options) {
  return run_stack(X, layers, placement, options, "an encoder");
}

LayerSteps decoder_layer(const Matrix& X, const TransformerLayer& layer) {
  return run_layer(X, layer, NormPlacement::Pre, causal_options());
}

StackSteps decoder(const Matrix& X, const std::vector<TransformerLayer>& layers) {
  return run_stack(X, layers, NormPlacement::Pre, causal_options(), "a decoder");
}

}  // namespace attn

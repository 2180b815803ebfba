/// \file
/// Extending self-attention to a transformer (seed 003's "extending to transformers"): token embedding,
/// sinusoidal positional encoding, LayerNorm, the position-wise feed-forward network, residual
/// connections, and layers stacked into an encoder or a decoder. Row convention: X is T × d_model.
/// Maths only.
#pragma once

#include <vector>

#include "attention/attention.hpp"

namespace attn {

/// Embedding lookup: row t of the result is row ids[t] of the table (vocabulary × d_model).
Matrix embed_tokens(const Matrix& table, const std::vector<Index>& ids);

/// Sinusoidal positional encoding (Attention Is All You Need, §3.5), T × d_model:
///   PE(pos, 2i) = sin(pos / 10000^(2i / d_model)),  PE(pos, 2i+1) = cos(pos / 10000^(2i / d_model)).
Matrix sinusoidal_positions(Index T, Index d_model);

/// LayerNorm of every row: (x - mean) / sqrt(variance + eps) · gamma + beta, variance without Bessel's
/// correction (as torch.nn.LayerNorm). gamma, beta: d_model entries.
Matrix layer_norm(const Matrix& X, const Vector& gamma, const Vector& beta, float eps = 1e-5f);

/// The feed-forward network's non-linearity. GELU: the exact erf form, as torch's default.
enum class Activation { ReLU, GELU };

/// Position-wise feed-forward network: act(X·W1 + b1)·W2 + b2. W1: d_model × d_ff, W2: d_ff × d_model.
struct FeedForward {
  Matrix W1;                                 ///< d_model × d_ff
  Vector b1;                                 ///< d_ff entries
  Matrix W2;                                 ///< d_ff × d_model
  Vector b2;                                 ///< d_model entries
  Activation activation = Activation::ReLU;  ///< act
};
/// act(X·W1 + b1)·W2 + b2 for every row of X (FeedForward).
Matrix feed_forward(const Matrix& X, const FeedForward& f);

/// Where LayerNorm sits around each sublayer.
enum class NormPlacement {
  Post,  ///< x = LN(x + sublayer(x))          (the original transformer; torch's norm_first=False)
  Pre,   ///< x = x + sublayer(LN(x))          (GPT-2 and most modern models; norm_first=True)
};

/// One transformer layer's weights: multi-head attention and a feed-forward network, a LayerNorm around
/// each. The same weights make an encoder layer or a decoder layer; what differs is the attention mask.
struct TransformerLayer {
  MultiHeadWeights attention;  ///< the self-attention sublayer
  /// LN1's gamma and beta, around the attention sublayer
  ///@{
  Vector norm1_gamma, norm1_beta;
  ///@}
  FeedForward ffn;  ///< the feed-forward sublayer
  /// LN2's gamma and beta, around the feed-forward sublayer
  ///@{
  Vector norm2_gamma, norm2_beta;
  ///@}
};

/// Every intermediate of one layer, for showing it.
struct LayerSteps {
  /// The matrix the attention sublayer read, T × d_model: every head's Q = attention_input·W_Q + b_Q
  /// (likewise K, V). Pre-norm: LN1(x), the layer's input after norm1_gamma/beta; post-norm: x itself.
  Matrix attention_input;
  MultiHeadSteps attention;  ///< every head's Q, K, V, scores, weights, and the projected output
  Matrix after_attention;    ///< the residual stream after the attention sublayer (T × d_model)
  Matrix output;             ///< after the feed-forward sublayer (T × d_model)
};

/// Every intermediate of a stack of layers: its input, each layer's steps, its output.
struct StackSteps {
  Matrix input;                    ///< X (+ positions, if the caller added them)
  std::vector<LayerSteps> layers;  ///< one per layer, first layer first
  Matrix output;                   ///< the last layer's output
};

/// The names from before decoder() shared these types; kept so code written against them still compiles.
///@{
using EncoderLayer = TransformerLayer;
using EncoderLayerSteps = LayerSteps;
using EncoderSteps = StackSteps;
///@}

/// An encoder (the original transformer's, BERT's; torch.nn.TransformerEncoderLayer): every token
/// attends to every token unless the options mask some. One layer, then a stack: each layer's output is
/// the next layer's input.
///@{
LayerSteps encoder_layer(const Matrix& X, const TransformerLayer& layer, NormPlacement placement,
                         const AttentionOptions& options = {});
StackSteps encoder(const Matrix& X, const std::vector<TransformerLayer>& layers, NormPlacement placement,
                   const AttentionOptions& options = {});
///@}

/// A decoder-only stack (GPT-2's): pre-norm layers, x = x + MHA(LN1(x)); x = x + FFN(LN2(x)), whose
/// attention is causal (token t sees tokens 0..t) with scaled dot-product scores. The language model
/// (model.hpp) runs one.
///@{
LayerSteps decoder_layer(const Matrix& X, const TransformerLayer& layer);
StackSteps decoder(const Matrix& X, const std::vector<TransformerLayer>& layers);
///@}

}  // namespace attn

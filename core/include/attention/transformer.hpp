// Extending self-attention to a transformer (seed 003's "extending to transformers"): token embedding,
// sinusoidal positional encoding, LayerNorm, the position-wise feed-forward network, residual
// connections and stacked encoder layers. Row convention: X is T × d_model. Maths only.
#pragma once

#include <vector>

#include "attention/attention.hpp"

namespace attn {

// Embedding lookup: row t of the result is row ids[t] of the table (vocabulary × d_model).
Matrix embed_tokens(const Matrix& table, const std::vector<Index>& ids);

// Sinusoidal positional encoding (Attention Is All You Need, §3.5), T × d_model:
//   PE(pos, 2i) = sin(pos / 10000^(2i / d_model)),  PE(pos, 2i+1) = cos(pos / 10000^(2i / d_model)).
Matrix sinusoidal_positions(Index T, Index d_model);

// LayerNorm of every row: (x - mean) / sqrt(variance + eps) · gamma + beta, variance without Bessel's
// correction (as torch.nn.LayerNorm). gamma, beta: d_model entries.
Matrix layer_norm(const Matrix& X, const Vector& gamma, const Vector& beta, float eps = 1e-5f);

enum class Activation { ReLU, GELU };  // GELU: the exact erf form, as torch's default

// Position-wise feed-forward network: act(X·W1 + b1)·W2 + b2. W1: d_model × d_ff, W2: d_ff × d_model.
struct FeedForward {
  Matrix W1;
  Vector b1;
  Matrix W2;
  Vector b2;
  Activation activation = Activation::ReLU;
};
Matrix feed_forward(const Matrix& X, const FeedForward& f);

// Where LayerNorm sits around each sublayer.
enum class NormPlacement {
  Post,  // x = LN(x + sublayer(x))          (the original transformer; torch's norm_first=False)
  Pre,   // x = x + sublayer(LN(x))          (GPT-2 and most modern models; norm_first=True)
};

struct EncoderLayer {
  MultiHeadWeights attention;
  Vector norm1_gamma, norm1_beta;  // around the attention sublayer
  FeedForward ffn;
  Vector norm2_gamma, norm2_beta;  // around the feed-forward sublayer
};

struct EncoderLayerSteps {
  // The matrix the attention sublayer read, T × d_model: every head's Q = attention_input·W_Q + b_Q
  // (likewise K, V). Pre-norm: LN1(x), the layer's input after norm1_gamma/beta; post-norm: x itself.
  Matrix attention_input;
  MultiHeadSteps attention;  // every head's Q, K, V, scores, weights, and the projected output
  Matrix after_attention;    // the residual stream after the attention sublayer (T × d_model)
  Matrix output;             // after the feed-forward sublayer (T × d_model)
};

struct EncoderSteps {
  Matrix input;                          // X (+ positions, if the caller added them)
  std::vector<EncoderLayerSteps> layers;
  Matrix output;                         // the last layer's output
};

// One encoder layer, then a stack: each layer's output is the next layer's input.
EncoderLayerSteps encoder_layer(const Matrix& X, const EncoderLayer& layer, NormPlacement placement,
                                const AttentionOptions& options = {});
EncoderSteps encoder(const Matrix& X, const std::vector<EncoderLayer>& layers, NormPlacement placement,
                     const AttentionOptions& options = {});

}  // namespace attn

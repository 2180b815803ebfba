/// \file
/// The attention core: softmax, score functions and self-attention (single head, multi-head, batched),
/// written to read like the equations of the source articles. Maths only: no I/O, no globals.
///
/// Conventions. Matrices are row-major float32. In the row convention (PyTorch, seeds 000/002/003) a
/// sequence is X: T × d_model with one token per ROW, Q = X·W_Q, and weights = softmax_rows(Q·Kᵀ/√d_k).
/// In the column convention (the "by hand" sheets, seeds 001/004) X is d_model × T with one token per
/// COLUMN, Q = W_Q·X, scores = Kᵀ·Q and the softmax runs down each column; Z = V·A.
#pragma once

#include <Eigen/Dense>
#include <stdexcept>
#include <string>
#include <vector>

namespace attn {

using Index = Eigen::Index;  ///< sizes and positions (Eigen's signed index)
/// Every matrix of the API: float32, row-major (row t of X is token t in the row convention).
using Matrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using Vector = Eigen::VectorXf;  ///< biases, LayerNorm's gamma and beta, additive scoring's v
/// One byte per position; non-zero means "this key is padding: never attend to it".
using KeyPadding = std::vector<unsigned char>;

/// Every shape or value problem in the API is reported with this exception; the message names the
/// operand, its shape and, for bad values, the first offending entry.
class AttentionError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

/// Which way a softmax normalises: along each row (Rows) or down each column (Columns).
enum class Axis { Rows, Columns };

/// How a query is matched against a key.
enum class Score {
  Dot,        ///< q·k                              (seed 003's "dot-product attention")
  ScaledDot,  ///< q·k / √d_k                       (Attention Is All You Need, equation II)
  Cosine,     ///< q·k / (|q| |k|)                  (the intuition in seeds 000/001)
  Additive,   ///< vᵀ tanh(W₁q + W₂k)               (Bahdanau; seed 003's "other score functions")
};

/// The learned vector and matrices of additive scoring. W1, W2: d_a × d_k, v: d_a.
struct AdditiveWeights {
  /// W₁ (applied to the query) and W₂ (to the key), d_a × d_k each
  ///@{
  Matrix W1, W2;
  ///@}
  Vector v;  ///< d_a entries, the learned vector vᵀ
};

/// One head's projections. Row convention: W_Q, W_K are d_model × d_k and W_V is d_model × d_v.
/// Column convention: the transposes (d_k × d_model, d_v × d_model). Empty bias = no bias.
struct HeadWeights {
  /// the query, key and value projections
  ///@{
  Matrix W_Q, W_K, W_V;
  ///@}
  /// their biases, d_k, d_k and d_v entries, or empty
  ///@{
  Vector b_Q, b_K, b_V;
  ///@}
};

/// How attention() and the other entry points score, mask and normalise.
struct AttentionOptions {
  Score score = Score::ScaledDot;  ///< how a query meets a key; the divisor follows (score_divisor)
  float temperature = 1.0f;        ///< softmax(scores / temperature); must be > 0
  bool causal = false;             ///< query i sees keys j ≤ i only
  KeyPadding key_padding;          ///< empty, or one entry per token
  AdditiveWeights additive;        ///< used only when score == Additive
  /// The hand-exercise shortcuts of seeds 001/004: e^x is replaced by 3^x, and the ÷√d_k scaling by
  /// floor(x/2) (the sheet's stand-in for ÷√3). Only for Dot and ScaledDot scores.
  bool hand_shortcuts = false;
  /// Which way the softmax normalises the scaled scores (row convention): Rows, each query's weights
  /// over the keys sum to 1 (the usual attention); Columns, each key's weights over the queries sum to 1
  /// (the page's "softmax down the columns"). The output is weights·V either way. Streaming attention and
  /// the column-convention entry (which already normalises down its columns) accept Rows only.
  Axis axis = Axis::Rows;
};

/// Every intermediate of one head, so a page can show each step. Row convention shapes:
///   Q: T×d_k  K: T×d_k  V: T×d_v  scores, scaled, weights: T×T (query rows, key columns)  output: T×d_v.
/// Column convention: Q, K, V, output transposed; scores, scaled and weights are key rows × query
/// columns (Kᵀ·Q), and each column of weights sums to 1.
struct AttentionSteps {
  /// the queries, keys and values (shapes above)
  ///@{
  Matrix Q, K, V;
  ///@}
  Matrix scores;         ///< raw query-key scores (for Additive/Cosine: the score itself)
  Matrix scaled;         ///< scores after ÷√d_k (ScaledDot) and ÷temperature; masked entries are -inf
  Matrix weights;        ///< softmax of scaled; a query whose keys are all masked gets all-zero weights
  Matrix output;         ///< weights applied to V
  double divisor = 1.0;  ///< what the scores were divided by before the temperature (score_divisor, or c)
};

// ---- softmax --------------------------------------------------------------------------------
/// Numerically stable softmax(logits / temperature) along rows (each row sums to 1) or columns.
/// Entries equal to -inf are masked (weight 0); a row or column that is all -inf becomes all zeros.
Matrix softmax(const Matrix& logits, Axis axis = Axis::Rows, float temperature = 1.0f);

/// The hand-exercise version: 3^x in place of e^x, normalised the same way (no max-subtraction, as on
/// paper; the sheet's integer scores are small).
Matrix softmax_base3(const Matrix& logits, Axis axis = Axis::Rows);

/// The by-hand softmax written out as the worksheet asks for it: powers(r, c) = 3^logits(r, c) (exact
/// for the sheet's small integer scores) and sums(k) = the sum of line k (row k for Rows, column k for
/// Columns), so that softmax_base3 = powers / sums line by line. Masked (-inf) entries have power 0.
struct Base3Terms {
  Matrix powers;  ///< 3^logits, entry by entry (0 where masked)
  Vector sums;    ///< the sum of each row (Rows) or column (Columns) of powers
};
/// The powers and line sums of softmax_base3(logits, axis), for the worksheet (Base3Terms).
Base3Terms softmax_base3_terms(const Matrix& logits, Axis axis = Axis::Rows);

// ---- scores (row convention: one query per row of Q, one key per row of K; result T_q × T_k) --------
/// Each q·k is summed in double and rounded to float once (after ÷√d_k for scaled dot): every score is the
/// correctly rounded exact value, the most float32 can hold.
Matrix dot_scores(const Matrix& Q, const Matrix& K);
Matrix scaled_dot_scores(const Matrix& Q, const Matrix& K);  ///< Q·Kᵀ / √d_k
Matrix cosine_scores(const Matrix& Q, const Matrix& K);      ///< a zero vector scores 0 with anything
Matrix unit_rows(const Matrix& M);  ///< each row ÷ its length (a zero row stays zero): cosine = dot of these
/// Additive (Bahdanau) scores: score(i, j) = vᵀ tanh(W₁q_i + W₂k_j).
Matrix additive_scores(const Matrix& Q, const Matrix& K, const AdditiveWeights& w);

/// The one place the divisor of the scores is chosen: √d for ScaledDot (d = d_k, the width of the
/// queries; for parameter-free attention Q = X, so d = d_model), 1 for Dot, Cosine and Additive. Every
/// entry point (attention, parameter-free, multi-head, streaming) divides by what this returns.
double score_divisor(Score score, Index d);

// ---- masks ----------------------------------------------------------------------------------
/// Sets masked entries of scores (T_q × T_k, row convention) to -inf: causal hides keys after the
/// query; key_padding hides whole key columns.
void apply_mask(Matrix& scores, bool causal, const KeyPadding& key_padding);

// ---- self-attention ------------------------------------------------------------------------
/// Parameter-free self-attention (seed 000, equation I): weights = softmax(X·Xᵀ / constant), output =
/// weights·X. Q = K = V = X. Uses options' temperature, mask and shortcuts; its score must be Dot,
/// or Cosine for softmax(cos(x_i, x_j) / constant) (seeds 000/001: the dot product as a cosine).
AttentionSteps parameter_free_attention(const Matrix& X, float constant, const AttentionOptions& options = {});
/// The same with the divisor chosen by score_divisor from options.score: ScaledDot divides by √d_model,
/// Dot and Cosine by 1 (the page's parameter-free attention; steps.divisor says what it was). The
/// constant is rounded to float as the overload above takes it, so both give the same numbers.
AttentionSteps parameter_free_attention(const Matrix& X, const AttentionOptions& options);

/// Single-head attention in the row convention: Q = X·W_Q + b_Q, K = X·W_K + b_K, V = X·W_V + b_V,
/// weights = softmax(score(Q, K) / temperature) with masks, output = weights·V.
AttentionSteps attention(const Matrix& X, const HeadWeights& w, const AttentionOptions& options = {});

/// The same from given Q, K, V (no projections; V: T_k × d_v): every intermediate, like attention().
/// The benchmark times scaled dot-product attention with it on the same inputs as its peers.
AttentionSteps attention_from_qkv(Matrix Q, Matrix K, Matrix V, const AttentionOptions& options = {});

/// The same in the column convention of the by-hand sheets: X is d_model × T, Q = W_Q·X + b_Q, scores =
/// Kᵀ·Q, softmax down each column, Z = V·A. Equals attention() transposed.
AttentionSteps attention_by_columns(const Matrix& X, const HeadWeights& w, const AttentionOptions& options = {});

/// The terms behind one query's row, for showing the sums written out (row convention):
///   products(j, :) = q_i ∘ k_j   (T_k × d_k; for dot scores each row sums to score(i, j))
///   weighted(j, :) = α(i, j)·v_j (T_k × d_v; the rows sum to output row i)
struct QueryTerms {
  Matrix products;  ///< row j: q_i ∘ k_j
  Matrix weighted;  ///< row j: α(i, j)·v_j
};
/// The terms (QueryTerms) of query row `query`, from a head's Q, K, V and weights.
QueryTerms query_terms(const Matrix& Q, const Matrix& K, const Matrix& V, const Matrix& weights, Index query);

/// The weighted sum on its own: output = weights·V (T_q × T_k · T_k × d_v), for weights that did not
/// come out of attention() (seed 003's article rounds its weights to one decimal before this step; a
/// softmax down the columns, softmax(scaled, Axis::Columns), is another).
Matrix weighted_sum(const Matrix& weights, const Matrix& V);

/// Multi-head attention: each head attends with its own projections, the head outputs are concatenated
/// (T × Σd_v) and projected by W_O (Σd_v × d_out) plus b_O.
struct MultiHeadWeights {
  std::vector<HeadWeights> heads;  ///< one per head
  Matrix W_O;                      ///< the output projection, Σd_v × d_out
  Vector b_O;                      ///< its bias (d_out entries), or empty
};
/// Every head's steps, their concatenation and the projected output.
struct MultiHeadSteps {
  std::vector<AttentionSteps> heads;  ///< each head's Q, K, V, scores, weights and output
  Matrix concat;                      ///< T × Σd_v
  Matrix output;                      ///< T × d_out
};
/// Multi-head attention of X (row convention) with the heads and W_O of w: MultiHead(X) = concat(head_h)·W_O + b_O.
MultiHeadSteps multi_head_attention(const Matrix& X, const MultiHeadWeights& w, const AttentionOptions& options = {});

/// Splits one d_model × d_model projection per role into `heads` equal column blocks, the way
/// nn.MultiheadAttention lays out its weights (head h uses columns [h·d_k, (h+1)·d_k)).
MultiHeadWeights split_heads(const Matrix& W_Q, const Matrix& W_K, const Matrix& W_V, const Matrix& W_O, Index heads);

/// A batch N × T × d stored as N row-major T × d blocks, one after another.
struct Batch {
  /// items, tokens per item, values per token
  ///@{
  Index N = 0, T = 0, d = 0;
  ///@}
  std::vector<float> data;  ///< N·T·d values

  Batch() = default;
  /// An n × t × dim batch of zeros.
  Batch(Index n, Index t, Index dim) : N(n), T(t), d(dim), data(static_cast<std::size_t>(n * t * dim)) {}
  /// Item n as a T × d matrix over the batch's own values (no copy).
  ///@{
  Eigen::Map<Matrix> item(Index n) { return {data.data() + n * T * d, T, d}; }
  Eigen::Map<const Matrix> item(Index n) const { return {data.data() + n * T * d, T, d}; }
  ///@}
};

/// Multi-head attention over every sequence of a batch. key_padding: empty, or N masks of length T
/// (padded positions of shorter sentences). Returns output N × T × d_out and weights per item and head.
struct BatchResult {
  Batch output;                              ///< N × T × d_out
  std::vector<std::vector<Matrix>> weights;  ///< [n][head]: T × T
};
/// Multi-head attention of each item of X, with its padding mask (see above).
BatchResult batched_attention(const Batch& X, const MultiHeadWeights& w, const AttentionOptions& options,
                              const std::vector<KeyPadding>& key_padding = {});

// ---- checks (used by every entry point; public so bindings can validate their own inputs) ---------
std::string shape_of(const Matrix& m);  ///< "3×4"
/// Throws AttentionError on the first NaN/Inf of m or v, naming the operand and the entry.
///@{
void require_finite(const Matrix& m, const char* name);
void require_finite(const Vector& v, const char* name);
///@}

}  // namespace attn

// Self-attention, one head: parameter-free (equation I), projected Q/K/V (equation II) in the row
// convention, and the by-hand column convention. Each step is kept so a page can show it.
#include <cmath>

#include "attention/attention.hpp"
#include "checks.hpp"
#include "kernels.hpp"

namespace attn {
namespace {

using detail::fail;
using detail::ll;
using detail::require_no_overflow;

// weights·V: row i of the result is Σ_j weights(i, j)·v_j (the weighted sum of the values).
Matrix times(const Matrix& weights, const Matrix& V) {
  if constexpr (kernels::kUseForWeightsV)
    return kernels::multiply(weights, V);  // wasm: see kernels.hpp
  else
    return weights * V;
}

void require_sequence(const Matrix& X, const char* layout) {
  if (X.rows() == 0 || X.cols() == 0)
    fail("X is %s (%s); it needs at least one token and one feature", shape_of(X).c_str(), layout);
  require_finite(X, "X");
}

void require_options(const AttentionOptions& o) {
  detail::require_temperature(o.temperature);
  if (o.axis != Axis::Rows && o.axis != Axis::Columns) fail("the softmax axis must be Rows or Columns");
  if (o.hand_shortcuts && (o.score == Score::Cosine || o.score == Score::Additive))
    fail("the hand shortcuts (3^x, floor(x/2)) apply to dot and scaled-dot scores only");
}

// Checks one projection W and its optional bias. `rows_are_input` says which side of W meets X:
// row convention W is d_model×d_out (rows meet X), column convention W is d_out×d_model.
void require_projection(const Matrix& W, Index d_model, bool rows_are_input, const Vector& bias, const char* name,
                        const char* bias_name, const char* layout) {
  const Index input_side = rows_are_input ? W.rows() : W.cols();
  const Index out = rows_are_input ? W.cols() : W.rows();
  if (input_side != d_model || out == 0)
    fail(rows_are_input ? "%s is %s but must be %lld×d_out with d_out ≥ 1 (%s)"
                        : "%s is %s but must be d_out×%lld with d_out ≥ 1 (%s)",
         name, shape_of(W).c_str(), ll(d_model), layout);
  require_finite(W, name);
  if (bias.size() != 0) detail::require_length(bias, out, bias_name, name);
}

// Q·W (+ b on every row).
Matrix project(const Matrix& X, const Matrix& W, const Vector& b) {
  Matrix out = kernels::kUseForWeightsV ? kernels::multiply(X, W) : Matrix(X * W);  // wasm: see kernels.hpp
  if (b.size() != 0) out.rowwise() += b.transpose();
  return out;
}

// The shared tail of every head, row convention. `divisor` is √d_k for scaled dot and the constant c
// for parameter-free attention (1 when nothing is divided).
AttentionSteps attend(Matrix Q, Matrix K, Matrix V, const AttentionOptions& o, double divisor) {
  require_no_overflow(Q, "Q");
  require_no_overflow(K, "K");
  require_no_overflow(V, "V");
  AttentionSteps s;
  // Steps 1 and 2: raw scores, T×T (query rows, key columns), then ÷ the scale (÷√d_k or c, or the
  // sheet's floor(x/2)) and the temperature.
  if ((o.score == Score::Dot || o.score == Score::ScaledDot) && !o.hand_shortcuts) {
    // Each q·k is summed in double and rounded to float once raw and once ÷ divisor·temperature, both
    // from the same sum: every score is the correctly rounded exact value (kernels.hpp). Rounding it
    // again on the way (÷√d_k, ÷T) would add to the error the softmax turns into relative error.
    s.scores.resize(Q.rows(), K.rows());
    s.scaled.resize(Q.rows(), K.rows());
    kernels::multiply_transposed(Q.data(), Q.cols(), K.data(), K.cols(), s.scores.data(), K.rows(), Q.rows(), K.rows(),
                                 Q.cols(), 1.0, s.scaled.data(), 1.0 / (divisor * o.temperature));
  } else {
    switch (o.score) {
      case Score::Dot:
      case Score::ScaledDot: s.scores = dot_scores(Q, K); break;
      case Score::Cosine: s.scores = cosine_scores(Q, K); break;
      case Score::Additive: s.scores = additive_scores(Q, K, o.additive); break;
    }
    if (o.hand_shortcuts && o.score == Score::ScaledDot)
      s.scaled = s.scores.unaryExpr([](float x) { return std::floor(x / 2.0f); });
    else
      s.scaled = s.scores / static_cast<float>(divisor);
    if (o.temperature != 1.0f) s.scaled /= o.temperature;
  }
  require_no_overflow(s.scores, "the scores");
  require_no_overflow(s.scaled, "the scores ÷ scale ÷ temperature");
  // Step 3: masks turn hidden pairs into -inf, which softmax maps to weight 0.
  apply_mask(s.scaled, o.causal, o.key_padding);
  // Step 4: softmax along each query's row, or down each key's column when asked (3^x on the sheet).
  s.weights = o.hand_shortcuts ? softmax_base3(s.scaled, o.axis) : softmax(s.scaled, o.axis);
  // Step 5: weighted sum of values, T×T · T×d_v = T×d_v.
  s.output = times(s.weights, V);
  require_no_overflow(s.output, "the output weights·V");
  s.Q = std::move(Q);
  s.K = std::move(K);
  s.V = std::move(V);
  s.divisor = divisor;
  return s;
}

}  // namespace

double score_divisor(Score score, Index d) {
  return score == Score::ScaledDot ? std::sqrt(static_cast<double>(d)) : 1.0;
}

AttentionSteps parameter_free_attention(const Matrix& X, float constant, const AttentionOptions& options) {
  require_sequence(X, "T tokens × d features");
  require_options(options);
  if (options.score != Score::Dot && options.score != Score::Cosine)
    fail(
        "parameter-free attention scores with the plain dot product x_i·x_j (or its cosine); set score to Dot or "
        "Cosine");
  if (!(constant > 0) || !std::isfinite(constant))
    fail("the constant c in softmax(X·Xᵀ / c) must be a finite number > 0, got %g", double{constant});
  // No learned weights: Q = K = V = X.
  return attend(X, X, X, options, constant);
}

AttentionSteps parameter_free_attention(const Matrix& X, const AttentionOptions& options) {
  if (options.score != Score::Dot && options.score != Score::ScaledDot && options.score != Score::Cosine)
    fail(
        "parameter-free attention scores with x_i·x_j, x_i·x_j/√d_model or their cosine; set score to Dot, ScaledDot "
        "or Cosine");
  AttentionOptions o = options;
  const float constant = static_cast<float>(score_divisor(options.score, X.cols()));
  if (o.score == Score::ScaledDot) o.score = Score::Dot;  // the √d_model is the constant
  return parameter_free_attention(X, constant, o);
}

AttentionSteps attention(const Matrix& X, const HeadWeights& w, const AttentionOptions& options) {
  require_sequence(X, "row convention: T tokens × d_model");
  require_options(options);
  const Index d_model = X.cols();
  const char* layout = "row convention: X is T×d_model, weights are d_model×d_k";
  require_projection(w.W_Q, d_model, true, w.b_Q, "W_Q", "b_Q", layout);
  require_projection(w.W_K, d_model, true, w.b_K, "W_K", "b_K", layout);
  require_projection(w.W_V, d_model, true, w.b_V, "W_V", "b_V", layout);
  const Index d_k = w.W_Q.cols();
  if (w.W_K.cols() != d_k)
    fail("W_Q (%s) and W_K (%s) must give queries and keys of the same length d_k", shape_of(w.W_Q).c_str(),
         shape_of(w.W_K).c_str());
  Matrix Q = project(X, w.W_Q, w.b_Q);  // T×d_k
  Matrix K = project(X, w.W_K, w.b_K);  // T×d_k
  Matrix V = project(X, w.W_V, w.b_V);  // T×d_v
  return attend(std::move(Q), std::move(K), std::move(V), options, score_divisor(options.score, d_k));
}

AttentionSteps attention_from_qkv(Matrix Q, Matrix K, Matrix V, const AttentionOptions& options) {
  require_options(options);
  detail::require_qkv(Q, K, V, "attention from Q, K, V");
  const double divisor = score_divisor(options.score, Q.cols());
  return attend(std::move(Q), std::move(K), std::move(V), options, divisor);
}

QueryTerms query_terms(const Matrix& Q, const Matrix& K, const Matrix& V, const Matrix& weights, Index query) {
  if (Q.cols() != K.cols() || K.rows() != V.rows() || weights.rows() != Q.rows() || weights.cols() != K.rows())
    fail(
        "query terms: Q %s, K %s, V %s and weights %s do not belong together (weights must be T_q×T_k, V must "
        "have T_k rows)",
        shape_of(Q).c_str(), shape_of(K).c_str(), shape_of(V).c_str(), shape_of(weights).c_str());
  if (query < 0 || query >= Q.rows()) fail("query %lld is outside 0..%lld", ll(query), ll(Q.rows() - 1));
  QueryTerms terms;
  // q_i ∘ k_j for every key j: K with each row multiplied entrywise by q_i.
  terms.products = K.array().rowwise() * Q.row(query).array();  // T_k × d_k
  // α(i, j)·v_j for every key j: V with row j scaled by the weight key j got.
  terms.weighted = V.array().colwise() * weights.row(query).transpose().array();  // T_k × d_v
  return terms;
}

Matrix weighted_sum(const Matrix& weights, const Matrix& V) {
  if (weights.cols() != V.rows() || weights.size() == 0 || V.size() == 0)
    fail("weighted sum: weights %s · V %s needs one row of V per column of the weights, and neither empty",
         shape_of(weights).c_str(), shape_of(V).c_str());
  require_finite(weights, "weights");
  require_finite(V, "V");
  Matrix out = times(weights, V);  // T_q × d_v
  require_no_overflow(out, "the weighted sum weights·V");
  return out;
}

AttentionSteps attention_by_columns(const Matrix& X, const HeadWeights& w, const AttentionOptions& options) {
  require_sequence(X, "column convention: d_model features × T tokens");
  const Index d_model = X.rows();
  const char* layout = "column convention: X is d_model×T, weights are d_k×d_model";
  require_projection(w.W_Q, d_model, false, w.b_Q, "W_Q", "b_Q", layout);
  require_projection(w.W_K, d_model, false, w.b_K, "W_K", "b_K", layout);
  require_projection(w.W_V, d_model, false, w.b_V, "W_V", "b_V", layout);
  // Q = W_Q·X is (Xᵀ·W_Qᵀ)ᵀ, Kᵀ·Q is (Q_row·K_rowᵀ)ᵀ, and a softmax down columns is the row softmax
  // transposed: the column convention is the row convention read sideways.
  if (options.axis != Axis::Rows)
    fail("the column convention already normalises down its columns (one per query); leave the axis at Rows");
  const HeadWeights row_weights{w.W_Q.transpose(), w.W_K.transpose(), w.W_V.transpose(), w.b_Q, w.b_K, w.b_V};
  AttentionSteps s = attention(X.transpose(), row_weights, options);
  s.Q.transposeInPlace();       // d_k×T
  s.K.transposeInPlace();       // d_k×T
  s.V.transposeInPlace();       // d_v×T
  s.scores.transposeInPlace();  // T×T: key rows, query columns (Kᵀ·Q)
  s.scaled.transposeInPlace();
  s.weights.transposeInPlace();  // each column sums to 1
  s.output.transposeInPlace();   // Z = V·A, d_v×T
  return s;
}

}  // namespace attn

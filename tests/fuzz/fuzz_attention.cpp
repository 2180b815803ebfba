// libFuzzer target: every maths entry point of the core (softmax, softmax_base3, the four score
// functions and masks, parameter-free, single-head in both conventions, multi-head, split_heads,
// batched) with random shapes, options and values (small numbers, raw float bits, and extremes:
// ±1e4, ±1e30, FLT_MAX, denormals, ±Inf, NaN). Contract checked on every call:
//   * any NaN/Inf input (other than -Inf logits in softmax) is refused with AttentionError;
//   * nothing but AttentionError is thrown; shapes that do not fit are refused;
//   * an accepted call returns finite Q, K, V, scores and outputs, and weights in [0, 1] whose rows
//     sum to 1 (all zero when every key of the row is masked).
#include <fuzzer/FuzzedDataProvider.h>

#include <cmath>
#include <limits>

#include "attention/streaming.hpp"
#include "attention/transformer.hpp"
#include "common.hpp"

using namespace attn;

namespace {

constexpr float kExtremes[] = {0.0f,
                               -0.0f,
                               1.0f,
                               -1.0f,
                               1e4f,
                               -1e4f,
                               1e30f,
                               -1e30f,
                               std::numeric_limits<float>::max(),
                               -std::numeric_limits<float>::max(),
                               std::numeric_limits<float>::denorm_min(),
                               -std::numeric_limits<float>::denorm_min(),
                               std::numeric_limits<float>::min(),
                               1e-30f,
                               std::numeric_limits<float>::infinity(),
                               -std::numeric_limits<float>::infinity(),
                               std::numeric_limits<float>::quiet_NaN()};

struct Gen {
  FuzzedDataProvider& in;
  int mode;  // 0: small numbers, 1: raw bits, 2: extremes mixed in
  bool any_nonfinite = false;

  float value() {
    float x;
    switch (mode) {
      case 0: x = static_cast<float>(in.ConsumeIntegralInRange<int>(-64, 64)) / 16.0f; break;
      case 1: {
        const std::uint32_t bits = in.ConsumeIntegral<std::uint32_t>();
        std::memcpy(&x, &bits, 4);
        break;
      }
      default:
        x = in.ConsumeBool() ? kExtremes[in.ConsumeIntegralInRange<std::size_t>(0, std::size(kExtremes) - 1)]
                             : static_cast<float>(in.ConsumeIntegralInRange<int>(-64, 64)) / 16.0f;
    }
    if (!std::isfinite(x)) any_nonfinite = true;
    return x;
  }
  Matrix matrix(Index r, Index c) {
    Matrix m(r, c);
    for (Index i = 0; i < m.size(); ++i) m.data()[i] = value();
    return m;
  }
  Vector vector(Index n) {
    Vector v(n);
    for (Index i = 0; i < n; ++i) v(i) = value();
    return v;
  }
  // Mostly `want`, sometimes a wrong size (0 included) to exercise the shape checks.
  Index dim(Index want) {
    return in.ConsumeIntegralInRange<int>(0, 15) == 0 ? in.ConsumeIntegralInRange<Index>(0, 9) : want;
  }
};

AttentionOptions options(FuzzedDataProvider& in, Gen& g, Index T, Index d_k) {
  AttentionOptions o;
  o.score = static_cast<Score>(in.ConsumeIntegralInRange<int>(0, 3));
  switch (in.ConsumeIntegralInRange<int>(0, 3)) {
    case 0: o.temperature = 1.0f; break;
    case 1: o.temperature = static_cast<float>(in.ConsumeIntegralInRange<int>(1, 64)) / 16.0f; break;
    default: o.temperature = g.value();
  }
  if (!std::isfinite(o.temperature)) g.any_nonfinite = true;
  o.causal = in.ConsumeBool();
  if (in.ConsumeBool()) {
    const Index n = g.dim(T);
    for (Index i = 0; i < n; ++i) o.key_padding.push_back(in.ConsumeBool());
  }
  if (o.score == Score::Additive) {
    const Index d_a = in.ConsumeIntegralInRange<Index>(0, 8);
    o.additive.W1 = g.matrix(d_a, g.dim(d_k));
    o.additive.W2 = g.matrix(d_a, g.dim(d_k));
    o.additive.v = g.vector(g.dim(d_a));
  }
  o.hand_shortcuts = in.ConsumeIntegralInRange<int>(0, 7) == 0;
  return o;
}

void check_steps(const AttentionSteps& s, bool by_columns, const char* what) {
  fuzz::check_finite(s.Q, what);
  fuzz::check_finite(s.K, what);
  fuzz::check_finite(s.V, what);
  fuzz::check_finite(s.scores, what);
  fuzz::check_finite(s.output, what);
  fuzz::check_weights(s.weights, s.scaled, by_columns);
}

HeadWeights head(Gen& g, Index d_model, Index d_k, Index d_v, bool bias, bool columns) {
  HeadWeights w;
  w.W_Q = columns ? g.matrix(d_k, g.dim(d_model)) : g.matrix(g.dim(d_model), d_k);
  w.W_K = columns ? g.matrix(g.dim(d_k), d_model) : g.matrix(d_model, g.dim(d_k));
  w.W_V = columns ? g.matrix(d_v, d_model) : g.matrix(d_model, d_v);
  if (bias) {
    w.b_Q = g.vector(g.dim(d_k));
    w.b_K = g.vector(d_k);
    w.b_V = g.vector(d_v);
  }
  return w;
}

void run(FuzzedDataProvider& in) {
  Gen g{in, in.ConsumeIntegralInRange<int>(0, 2)};
  const int entry = in.ConsumeIntegralInRange<int>(0, 11);
  const Index T = in.ConsumeIntegralInRange<Index>(0, 40);
  const Index d = in.ConsumeIntegralInRange<Index>(0, 40);
  const Index d_k = in.ConsumeIntegralInRange<Index>(0, 16);
  const Index d_v = in.ConsumeIntegralInRange<Index>(0, 16);
  const bool bias = in.ConsumeBool();
  switch (entry) {
    case 0: {  // softmax, rows or columns; -inf entries are masks, not errors
      Matrix logits = g.matrix(T, d);
      const bool cols = in.ConsumeBool();
      float t = in.ConsumeBool() ? 1.0f : g.value();
      bool bad = !std::isfinite(t);
      for (Index i = 0; i < logits.size(); ++i)
        if (std::isnan(logits.data()[i]) || logits.data()[i] == INFINITY) bad = true;
      const Matrix w = softmax(logits, cols ? Axis::Columns : Axis::Rows, t);
      FUZZ_CHECK(!bad, "softmax accepted NaN/+Inf");
      fuzz::check_weights(w, logits, cols);
      return;
    }
    case 1: {
      Matrix logits = g.matrix(T, d);
      bool bad = false;
      for (Index i = 0; i < logits.size(); ++i)
        if (std::isnan(logits.data()[i]) || logits.data()[i] == INFINITY) bad = true;
      const bool cols = in.ConsumeBool();
      const Matrix w = softmax_base3(logits, cols ? Axis::Columns : Axis::Rows);
      FUZZ_CHECK(!bad, "softmax_base3 accepted NaN/+Inf");
      for (Index i = 0; i < w.size(); ++i) FUZZ_CHECK(std::isfinite(w.data()[i]) && w.data()[i] >= 0, "3^x weights");
      return;
    }
    case 2: {  // a score function and the masks
      const Matrix Q = g.matrix(T, d_k), K = g.matrix(in.ConsumeIntegralInRange<Index>(0, 40), g.dim(d_k));
      const AttentionOptions o = options(in, g, K.rows(), d_k);
      Matrix s;
      switch (o.score) {
        case Score::Dot: s = dot_scores(Q, K); break;
        case Score::ScaledDot: s = scaled_dot_scores(Q, K); break;
        case Score::Cosine: s = cosine_scores(Q, K); break;
        case Score::Additive: s = additive_scores(Q, K, o.additive); break;
      }
      FUZZ_CHECK(s.rows() == Q.rows() && s.cols() == K.rows(), "scores shape");
      if (o.score == Score::Cosine && Q.allFinite() && K.allFinite())
        for (Index i = 0; i < s.size(); ++i) FUZZ_CHECK(!std::isnan(s.data()[i]), "cosine NaN from finite input");
      apply_mask(s, o.causal, o.key_padding);
      return;
    }
    case 3: {
      const Matrix X = g.matrix(T, d);
      AttentionOptions o = options(in, g, T, d);
      const float c = in.ConsumeBool() ? std::sqrt(static_cast<float>(std::max<Index>(d, 1))) : g.value();
      if (!std::isfinite(c)) g.any_nonfinite = true;
      const AttentionSteps s = parameter_free_attention(X, c, o);
      FUZZ_CHECK(!g.any_nonfinite, "parameter_free accepted NaN/Inf");
      check_steps(s, false, "parameter_free");
      return;
    }
    case 4:
    case 5: {
      const bool columns = entry == 5;
      const Matrix X = columns ? g.matrix(d, T) : g.matrix(T, d);
      const HeadWeights w = head(g, d, d_k, d_v, bias, columns);
      const AttentionOptions o = options(in, g, T, d_k);
      const AttentionSteps s = columns ? attention_by_columns(X, w, o) : attention(X, w, o);
      FUZZ_CHECK(!g.any_nonfinite, "attention accepted NaN/Inf");
      check_steps(s, columns, columns ? "attention_by_columns" : "attention");
      return;
    }
    case 6:
    case 7: {
      const Index heads = in.ConsumeIntegralInRange<Index>(0, 4);
      MultiHeadWeights w;
      for (Index h = 0; h < heads; ++h) w.heads.push_back(head(g, d, d_k, d_v, bias, false));
      const Index d_out = in.ConsumeIntegralInRange<Index>(0, 8);
      w.W_O = g.matrix(g.dim(heads * d_v), d_out);
      if (in.ConsumeBool()) w.b_O = g.vector(g.dim(d_out));
      const AttentionOptions o = options(in, g, T, d_k);
      if (entry == 6) {
        const Matrix X = g.matrix(T, d);
        const MultiHeadSteps s = multi_head_attention(X, w, o);
        FUZZ_CHECK(!g.any_nonfinite, "multi_head accepted NaN/Inf");
        for (const AttentionSteps& h : s.heads) check_steps(h, false, "multi_head");
        fuzz::check_finite(s.output, "multi_head output");
      } else {
        const Index N = in.ConsumeIntegralInRange<Index>(0, 4);
        Batch b(N, T, d);
        for (float& x : b.data) x = g.value();
        std::vector<KeyPadding> pads;
        if (in.ConsumeBool())
          for (Index n = 0, count = g.dim(N); n < count; ++n) {
            KeyPadding p;
            for (Index t = 0, len = g.dim(T); t < len; ++t) p.push_back(in.ConsumeBool());
            pads.push_back(p);
          }
        const BatchResult r = batched_attention(b, w, o, pads);
        FUZZ_CHECK(!g.any_nonfinite, "batched accepted NaN/Inf");
        FUZZ_CHECK(r.output.N == N && r.output.T == T, "batch output shape");
        for (float x : r.output.data) FUZZ_CHECK(std::isfinite(x), "batched output not finite");
      }
      return;
    }
    case 10: {  // streaming (online softmax) output against the full path on the same Q, K, V
      const Matrix Q = g.matrix(T, d_k), K = g.matrix(T, g.dim(d_k)), V = g.matrix(T, d_v);
      const AttentionOptions o = options(in, g, T, d_k);
      const Matrix out = streaming_attention_output(Q, K, V, o);
      FUZZ_CHECK(!g.any_nonfinite, "streaming accepted NaN/Inf");
      FUZZ_CHECK(out.rows() == T && out.cols() == d_v, "streaming output shape");
      fuzz::check_finite(out, "streaming output");
      // X = [Q K V] and 0/1 selection matrices reproduce Q, K, V exactly in attention().
      Matrix X(T, 2 * d_k + d_v);
      X << Q, K, V;
      HeadWeights w{Matrix::Zero(X.cols(), d_k), Matrix::Zero(X.cols(), d_k), Matrix::Zero(X.cols(), d_v), {}, {}, {}};
      w.W_Q.topRows(d_k).setIdentity();
      w.W_K.middleRows(d_k, d_k).setIdentity();
      w.W_V.bottomRows(d_v).setIdentity();
      AttentionSteps full;
      try {
        full = attention(X, w, o);
      } catch (const AttentionError&) {
        return;  // the full path may refuse an overflow the streaming path avoids
      }
      // The two paths round the scores differently (a division against a multiplication by the
      // reciprocal; cosine: their own normalisations), so each logit may differ by about
      // (d_k + 2)·ε·Σ_p |q_p·k_p| / divisor. A softmax moves its weights by at most twice the largest
      // logit change, so each output by 2·δ·max|V|. Large logits (thousands) make that the bound:
      // ulp(8000) = 5e-4 shifted two weights by 3e-4 in a case the fuzzer found.
      const double divisor = (o.score == Score::ScaledDot ? std::sqrt(double(d_k)) : 1.0) * o.temperature;
      const double magnitude =
          o.score == Score::Cosine
              ? 1.0 / o.temperature
              : (Q.cast<double>().cwiseAbs() * K.cast<double>().cwiseAbs().transpose()).maxCoeff() / divisor;
      const double logit_error = double(d_k + 2) * std::numeric_limits<float>::epsilon() * magnitude;
      const double scale = V.cwiseAbs().maxCoeff();
      FUZZ_CHECK((full.output - out).cwiseAbs().maxCoeff() <= (1e-4 + 4 * logit_error) * scale + 1e-30,
                 "streaming and full outputs differ");
      return;
    }
    case 11: {  // the transformer pieces: embedding lookup, positions, LayerNorm, feed-forward, a layer
      switch (in.ConsumeIntegralInRange<int>(0, 4)) {
        case 0: {
          const Matrix table = g.matrix(T, d);
          std::vector<Index> ids;
          for (Index i = 0, n = in.ConsumeIntegralInRange<Index>(0, 8); i < n; ++i)
            ids.push_back(in.ConsumeIntegralInRange<Index>(-2, T + 1));
          const Matrix e = embed_tokens(table, ids);
          FUZZ_CHECK(e.rows() == static_cast<Index>(ids.size()), "embed_tokens rows");
          for (Index id : ids) FUZZ_CHECK(id >= 0 && id < T, "embed_tokens accepted an id outside the table");
          return;
        }
        case 1: {
          const Matrix p = sinusoidal_positions(T, d);
          FUZZ_CHECK(p.rows() == T && p.cols() == d, "positions shape");
          fuzz::check_finite(p, "positions");
          for (Index i = 0; i < p.size(); ++i) FUZZ_CHECK(std::abs(p.data()[i]) <= 1.0f, "|sin|, |cos| > 1");
          return;
        }
        case 2: {
          const Matrix X = g.matrix(T, d);
          const float eps = in.ConsumeBool() ? 1e-5f : g.value();
          const Matrix y = layer_norm(X, g.vector(g.dim(d)), g.vector(g.dim(d)), eps);
          FUZZ_CHECK(!g.any_nonfinite, "layer_norm accepted NaN/Inf");
          fuzz::check_finite(y, "layer_norm");
          return;
        }
        case 3: {
          const Matrix X = g.matrix(T, d);
          FeedForward f{g.matrix(g.dim(d), d_k), g.vector(g.dim(d_k)), g.matrix(g.dim(d_k), d), g.vector(d),
                        in.ConsumeBool() ? Activation::ReLU : Activation::GELU};
          const Matrix y = feed_forward(X, f);
          FUZZ_CHECK(!g.any_nonfinite, "feed_forward accepted NaN/Inf");
          fuzz::check_finite(y, "feed_forward");
          return;
        }
        default: {
          const Index heads = in.ConsumeIntegralInRange<Index>(1, 3);
          const Index width = heads * std::max<Index>(d_k, 1);
          EncoderLayer layer;
          layer.attention = split_heads(g.matrix(d, width), g.matrix(d, width), g.matrix(d, width), g.matrix(width, d),
                                        heads);
          layer.norm1_gamma = g.vector(d);
          layer.norm1_beta = g.vector(d);
          layer.ffn = {g.matrix(d, d_v), g.vector(d_v), g.matrix(d_v, d), g.vector(d), Activation::GELU};
          layer.norm2_gamma = g.vector(d);
          layer.norm2_beta = g.vector(d);
          const Matrix X = g.matrix(T, d);
          const AttentionOptions o = options(in, g, T, std::max<Index>(d_k, 1));
          const EncoderLayerSteps s = encoder_layer(X, layer,
                                                    in.ConsumeBool() ? NormPlacement::Pre : NormPlacement::Post, o);
          FUZZ_CHECK(!g.any_nonfinite, "encoder_layer accepted NaN/Inf");
          fuzz::check_finite(s.output, "encoder_layer output");
          return;
        }
      }
    }
    default: {  // split_heads then multi-head
      const Index heads = in.ConsumeIntegralInRange<Index>(0, 4);
      const Index width = g.dim(heads * d_k);
      const MultiHeadWeights w = split_heads(g.matrix(d, width), g.matrix(d, g.dim(width)), g.matrix(d, g.dim(width)),
                                             g.matrix(g.dim(width), d), heads);
      FUZZ_CHECK(static_cast<Index>(w.heads.size()) == heads, "split_heads head count");
      const Matrix X = g.matrix(T, d);
      const MultiHeadSteps s = multi_head_attention(X, w, {});
      FUZZ_CHECK(!g.any_nonfinite, "split_heads + multi_head accepted NaN/Inf");
      fuzz::check_finite(s.output, "split multi_head output");
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  FuzzedDataProvider in(data, size);
  try {
    run(in);
  } catch (const AttentionError&) {
    // refused with a message: fine
  }
  return 0;
}

// The core against an independent float64 reference: PyTorch's maths and torch.nn.MultiheadAttention,
// 1,000 cases per variant from tests/golden/golden.bin (format and variants: tests/golden/generate.py).
// The inputs are regenerated here bit for bit from each case's seed; their float64 sum must match the
// file's exactly, which proves this generator and the script's agree.
//
// Error measure, per line of each result (a softmax row, or column in the column convention; one
// token's output vector): max |core − reference| / max |reference| over the line. Required ≤ 1e-5.
// (A fully masked line has a zero reference and must be exactly zero.) The element-wise relative error
// max |core − ref| / |ref| is printed too, for the record.
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <iterator>
#include <string>

#include "helpers.hpp"

using namespace attn;

namespace {

const char* const kVariants[] = {"dot",        "scaled_dot", "cosine",     "additive", "parameter_free",
                                 "by_columns", "mha",        "mha_batched"};
constexpr int kVariantCount = 8;
constexpr double kMaxRelativeError = 1e-5;

// The generator of generate.py: a Weyl sequence through the lowbias32 hash.
struct Rng {
  std::uint32_t state;
  double total = 0;
  std::uint32_t next() {
    state += 0x9E3779B9u;
    std::uint32_t x = state;
    x ^= x >> 16;
    x *= 0x7FEB352Du;
    x ^= x >> 15;
    x *= 0x846CA68Bu;
    x ^= x >> 16;
    return x;
  }
  float value(int exp) {
    const float v = std::ldexp(static_cast<float>(static_cast<std::int32_t>(next() >> 8) - 8388608), exp - 23);
    total += v;
    return v;
  }
  Matrix matrix(Index r, Index c, int exp) {
    Matrix m(r, c);
    for (Index i = 0; i < m.size(); ++i) m.data()[i] = value(exp);
    return m;
  }
  Vector vector(Index n, int exp) {
    Vector v(n);
    for (Index i = 0; i < n; ++i) v(i) = value(exp);
    return v;
  }
};

struct Case {
  int variant, score, x_exp, w_exp, heads;
  bool causal, bias, padding;
  Index N, T, d, dk, dv, da;
  float temperature, constant;
  std::uint32_t seed;
  double input_sum;
  std::vector<float> expected;
};

class Reader {
 public:
  explicit Reader(std::vector<char> bytes) : b_(std::move(bytes)) {}
  template <typename T>
  T get() {
    REQUIRE(pos_ + sizeof(T) <= b_.size());
    T v;
    std::memcpy(&v, b_.data() + pos_, sizeof v);
    pos_ += sizeof v;
    return v;
  }
  bool done() const { return pos_ == b_.size(); }

 private:
  std::vector<char> b_;
  std::size_t pos_ = 0;
};

std::vector<Case> load_cases() {
  std::ifstream in(ATTN_GOLDEN_FILE, std::ios::binary);
  REQUIRE(in.good());
  Reader r(std::vector<char>(std::istreambuf_iterator<char>(in), {}));
  char magic[8];
  for (char& c : magic) c = r.get<char>();
  REQUIRE(std::string(magic, 8) == "ATTNGLD1");
  REQUIRE(r.get<std::uint32_t>() == 1);
  const std::uint32_t count = r.get<std::uint32_t>();
  std::vector<Case> cases(count);
  for (Case& c : cases) {
    c.variant = r.get<std::uint8_t>();
    c.score = r.get<std::uint8_t>();
    const std::uint8_t flags = r.get<std::uint8_t>();
    c.causal = flags & 1;
    c.bias = flags & 2;
    c.padding = flags & 4;
    c.x_exp = r.get<std::int8_t>();
    c.w_exp = r.get<std::int8_t>();
    c.heads = r.get<std::uint8_t>();
    c.N = r.get<std::uint16_t>();
    c.T = r.get<std::uint16_t>();
    c.d = r.get<std::uint16_t>();
    c.dk = r.get<std::uint16_t>();
    c.dv = r.get<std::uint16_t>();
    c.da = r.get<std::uint16_t>();
    c.temperature = r.get<float>();
    c.constant = r.get<float>();
    c.seed = r.get<std::uint32_t>();
    c.input_sum = r.get<double>();
    c.expected.resize(r.get<std::uint32_t>());
    for (float& x : c.expected) x = r.get<float>();
  }
  REQUIRE(r.done());
  return cases;
}

struct Errors {
  double weights = 0;          // asserted: line-relative error of the weights
  double output = 0;           // asserted: output error relative to the magnitude of its summands
  double weights_element = 0;  // for the record: max |core − ref| / |ref| over every non-zero weight
  double output_line = 0;      // for the record: output error relative to the line's largest |value|
  std::size_t compared = 0;
};

// The next rows×cols reference values of the file, as a matrix.
Eigen::Map<const Matrix> next_ref(const std::vector<float>& expected, std::size_t& at, Index rows, Index cols) {
  REQUIRE(at + static_cast<std::size_t>(rows * cols) <= expected.size());
  Eigen::Map<const Matrix> ref(expected.data() + at, rows, cols);
  at += static_cast<std::size_t>(rows * cols);
  return ref;
}

// Softmax weights: per line (row, or column in the column convention) max |core − ref| / max |ref|;
// a fully masked line has a zero reference and must be exactly zero.
void compare_weights(const Matrix& actual, const std::vector<float>& expected, std::size_t& at, bool by_columns,
                     Errors& e) {
  const Matrix ref = next_ref(expected, at, actual.rows(), actual.cols());
  REQUIRE(actual.allFinite());
  const Index lines = by_columns ? actual.cols() : actual.rows();
  for (Index i = 0; i < lines; ++i) {
    const Matrix a = by_columns ? Matrix(actual.col(i)) : Matrix(actual.row(i));
    const Matrix x = by_columns ? Matrix(ref.col(i)) : Matrix(ref.row(i));
    const double scale = x.cwiseAbs().maxCoeff(), diff = (a - x).cwiseAbs().maxCoeff();
    if (scale == 0)
      REQUIRE(diff == 0);
    else
      e.weights = std::max(e.weights, diff / scale);
    for (Index j = 0; j < a.size(); ++j)
      if (x(j) != 0)
        e.weights_element = std::max(e.weights_element, std::abs(static_cast<double>(a(j)) - x(j)) / std::abs(x(j)));
  }
  e.compared += static_cast<std::size_t>(actual.size());
}

// An output is a sum of products (weights·V, concat·W_O + b_O, V = X·W_V + b_V): float32 can only be
// asked to be accurate relative to the magnitude of those products, not of a result that cancels to
// nearly 0. `magnitude` is that sum of absolute products, element by element (e.g. |weights|·|V|).
void compare_output(const Matrix& actual, const Matrix& magnitude, const std::vector<float>& expected, std::size_t& at,
                    Errors& e) {
  const Matrix ref = next_ref(expected, at, actual.rows(), actual.cols());
  REQUIRE(actual.allFinite());
  REQUIRE(magnitude.rows() == actual.rows());
  REQUIRE(magnitude.cols() == actual.cols());
  for (Index r = 0; r < actual.rows(); ++r) {
    const double line = ref.row(r).cwiseAbs().maxCoeff();
    for (Index c = 0; c < actual.cols(); ++c) {
      const double diff = std::abs(static_cast<double>(actual(r, c)) - ref(r, c));
      e.output = std::max(e.output, magnitude(r, c) > 0 ? diff / magnitude(r, c) : diff);
      if (line > 0) e.output_line = std::max(e.output_line, diff / line);
    }
  }
  e.compared += static_cast<std::size_t>(actual.size());
}

// |X|·|W| + |b| on every row.
Matrix abs_affine(const Matrix& X, const Matrix& W, const Vector& b) {
  Matrix m = X.cwiseAbs() * W.cwiseAbs();
  if (b.size()) m.rowwise() += b.cwiseAbs().transpose();
  return m;
}

KeyPadding padding_of(Rng& rng, const Case& c) {
  KeyPadding pad;
  if (c.padding)
    for (Index j = 0; j < c.T; ++j) pad.push_back(rng.next() % 4 == 0);
  return pad;
}

void run_case(const Case& c, Errors& e) {
  Rng rng{c.seed};
  std::size_t at = 0;
  AttentionOptions o;
  o.temperature = c.temperature;
  o.causal = c.causal;
  if (c.variant <= 3 || c.variant == 5) {
    const bool columns = c.variant == 5;
    const Matrix X = columns ? rng.matrix(c.d, c.T, c.x_exp) : rng.matrix(c.T, c.d, c.x_exp);
    HeadWeights w;
    if (columns) {
      w.W_Q = rng.matrix(c.dk, c.d, c.w_exp);
      w.W_K = rng.matrix(c.dk, c.d, c.w_exp);
      w.W_V = rng.matrix(c.dv, c.d, c.w_exp);
    } else {
      w.W_Q = rng.matrix(c.d, c.dk, c.w_exp);
      w.W_K = rng.matrix(c.d, c.dk, c.w_exp);
      w.W_V = rng.matrix(c.d, c.dv, c.w_exp);
    }
    if (c.bias) {
      w.b_Q = rng.vector(c.dk, c.w_exp);
      w.b_K = rng.vector(c.dk, c.w_exp);
      w.b_V = rng.vector(c.dv, c.w_exp);
    }
    o.score = static_cast<Score>(c.score);
    if (c.score == 3)
      o.additive = {rng.matrix(c.da, c.dk, c.w_exp), rng.matrix(c.da, c.dk, c.w_exp), rng.vector(c.da, c.w_exp)};
    o.key_padding = padding_of(rng, c);
    REQUIRE(rng.total == c.input_sum);
    const AttentionSteps s = columns ? attention_by_columns(X, w, o) : attention(X, w, o);
    compare_weights(s.weights, c.expected, at, columns, e);
    if (columns) {  // Z = V·A, V = W_V·X + b_V: compare the transposes, in the row layout
      const Matrix magnitude = s.weights.transpose().cwiseAbs() * abs_affine(X.transpose(), w.W_V.transpose(), w.b_V);
      const Matrix ref_rows = next_ref(c.expected, at, s.output.rows(), s.output.cols()).transpose();
      std::size_t zero = 0;
      const std::vector<float> flat(ref_rows.data(), ref_rows.data() + ref_rows.size());
      compare_output(s.output.transpose(), magnitude, flat, zero, e);
    } else {
      compare_output(s.output, s.weights.cwiseAbs() * abs_affine(X, w.W_V, w.b_V), c.expected, at, e);
    }
  } else if (c.variant == 4) {
    const Matrix X = rng.matrix(c.T, c.d, c.x_exp);
    o.score = Score::Dot;
    o.key_padding = padding_of(rng, c);
    REQUIRE(rng.total == c.input_sum);
    const AttentionSteps s = parameter_free_attention(X, c.constant, o);
    compare_weights(s.weights, c.expected, at, false, e);
    compare_output(s.output, s.weights.cwiseAbs() * X.cwiseAbs(), c.expected, at, e);
  } else {
    const Index E = c.d;
    Batch X(c.N, c.T, E);
    for (float& x : X.data) x = rng.value(c.x_exp);
    const Matrix Wq = rng.matrix(E, E, c.w_exp), Wk = rng.matrix(E, E, c.w_exp), Wv = rng.matrix(E, E, c.w_exp),
                 Wo = rng.matrix(E, E, c.w_exp);
    // torch's in_proj_weight rows [h·d_k, (h+1)·d_k) are head h: our columns of W_Q = in_projᵀ.
    MultiHeadWeights w = split_heads(Wq, Wk, Wv, Wo, c.heads);
    if (c.bias) {
      const Vector bq = rng.vector(E, c.w_exp), bk = rng.vector(E, c.w_exp), bv = rng.vector(E, c.w_exp);
      w.b_O = rng.vector(E, c.w_exp);
      for (Index h = 0; h < c.heads; ++h) {
        w.heads[h].b_Q = bq.segment(h * c.dk, c.dk);
        w.heads[h].b_K = bk.segment(h * c.dk, c.dk);
        w.heads[h].b_V = bv.segment(h * c.dv, c.dv);
      }
    }
    std::vector<KeyPadding> pads;
    if (c.padding)
      for (Index n = 0; n < c.N; ++n) {
        const Index length = 1 + rng.next() % c.T;
        KeyPadding p(static_cast<std::size_t>(c.T), 0);
        for (Index j = length; j < c.T; ++j) p[static_cast<std::size_t>(j)] = 1;
        pads.push_back(p);
      }
    REQUIRE(rng.total == c.input_sum);
    o.score = Score::ScaledDot;
    // Magnitude of concat·W_O + b_O with each head's output bounded by |weights_h|·(|X|·|W_V,h| + |b_V,h|).
    auto magnitude = [&](const Matrix& x, const std::vector<Matrix>& head_weights) {
      Matrix concat(x.rows(), c.heads * c.dv);
      for (Index h = 0; h < c.heads; ++h)
        concat.middleCols(h * c.dv, c.dv) = head_weights[static_cast<std::size_t>(h)].cwiseAbs() *
                                            abs_affine(x, w.heads[h].W_V, w.heads[h].b_V);
      return abs_affine(concat, w.W_O, w.b_O);
    };
    if (c.variant == 6) {
      if (c.padding) o.key_padding = pads[0];
      const MultiHeadSteps s = multi_head_attention(X.item(0), w, o);
      std::vector<Matrix> weights;
      for (const AttentionSteps& h : s.heads) {
        compare_weights(h.weights, c.expected, at, false, e);
        weights.push_back(h.weights);
      }
      compare_output(s.output, magnitude(X.item(0), weights), c.expected, at, e);
    } else {
      const BatchResult r = batched_attention(X, w, o, pads);
      for (Index n = 0; n < c.N; ++n) {
        const std::vector<Matrix>& weights = r.weights[static_cast<std::size_t>(n)];
        for (const Matrix& head : weights) compare_weights(head, c.expected, at, false, e);
        compare_output(r.output.item(n), magnitude(X.item(n), weights), c.expected, at, e);
      }
    }
  }
  REQUIRE(at == c.expected.size());
}

}  // namespace

TEST_CASE("the core matches the float64 PyTorch reference on 1,000 cases per variant", "[golden]") {
  const std::vector<Case> cases = load_cases();
  // ATTN_GOLDEN_LIMIT=n checks only the first n cases of each variant (for valgrind).
  const char* limit_env = std::getenv("ATTN_GOLDEN_LIMIT");
  const int limit = limit_env ? std::atoi(limit_env) : 1 << 30;
  Errors errors[kVariantCount];
  int counts[kVariantCount] = {};
  for (const Case& c : cases) {
    REQUIRE(c.variant >= 0);
    REQUIRE(c.variant < kVariantCount);
    if (counts[c.variant] >= limit) continue;
    INFO("variant " << kVariants[c.variant] << ", seed " << c.seed << ", T " << c.T << ", d " << c.d);
    run_case(c, errors[c.variant]);
    ++counts[c.variant];
  }
  for (int v = 0; v < kVariantCount; ++v) {
    const Errors& e = errors[v];
    std::cout << "golden " << kVariants[v] << ": " << counts[v] << " cases, " << e.compared
              << " values; max relative error: weights " << e.weights << ", outputs " << e.output
              << " (for the record: weights element-wise " << e.weights_element << ", outputs line-relative "
              << e.output_line << ")\n";
    INFO("variant " << kVariants[v]);
    if (!limit_env) CHECK(counts[v] >= 1000);
    CHECK(e.weights <= kMaxRelativeError);
    CHECK(e.output <= kMaxRelativeError);
  }
}

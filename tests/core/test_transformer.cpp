// Transformer blocks: positional encoding and LayerNorm by their formulas, feed-forward by loops, and
// whole encoder layers (post- and pre-norm, ReLU and GELU, stacked) against PyTorch's
// nn.TransformerEncoderLayer (tests/reference/transformer_cases.txt, made by make_transformer_cases.py).
#include <cmath>
#include <fstream>
#include <map>
#include <sstream>

#include "attention/transformer.hpp"
#include "helpers.hpp"

using namespace attn;
using Catch::Contains;

TEST_CASE("sinusoidal positions follow sin/cos(pos / 10000^(2i/d))", "[transformer]") {
  const Matrix pe = sinusoidal_positions(50, 6);
  REQUIRE(pe.rows() == 50);
  REQUIRE(pe.cols() == 6);
  for (Index pos : {0, 1, 7, 49})
    for (Index i = 0; i < 3; ++i) {
      const double angle = pos / std::pow(10000.0, 2.0 * i / 6);
      REQUIRE(pe(pos, 2 * i) == Approx(std::sin(angle)).margin(1e-6));
      REQUIRE(pe(pos, 2 * i + 1) == Approx(std::cos(angle)).margin(1e-6));
    }
  REQUIRE(pe.row(0) == rows({{0, 1, 0, 1, 0, 1}}));
  const Matrix odd = sinusoidal_positions(3, 5);  // an odd width ends with a sine column
  REQUIRE(odd(2, 4) == Approx(std::sin(2 / std::pow(10000.0, 4.0 / 5))).margin(1e-6));
  REQUIRE_THROWS_WITH(sinusoidal_positions(0, 4), Contains("T ≥ 1"));
}

TEST_CASE("LayerNorm: zero mean, unit variance, then gamma and beta", "[transformer]") {
  const Matrix X = rows({{1, 2, 3}, {10, 10, 10}, {1e6f, 1e6f + 2, 1e6f + 4}});
  const Matrix plain = layer_norm(X, Vector::Ones(3), Vector::Zero(3));
  const float a = std::sqrt(1.5f);  // (x - 2) / sqrt(2/3) for x = 1, 3, up to eps
  require_close(plain.row(0), rows({{-a, 0, a}}), 1e-4f);
  require_close(plain.row(1), rows({{0, 0, 0}}), 0.0f);    // constant row: 0 / sqrt(eps)
  require_close(plain.row(2), rows({{-a, 0, a}}), 1e-4f);  // a large offset keeps its spread
  const Matrix scaled = layer_norm(X, vec({2, 1, 0}), vec({0, 1, 5}));
  require_close(scaled.row(0), rows({{-2 * a, 1, 5}}), 2e-4f);
  REQUIRE_THROWS_WITH(layer_norm(X, Vector::Ones(2), Vector::Zero(3)), Contains("gamma has 2 entries"));
}

TEST_CASE("feed-forward equals act(X·W1 + b1)·W2 + b2 by loops", "[transformer]") {
  const Matrix X = rows({{1, -2}, {0.5f, 3}});
  FeedForward f{rows({{1, -1, 0.5f}, {0.25f, 2, -1}}), vec({0.1f, 0, -0.2f}), rows({{1, 0}, {0, 1}, {1, 1}}),
                vec({0, 0.5f})};
  for (Activation act : {Activation::ReLU, Activation::GELU}) {
    f.activation = act;
    const Matrix out = feed_forward(X, f);
    for (Index t = 0; t < 2; ++t)
      for (Index o = 0; o < 2; ++o) {
        double total = f.b2(o);
        for (Index h = 0; h < 3; ++h) {
          double pre = f.b1(h);
          for (Index k = 0; k < 2; ++k) pre += double(X(t, k)) * f.W1(k, h);
          const double hidden = act == Activation::ReLU ? std::max(pre, 0.0)
                                                        : 0.5 * pre * (1 + std::erf(pre / std::sqrt(2.0)));
          total += hidden * f.W2(h, o);
        }
        REQUIRE(out(t, o) == Approx(total).margin(1e-5));
      }
  }
  REQUIRE_THROWS_WITH(feed_forward(rows({{1, 2, 3}}), f), Contains("do not fit an input of 3 columns"));
}

TEST_CASE("embedding lookup picks table rows and refuses bad ids", "[transformer]") {
  const Matrix table = rows({{0, 0}, {1, 2}, {3, 4}});
  require_close(embed_tokens(table, {2, 1, 2}), rows({{3, 4}, {1, 2}, {3, 4}}), 0.0f);
  REQUIRE_THROWS_WITH(embed_tokens(table, {1, 3}), Contains("token id 3 at position 1"));
  REQUIRE_THROWS_WITH(embed_tokens(table, {}), Contains("no token ids"));
}

namespace {

struct ReferenceCase {
  std::string name, norm, activation;
  int heads = 0, layers = 0;
  std::map<std::string, Matrix> m;
  const Matrix& get(const std::string& key) const {
    const auto it = m.find(key);
    if (it == m.end()) FAIL("reference case " << name << " has no " << key);
    return it->second;
  }
  Vector vector(const std::string& key) const { return get(key).row(0).transpose(); }
};

std::vector<ReferenceCase> read_cases() {
  std::ifstream in(ATTN_TRANSFORMER_CASES);
  REQUIRE(in.good());
  std::vector<ReferenceCase> cases;
  std::string word;
  while (in >> word) {
    if (word == "case") {
      cases.emplace_back();
      ReferenceCase& c = cases.back();
      in >> c.name >> c.norm >> c.activation >> c.heads >> c.layers;
      continue;
    }
    Index r = 0, cols = 0;
    in >> r >> cols;
    Matrix m(r, cols);
    for (Index i = 0; i < r; ++i)
      for (Index j = 0; j < cols; ++j) {
        double v;
        in >> v;
        m(i, j) = static_cast<float>(v);
      }
    REQUIRE(in.good());
    cases.back().m[word] = m;
  }
  return cases;
}

EncoderLayer layer_from(const ReferenceCase& c, int l) {
  const std::string p = "L" + std::to_string(l) + ".";
  EncoderLayer layer;
  // torch splits its d_model-wide projections into equal column blocks, one per head.
  layer.attention = split_heads(c.get(p + "W_Q"), c.get(p + "W_K"), c.get(p + "W_V"), c.get(p + "W_O"), c.heads);
  const Index d_k = c.get(p + "W_Q").cols() / c.heads;
  for (int h = 0; h < c.heads; ++h) {
    HeadWeights& head = layer.attention.heads[static_cast<std::size_t>(h)];
    head.b_Q = c.vector(p + "b_Q").segment(h * d_k, d_k);
    head.b_K = c.vector(p + "b_K").segment(h * d_k, d_k);
    head.b_V = c.vector(p + "b_V").segment(h * d_k, d_k);
  }
  layer.attention.b_O = c.vector(p + "b_O");
  layer.ffn = {c.get(p + "W1"), c.vector(p + "b1"), c.get(p + "W2"), c.vector(p + "b2"),
               c.activation == "gelu" ? Activation::GELU : Activation::ReLU};
  layer.norm1_gamma = c.vector(p + "norm1_gamma");
  layer.norm1_beta = c.vector(p + "norm1_beta");
  layer.norm2_gamma = c.vector(p + "norm2_gamma");
  layer.norm2_beta = c.vector(p + "norm2_beta");
  return layer;
}

}  // namespace

TEST_CASE("encoder layers match torch.nn.TransformerEncoderLayer to 1e-4", "[transformer][reference]") {
  const std::vector<ReferenceCase> cases = read_cases();
  REQUIRE(cases.size() == 4);
  for (const ReferenceCase& c : cases) {
    INFO("case " << c.name);
    std::vector<EncoderLayer> layers;
    for (int l = 0; l < c.layers; ++l) layers.push_back(layer_from(c, l));
    const EncoderSteps steps = encoder(c.get("X"), layers, c.norm == "pre" ? NormPlacement::Pre : NormPlacement::Post);
    REQUIRE(steps.layers.size() == static_cast<std::size_t>(c.layers));
    for (int l = 0; l < c.layers; ++l) {
      INFO("layer " << l);
      const std::string p = "L" + std::to_string(l) + ".";
      for (int h = 0; h < c.heads; ++h)
        require_close(steps.layers[static_cast<std::size_t>(l)].attention.heads[static_cast<std::size_t>(h)].weights,
                      c.get(p + "weights" + std::to_string(h)), 1e-5f);
      require_close(steps.layers[static_cast<std::size_t>(l)].output, c.get(p + "output"), 1e-4f);
    }
    require_close(steps.output, c.get("L" + std::to_string(c.layers - 1) + ".output"), 1e-4f);
  }
}

TEST_CASE("encoder errors name the layer and the shapes", "[transformer][errors]") {
  const std::vector<ReferenceCase> cases = read_cases();
  EncoderLayer layer = layer_from(cases[0], 0);
  REQUIRE_THROWS_WITH(encoder(cases[0].get("X"), {}, NormPlacement::Post), Contains("at least one layer"));
  layer.ffn.W2 = Matrix::Ones(12, 3);
  REQUIRE_THROWS_WITH(encoder(cases[0].get("X"), {layer_from(cases[0], 0), layer}, NormPlacement::Pre),
                      Contains("layer 1: W_O (8×8) and the feed-forward W2 (12×3) must both give 8 columns"));
}

TEST_CASE("encoder layers keep the matrix their attention read: LN1(x) pre-norm, x post-norm", "[transformer]") {
  const std::vector<ReferenceCase> cases = read_cases();
  bool saw_pre = false, saw_post = false;
  for (const ReferenceCase& c : cases) {
    INFO("case " << c.name);
    const NormPlacement placement = c.norm == "pre" ? NormPlacement::Pre : NormPlacement::Post;
    (placement == NormPlacement::Pre ? saw_pre : saw_post) = true;
    std::vector<EncoderLayer> layers;
    for (int l = 0; l < c.layers; ++l) layers.push_back(layer_from(c, l));
    const EncoderSteps steps = encoder(c.get("X"), layers, placement);
    for (std::size_t l = 0; l < layers.size(); ++l) {
      INFO("layer " << l);
      const Matrix& input = l == 0 ? steps.input : steps.layers[l - 1].output;  // what the layer was given
      const EncoderLayerSteps& s = steps.layers[l];
      if (placement == NormPlacement::Pre)
        require_close(s.attention_input, layer_norm(input, layers[l].norm1_gamma, layers[l].norm1_beta), 0.0f);
      else
        require_close(s.attention_input, input, 0.0f);
      for (std::size_t h = 0; h < layers[l].attention.heads.size(); ++h) {
        INFO("head " << h);
        const HeadWeights& w = layers[l].attention.heads[h];
        const auto project = [&](const Matrix& W, const Vector& b) {
          Matrix out = s.attention_input * W;
          out.rowwise() += b.transpose();
          return out;
        };
        require_close(s.attention.heads[h].Q, project(w.W_Q, w.b_Q), 1e-5f);
        require_close(s.attention.heads[h].K, project(w.W_K, w.b_K), 1e-5f);
        require_close(s.attention.heads[h].V, project(w.W_V, w.b_V), 1e-5f);
      }
    }
  }
  REQUIRE(saw_pre);
  REQUIRE(saw_post);
}

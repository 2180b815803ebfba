// The tiny trained models: the model-file parser (well-formed and corrupted bytes, versions 1 and 2,
// float16 and int8 layers), tokens, causality and its absence, fill-the-blank, attention rollout on a
// hand-checked case, the words models (tests/reference/words_decoder.bin, words_encoder.bin) against PyTorch
// (tests/reference/words_decoder_cases.txt and words_encoder_cases.txt, made by model/make_golden.py), and the
// committed files' sanity.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <map>
#include <sstream>

#include "attention/model.hpp"
#include "helpers.hpp"

using namespace attn;
using Catch::Contains;

namespace {

using Bytes = std::vector<std::uint8_t>;

// IEEE half precision of a value it represents exactly (the test weights are multiples of 1/64).
std::uint16_t to_half(float v) {
  if (v == 0) return 0;
  int e = 0;
  const float m = std::frexp(std::fabs(v), &e);  // |v| = m·2^e, m ∈ [0.5, 1)
  const int exponent = e - 1 + 15;
  const float mantissa = (2 * m - 1) * 1024;
  REQUIRE(exponent >= 1);
  REQUIRE(exponent <= 30);
  REQUIRE(mantissa == std::floor(mantissa));
  return static_cast<std::uint16_t>((v < 0 ? 0x8000 : 0) | exponent << 10 | static_cast<int>(mantissa));
}

// A small model file in the format of model/README.md, with every tensor kept so tests can compare
// what the parser returns, and the byte offsets of a few fields so tests can corrupt them. By default a
// version 1 decoder; encoder() makes it a version 2 encoder (with int8 layer matrices if asked).
struct ModelFile {
  std::vector<std::string> words = {"<unk>", "the", "train", "station", "left"};
  std::uint32_t d = 4, heads = 2, layers = 1, d_ff = 8, context = 4, flags = 7;
  std::uint16_t version = 1;
  std::uint32_t mask_id = 0;  // version 2 only
  float eps = 1e-5f, embedding_scale = 2.0f;
  std::vector<float> scales;
  std::vector<std::int8_t> values;
  std::map<std::string, Matrix> tensors;  // "L0.W_Q", …, "final_gamma": as written
  std::vector<std::string> captions = {"previous word: 70% of its weight on average", "spread out"};
  std::string pieces_text;  // a pieces model's vocabulary (flag 32), written instead of the words
  std::size_t version_at = 6, heads_at = 20, flags_at = 32, mask_id_at = 40, first_weight_at = 0, captions_at = 0;

  // Version 2, bidirectional, "[MASK]" as the last word; int8: the layers' matrices as int8 with a scale
  // per column (the test weights are multiples of 1/64 in [-1, 1], so a scale of 1/64 keeps them exact).
  ModelFile& encoder(bool int8 = false) {
    words.push_back("[MASK]");
    scales.push_back(0.0625f);
    for (std::uint32_t k = 0; k < d; ++k) values.push_back(static_cast<std::int8_t>(k + 1));
    version = 2;
    flags = 2 | 4 | (int8 ? 8 : 0);
    mask_id = static_cast<std::uint32_t>(words.size() - 1);
    return *this;
  }

  // A pieces model (version 2, flag 32; encoder: [MASK] after the pieces): the words block is the text of
  // a pieces vocabulary of <unk>, the 256 byte pieces and a few normal pieces, 265 in all.
  ModelFile& pieces(bool as_encoder) {
    pieces_text = "attention-pieces 1 bpe\n<unk>\t0\n";
    words = {"<unk>"};
    for (int b = 0; b < 256; ++b) {
      char name[8];
      std::snprintf(name, sizeof name, "<0x%02X>", b);
      pieces_text += std::string(name) + "\t0\n";
      words.push_back(name);
    }
    int score = -1;
    for (const char* piece : {"\xE2\x96\x81t", "he", "\xE2\x96\x81the", "\xE2\x96\x81s", "ta", "tion", "in", "ft"}) {
      pieces_text += std::string(piece) + "\t" + std::to_string(score--) + "\n";
      words.push_back(piece);
    }
    if (as_encoder) words.push_back("[MASK]");
    scales.assign(words.size(), 0.0625f);
    values.clear();
    for (std::size_t w = 0; w < words.size(); ++w)
      for (std::uint32_t k = 0; k < d; ++k) values.push_back(static_cast<std::int8_t>((w * 7 + k * 3) % 17) - 8);
    version = 2;
    flags = (as_encoder ? 0 : 1) | 2 | 4 | 32;
    mask_id = as_encoder ? static_cast<std::uint32_t>(words.size() - 1) : 0;
    return *this;
  }

  explicit ModelFile(unsigned seed = 7) {
    std::mt19937 rng(seed);
    std::uniform_int_distribution<int> sixty_fourths(-64, 64);
    for (std::size_t w = 0; w < words.size(); ++w) {
      scales.push_back(0.0625f * static_cast<float>(w + 1));
      for (std::uint32_t k = 0; k < d; ++k) values.push_back(static_cast<std::int8_t>(sixty_fourths(rng)));
    }
    auto tensor = [&](const std::string& name, Index r, Index c) {
      Matrix m(r, c);
      for (Index i = 0; i < r; ++i)
        for (Index j = 0; j < c; ++j) m(i, j) = static_cast<float>(sixty_fourths(rng)) / 64.0f;
      tensors[name] = m;
    };
    const Index D = d, F = d_ff;
    for (std::uint32_t l = 0; l < layers; ++l) {
      const std::string p = "L" + std::to_string(l) + ".";
      for (const char* name : {"norm1_gamma", "norm1_beta"}) tensor(p + name, 1, D);
      for (const char* role : {"Q", "K", "V"}) {
        tensor(p + "W_" + role, D, D);
        tensor(p + "b_" + role, 1, D);
      }
      tensor(p + "W_O", D, D);
      tensor(p + "b_O", 1, D);
      for (const char* name : {"norm2_gamma", "norm2_beta"}) tensor(p + name, 1, D);
      tensor(p + "W1", D, F);
      tensor(p + "b1", 1, F);
      tensor(p + "W2", F, D);
      tensor(p + "b2", 1, D);
    }
    tensor("final_gamma", 1, D);
    tensor("final_beta", 1, D);
  }

  Bytes bytes() {
    Bytes out = {'A', 'T', 'T', 'N', 'L', 'M'};
    auto u16 = [&](std::uint32_t v) {
      for (int i = 0; i < 2; ++i) out.push_back(static_cast<std::uint8_t>(v >> (8 * i)));
    };
    auto u32 = [&](std::uint32_t v) {
      for (int i = 0; i < 4; ++i) out.push_back(static_cast<std::uint8_t>(v >> (8 * i)));
    };
    auto f32 = [&](float v) {
      std::uint32_t bits;
      std::memcpy(&bits, &v, 4);
      u32(bits);
    };
    std::string blob = pieces_text;
    if (pieces_text.empty())
      for (const auto& w : words) blob += static_cast<char>(w.size()) + w;
    u16(version);
    for (std::uint32_t v : {static_cast<std::uint32_t>(words.size()), d, layers, heads, d_ff, context, flags,
                            static_cast<std::uint32_t>(blob.size())})
      u32(v);
    if (version == 2) u32(mask_id);
    f32(eps);
    f32(embedding_scale);
    out.insert(out.end(), blob.begin(), blob.end());
    for (float s : scales) f32(s);
    for (std::int8_t v : values) out.push_back(static_cast<std::uint8_t>(v));
    first_weight_at = out.size();
    auto half_tensor = [&](const std::string& name) {
      const Matrix& m = tensors.at(name);
      if ((flags & 8) && name.find(".W") != std::string::npos) {  // int8: scales, then values
        for (Index j = 0; j < m.cols(); ++j) f32(1.0f / 64);
        for (Index i = 0; i < m.rows(); ++i)
          for (Index j = 0; j < m.cols(); ++j) out.push_back(static_cast<std::uint8_t>(std::lround(m(i, j) * 64)));
        return;
      }
      for (Index i = 0; i < m.rows(); ++i)
        for (Index j = 0; j < m.cols(); ++j) u16(to_half(m(i, j)));
    };
    for (std::uint32_t l = 0; l < layers; ++l)
      for (const char* name : {"norm1_gamma", "norm1_beta", "W_Q", "b_Q", "W_K", "b_K", "W_V", "b_V", "W_O", "b_O",
                               "norm2_gamma", "norm2_beta", "W1", "b1", "W2", "b2"})
        half_tensor("L" + std::to_string(l) + "." + name);
    half_tensor("final_gamma");
    half_tensor("final_beta");
    captions_at = out.size();
    u32(static_cast<std::uint32_t>(captions.size()));
    for (const auto& c : captions) {
      u16(static_cast<std::uint32_t>(c.size()));
      out.insert(out.end(), c.begin(), c.end());
    }
    return out;
  }
};

LanguageModel parse(const Bytes& b) { return LanguageModel::parse(b.data(), b.size()); }

void put_u32(Bytes& b, std::size_t at, std::uint32_t v) {
  for (int i = 0; i < 4; ++i) b[at + static_cast<std::size_t>(i)] = static_cast<std::uint8_t>(v >> (8 * i));
}

Bytes read_file(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  INFO("file: " << path);
  REQUIRE(file.good());
  return Bytes((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
}

// tests/reference/words_decoder.bin, or $ATTN_MODEL_FILE (to check a new export before committing it).
const LanguageModel& committed_model() {
  static const LanguageModel model = [] {
    const char* override_path = std::getenv("ATTN_MODEL_FILE");
    const Bytes bytes = read_file(override_path && *override_path ? override_path : ATTN_MODEL_FILE);
    return LanguageModel::parse(bytes.data(), bytes.size());
  }();
  return model;
}

}  // namespace

TEST_CASE("model file: every tensor lands where the encoder expects it", "[model]") {
  ModelFile f;
  const LanguageModel m = parse(f.bytes());
  REQUIRE(m.vocabulary == f.words);
  REQUIRE(m.d_model == 4);
  REQUIRE(m.heads == 2);
  REQUIRE(m.d_ff == 8);
  REQUIRE(m.context == 4);
  REQUIRE(m.embedding_scale == 2.0f);
  REQUIRE(m.captions == f.captions);
  for (Index w = 0; w < 5; ++w)
    for (Index k = 0; k < 4; ++k)
      REQUIRE(m.embedding(w, k) == f.scales[w] * f.values[static_cast<std::size_t>(w * 4 + k)]);
  require_close(m.positions, sinusoidal_positions(4, 4), 0);
  REQUIRE(m.layers.size() == 1);
  const EncoderLayer& layer = m.layers[0];
  // Head h owns columns [2h, 2h+2) of the projections and the bias entries with them.
  for (Index h = 0; h < 2; ++h) {
    const HeadWeights& head = layer.attention.heads[static_cast<std::size_t>(h)];
    require_close(head.W_Q, f.tensors["L0.W_Q"].middleCols(2 * h, 2), 0);
    require_close(head.W_K, f.tensors["L0.W_K"].middleCols(2 * h, 2), 0);
    require_close(head.W_V, f.tensors["L0.W_V"].middleCols(2 * h, 2), 0);
    require_close(head.b_Q.transpose(), f.tensors["L0.b_Q"].middleCols(2 * h, 2), 0);
    require_close(head.b_V.transpose(), f.tensors["L0.b_V"].middleCols(2 * h, 2), 0);
  }
  require_close(layer.attention.W_O, f.tensors["L0.W_O"], 0);
  require_close(layer.ffn.W1, f.tensors["L0.W1"], 0);
  require_close(layer.ffn.W2, f.tensors["L0.W2"], 0);
  require_close(layer.ffn.b1.transpose(), f.tensors["L0.b1"], 0);
  require_close(layer.norm2_beta.transpose(), f.tensors["L0.norm2_beta"], 0);
  REQUIRE(layer.ffn.activation == Activation::GELU);
  require_close(m.final_gamma.transpose(), f.tensors["final_gamma"], 0);
  f.captions.clear();
  REQUIRE(parse(f.bytes()).captions.empty());
}

TEST_CASE("model file: half precision decodes exactly, subnormals included", "[model]") {
  ModelFile f;
  Bytes b = f.bytes();
  // The first weight is layer 0's norm1 gamma[0]; try a few bit patterns there.
  const std::pair<std::uint16_t, float> cases[] = {{0x3C00, 1.0f},
                                                   {0xC000, -2.0f},
                                                   {0x3555, 0.333251953125f},
                                                   {0x7BFF, 65504.0f},
                                                   {0x0001, 5.9604644775390625e-8f},
                                                   {0x8000, -0.0f},
                                                   {0x03FF, 6.097555160522461e-5f}};
  for (const auto& [bits, value] : cases) {
    b[f.first_weight_at] = static_cast<std::uint8_t>(bits & 0xff);
    b[f.first_weight_at + 1] = static_cast<std::uint8_t>(bits >> 8);
    REQUIRE(parse(b).layers[0].norm1_gamma(0) == value);
  }
}

TEST_CASE("model file: bad bytes are refused with messages that name the problem", "[model][errors]") {
  ModelFile f;
  const Bytes good = f.bytes();
  REQUIRE_NOTHROW(parse(good));

  Bytes b = good;
  b[0] = 'X';
  REQUIRE_THROWS_WITH(parse(b), Contains("not a model file") && Contains("ATTNLM"));
  REQUIRE_THROWS_WITH(LanguageModel::parse(nullptr, 0), Contains("not a model file"));
  b = good;
  b[f.version_at] = 3;
  REQUIRE_THROWS_WITH(parse(b), Contains("version 3 is not supported"));

  // Every truncation is an AttentionError, never a read past the end.
  for (std::size_t n = 0; n < good.size(); ++n) {
    INFO("truncated to " << n << " bytes");
    REQUIRE_THROWS_AS(LanguageModel::parse(good.data(), n), AttentionError);
  }
  REQUIRE_THROWS_WITH(LanguageModel::parse(good.data(), 30), Contains("truncated: context length needs 4 bytes"));
  REQUIRE_THROWS_WITH(LanguageModel::parse(good.data(), f.first_weight_at + 10),
                      Contains("truncated or its header is corrupt"));
  REQUIRE_THROWS_WITH(LanguageModel::parse(good.data(), good.size() - 3),
                      Contains("truncated: a caption needs 10 bytes"));

  b = good;
  put_u32(b, f.heads_at, 3);
  REQUIRE_THROWS_WITH(parse(b), Contains("impossible shape: heads = 3"));
  b = good;
  put_u32(b, 8, 1);  // vocabulary size
  REQUIRE_THROWS_WITH(parse(b), Contains("impossible shape: vocabulary size = 1"));
  b = good;
  put_u32(b, 12, 1u << 20);  // d_model
  REQUIRE_THROWS_WITH(parse(b), Contains("impossible shape: d_model = 1048576"));
  b = good;
  put_u32(b, 8, 1u << 24);  // a vocabulary the file cannot hold: refused before allocating it
  REQUIRE_THROWS_WITH(parse(b), Contains("16777216 words × 4 dims") && Contains("the file has"));
  b = good;
  put_u32(b, 32, 5);  // flags: not GELU
  REQUIRE_THROWS_WITH(parse(b), Contains("flags 5 are not supported"));

  ModelFile g;
  g.eps = 1e-6f;
  REQUIRE_THROWS_WITH(parse(g.bytes()), Contains("eps"));
  g = ModelFile();
  g.embedding_scale = NAN;
  REQUIRE_THROWS_WITH(parse(g.bytes()), Contains("embedding scale nan must be finite"));
  g = ModelFile();
  g.scales[2] = INFINITY;
  REQUIRE_THROWS_WITH(parse(g.bytes()), Contains("embedding scale of \"train\" is inf"));
  g = ModelFile();
  g.words[3] = "train";
  REQUIRE_THROWS_WITH(parse(g.bytes()), Contains("\"train\" appears twice"));
  g = ModelFile();
  g.words[0] = "unk";
  REQUIRE_THROWS_WITH(parse(g.bytes()), Contains("word 0 must be \"<unk>\""));
  g = ModelFile();
  g.words[1] = "";
  REQUIRE_THROWS_WITH(parse(g.bytes()), Contains("word 1 is empty"));

  // Inf and NaN weights, named by tensor and position.
  b = good;
  const std::size_t w_q = f.first_weight_at + 2 * (4 + 4) + 2 * (4 + 1);  // W_Q(1, 1): after norm1 and row 0
  b[w_q] = 0x00;
  b[w_q + 1] = 0x7C;
  REQUIRE_THROWS_WITH(parse(b), Contains("layer 0 W_Q (4×4) holds Inf at (1, 1)"));
  b[w_q] = 0x01;
  REQUIRE_THROWS_WITH(parse(b), Contains("holds NaN at (1, 1)"));

  b = good;
  put_u32(b, f.captions_at, 3);
  REQUIRE_THROWS_WITH(parse(b), Contains("3 head captions; it needs 0 or 2"));
  b = good;
  b.push_back(0);
  REQUIRE_THROWS_WITH(parse(b), Contains("1 unexpected bytes after its last section"));
}

TEST_CASE("model tokens: known, stemmed and unknown words; the context limit", "[model]") {
  ModelFile f;
  const LanguageModel m = parse(f.bytes());
  const std::vector<ModelToken> t = model_tokens(m, "The trains LEFT zzz");
  REQUIRE(t.size() == 4);
  REQUIRE(t[0].text == "the");
  REQUIRE(t[0].lookup == Lookup::Known);
  REQUIRE(t[0].id == 1);
  REQUIRE(t[1].lookup == Lookup::Stemmed);
  REQUIRE(t[1].matched == "train");
  REQUIRE(t[1].id == 2);
  REQUIRE(t[2].id == 4);
  REQUIRE(t[3].lookup == Lookup::Unknown);
  REQUIRE(t[3].matched == "<unk>");
  REQUIRE(t[3].id == 0);
  REQUIRE_THROWS_WITH(model_tokens(m, "the train left the station"),
                      Contains("5 tokens but the model's context holds 4"));
  REQUIRE_THROWS_WITH(model_tokens(m, "  "), Contains("text is empty"));
  REQUIRE_THROWS_WITH(run_model(m, std::vector<Index>{1, 9}), Contains("token id 9 at position 1"));
  REQUIRE_THROWS_WITH(run_model(LanguageModel{}, std::vector<Index>{1}), Contains("no layers"));
}

TEST_CASE("model forward: causal, and the predictions are the softmax of the tied head", "[model]") {
  ModelFile f;
  const LanguageModel m = parse(f.bytes());
  const ModelRun whole = run_model(m, "the train left station");
  const ModelRun prefix = run_model(m, "the train");
  // A token never sees the ones after it: the first two rows of every layer do not depend on them.
  for (std::size_t l = 0; l < whole.steps.layers.size(); ++l)
    require_close(whole.steps.layers[l].output.topRows(2), prefix.steps.layers[l].output, 1e-6f);
  REQUIRE(whole.steps.layers[0].attention.heads[0].weights(0, 1) == 0.0f);
  // x₀ = scale · E[ids] + PE
  require_close(whole.steps.input.row(1), 2.0f * m.embedding.row(2) + m.positions.row(1), 1e-6f);
  // Predictions: every word of the vocabulary but <unk> ranked by LN_f(x_T)·Eᵀ, probabilities its softmax
  // over the whole vocabulary.
  REQUIRE(whole.predictions.size() == 4);
  const Eigen::VectorXf logits = m.embedding * whole.final_norm.row(3).transpose();
  const double total = logits.cast<double>().array().exp().sum();
  float previous = 2;
  for (const Prediction& p : whole.predictions) {
    REQUIRE(p.logit == Approx(logits(p.id)).margin(1e-6));
    REQUIRE(p.probability == Approx(std::exp(double(logits(p.id))) / total).margin(1e-6));
    REQUIRE(p.word == m.vocabulary[static_cast<std::size_t>(p.id)]);
    REQUIRE(p.id != 0);
    REQUIRE(p.probability <= previous);
    previous = p.probability;
  }
  REQUIRE(run_model(m, "the train", 2).predictions.size() == 2);
  REQUIRE(run_model(m, "the train", 99).predictions.size() == 4);
}

TEST_CASE("model forward: next-word logits that overflow float32 are refused, not turned into NaN", "[model][errors]") {
  // Found by tests/fuzz/fuzz_model: a finite but huge embedding row made one logit inf, and the
  // softmax gave NaN probabilities. <unk>'s row (not in the sentence) is the huge one here.
  ModelFile f;
  f.scales[0] = 1e36f;  // within the parser's limit (FLT_MAX / 128)
  for (std::uint32_t k = 0; k < f.d; ++k) f.values[k] = 64;
  f.tensors["final_gamma"].setZero();
  f.tensors["final_beta"].setConstant(60000.0f);  // LN_f(x) = 60000 in every dimension
  const LanguageModel m = parse(f.bytes());
  REQUIRE_THROWS_WITH(run_model(m, "the train"), Contains("logits overflow float32"));
}

TEST_CASE("model forward: <unk> is never predicted, even as the most probable next word", "[model]") {
  // LN_f(x) = 1 in every dimension, and <unk>'s embedding row is the largest: its logit (256) is far above
  // every word's (at most 80).
  ModelFile f;
  f.scales[0] = 1.0f;
  for (std::uint32_t k = 0; k < f.d; ++k) f.values[k] = 64;
  f.tensors["final_gamma"].setZero();
  f.tensors["final_beta"].setConstant(1.0f);
  const LanguageModel m = parse(f.bytes());
  const ModelRun run = run_model(m, "the train", 9);
  REQUIRE(run.predictions.size() == 4);
  for (const Prediction& p : run.predictions) REQUIRE(p.id != 0);
  // The probabilities stay the model's own: <unk> takes almost all of it.
  REQUIRE(run.predictions[0].probability < 1e-6f);
}

TEST_CASE("encoder file: version 2, every tensor in place, float16 or int8 layer matrices", "[model][encoder]") {
  for (const bool int8 : {false, true}) {
    INFO((int8 ? "int8" : "float16") << " layer matrices");
    ModelFile f;
    f.encoder(int8);
    const LanguageModel m = parse(f.bytes());
    REQUIRE(!m.causal);
    REQUIRE(m.mask_id == 5);
    REQUIRE(m.vocabulary.size() == 6);
    REQUIRE(m.vocabulary[5] == "[MASK]");
    REQUIRE(m.captions == f.captions);
    for (Index k = 0; k < 4; ++k) REQUIRE(m.embedding(5, k) == 0.0625f * static_cast<float>(k + 1));
    const TransformerLayer& layer = m.layers[0];
    for (Index h = 0; h < 2; ++h) {
      const HeadWeights& head = layer.attention.heads[static_cast<std::size_t>(h)];
      require_close(head.W_Q, f.tensors["L0.W_Q"].middleCols(2 * h, 2), 0);
      require_close(head.W_K, f.tensors["L0.W_K"].middleCols(2 * h, 2), 0);
      require_close(head.W_V, f.tensors["L0.W_V"].middleCols(2 * h, 2), 0);
      require_close(head.b_K.transpose(), f.tensors["L0.b_K"].middleCols(2 * h, 2), 0);
    }
    require_close(layer.attention.W_O, f.tensors["L0.W_O"], 0);
    require_close(layer.attention.b_O.transpose(), f.tensors["L0.b_O"], 0);
    require_close(layer.ffn.W1, f.tensors["L0.W1"], 0);
    require_close(layer.ffn.W2, f.tensors["L0.W2"], 0);
    require_close(layer.ffn.b2.transpose(), f.tensors["L0.b2"], 0);
    require_close(layer.norm1_gamma.transpose(), f.tensors["L0.norm1_gamma"], 0);
    require_close(m.final_beta.transpose(), f.tensors["final_beta"], 0);
  }
  // int8 matrices take half the bytes of float16 ones, plus a float32 scale per column.
  ModelFile half, int8;
  half.encoder(false);
  int8.encoder(true);
  const std::size_t values = 4 * 4 * 4 + 2 * 4 * 8, columns = 4 * 4 + 8 + 4;
  REQUIRE(half.bytes().size() - int8.bytes().size() == values - 4 * columns);
}

TEST_CASE("encoder file: bad headers, a missing [MASK] and bad int8 scales are refused by name",
          "[model][encoder][errors]") {
  ModelFile f;
  f.encoder(true);
  const Bytes good = f.bytes();
  REQUIRE_NOTHROW(parse(good));
  for (std::size_t n = 0; n < good.size(); ++n) {
    INFO("truncated to " << n << " bytes");
    REQUIRE_THROWS_AS(LanguageModel::parse(good.data(), n), AttentionError);
  }
  REQUIRE_THROWS_WITH(LanguageModel::parse(good.data(), 42), Contains("truncated: mask token id needs 4 bytes"));

  Bytes b = good;
  put_u32(b, f.flags_at, 2 | 4 | 16);
  REQUIRE_THROWS_WITH(parse(b), Contains("flags 22 are not supported"));
  b = good;
  put_u32(b, f.flags_at, 4 | 8);  // not GELU
  REQUIRE_THROWS_WITH(parse(b), Contains("flags 12 are not supported"));
  b = good;
  put_u32(b, f.mask_id_at, 0);
  REQUIRE_THROWS_WITH(parse(b), Contains("bidirectional model needs its mask token's id, from 1 to V − 1 = 5"));
  b = good;
  put_u32(b, f.mask_id_at, 6);
  REQUIRE_THROWS_WITH(parse(b), Contains("the header gives 6"));
  b = good;
  put_u32(b, f.mask_id_at, 2);
  REQUIRE_THROWS_WITH(parse(b), Contains("mask token (id 2) must be the word \"[MASK]\", it is \"train\""));
  b = good;
  put_u32(b, f.flags_at, 1 | 2 | 4 | 8);  // causal, yet with a mask token
  REQUIRE_THROWS_WITH(parse(b), Contains("a causal model has no mask token, but the header gives id 5"));
  // Version 1 holds exactly the decoder: flags 7, no mask id in its header.
  ModelFile v1;
  v1.flags = 2 | 4;
  REQUIRE_THROWS_WITH(parse(v1.bytes()), Contains("flags 6 are not supported in version 1"));

  // The first int8 matrix is layer 0's W_Q: its column scales come after norm1's gamma and beta.
  b = good;
  const std::size_t scales = f.first_weight_at + 2 * (4 + 4);
  const float inf = INFINITY;
  std::memcpy(&b[scales + 4], &inf, 4);
  REQUIRE_THROWS_WITH(parse(b), Contains("layer 0 W_Q's scale of column 1 is inf"));
  const float negative = -1.0f;
  std::memcpy(&b[scales + 4], &negative, 4);
  REQUIRE_THROWS_WITH(parse(b), Contains("scale of column 1 is -1"));
}

TEST_CASE("encoder forward: every token sees both sides; no guesses without a blank", "[model][encoder]") {
  ModelFile f;
  f.encoder(true);
  const LanguageModel m = parse(f.bytes());
  const ModelRun run = run_model(m, "the train left station");
  REQUIRE(run.predictions.empty());
  // The first word attends to the words after it, and changing the last word changes the first's output.
  for (const AttentionSteps& head : run.steps.layers[0].attention.heads) REQUIRE(head.weights(0, 3) > 0.0f);
  const ModelRun other = run_model(m, "the train left the");
  REQUIRE((run.steps.output.row(0) - other.steps.output.row(0)).cwiseAbs().maxCoeff() > 1e-4f);
  // The layers are attn::encoder's, unmasked and pre-norm, on x₀ = scale · E[ids] + PE.
  AttentionOptions bidirectional;
  bidirectional.score = Score::ScaledDot;
  const StackSteps expected = encoder(run.steps.input, m.layers, NormPlacement::Pre, bidirectional);
  require_close(run.steps.output, expected.output, 0);
  require_close(run.steps.input.row(1), 2.0f * m.embedding.row(2) + m.positions.row(1), 1e-6f);
}

TEST_CASE("fill the blank: the word at a position becomes [MASK]; the guesses are that position's",
          "[model][encoder]") {
  ModelFile f;
  f.encoder(false);
  const LanguageModel m = parse(f.bytes());
  const FilledBlank blank = fill_blank(m, "the trains left station", 1, 99);
  REQUIRE(blank.position == 1);
  REQUIRE(blank.tokens.size() == 4);
  REQUIRE(blank.tokens[1].text == "trains");  // the sentence as written
  REQUIRE(blank.tokens[1].lookup == Lookup::Stemmed);
  const ModelToken& hidden = blank.run.tokens[1];
  REQUIRE(hidden.text == "[MASK]");
  REQUIRE(hidden.id == 5);
  REQUIRE(blank.run.tokens[0].text == "the");
  // The run is the encoder on the masked ids.
  const ModelRun masked = run_model(m, std::vector<Index>{1, 5, 4, 3});
  require_close(blank.run.final_norm, masked.final_norm, 0);
  require_close(blank.run.rollout, masked.rollout, 0);
  // Guesses: every word but <unk> and [MASK], ranked by LN_f(x_1)·Eᵀ, probabilities the softmax over all 6.
  REQUIRE(blank.run.predictions.size() == 4);
  const Eigen::VectorXf logits = m.embedding * masked.final_norm.row(1).transpose();
  const double total = logits.cast<double>().array().exp().sum();
  float previous = 2;
  for (const Prediction& p : blank.run.predictions) {
    REQUIRE(p.id != 0);
    REQUIRE(p.id != 5);
    REQUIRE(p.logit == Approx(logits(p.id)).margin(1e-6));
    REQUIRE(p.probability == Approx(std::exp(double(logits(p.id))) / total).margin(1e-6));
    REQUIRE(p.probability <= previous);
    previous = p.probability;
  }
  REQUIRE(fill_blank(m, "the train", 0, 2).run.predictions.size() == 2);

  REQUIRE_THROWS_WITH(fill_blank(m, "the train", 2), Contains("position 2 is not a token of the sentence: it has 2 "
                                                              "tokens, numbered 0 to 1"));
  REQUIRE_THROWS_WITH(fill_blank(m, "the train", -1), Contains("position -1"));
  REQUIRE_THROWS_WITH(fill_blank(m, "", 0), Contains("text is empty"));
  ModelFile decoder;
  REQUIRE_THROWS_WITH(fill_blank(parse(decoder.bytes()), "the train", 0), Contains("needs an encoder"));
}

TEST_CASE("fill the blank: neither <unk> nor [MASK] is guessed, even when the model ranks them first",
          "[model][encoder]") {
  ModelFile f;
  f.encoder(false);
  f.scales[0] = 1.0f;  // <unk>: logit 256 where LN_f(x) = 1
  for (std::uint32_t k = 0; k < f.d; ++k) f.values[k] = 64;
  f.scales[5] = 0.5f;  // [MASK]: logit 128
  for (std::uint32_t k = 0; k < f.d; ++k) f.values[5 * f.d + k] = 64;
  f.tensors["final_gamma"].setZero();
  f.tensors["final_beta"].setConstant(1.0f);
  const LanguageModel m = parse(f.bytes());
  const FilledBlank blank = fill_blank(m, "the train left", 2, 9);
  REQUIRE(blank.run.predictions.size() == 4);
  for (const Prediction& p : blank.run.predictions) {
    REQUIRE(p.id != 0);
    REQUIRE(p.id != 5);
  }
}

TEST_CASE("nearest embeddings: cosine over the vocabulary, LN_f optional, bad vectors refused by name",
          "[model][nearest]") {
  const LanguageModel& m = committed_model();
  const Index d = m.d_model;
  // A word's own embedding is nearest to itself (cosine 1) unless excluded; <unk> never comes back.
  const Index station = m.find("station");
  REQUIRE(station > 0);
  const Vector e = m.embedding.row(station).transpose();
  const std::vector<Neighbour> self = nearest_embeddings(m, e.data(), d, 3);
  REQUIRE(self[0].id == station);
  REQUIRE(self[0].similarity == Approx(1.0f).margin(1e-6));
  const std::vector<Neighbour> others = nearest_embeddings(m, e.data(), d, 3, {station});
  REQUIRE(others[0].id == self[1].id);
  // Against a brute-force double-precision search written here.
  std::vector<std::pair<double, Index>> all;
  for (Index v = 1; v < m.embedding.rows(); ++v) {
    if (v == station) continue;
    const Eigen::VectorXd row = m.embedding.row(v).cast<double>().transpose();
    all.push_back({-row.dot(e.cast<double>()) / (row.norm() * e.cast<double>().norm()), v});
  }
  std::sort(all.begin(), all.end());
  for (std::size_t k = 0; k < 3; ++k) {
    REQUIRE(others[k].id == all[k].second);
    REQUIRE(others[k].similarity == Approx(-all[k].first).margin(1e-6));
  }
  // Scale does not matter without the norm; the norm changes what is compared.
  const Vector doubled = 2.0f * e;
  REQUIRE(nearest_embeddings(m, doubled.data(), d, 1, {station})[0].id == others[0].id);
  for (const Neighbour& n : nearest_embeddings(m, e.data(), d, 50, {}, true)) REQUIRE(n.id != 0);

  const Vector zero = Vector::Zero(d);
  Vector bad = e;
  bad(3) = NAN;
  REQUIRE_THROWS_WITH(nearest_embeddings(m, e.data(), d - 1, 3), Contains("has " + std::to_string(d - 1) + " values"));
  REQUIRE_THROWS_WITH(nearest_embeddings(m, zero.data(), d, 3), Contains("all zeros"));
  REQUIRE_THROWS_WITH(nearest_embeddings(m, bad.data(), d, 3), Contains("NaN"));
  REQUIRE_THROWS_WITH(nearest_embeddings(m, e.data(), d, 0), Contains("at least 1"));
  REQUIRE_THROWS_WITH(nearest_embeddings(m, e.data(), d, 3, {m.embedding.rows()}), Contains("cannot exclude"));
}

TEST_CASE("attention rollout on a hand-checked case", "[model]") {
  // Layer 1: two heads, mean [[1, 0], [0.3, 0.7]], so Ã₁ = [[1, 0], [0.15, 0.85]].
  // Layer 2: one head [[1, 0], [1, 0]], so Ã₂ = [[1, 0], [0.5, 0.5]].
  // R = Ã₂·Ã₁ = [[1, 0], [0.5 + 0.5·0.15, 0.5·0.85]] = [[1, 0], [0.575, 0.425]].
  using Weights = std::vector<std::vector<Matrix>>;  // [layer][head]
  const Weights weights = {{rows({{1, 0}, {0.5f, 0.5f}}), rows({{1, 0}, {0.1f, 0.9f}})}, {rows({{1, 0}, {1, 0}})}};
  require_close(attention_rollout(weights), rows({{1, 0}, {0.575f, 0.425f}}), 1e-6f);
  require_close(attention_rollout(Weights{weights[0]}), rows({{1, 0}, {0.15f, 0.85f}}), 1e-6f);
  // A row that is all zeros (a fully masked query) stays a valid mixing row: itself.
  require_close(attention_rollout(Weights{{rows({{0, 0}, {0.5f, 0.5f}})}}), rows({{1, 0}, {0.25f, 0.75f}}), 1e-6f);

  REQUIRE_THROWS_WITH(attention_rollout(Weights{}), Contains("at least one layer"));
  REQUIRE_THROWS_WITH(attention_rollout(Weights{{rows({{1, 0}, {0, 1}})}, {}}), Contains("layer 1 has no heads"));
  REQUIRE_THROWS_WITH(attention_rollout(Weights{{rows({{1, 0}, {0, 1}}), rows({{1, 0, 0}})}}),
                      Contains("layer 0 head 1 weights are 1×3"));
  REQUIRE_THROWS_WITH(attention_rollout(Weights{{rows({{1, NAN}, {0, 1}})}}), Contains("NaN"));
}

namespace {

struct GoldenCase {
  std::string name, sentence;
  Index blank = -2;  // the encoder's: the token replaced by [MASK], or -1 for a plain run; -2: a decoder case
  std::vector<ModelToken> tokens;
  std::vector<std::string> guesses;  // a pieces encoder's whole-word guesses, best first
  std::map<std::string, Matrix> m;
  const Matrix& get(const std::string& key) const {
    const auto it = m.find(key);
    if (it == m.end()) FAIL("golden case " << name << " has no " << key);
    return it->second;
  }
};

struct Golden {
  std::uint64_t model_bytes = 0;
  std::string model_hash;
  std::vector<GoldenCase> cases;
};

Golden read_golden(const char* path) {
  std::ifstream in(path);
  INFO(path);
  REQUIRE(in.good());
  Golden g;
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream words(line);
    std::string kind;
    words >> kind;
    if (kind == "model") {
      words >> g.model_bytes >> g.model_hash;
    } else if (kind == "case") {
      g.cases.emplace_back();
      words >> g.cases.back().name;
    } else if (kind == "sentence") {
      g.cases.back().sentence = line.substr(9);
    } else if (kind == "blank") {
      words >> g.cases.back().blank;
    } else if (kind == "guess") {
      g.cases.back().guesses.push_back(line.substr(6));
    } else if (kind == "token") {
      ModelToken t{};
      std::string lookup;
      words >> t.text >> lookup >> t.matched >> t.id;
      // A pieces model's tokens also give their word; a words model's token is its own word.
      if (!(words >> t.word)) t.word = static_cast<Index>(g.cases.back().tokens.size());
      t.lookup = lookup == "known" ? Lookup::Known : lookup == "stemmed" ? Lookup::Stemmed : Lookup::Unknown;
      g.cases.back().tokens.push_back(t);
    } else {
      Index r = 0, c = 0;
      words >> r >> c;
      std::string numbers;
      std::getline(in, numbers);
      std::istringstream values(numbers);
      Matrix m(r, c);
      for (Index i = 0; i < r * c; ++i) {
        double v;
        values >> v;
        m(i / c, i % c) = static_cast<float>(v);
      }
      REQUIRE(values);
      g.cases.back().m[kind] = m;
    }
  }
  return g;
}

std::string fnv1a64(const Bytes& bytes) {
  std::uint64_t h = 0xcbf29ce484222325ull;
  for (std::uint8_t b : bytes) h = (h ^ b) * 0x100000001b3ull;
  char out[17];
  std::snprintf(out, sizeof out, "%016llx", static_cast<unsigned long long>(h));
  return out;
}

// |actual − expected| ≤ tolerance · max(1, the largest |value| of the expected row): the residual stream
// grows to values of ~10, where float32 rounding is larger in absolute terms than for weights in [0, 1].
float require_close_rows(const Matrix& actual, const Matrix& expected, float tolerance, const std::string& what) {
  INFO(what);
  REQUIRE(actual.rows() == expected.rows());
  REQUIRE(actual.cols() == expected.cols());
  float worst = 0;
  for (Index r = 0; r < expected.rows(); ++r) {
    const float scale = std::max(1.0f, expected.row(r).cwiseAbs().maxCoeff());
    for (Index c = 0; c < expected.cols(); ++c) {
      INFO("at (" << r << ", " << c << ")");
      const float error = std::fabs(actual(r, c) - expected(r, c)) / scale;
      REQUIRE(error <= tolerance);
      worst = std::max(worst, error);
    }
  }
  return worst;
}

}  // namespace

namespace {

// Every case of a golden file against the core: the tokens, every head's weights, every layer's output
// and its LN1 input, LN_f, the rollout and the top 5 (the decoder's next word; the encoder's guesses for
// the blank, through fill_blank). Returns the largest scaled difference.
float check_golden(const LanguageModel& model, const Golden& golden) {
  float worst = 0;
  for (const GoldenCase& c : golden.cases) {
    INFO("case " << c.name << ": " << c.sentence
                 << (c.blank >= 0 ? " (blank at " + std::to_string(c.blank) + ")" : ""));
    std::vector<ModelToken> written;
    ModelRun run;
    if (c.blank >= 0) {
      FilledBlank filled = fill_blank(model, c.sentence, c.blank, 5);
      REQUIRE(filled.position == c.blank);
      // A words model masks the blank's token; a pieces model all of the blank word's pieces.
      if (model.pieces) {
        const Matrix& masked = c.get("masked");
        REQUIRE(static_cast<Index>(filled.masked.size()) == masked.cols());
        for (Index i = 0; i < masked.cols(); ++i)
          REQUIRE(filled.masked[static_cast<std::size_t>(i)] == static_cast<Index>(masked(0, i)));
      } else {
        REQUIRE(filled.masked == std::vector<Index>{c.blank});
      }
      for (const Index t : filled.masked) REQUIRE(filled.run.tokens[static_cast<std::size_t>(t)].text == "[MASK]");
      written = std::move(filled.tokens);
      run = std::move(filled.run);
    } else {
      run = run_model(model, c.sentence, 5);
      written = run.tokens;
    }
    REQUIRE(written.size() == c.tokens.size());
    for (std::size_t t = 0; t < c.tokens.size(); ++t) {
      INFO("token " << t);
      REQUIRE(written[t].text == c.tokens[t].text);
      REQUIRE(written[t].lookup == c.tokens[t].lookup);
      REQUIRE(written[t].matched == c.tokens[t].matched);
      REQUIRE(written[t].id == c.tokens[t].id);
      REQUIRE(written[t].word == c.tokens[t].word);
    }
    worst = std::max(worst, require_close_rows(run.steps.input, c.get("input"), 1e-4f, "input"));
    for (std::size_t l = 0; l < run.steps.layers.size(); ++l) {
      const std::string p = "L" + std::to_string(l) + ".";
      const auto& heads = run.steps.layers[l].attention.heads;
      for (std::size_t h = 0; h < heads.size(); ++h)
        worst = std::max(worst, require_close_rows(heads[h].weights, c.get(p + "H" + std::to_string(h) + ".weights"),
                                                   1e-4f, p + "H" + std::to_string(h) + ".weights"));
      worst = std::max(worst, require_close_rows(run.steps.layers[l].output, c.get(p + "output"), 1e-4f, p + "output"));
      // The heads read LN1 of the layer's input (pre-norm): the matrix the run keeps for the explainer.
      const Matrix& input = l == 0 ? run.steps.input : run.steps.layers[l - 1].output;
      require_close(run.steps.layers[l].attention_input,
                    layer_norm(input, model.layers[l].norm1_gamma, model.layers[l].norm1_beta), 0.0f);
    }
    worst = std::max(worst, require_close_rows(run.final_norm, c.get("final_norm"), 1e-4f, "final_norm"));
    worst = std::max(worst, require_close_rows(run.rollout, c.get("rollout"), 1e-4f, "rollout"));
    // Nearest words to every position's vector, the input's and each layer's output, through LN_f:
    // the same words in the same order where PyTorch's similarities are more than 1e-5 apart (else the
    // two may swap), similarities to 1e-4.
    for (std::size_t l = 0; l <= run.steps.layers.size(); ++l) {
      const std::string what = l == 0 ? "input" : "L" + std::to_string(l - 1);
      const Matrix& stream = l == 0 ? run.steps.input : run.steps.layers[l - 1].output;
      const Matrix& ids = c.get("nearest." + what + ".ids");
      const Matrix& similarities = c.get("nearest." + what + ".similarities");
      REQUIRE(ids.rows() == stream.rows());
      for (Index t = 0; t < stream.rows(); ++t) {
        INFO("nearest words to " << what << " row " << t);
        const Vector row = stream.row(t).transpose();
        const std::vector<Neighbour> got = nearest_embeddings(model, row.data(), row.size(), 5,
                                                              {run.tokens[static_cast<std::size_t>(t)].id}, true);
        REQUIRE(got.size() == 5);
        for (Index k = 0; k < 5; ++k) {
          INFO("neighbour " << k);
          const bool tied = (k > 0 && similarities(t, k - 1) - similarities(t, k) < 1e-5f) ||
                            (k < 4 && similarities(t, k) - similarities(t, k + 1) < 1e-5f);
          if (!tied) REQUIRE(got[static_cast<std::size_t>(k)].id == static_cast<Index>(ids(t, k)));
          REQUIRE(std::fabs(got[static_cast<std::size_t>(k)].similarity - similarities(t, k)) <= 1e-4f);
          worst = std::max(worst, std::fabs(got[static_cast<std::size_t>(k)].similarity - similarities(t, k)));
        }
      }
    }
    if (c.blank == -1) {  // the encoder on the sentence as it is guesses nothing
      REQUIRE(run.predictions.empty());
      continue;
    }
    // Top 5: the same words in the same order (the golden logits are far enough apart for float32, as
    // make_golden.py prints), logits to 1e-4 relative to the largest, probabilities to 1e-4.
    const Matrix& ids = c.m.count("top5_pieces") ? c.get("top5_pieces") : c.get("top5_ids");
    const Matrix& logits = c.get("top5_logits");
    const Matrix& probabilities = c.get("top5_probabilities");
    REQUIRE(run.predictions.size() == 5);
    const float logit_scale = std::max(1.0f, logits.cwiseAbs().maxCoeff());
    for (Index k = 0; k < 5; ++k) {
      INFO("prediction " << k);
      const Prediction& p = run.predictions[static_cast<std::size_t>(k)];
      if (ids.rows() == 1) {
        REQUIRE(p.id == static_cast<Index>(ids(0, k)));
        REQUIRE(p.pieces == std::vector<Index>{p.id});
      } else {  // a pieces encoder's whole word: its pieces, one per masked position, and the word they spell
        REQUIRE(static_cast<Index>(p.pieces.size()) == ids.cols());
        for (Index i = 0; i < ids.cols(); ++i)
          REQUIRE(p.pieces[static_cast<std::size_t>(i)] == static_cast<Index>(ids(k, i)));
        REQUIRE(p.id == p.pieces.front());
        REQUIRE(p.word == c.guesses.at(static_cast<std::size_t>(k)));
      }
      REQUIRE(std::fabs(p.logit - logits(0, k)) / logit_scale <= 1e-4f);
      REQUIRE(std::fabs(p.probability - probabilities(0, k)) <= 1e-4f);
      worst = std::max(worst, std::fabs(p.logit - logits(0, k)) / logit_scale);
    }
  }
  return worst;
}

}  // namespace

TEST_CASE("the committed model matches PyTorch on the golden sentences to 1e-4", "[model][reference]") {
  const Golden golden = read_golden(ATTN_MODEL_CASES);
  if (std::getenv("ATTN_MODEL_FILE") == nullptr) {
    const Bytes bytes = read_file(ATTN_MODEL_FILE);
    INFO("tests/reference/words_decoder_cases.txt was made from another words_decoder.bin: run model/make_golden.py");
    REQUIRE(bytes.size() == golden.model_bytes);
    REQUIRE(fnv1a64(bytes) == golden.model_hash);
  }
  REQUIRE(golden.cases.size() == 5);
  WARN("largest scaled difference from PyTorch (float64): " << check_golden(committed_model(), golden));
}

TEST_CASE("the committed encoder matches PyTorch on the golden sentences and blanks to 1e-4",
          "[model][encoder][reference]") {
  const Golden golden = read_golden(ATTN_ENCODER_CASES);
  const Bytes bytes = read_file(ATTN_ENCODER_FILE);
  {
    INFO("tests/reference/words_encoder_cases.txt was made from another words_encoder.bin: run model/make_golden.py");
    REQUIRE(bytes.size() == golden.model_bytes);
    REQUIRE(fnv1a64(bytes) == golden.model_hash);
  }
  const LanguageModel model = LanguageModel::parse(bytes.data(), bytes.size());
  REQUIRE(!model.causal);
  // A plain run and five blanks: known, stemmed and unknown words, and the full 32-token context.
  REQUIRE(golden.cases.size() == 6);
  REQUIRE(golden.cases[0].blank == -1);
  for (std::size_t i = 1; i < golden.cases.size(); ++i) REQUIRE(golden.cases[i].blank >= 0);
  WARN("largest scaled difference from PyTorch (float64): " << check_golden(model, golden));
}

TEST_CASE("committed encoder: size, vocabulary, [MASK] and a blank it fills", "[model][encoder][data]") {
  const Bytes bytes = read_file(ATTN_ENCODER_FILE);
  REQUIRE(bytes.size() <= 1000000);
  const LanguageModel model = LanguageModel::parse(bytes.data(), bytes.size());
  REQUIRE(!model.causal);
  REQUIRE(model.vocabulary.size() == 8194);
  REQUIRE(model.vocabulary[static_cast<std::size_t>(model.mask_id)] == "[MASK]");
  REQUIRE(model.context == 32);
  REQUIRE(
      (model.captions.empty() || model.captions.size() == model.layers.size() * static_cast<std::size_t>(model.heads)));
  const FilledBlank filled = fill_blank(model, "the train left the station on time", 4);
  REQUIRE(filled.run.predictions.size() == 5);
  for (const Prediction& p : filled.run.predictions) REQUIRE((p.word != "<unk>" && p.word != "[MASK]"));
}

TEST_CASE("committed model: size, vocabulary and captions", "[model][data]") {
  const char* override_path = std::getenv("ATTN_MODEL_FILE");
  const Bytes bytes = read_file(override_path && *override_path ? override_path : ATTN_MODEL_FILE);
  REQUIRE(bytes.size() <= 1000000);
  const LanguageModel& model = committed_model();
  REQUIRE(model.vocabulary.size() == 8193);
  REQUIRE(model.context == 32);
  for (const ModelToken& t : model_tokens(model, "the train left the station on time")) {
    INFO(t.text);
    REQUIRE(t.lookup == Lookup::Known);
  }
  REQUIRE(model.captions.size() == model.layers.size() * static_cast<std::size_t>(model.heads));
  for (const std::string& caption : model.captions) REQUIRE(!caption.empty());
  // The model has learnt something about WordNet's glosses: "united" is followed by "states" (90%).
  const ModelRun run = run_model(model, "united");
  REQUIRE(run.predictions[0].word == "states");
  REQUIRE(run.predictions[0].probability > 0.5f);
}

// ---- pieces models (issue 24 §3): a pieces vocabulary in the file, tokens that are pieces, whole-word blanks ----

namespace {

// The tiny seeded pieces models of model/make_pieces_fixture.py (random weights, 705 pieces).
const LanguageModel& fixture(const char* path) {
  static std::map<std::string, LanguageModel> models;
  auto it = models.find(path);
  if (it == models.end()) {
    const Bytes bytes = read_file(path);
    it = models.emplace(path, LanguageModel::parse(bytes.data(), bytes.size())).first;
  }
  return it->second;
}

}  // namespace

TEST_CASE("pieces model file: the vocabulary is the pieces' text, [MASK] after the pieces", "[model][pieces]") {
  ModelFile decoder;
  decoder.pieces(false);
  const LanguageModel m = parse(decoder.bytes());
  REQUIRE(m.pieces != nullptr);
  REQUIRE(m.causal);
  REQUIRE(m.vocabulary_size == 265);
  REQUIRE(m.vocabulary.size() == 265);
  REQUIRE(m.pieces->size() == 265);
  REQUIRE(m.vocabulary[1] == "<0x00>");
  REQUIRE(m.vocabulary[259] == "\xE2\x96\x81the");
  REQUIRE(m.find("tion") == 262);
  REQUIRE(m.mask_id == -1);

  ModelFile encoder;
  encoder.pieces(true);
  const LanguageModel e = parse(encoder.bytes());
  REQUIRE(!e.causal);
  REQUIRE(e.vocabulary_size == 266);
  REQUIRE(e.mask_id == 265);
  REQUIRE(e.vocabulary.back() == "[MASK]");
  REQUIRE(e.pieces->size() == 265);

  // Copies share the vocabulary and work as the original does.
  const LanguageModel copy = e;
  REQUIRE(copy.pieces == e.pieces);
  // "ta": ▁ + t join into ▁t; "a" is no piece of this vocabulary, so it falls back to its byte.
  const std::vector<ModelToken> t = model_tokens(copy, "The ta");
  REQUIRE(t.size() == 3);
  REQUIRE(t[0].matched == "\xE2\x96\x81the");
  REQUIRE(t[0].text == "the");
  REQUIRE(t[0].id == 259);
  REQUIRE(t[0].word == 0);
  REQUIRE(t[1].text == "t");
  REQUIRE(t[1].word == 1);
  REQUIRE(t[2].text == "<0x61>");
  REQUIRE(t[2].matched == "<0x61>");
  REQUIRE(t[2].id == 1 + 0x61);
  REQUIRE(t[2].word == 1);
  for (const ModelToken& token : t) REQUIRE(token.lookup == Lookup::Known);
  REQUIRE_THROWS_WITH(model_tokens(copy, "the station"),
                      Contains("the text has 7 pieces (2 words) but the model's context holds 4 pieces"));

  // A words model has none.
  ModelFile words;
  REQUIRE(parse(words.bytes()).pieces == nullptr);
}

TEST_CASE("pieces model file: malformed files are refused by name", "[model][pieces][errors]") {
  ModelFile f;
  f.pieces(true);
  const Bytes good = f.bytes();
  REQUIRE_NOTHROW(parse(good));
  for (std::size_t n = 0; n < good.size(); ++n) {
    INFO("truncated to " << n << " bytes");
    REQUIRE_THROWS_AS(LanguageModel::parse(good.data(), n), AttentionError);
  }
  // Version 1 holds only words.
  ModelFile v1;
  v1.pieces(false).version = 1;
  REQUIRE_THROWS_WITH(parse(v1.bytes()), Contains("flags 39 are not supported in version 1"));
  // V must be the pieces (decoder), or the pieces and [MASK] (encoder), with [MASK] right after the pieces.
  ModelFile extra;
  extra.pieces(false);
  extra.words.push_back("extra");
  extra.scales.push_back(0.0625f);
  for (std::uint32_t k = 0; k < extra.d; ++k) extra.values.push_back(1);
  REQUIRE_THROWS_WITH(parse(extra.bytes()),
                      Contains("V = 266 does not match its pieces vocabulary: 265 pieces give V = 265"));
  ModelFile no_mask;
  no_mask.pieces(true);
  no_mask.words.pop_back();
  no_mask.scales.pop_back();
  no_mask.values.resize(no_mask.values.size() - no_mask.d);
  no_mask.mask_id = 264;
  REQUIRE_THROWS_WITH(parse(no_mask.bytes()),
                      Contains("V = 265 does not match its pieces vocabulary: 265 pieces and [MASK] give V = 266"));
  Bytes b = good;
  put_u32(b, f.mask_id_at, 3);
  REQUIRE_THROWS_WITH(parse(b), Contains("a pieces encoder's mask token comes after its 265 pieces (id 265); the "
                                         "header gives 3"));
  // The text must be a pieces vocabulary: PieceVocabulary::parse's refusals, prefixed.
  ModelFile header = f;
  header.pieces_text.replace(0, 16, "attention-pieces");  // same bytes: still the right header
  REQUIRE_NOTHROW(parse(header.bytes()));
  header.pieces_text[0] = 'A';
  REQUIRE_THROWS_WITH(parse(header.bytes()),
                      Contains("model file: its pieces vocabulary: line 1 must be \"attention-pieces 1 bpe\""));
  ModelFile missing_byte = f;
  const std::size_t at = missing_byte.pieces_text.find("<0x41>\t0\n");
  missing_byte.pieces_text.replace(at, 9, "<0x41>\t0\n<0x41>\t0\n");
  REQUIRE_THROWS_WITH(parse(missing_byte.bytes()), Contains("repeats the piece \"<0x41>\""));
  missing_byte.pieces_text.replace(at, 18, "");
  REQUIRE_THROWS_WITH(parse(missing_byte.bytes()), Contains("the byte piece <0x41> is missing"));
  // The same block read as words (no flag 32) is no list of words.
  b = good;
  put_u32(b, f.flags_at, 2 | 4);
  REQUIRE_THROWS_AS(parse(b), AttentionError);
}

TEST_CASE("pieces model: one token per piece, labelled, with its word; the context counts pieces", "[model][pieces]") {
  const LanguageModel& m = fixture(ATTN_PIECES_DECODER_FILE);
  REQUIRE(m.pieces != nullptr);
  const std::vector<ModelToken> t = model_tokens(m, "the train left the station on time");
  const PieceEncoding encoding = m.pieces->encode("the train left the station on time");
  REQUIRE(t.size() == 13);
  for (std::size_t p = 0; p < t.size(); ++p) {
    INFO("piece " << p);
    REQUIRE(t[p].id == Index(encoding.ids[p]));
    REQUIRE(t[p].word == Index(encoding.word_of[p]));
    REQUIRE(t[p].text == m.pieces->label(encoding.ids[p]));
    REQUIRE(t[p].matched == m.pieces->piece(encoding.ids[p]));
    REQUIRE(t[p].lookup == Lookup::Known);
  }
  REQUIRE(t[1].text == "tra");
  REQUIRE(t[2].text == "##in");
  REQUIRE(t[2].matched == "in");
  REQUIRE(t[2].word == 1);
  // 34 words of one piece each ("the"): over the 32 pieces of the context.
  std::string long_text;
  for (int i = 0; i < 34; ++i) long_text += "the ";
  REQUIRE_THROWS_WITH(model_tokens(m, long_text), Contains("34 pieces (34 words) but the model's context holds 32 "
                                                           "pieces"));
  // The decoder's next pieces: each a single piece.
  const ModelRun run = run_model(m, "the train left the station on time", 3);
  REQUIRE(run.predictions.size() == 3);
  for (const Prediction& p : run.predictions) REQUIRE(p.pieces == std::vector<Index>{p.id});
  // Head effects on a pieces decoder follow its top next piece, as stored (test_intervention.cpp: the rest).
  const HeadEffects effects = head_effects(m, "the train left", 0);
  REQUIRE(effects.heads.size() == 4);
  const ModelRun left = run_model(m, "the train left", 1);
  REQUIRE(effects.target == left.predictions[0].id);
  REQUIRE(effects.pieces == std::vector<Index>{effects.target});
  REQUIRE(effects.word == m.vocabulary[static_cast<std::size_t>(effects.target)]);
  REQUIRE(effects.rank == 1);
  REQUIRE(effects.rank_exact);
}

TEST_CASE("pieces fill the blank: a word's pieces all masked; the exact top k whole words",
          "[model][pieces][encoder]") {
  const LanguageModel& m = fixture(ATTN_PIECES_ENCODER_FILE);
  const std::string sentence = "the train left the station on time";
  const FilledBlank blank = fill_blank(m, sentence, 4, 12);  // station: st ##ation
  REQUIRE(blank.position == 4);
  REQUIRE(blank.masked == std::vector<Index>{7, 8});
  REQUIRE(blank.tokens.size() == 13);
  REQUIRE(blank.tokens[7].text == "st");
  REQUIRE(blank.tokens[8].text == "##ation");
  for (std::size_t t = 0; t < 13; ++t) {
    const bool hidden = t == 7 || t == 8;
    REQUIRE(blank.run.tokens[t].id == (hidden ? m.mask_id : blank.tokens[t].id));
    REQUIRE(blank.run.tokens[t].word == blank.tokens[t].word);
  }

  // Brute force over every allowed pair (word-start piece, continuation piece) from the run's logits that is
  // how the vocabulary spells the word it makes (canonical).
  auto log_probabilities = [&](Index t) {
    const Eigen::VectorXd logits = (m.embedding * blank.run.final_norm.row(t).transpose()).cast<double>();
    return Eigen::VectorXd(logits.array() - std::log(logits.array().exp().sum()));
  };
  const Eigen::VectorXd first = log_probabilities(7), second = log_probabilities(8);
  const std::string_view mark = PieceVocabulary::word_start;
  std::vector<std::pair<double, std::vector<Index>>> all;
  for (std::uint32_t a = 1; a < m.pieces->size(); ++a) {
    const std::string_view pa = m.pieces->piece(a);
    if (m.pieces->is_byte(a) || pa.substr(0, 3) != mark || pa.size() == 3) continue;
    for (std::uint32_t b = 1; b < m.pieces->size(); ++b) {
      if (m.pieces->is_byte(b) || m.pieces->piece(b).substr(0, 3) == mark) continue;
      if (m.pieces->encode_word(m.pieces->decode_word({a, b})) != std::vector<std::uint32_t>{a, b}) continue;
      all.push_back({first(a) + second(b), {Index(a), Index(b)}});
    }
  }
  std::sort(all.begin(), all.end(), [](const auto& x, const auto& y) { return x.first > y.first; });
  REQUIRE(all.size() > 1000);
  REQUIRE(blank.run.predictions.size() == 12);
  for (std::size_t k = 0; k < 12; ++k) {
    INFO("guess " << k);
    const Prediction& p = blank.run.predictions[k];
    REQUIRE(p.pieces == all[k].second);
    REQUIRE(p.id == p.pieces[0]);
    REQUIRE(p.logit == Approx(all[k].first).epsilon(1e-5));
    REQUIRE(p.probability == Approx(std::exp(all[k].first)).epsilon(1e-5));
    const std::vector<std::uint32_t> ids(p.pieces.begin(), p.pieces.end());
    REQUIRE(p.word == m.pieces->decode_word(ids));
  }
  // Every guess of a longer blank is canonical too; and one that is not, though its sum ranks it among
  // the top 5, is left out: ")gllgg" is spelt with "ll", not "l" + "l" (crème's six byte-and-letter pieces).
  const FilledBlank creme = fill_blank(m, "the café served crème brûlée", 3, 20);
  REQUIRE(creme.masked.size() == 6);
  REQUIRE(creme.run.predictions.size() == 20);
  const std::vector<Index> spelt_otherwise{328, 673, 665, 665, 673, 673};  // ▁) g l l g g
  REQUIRE(m.pieces->piece(665) == "l");
  REQUIRE(m.pieces->decode_word({328, 673, 665, 665, 673, 673}) == ")gllgg");
  REQUIRE(m.pieces->encode_word(")gllgg") != std::vector<std::uint32_t>{328, 673, 665, 665, 673, 673});
  double spelt_otherwise_sum = 0;  // its score: it would be the 3rd guess without the rule
  for (std::size_t i = 0; i < 6; ++i) {
    const Eigen::VectorXd logits = (m.embedding * creme.run.final_norm.row(creme.masked[i]).transpose()).cast<double>();
    spelt_otherwise_sum += logits(spelt_otherwise[i]) - std::log(logits.array().exp().sum());
  }
  REQUIRE(spelt_otherwise_sum > creme.run.predictions[4].logit + 1e-3);
  for (std::size_t k = 0; k < creme.run.predictions.size(); ++k) {
    const Prediction& p = creme.run.predictions[k];
    INFO("guess " << k << ": " << p.word);
    const std::vector<std::uint32_t> ids(p.pieces.begin(), p.pieces.end());
    REQUIRE(m.pieces->encode_word(p.word) == ids);
    REQUIRE(p.pieces != spelt_otherwise);
    if (k > 0) REQUIRE(p.logit <= creme.run.predictions[k - 1].logit);
  }

  // A one-piece word: guesses of one piece.
  const FilledBlank the = fill_blank(m, sentence, 0, 3);
  REQUIRE(the.masked == std::vector<Index>{0});
  for (const Prediction& p : the.run.predictions) REQUIRE(p.pieces.size() == 1);

  REQUIRE(fill_blank(m, sentence, 4, 0).run.predictions.empty());
  REQUIRE_THROWS_WITH(fill_blank(m, sentence, 7),
                      Contains("position 7 is not a word of the sentence: it has 7 words, numbered 0 to 6"));
  REQUIRE_THROWS_WITH(fill_blank(m, sentence, -1), Contains("position -1"));
  REQUIRE_THROWS_WITH(fill_blank(fixture(ATTN_PIECES_DECODER_FILE), sentence, 0), Contains("needs an encoder"));
}

TEST_CASE(
    "the pieces fixtures and the shipped pieces models match PyTorch on the golden sentences and "
    "whole-word blanks to 1e-4",
    "[model][pieces][reference]") {
  for (const auto& [file, cases] :
       {std::pair<const char*, const char*>{ATTN_PIECES_DECODER_FILE, ATTN_PIECES_DECODER_CASES},
        {ATTN_PIECES_ENCODER_FILE, ATTN_PIECES_ENCODER_CASES},
        {ATTN_SHIPPED_ENCODER_FILE, ATTN_SHIPPED_ENCODER_CASES},
        {ATTN_SHIPPED_DECODER_FILE, ATTN_SHIPPED_DECODER_CASES}}) {
    INFO(cases);
    const Golden golden = read_golden(cases);
    const Bytes bytes = read_file(file);
    {
      INFO(
          "the cases were made from another model file: run model/make_pieces_fixture.py (fixtures) or "
          "model/make_golden.py (shipped)");
      REQUIRE(bytes.size() == golden.model_bytes);
      REQUIRE(fnv1a64(bytes) == golden.model_hash);
    }
    const LanguageModel& model = fixture(file);
    REQUIRE(golden.cases.size() == (model.causal ? 3u : 5u));
    WARN("largest scaled difference from PyTorch (float64): " << check_golden(model, golden));
  }
}

// Parsing the language model's file (data/model.bin, format in model/README.md) from bytes.
// Built with -Os for wasm (core/CMakeLists.txt): it runs once per page, and its many bounds checks and
// refusals are most of the model's code; the maths in model.cpp stays at -O3.
#include <cmath>
#include <cstring>
#include <limits>

#include "attention/model.hpp"
#include "byte_reader.hpp"

namespace attn {
namespace {

using detail::ByteReader;
using detail::f32_le;
using detail::fail;
using detail::layer_prefix;
using detail::ull;

constexpr char kMagic[6] = {'A', 'T', 'T', 'N', 'L', 'M'};
constexpr std::uint16_t kVersion = 1;
// Flags of version 1; the core implements exactly this combination.
constexpr std::uint32_t kCausal = 1, kGelu = 2, kSinusoidal = 4;
constexpr float kLayerNormEps = 1e-5f;  // what attn::layer_norm's default (and so every layer's) uses
// Limits that no real model of this format comes near; they keep every size computation inside 64 bits
// and turn a corrupted header into a message instead of a huge allocation.
constexpr std::uint32_t kMaxVocabulary = 1u << 24, kMaxWidth = 1u << 14, kMaxLayers = 256, kMaxContext = 1u << 16;

// IEEE 754 half precision → float (exact). The caller has refused exponent 31 (Inf/NaN).
float half_to_float(std::uint16_t h) {
  const int exponent = (h >> 10) & 0x1f;
  const int mantissa = h & 0x3ff;
  const float magnitude = exponent == 0 ? std::ldexp(static_cast<float>(mantissa), -24)  // subnormal: m·2⁻²⁴
                                        : std::ldexp(static_cast<float>(mantissa | 0x400), exponent - 25);
  return (h & 0x8000) ? -magnitude : magnitude;
}

// `rows × cols` float16 values, row-major, into a float32 matrix; Inf or NaN is refused by name.
Matrix read_half(ByteReader& in, Index rows, Index cols, std::string_view name, std::int64_t layer) {
  const std::uint8_t* raw = in.take(2ull * static_cast<std::uint64_t>(rows * cols), name, layer);
  Matrix m(rows, cols);
  for (Index i = 0; i < rows * cols; ++i) {
    const std::uint16_t h = static_cast<std::uint16_t>(raw[2 * i] | raw[2 * i + 1] << 8);
    if (((h >> 10) & 0x1f) == 0x1f)
      fail("model file: %s%.*s (%lld×%lld) holds %s at (%lld, %lld)", layer_prefix(layer).c_str(),
           static_cast<int>(name.size()), name.data(),
           static_cast<long long>(rows), static_cast<long long>(cols), (h & 0x3ff) ? "NaN" : "Inf",
           static_cast<long long>(i / cols), static_cast<long long>(i % cols));
    m(i / cols, i % cols) = half_to_float(h);
  }
  return m;
}

// One layer's float16 tensors in file order, in the core's row convention (W is d_in × d_out). Sizes:
// 'd' = d_model, 'f' = d_ff, '1' = a single row (a vector).
struct TensorSpec {
  const char* name;
  char rows, cols;
};
constexpr TensorSpec kLayerTensors[] = {
    {"norm1 gamma", '1', 'd'}, {"norm1 beta", '1', 'd'}, {"W_Q", 'd', 'd'}, {"b_Q", '1', 'd'},
    {"W_K", 'd', 'd'},         {"b_K", '1', 'd'},        {"W_V", 'd', 'd'}, {"b_V", '1', 'd'},
    {"W_O", 'd', 'd'},         {"b_O", '1', 'd'},        {"norm2 gamma", '1', 'd'}, {"norm2 beta", '1', 'd'},
    {"W1", 'd', 'f'},          {"b1", '1', 'f'},         {"W2", 'f', 'd'},  {"b2", '1', 'd'}};
enum LayerTensor { Norm1Gamma, Norm1Beta, WQ, BQ, WK, BK, WV, BV, WO, BO, Norm2Gamma, Norm2Beta, W1, B1, W2, B2, kTensors };

Vector as_vector(const Matrix& row) { return row.row(0).transpose(); }

void require_shape(bool ok, const char* what, std::uint64_t value, const char* rule) {
  if (!ok) fail("model file has an impossible shape: %s = %llu (%s)", what, static_cast<ull>(value), rule);
}

}  // namespace

LanguageModel LanguageModel::parse(const std::uint8_t* bytes, std::size_t size) {
  if (bytes == nullptr && size != 0) fail("model file: null data");
  ByteReader in(bytes, size, "model file");
  if (size < sizeof kMagic || std::memcmp(in.take(sizeof kMagic, "magic"), kMagic, sizeof kMagic) != 0)
    fail("not a model file: it must start with \"ATTNLM\"");
  const std::uint16_t version = in.u16("version");
  if (version != kVersion)
    fail("model file version %u is not supported; this core reads version %u", unsigned{version}, unsigned{kVersion});

  // ---- header: hyperparameters ----
  const std::uint32_t V = in.u32("vocabulary size"), d = in.u32("d_model"), L = in.u32("layer count"),
                      H = in.u32("head count"), d_ff = in.u32("d_ff"), context = in.u32("context length"),
                      flags = in.u32("flags"), words_bytes = in.u32("words size");
  const float eps = in.f32("LayerNorm eps"), embedding_scale = in.f32("embedding scale");
  require_shape(V >= 2 && V <= kMaxVocabulary, "vocabulary size", V, "2 to 16,777,216: <unk> and at least one word");
  require_shape(d >= 1 && d <= kMaxWidth, "d_model", d, "1 to 16,384");
  require_shape(L >= 1 && L <= kMaxLayers, "layers", L, "1 to 256");
  require_shape(H >= 1 && d % H == 0, "heads", H, "at least 1 and dividing d_model");
  require_shape(d_ff >= 1 && d_ff <= kMaxWidth, "d_ff", d_ff, "1 to 16,384");
  require_shape(context >= 1 && context <= kMaxContext, "context", context, "1 to 65,536");
  if (flags != (kCausal | kGelu | kSinusoidal))
    fail("model file flags %u are not supported: this core runs causal, GELU, sinusoidal-position models (flags 7)",
         unsigned{flags});
  if (eps != kLayerNormEps) fail("model file LayerNorm eps %g is not supported: the core's is 1e-5", double{eps});
  if (!std::isfinite(embedding_scale) || !(embedding_scale > 0))
    fail("model file: the embedding scale %g must be finite and > 0", double{embedding_scale});

  // Everything but the captions has a size fixed by the header: check it before allocating anything.
  const std::uint64_t per_layer = 2ull * (4ull * d * d + 4ull * d + 4ull * d + 2ull * d * d_ff + d_ff + d);
  const std::uint64_t fixed = std::uint64_t{words_bytes} + 4ull * V + std::uint64_t{V} * d + L * per_layer + 4ull * d + 4;
  if (fixed > in.remaining())
    fail("model file is truncated or its header is corrupt: %u words × %u dims, %u layers (d_ff %u) and %u bytes of "
         "words need %llu bytes after the header, the file has %llu",
         unsigned{V}, unsigned{d}, unsigned{L}, unsigned{d_ff}, unsigned{words_bytes}, static_cast<ull>(fixed),
         static_cast<ull>(in.remaining()));

  LanguageModel model;
  model.d_model = d;
  model.heads = H;
  model.d_ff = d_ff;
  model.context = context;
  model.embedding_scale = embedding_scale;

  // ---- vocabulary: V words, each a u8 length then UTF-8 bytes ----
  ByteReader words(in.take(words_bytes, "words"), words_bytes, "the model file's words block");
  model.vocabulary.reserve(V);
  for (std::uint32_t i = 0; i < V; ++i) {
    const std::uint8_t length = *words.take(1, "a word's length");
    if (length == 0) fail("model file: word %u is empty", unsigned{i});
    model.vocabulary.emplace_back(reinterpret_cast<const char*>(words.take(length, "a word")), length);
    if (!model.index_.emplace(model.vocabulary.back(), static_cast<Index>(i)).second)
      fail("model file: the word \"%s\" appears twice", model.vocabulary.back().c_str());
  }
  if (words.remaining() != 0)
    fail("model file: the words block has %llu bytes left over after %u words", static_cast<ull>(words.remaining()),
         unsigned{V});
  if (model.vocabulary[0] != "<unk>") fail("model file: word 0 must be \"<unk>\", it is \"%s\"", model.vocabulary[0].c_str());

  // ---- embedding: f32 scale per row, then int8 values; row = scale × values ----
  const std::uint8_t* scales = in.take(4ull * V, "embedding scales");
  const std::uint8_t* values = in.take(std::uint64_t{V} * d, "embedding values");
  model.embedding.resize(V, d);
  for (std::uint32_t w = 0; w < V; ++w) {
    const float scale = f32_le(scales + 4ull * w);
    // scale × 127 must stay finite too.
    if (!std::isfinite(scale) || scale < 0 || scale > std::numeric_limits<float>::max() / 128.0f)
      fail("model file: the embedding scale of \"%s\" is %g; it must be finite, ≥ 0 and at most FLT_MAX / 128",
           model.vocabulary[w].c_str(), double{scale});
    for (std::uint32_t k = 0; k < d; ++k)
      model.embedding(w, k) = scale * static_cast<float>(static_cast<std::int8_t>(values[std::uint64_t{w} * d + k]));
  }

  // ---- layers ----
  const Index d_k = static_cast<Index>(d / H);
  for (std::uint32_t l = 0; l < L; ++l) {
    Matrix t[kTensors];
    for (int i = 0; i < kTensors; ++i) {
      auto size = [&](char kind) -> Index { return kind == 'd' ? d : kind == 'f' ? d_ff : 1; };
      t[i] = read_half(in, size(kLayerTensors[i].rows), size(kLayerTensors[i].cols), kLayerTensors[i].name, l);
    }
    TransformerLayer layer;
    layer.norm1_gamma = as_vector(t[Norm1Gamma]);
    layer.norm1_beta = as_vector(t[Norm1Beta]);
    // Head h owns columns [h·d_k, (h+1)·d_k) of W_Q, W_K, W_V and their biases (nn.MultiheadAttention);
    // W_O maps the concatenated heads back to d_model.
    layer.attention.heads.resize(H);
    for (Index h = 0; h < static_cast<Index>(H); ++h) {
      HeadWeights& head = layer.attention.heads[static_cast<std::size_t>(h)];
      head.W_Q = t[WQ].middleCols(h * d_k, d_k);
      head.W_K = t[WK].middleCols(h * d_k, d_k);
      head.W_V = t[WV].middleCols(h * d_k, d_k);
      head.b_Q = as_vector(t[BQ]).segment(h * d_k, d_k);
      head.b_K = as_vector(t[BK]).segment(h * d_k, d_k);
      head.b_V = as_vector(t[BV]).segment(h * d_k, d_k);
    }
    layer.attention.W_O = std::move(t[WO]);
    layer.attention.b_O = as_vector(t[BO]);
    layer.norm2_gamma = as_vector(t[Norm2Gamma]);
    layer.norm2_beta = as_vector(t[Norm2Beta]);
    layer.ffn = {std::move(t[W1]), as_vector(t[B1]), std::move(t[W2]), as_vector(t[B2]), Activation::GELU};
    model.layers.push_back(std::move(layer));
  }
  model.final_gamma = as_vector(read_half(in, 1, d, "final LayerNorm gamma", -1));
  model.final_beta = as_vector(read_half(in, 1, d, "final LayerNorm beta", -1));

  // ---- captions: u32 count (0 or layers × heads), each a u16 length then UTF-8 ----
  const std::uint32_t captions = in.u32("caption count");
  if (captions != 0 && captions != L * H)
    fail("model file has %u head captions; it needs 0 or %u (one per head)", unsigned{captions}, unsigned{L * H});
  for (std::uint32_t c = 0; c < captions; ++c) {
    const std::uint16_t length = in.u16("a caption's length");
    model.captions.emplace_back(reinterpret_cast<const char*>(in.take(length, "a caption")), length);
  }
  if (in.remaining() != 0)
    fail("model file has %llu unexpected bytes after its last section", static_cast<ull>(in.remaining()));

  model.positions = sinusoidal_positions(context, static_cast<Index>(d));
  return model;
}

}  // namespace attn

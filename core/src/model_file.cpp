// Parsing a model file (data/model.bin, data/encoder.bin; format in model/README.md) from bytes, section
// by section in file order: header → ModelConfig, vocabulary, embedding, layers, final LayerNorm, captions.
// Each value is read once, straight from the bytes into the matrix that keeps it (a head's column block
// of W_Q, say); nothing goes through an intermediate copy.
// Built with -Os for wasm (core/CMakeLists.txt): it runs once per page, and its many bounds checks and
// refusals are most of the model's code; the maths in model.cpp stays at -O3.
#include <cmath>
#include <cstring>
#include <limits>

#include "attention/model.hpp"
#include "byte_reader.hpp"
#include "word_table.hpp"

namespace attn {
namespace {

using detail::ByteReader;
using detail::f32_le;
using detail::fail;
using detail::layer_prefix;
using detail::ll;
using detail::ull;

constexpr char kMagic[6] = {'A', 'T', 'T', 'N', 'L', 'M'};
// Version 1: the decoder (data/model.bin). Version 2 adds the mask token's id to the header and lets the
// flags say bidirectional (no kCausal), int8 layer matrices (data/encoder.bin) and a pieces vocabulary
// (kPieces: the words block holds data/pieces.vocab's text instead of a list of words). 16 is left unused:
// files with it were refused before, and tests hold that an unknown flag still is.
constexpr std::uint16_t kVersion1 = 1, kVersion2 = 2;
constexpr std::uint32_t kCausal = 1, kGelu = 2, kSinusoidal = 4, kInt8 = 8, kPieces = 32;
constexpr char kMaskWord[] = "[MASK]";
constexpr float kLayerNormEps = 1e-5f;  // what attn::layer_norm's default (and so every layer's) uses
// Limits that no real model of this format comes near; they keep every size computation inside 64 bits
// and turn a corrupted header into a message instead of a huge allocation.
constexpr std::uint32_t kMaxVocabulary = 1u << 24, kMaxWidth = 1u << 14, kMaxLayers = 256, kMaxContext = 1u << 16;

void require_shape(bool ok, const char* what, std::uint64_t value, const char* rule) {
  if (!ok) fail("model file has an impossible shape: %s = %llu (%s)", what, static_cast<ull>(value), rule);
}

// ---- header: magic, version, the hyper-parameters --------------------------------------------------------
// Returns the config; `words_bytes` gets the size of the vocabulary block that follows, `int8` whether
// the layers' matrices are int8 and `pieces` whether that block is a pieces vocabulary.
ModelConfig read_header(ByteReader& in, std::size_t size, std::uint32_t& words_bytes, bool& int8, bool& pieces) {
  if (size < sizeof kMagic || std::memcmp(in.take(sizeof kMagic, "magic"), kMagic, sizeof kMagic) != 0)
    fail("not a model file: it must start with \"ATTNLM\"");
  const std::uint16_t version = in.u16("version");
  if (version != kVersion1 && version != kVersion2)
    fail("model file version %u is not supported; this core reads versions 1 and 2", unsigned{version});

  const std::uint32_t V = in.u32("vocabulary size"), d = in.u32("d_model"), L = in.u32("layer count"),
                      H = in.u32("head count"), d_ff = in.u32("d_ff"), context = in.u32("context length"),
                      flags = in.u32("flags");
  words_bytes = in.u32("words size");
  const std::uint32_t mask_id = version == kVersion2 ? in.u32("mask token id") : 0;
  const float eps = in.f32("LayerNorm eps"), embedding_scale = in.f32("embedding scale");
  require_shape(V >= 2 && V <= kMaxVocabulary, "vocabulary size", V, "2 to 16,777,216: <unk> and at least one word");
  require_shape(d >= 1 && d <= kMaxWidth, "d_model", d, "1 to 16,384");
  require_shape(L >= 1 && L <= kMaxLayers, "layers", L, "1 to 256");
  require_shape(H >= 1 && d % H == 0, "heads", H, "at least 1 and dividing d_model");
  require_shape(d_ff >= 1 && d_ff <= kMaxWidth, "d_ff", d_ff, "1 to 16,384");
  require_shape(context >= 1 && context <= kMaxContext, "context", context, "1 to 65,536");
  if (version == kVersion1 && flags != (kCausal | kGelu | kSinusoidal))
    fail(
        "model file flags %u are not supported in version 1: it holds causal, GELU, sinusoidal-position models "
        "(flags 7)",
        unsigned{flags});
  if ((flags & ~(kCausal | kInt8 | kPieces)) != (kGelu | kSinusoidal))
    fail(
        "model file flags %u are not supported: this core runs GELU, sinusoidal-position models (flags 2 and 4 set), "
        "causal (1) or not, with float16 or int8 (8) layer matrices, on words or pieces (32)",
        unsigned{flags});
  const bool causal = (flags & kCausal) != 0;
  int8 = (flags & kInt8) != 0;
  pieces = (flags & kPieces) != 0;
  // fill_blank needs the mask token, and a causal model was not trained with one.
  if (causal && mask_id != 0) fail("model file: a causal model has no mask token, but the header gives id %u", mask_id);
  if (!causal && (mask_id == 0 || mask_id >= V))
    fail("model file: a bidirectional model needs its mask token's id, from 1 to V − 1 = %u; the header gives %u",
         V - 1, mask_id);
  if (eps != kLayerNormEps) fail("model file LayerNorm eps %g is not supported: the core's is 1e-5", double{eps});
  if (!std::isfinite(embedding_scale) || !(embedding_scale > 0))
    fail("model file: the embedding scale %g must be finite and > 0", double{embedding_scale});

  // Everything but the captions has a size fixed by the header: check it before allocating anything.
  // A layer: W_Q, W_K, W_V, W_O (d × d), W1 (d × d_ff), W2 (d_ff × d); their biases and the two
  // LayerNorms (4d + d_ff + d + 4d values, float16). Matrices are float16 (2 bytes a value) or int8 (1
  // byte) with a float32 scale per output unit (4d + d_ff + d of them).
  const std::uint64_t matrix_values = 4ull * d * d + 2ull * d * d_ff, outputs = 4ull * d + d_ff + d;
  const std::uint64_t per_layer = (int8 ? matrix_values + 4 * outputs : 2 * matrix_values) + 2 * (outputs + 4ull * d);
  const std::uint64_t fixed = std::uint64_t{words_bytes} + 4ull * V + std::uint64_t{V} * d + L * per_layer + 4ull * d +
                              4;
  if (fixed > in.remaining())
    fail(
        "model file is truncated or its header is corrupt: %u words × %u dims, %u layers (d_ff %u) and %u bytes of "
        "words need %llu bytes after the header, the file has %llu",
        unsigned{V}, unsigned{d}, unsigned{L}, unsigned{d_ff}, unsigned{words_bytes}, static_cast<ull>(fixed),
        static_cast<ull>(in.remaining()));
  return {Index(V),        Index(d),    Index(L),
          Index(H),        Index(d_ff), Index(context),
          embedding_scale, causal,      causal ? Index{-1} : Index(mask_id)};
}

// ---- vocabulary: V words, each a u8 length then UTF-8 bytes ----------------------------------------------
std::vector<std::string> read_vocabulary(ByteReader& in, std::uint32_t words_bytes, Index V) {
  ByteReader words(in.take(words_bytes, "words"), words_bytes, "the model file's words block");
  std::vector<std::string> vocabulary;
  vocabulary.reserve(static_cast<std::size_t>(V));
  for (Index i = 0; i < V; ++i) {
    const std::uint8_t length = *words.take(1, "a word's length");
    if (length == 0) fail("model file: word %lld is empty", ll(i));
    vocabulary.emplace_back(reinterpret_cast<const char*>(words.take(length, "a word")), length);
  }
  if (words.remaining() != 0)
    fail("model file: the words block has %llu bytes left over after %lld words", static_cast<ull>(words.remaining()),
         ll(V));
  if (vocabulary[0] != "<unk>") fail("model file: word 0 must be \"<unk>\", it is \"%s\"", vocabulary[0].c_str());
  return vocabulary;
}

// ---- a pieces vocabulary: the words block is data/pieces.vocab's text (PieceVocabulary::parse) ----------
// The pieces are ids 0 … n − 1; an encoder's [MASK] is id n, after them (it is no piece, so the text
// cannot hold it), and V must be n (decoder) or n + 1 (encoder).
std::vector<std::string> read_pieces(ByteReader& in, std::uint32_t words_bytes, const ModelConfig& c,
                                     std::shared_ptr<const PieceVocabulary>& out) {
  const char* text = reinterpret_cast<const char*>(in.take(words_bytes, "pieces vocabulary"));
  try {
    out = std::make_shared<const PieceVocabulary>(PieceVocabulary::parse(std::string_view(text, words_bytes)));
  } catch (const AttentionError& e) {
    fail("model file: its %s", e.what());
  }
  const std::size_t n = out->size(), wanted = n + (c.causal ? 0 : 1);
  if (static_cast<std::size_t>(c.vocabulary_size) != wanted)
    fail("model file: V = %lld does not match its pieces vocabulary: %zu pieces%s give V = %zu", ll(c.vocabulary_size),
         n, c.causal ? "" : " and [MASK]", wanted);
  if (!c.causal && static_cast<std::size_t>(c.mask_id) != n)
    fail("model file: a pieces encoder's mask token comes after its %zu pieces (id %zu); the header gives %lld", n, n,
         ll(c.mask_id));
  std::vector<std::string> vocabulary;
  vocabulary.reserve(wanted);
  for (std::uint32_t id = 0; id < n; ++id) vocabulary.emplace_back(out->piece(id));
  if (!c.causal) vocabulary.emplace_back(kMaskWord);
  return vocabulary;
}

// The header's mask id must name the [MASK] word, so a file cannot blank sentences with a real word.
void check_mask_word(const ModelConfig& c, const std::vector<std::string>& vocabulary) {
  if (c.causal) return;
  const std::string& word = vocabulary[static_cast<std::size_t>(c.mask_id)];
  if (word != kMaskWord)
    fail("model file: the mask token (id %lld) must be the word \"%s\", it is \"%s\"", ll(c.mask_id), kMaskWord,
         word.c_str());
}

// The hash table LanguageModel::find looks words up in (word_table.hpp); a word that appears twice is
// refused.
std::vector<std::uint32_t> index_words(const std::vector<std::string>& vocabulary) {
  std::vector<std::uint32_t> slots = detail::empty_slots(vocabulary.size());
  auto word_of = [&](std::uint32_t id) { return std::string_view(vocabulary[id]); };
  for (std::uint32_t id = 0; id < vocabulary.size(); ++id) {
    const std::string& word = vocabulary[id];
    std::uint32_t& slot = slots[detail::slot_of(slots, word, detail::fnv1a(word), word_of)];
    if (slot != 0) fail("model file: the word \"%s\" appears twice", word.c_str());
    slot = id + 1;
  }
  return slots;
}

// ---- int8 values with float32 scales: the embedding (a scale per row), int8 layer matrices (per column) ----
// scale × 127 must stay finite too.
bool valid_scale(float scale) {
  return std::isfinite(scale) && scale >= 0 && scale <= std::numeric_limits<float>::max() / 128.0f;
}

// ---- embedding: f32 scale per row, then int8 values; row = scale × values --------------------------------
Matrix read_embedding(ByteReader& in, const ModelConfig& c, const std::vector<std::string>& vocabulary) {
  const Index V = c.vocabulary_size, d = c.d_model;
  const std::uint8_t* scales = in.take(4ull * static_cast<ull>(V), "embedding scales");
  const std::uint8_t* values = in.take(static_cast<ull>(V) * static_cast<ull>(d), "embedding values");
  Matrix embedding(V, d);
  for (Index w = 0; w < V; ++w) {
    const float scale = f32_le(scales + 4 * w);
    if (!valid_scale(scale))
      fail("model file: the embedding scale of \"%s\" is %g; it must be finite, ≥ 0 and at most FLT_MAX / 128",
           vocabulary[static_cast<std::size_t>(w)].c_str(), double{scale});
    for (Index k = 0; k < d; ++k)
      embedding(w, k) = scale * static_cast<float>(static_cast<std::int8_t>(values[w * d + k]));
  }
  return embedding;
}

// ---- float16 tensors -------------------------------------------------------------------------------------
// IEEE 754 half precision → float (exact). The caller has refused exponent 31 (Inf/NaN).
float half_to_float(std::uint16_t h) {
  const int exponent = (h >> 10) & 0x1f;
  const int mantissa = h & 0x3ff;
  const float magnitude = exponent == 0 ? std::ldexp(static_cast<float>(mantissa), -24)  // subnormal: m·2⁻²⁴
                                        : std::ldexp(static_cast<float>(mantissa | 0x400), exponent - 25);
  return (h & 0x8000) ? -magnitude : magnitude;
}

// A rows × cols float16 tensor, row-major: each value goes to put(row, column, value) as it is decoded,
// so a tensor lands where it is kept without an intermediate matrix. Inf or NaN is refused by name.
template <typename Put>
void read_half(ByteReader& in, Index rows, Index cols, const char* name, std::int64_t layer, Put put) {
  const std::uint8_t* raw = in.take(2ull * static_cast<ull>(rows * cols), name, layer);
  for (Index r = 0; r < rows; ++r)
    for (Index c = 0; c < cols; ++c, raw += 2) {
      const std::uint16_t h = static_cast<std::uint16_t>(raw[0] | raw[1] << 8);
      if (((h >> 10) & 0x1f) == 0x1f)
        fail("model file: %s%s (%lld×%lld) holds %s at (%lld, %lld)", layer_prefix(layer).c_str(), name, ll(rows),
             ll(cols), (h & 0x3ff) ? "NaN" : "Inf", ll(r), ll(c));
      put(r, c, half_to_float(h));
    }
}

// A weight matrix of a layer (rows = d_in, cols = d_out): float16, or with `int8` a float32 scale per
// column (output unit) then int8 values, row-major; value (r, c) = scale[c] × q(r, c).
template <typename Put>
void read_weights(ByteReader& in, Index rows, Index cols, const char* name, std::int64_t layer, bool int8, Put put) {
  if (!int8) return read_half(in, rows, cols, name, layer, put);
  const std::uint8_t* scales = in.take(4ull * static_cast<ull>(cols), std::string(name) + " scales", layer);
  const std::uint8_t* values = in.take(static_cast<ull>(rows) * static_cast<ull>(cols), name, layer);
  for (Index c = 0; c < cols; ++c)
    if (!valid_scale(f32_le(scales + 4 * c)))
      fail("model file: %s%s's scale of column %lld is %g; it must be finite, ≥ 0 and at most FLT_MAX / 128",
           layer_prefix(layer).c_str(), name, ll(c), double{f32_le(scales + 4 * c)});
  for (Index r = 0; r < rows; ++r)
    for (Index c = 0; c < cols; ++c)
      put(r, c, f32_le(scales + 4 * c) * static_cast<float>(static_cast<std::int8_t>(values[r * cols + c])));
}

Matrix read_matrix(ByteReader& in, Index rows, Index cols, const char* name, std::int64_t layer, bool int8) {
  Matrix m(rows, cols);
  read_weights(in, rows, cols, name, layer, int8, [&](Index r, Index c, float x) { m(r, c) = x; });
  return m;
}

Vector read_vector(ByteReader& in, Index length, const char* name, std::int64_t layer) {
  Vector v(length);
  read_half(in, 1, length, name, layer, [&](Index, Index c, float x) { v(c) = x; });
  return v;
}

// ---- one layer, its tensors in file order ----------------------------------------------------------------
// W_Q, W_K, W_V (d × d, the core's row convention d_in × d_out) and their biases are split between the
// heads as they are read: head h owns columns [h·d_k, (h+1)·d_k) (nn.MultiheadAttention's layout).
TransformerLayer read_layer(ByteReader& in, const ModelConfig& c, std::int64_t l, bool int8) {
  const Index d = c.d_model, d_k = c.d_model / c.heads;
  TransformerLayer layer;
  std::vector<HeadWeights>& heads = layer.attention.heads;
  heads.resize(static_cast<std::size_t>(c.heads));
  auto head = [&](Index column) -> HeadWeights& { return heads[static_cast<std::size_t>(column / d_k)]; };
  auto read_projection = [&](const char* name, Matrix HeadWeights::*W, const char* bias, Vector HeadWeights::*b) {
    for (HeadWeights& h : heads) (h.*W).resize(d, d_k);
    read_weights(in, d, d, name, l, int8, [&](Index r, Index col, float x) { (head(col).*W)(r, col % d_k) = x; });
    for (HeadWeights& h : heads) (h.*b).resize(d_k);
    read_half(in, 1, d, bias, l, [&](Index, Index col, float x) { (head(col).*b)(col % d_k) = x; });
  };
  layer.norm1_gamma = read_vector(in, d, "norm1 gamma", l);
  layer.norm1_beta = read_vector(in, d, "norm1 beta", l);
  read_projection("W_Q", &HeadWeights::W_Q, "b_Q", &HeadWeights::b_Q);
  read_projection("W_K", &HeadWeights::W_K, "b_K", &HeadWeights::b_K);
  read_projection("W_V", &HeadWeights::W_V, "b_V", &HeadWeights::b_V);
  layer.attention.W_O = read_matrix(in, d, d, "W_O", l, int8);  // maps the concatenated heads back to d_model
  layer.attention.b_O = read_vector(in, d, "b_O", l);
  layer.norm2_gamma = read_vector(in, d, "norm2 gamma", l);
  layer.norm2_beta = read_vector(in, d, "norm2 beta", l);
  layer.ffn.W1 = read_matrix(in, d, c.d_ff, "W1", l, int8);
  layer.ffn.b1 = read_vector(in, c.d_ff, "b1", l);
  layer.ffn.W2 = read_matrix(in, c.d_ff, d, "W2", l, int8);
  layer.ffn.b2 = read_vector(in, d, "b2", l);
  layer.ffn.activation = Activation::GELU;
  return layer;
}

// ---- captions: u32 count (0 or layers × heads), each a u16 length then UTF-8 -----------------------------
std::vector<std::string> read_captions(ByteReader& in, const ModelConfig& c) {
  const std::uint32_t count = in.u32("caption count");
  const ull wanted = static_cast<ull>(c.layer_count * c.heads);
  if (count != 0 && count != wanted)
    fail("model file has %u head captions; it needs 0 or %llu (one per head)", unsigned{count}, wanted);
  std::vector<std::string> captions;
  for (std::uint32_t i = 0; i < count; ++i) {
    const std::uint16_t length = in.u16("a caption's length");
    captions.emplace_back(reinterpret_cast<const char*>(in.take(length, "a caption")), length);
  }
  return captions;
}

}  // namespace

LanguageModel LanguageModel::parse(const std::uint8_t* bytes, std::size_t size) {
  if (bytes == nullptr && size != 0) fail("model file: null data");
  ByteReader in(bytes, size, "model file");
  std::uint32_t words_bytes = 0;
  bool int8 = false, pieces = false;
  LanguageModel model;
  static_cast<ModelConfig&>(model) = read_header(in, size, words_bytes, int8, pieces);
  model.vocabulary = pieces ? read_pieces(in, words_bytes, model, model.pieces)
                            : read_vocabulary(in, words_bytes, model.vocabulary_size);
  check_mask_word(model, model.vocabulary);
  model.slots_ = index_words(model.vocabulary);
  model.embedding = read_embedding(in, model, model.vocabulary);
  model.layers.reserve(static_cast<std::size_t>(model.layer_count));
  for (Index l = 0; l < model.layer_count; ++l) model.layers.push_back(read_layer(in, model, l, int8));
  model.final_gamma = read_vector(in, model.d_model, "final LayerNorm gamma", -1);
  model.final_beta = read_vector(in, model.d_model, "final LayerNorm beta", -1);
  model.captions = read_captions(in, model);
  if (in.remaining() != 0)
    fail("model file has %llu unexpected bytes after its last section", static_cast<ull>(in.remaining()));
  model.positions = sinusoidal_positions(model.context, model.d_model);
  return model;
}

}  // namespace attn

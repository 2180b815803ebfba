// Internal to core/src (not part of the API): what the two file parsers share — the vectors file
// (word_vectors.cpp) and the language model's file (model_file.cpp). Little-endian fields, every read
// bounds-checked.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

#include "checks.hpp"

namespace attn::detail {

// "layer 3 " for a layer's tensors, "" for the rest of a file.
inline std::string layer_prefix(std::int64_t layer) { return layer >= 0 ? "layer " + std::to_string(layer) + " " : ""; }

inline float f32_le(const std::uint8_t* b) {
  const std::uint32_t bits = static_cast<std::uint32_t>(b[0]) | static_cast<std::uint32_t>(b[1]) << 8 |
                             static_cast<std::uint32_t>(b[2]) << 16 | static_cast<std::uint32_t>(b[3]) << 24;
  float value;
  std::memcpy(&value, &bits, sizeof value);
  return value;
}

// Reads a block front to back; every read is bounds-checked, so a truncated or hostile file gives an
// error naming the field instead of reading past the end. `what` names the block in messages
// ("vectors file is truncated: …"). Not inlined: the parsers read dozens of fields, and each inlined
// check would carry its own error path.
class ByteReader {
 public:
  ByteReader(const std::uint8_t* bytes, std::size_t size, const char* what) : bytes_(bytes), size_(size), what_(what) {}

  // `layer` ≥ 0 prefixes the field's name with its layer ("layer 1 W_Q").
  __attribute__((noinline)) const std::uint8_t* take(std::uint64_t n, std::string_view field, std::int64_t layer = -1) {
    if (n > size_ - pos_)
      fail("%s is truncated: %s%.*s needs %llu bytes at offset %llu but only %llu remain", what_,
           layer_prefix(layer).c_str(), static_cast<int>(field.size()), field.data(), static_cast<ull>(n),
           static_cast<ull>(pos_), static_cast<ull>(size_ - pos_));
    const std::uint8_t* at = bytes_ + pos_;
    pos_ += static_cast<std::size_t>(n);
    return at;
  }
  __attribute__((noinline)) std::uint16_t u16(std::string_view field) {
    const std::uint8_t* b = take(2, field);
    return static_cast<std::uint16_t>(b[0] | b[1] << 8);
  }
  __attribute__((noinline)) std::uint32_t u32(std::string_view field) {
    const std::uint8_t* b = take(4, field);
    return static_cast<std::uint32_t>(b[0]) | static_cast<std::uint32_t>(b[1]) << 8 |
           static_cast<std::uint32_t>(b[2]) << 16 | static_cast<std::uint32_t>(b[3]) << 24;
  }
  float f32(std::string_view field) { return f32_le(take(4, field)); }
  std::size_t remaining() const { return size_ - pos_; }

 private:
  const std::uint8_t* bytes_;
  std::size_t size_;
  const char* what_;
  std::size_t pos_ = 0;
};

}  // namespace attn::detail

// Writes a word-vectors file in the project's format (data/README.md) from words, per-word scales and
// int8 values, for the core tests and the fuzz targets that need a small table whose numbers are known.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace attn_test {

// values holds words.size() × dim int8s, row by row; scales one float per word.
inline std::vector<std::uint8_t> vectors_file(const std::vector<std::string>& words, std::uint32_t dim,
                                              const std::vector<float>& scales, const std::vector<std::int8_t>& values) {
  std::vector<std::uint8_t> out = {'A', 'T', 'T', 'N', 'V', 'E', 'C', '1'};
  auto u32 = [&](std::uint32_t v) {
    for (int i = 0; i < 4; ++i) out.push_back(static_cast<std::uint8_t>(v >> (8 * i)));
  };
  std::string blob;
  for (const auto& w : words) blob += w + "\n";
  u32(static_cast<std::uint32_t>(words.size()));
  u32(dim);
  u32(static_cast<std::uint32_t>(blob.size()));
  out.insert(out.end(), blob.begin(), blob.end());
  for (float s : scales) {
    std::uint32_t bits;
    std::memcpy(&bits, &s, 4);
    u32(bits);
  }
  for (std::int8_t v : values) out.push_back(static_cast<std::uint8_t>(v));
  return out;
}

}  // namespace attn_test

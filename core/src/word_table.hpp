// Internal to core/src (not part of the API): the hash table both vocabularies find words in — the word
// vectors' (word_vectors.cpp) and the language model's (model_file.cpp). It stores only row numbers, the
// words stay where their owner keeps them: a slot is 0 (empty) or row + 1, in an open-addressing table
// of a power-of-two size at most half full, so a probe always ends at an empty slot and chains stay
// short. FNV-1a (32-bit) hashes the words: simple, and quick on the short words of a vocabulary.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

namespace attn::detail {

constexpr std::uint32_t kFnvBasis = 2166136261u;
inline std::uint32_t fnv1a_step(std::uint32_t hash, unsigned char byte) { return (hash ^ byte) * 16777619u; }
inline std::uint32_t fnv1a(std::string_view bytes) {
  std::uint32_t hash = kFnvBasis;
  for (const char c : bytes) hash = fnv1a_step(hash, static_cast<unsigned char>(c));
  return hash;
}

// Empty slots for `count` words.
inline std::vector<std::uint32_t> empty_slots(std::size_t count) {
  std::size_t capacity = 2;
  while (capacity < 2 * count) capacity *= 2;
  return std::vector<std::uint32_t>(capacity, 0);
}

// The slot holding `word` (whose hash is given), or the empty slot where it would go. word_of(row) gives
// the word of a row already in the table.
template <typename WordOf>
std::size_t slot_of(const std::vector<std::uint32_t>& slots, std::string_view word, std::uint32_t hash,
                    const WordOf& word_of) {
  const std::size_t mask = slots.size() - 1;  // the capacity is a power of two
  for (std::size_t s = hash & mask;; s = (s + 1) & mask)
    if (slots[s] == 0 || word_of(slots[s] - 1) == word) return s;
}

}  // namespace attn::detail

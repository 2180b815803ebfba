// Nearest words (attention/nearest.hpp) against a brute-force double-precision search over every
// word: the same words in the same order, the same similarities; ties, exclusions, zero vectors and
// refused inputs; on the committed table and on small tables whose numbers are known.
#include <algorithm>
#include <cmath>
#include <fstream>
#include <iterator>
#include <random>
#include <set>

#include "../support/vectors_file.hpp"
#include "attention/nearest.hpp"
#include "helpers.hpp"

using namespace attn;
using Catch::Contains;

namespace {

WordVectors table_of(const std::vector<std::string>& words, std::uint32_t dim, const std::vector<float>& scales,
                     const std::vector<std::int8_t>& values) {
  const auto bytes = attn_test::vectors_file(words, dim, scales, values);
  return WordVectors::parse(bytes.data(), bytes.size());
}

WordVectors committed_table() {
  std::ifstream file(ATTN_VECTORS_FILE, std::ios::binary);
  REQUIRE(file.good());
  const std::vector<std::uint8_t> bytes((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  return WordVectors::parse(bytes.data(), bytes.size());
}

// The reference: every word's de-quantised vector (WordVectors::vector), its cosine with q in double
// precision (0 for a zero vector), all sorted by similarity rounded to float (what is reported), ties
// by row.
std::vector<std::pair<double, Index>> brute_force(const Matrix& all, const std::vector<float>& q, std::size_t k,
                                                  const std::set<Index>& exclude = {}) {
  double q_squares = 0;
  for (float x : q) q_squares += double(x) * x;
  std::vector<std::pair<double, Index>> scored;
  for (Index i = 0; i < all.rows(); ++i) {
    if (exclude.count(i)) continue;
    double dot = 0, squares = 0;
    for (Index j = 0; j < all.cols(); ++j) {
      dot += double(q[static_cast<std::size_t>(j)]) * all(i, j);
      squares += double(all(i, j)) * all(i, j);
    }
    scored.emplace_back(squares == 0 ? 0.0 : dot / std::sqrt(q_squares * squares), i);
  }
  std::sort(scored.begin(), scored.end(), [](const auto& a, const auto& b) {
    const float x = static_cast<float>(a.first), y = static_cast<float>(b.first);
    return x != y ? x > y : a.second < b.second;
  });
  scored.resize(std::min(k, scored.size()));
  return scored;
}

Matrix all_vectors(const WordVectors& table) {
  Matrix all(static_cast<Index>(table.size()), table.dim());
  for (Index i = 0; i < all.rows(); ++i) all.row(i) = table.vector(i);
  return all;
}

void require_matches(const std::vector<Neighbour>& got, const std::vector<std::pair<double, Index>>& want) {
  REQUIRE(got.size() == want.size());
  for (std::size_t r = 0; r < got.size(); ++r) {
    INFO("rank " << r << ": got word " << got[r].id << " (" << got[r].similarity << "), reference word "
                 << want[r].second << " (" << want[r].first << ")");
    REQUIRE(got[r].id == want[r].second);
    REQUIRE(std::abs(got[r].similarity - want[r].first) <= 1e-5);
  }
}

std::vector<float> as_vector(const Matrix& row) { return std::vector<float>(row.data(), row.data() + row.size()); }

}  // namespace

TEST_CASE("nearest words match a double-precision brute-force search over the committed table", "[nearest][data]") {
  const WordVectors table = committed_table();
  const NearestWords index(table);
  REQUIRE(index.size() == table.size());
  REQUIRE(index.dim() == table.dim());
  const Matrix all = all_vectors(table);

  std::vector<std::vector<float>> queries;
  for (const char* word : {"bank", "check", "station", "train", "the", "."})
    queries.push_back(as_vector(table.vector(table.find(word))));
  // A contextual vector like the page's A(i): a mix of two words.
  {
    const Matrix mix = 0.6f * table.vector(table.find("check")) + 0.4f * table.vector(table.find("bank"));
    queries.push_back(as_vector(mix));
  }
  std::mt19937 rng(15);
  for (float spread : {1.0f, 1e-30f, 1e30f}) queries.push_back(as_vector(seeded_matrix(1, table.dim(), rng, spread)));
  {
    std::vector<float> sparse(static_cast<std::size_t>(table.dim()), 0.0f);  // one axis, negative
    sparse[7] = -2.5f;
    queries.push_back(sparse);
  }
  for (std::size_t q = 0; q < queries.size(); ++q) {
    for (Index k : {1, 5, 40}) {
      INFO("query " << q << ", k = " << k);
      require_matches(index.nearest(queries[q].data(), table.dim(), k),
                      brute_force(all, queries[q], static_cast<std::size_t>(k)));
    }
  }
  SECTION("the whole vocabulary, in order") {
    INFO("query 0, k = size");
    const auto everything = index.nearest(queries[0].data(), table.dim(), static_cast<Index>(table.size()) + 5);
    require_matches(everything, brute_force(all, queries[0], table.size()));
  }
}

TEST_CASE("a word is its own nearest word, and exclusions skip words", "[nearest][data]") {
  const WordVectors table = committed_table();
  const NearestWords index(table);
  const Matrix all = all_vectors(table);
  const Index bank = table.find("bank");
  const std::vector<float> q = as_vector(table.vector(bank));
  const auto self = index.nearest(q.data(), table.dim(), 1);
  REQUIRE(self.size() == 1);
  REQUIRE(self[0].id == bank);
  REQUIRE(self[0].similarity == Approx(1.0f).margin(1e-6));

  const auto five = index.nearest(q.data(), table.dim(), 5);
  // Excluding bank and the first neighbour (given twice) moves the rest up two places.
  const auto rest = index.nearest(q.data(), table.dim(), 5, {bank, five[1].id, bank});
  require_matches(rest, brute_force(all, q, 5, {bank, five[1].id}));
  REQUIRE(rest[0].id == five[2].id);
  REQUIRE(rest[1].id == five[3].id);
  REQUIRE(
      std::none_of(rest.begin(), rest.end(), [&](const Neighbour& n) { return n.id == bank || n.id == five[1].id; }));
}

TEST_CASE("nearest words: ties go to the lower row, zero vectors score 0, fewer words than k", "[nearest]") {
  // Rows 1 and 3 are the same vector; row 2 has a zero scale and row 4 zero values (both zero vectors);
  // row 0 points the other way.
  const WordVectors table = table_of({"down", "up", "nothing", "also-up", "zero", "side"}, 2, {1, 0.5f, 0, 0.5f, 1, 1},
                                     {-1, -1, 3, 3, 5, 5, 3, 3, 0, 0, 1, 0});
  const NearestWords index(table);
  const Matrix all = all_vectors(table);
  const std::vector<float> q = {2, 2};
  const auto got = index.nearest(q.data(), 2, 10);
  require_matches(got, brute_force(all, q, 10));
  REQUIRE(got.size() == 6);
  REQUIRE(got[0].id == 1);  // up and also-up tie at 1: the lower row first
  REQUIRE(got[1].id == 3);
  REQUIRE(got[0].similarity == got[1].similarity);
  REQUIRE(got[2].id == 5);  // side, cos 45°
  REQUIRE(got[2].similarity == Approx(std::sqrt(0.5f)).margin(1e-6));
  REQUIRE(got[3].id == 2);  // the two zero vectors score 0, in row order
  REQUIRE(got[4].id == 4);
  REQUIRE(got[3].similarity == 0.0f);
  REQUIRE(got[5].id == 0);
  REQUIRE(got[5].similarity == Approx(-1.0f).margin(1e-6));
  // Excluding the first of a tie leaves the second; without both, the best is side (the zero-scale
  // word's int8 values point exactly along q, but its vector is zero); excluding everything leaves nothing.
  REQUIRE(index.nearest(q.data(), 2, 1, {1})[0].id == 3);
  REQUIRE(index.nearest(q.data(), 2, 1, {1, 3})[0].id == 5);
  REQUIRE(index.nearest(q.data(), 2, 3, {0, 1, 2, 3, 4, 5}).empty());
  REQUIRE(index.nearest(q.data(), 2, 3, {0, 1, 2, 3, 4}).size() == 1);
}

TEST_CASE("nearest words: the scale of a word does not sway it, from subnormal to huge", "[nearest]") {
  // The same direction at three scales, and others near it: cosine ignores the scale, so the search
  // runs on the int8 values; the answer must still be the de-quantised vectors' own.
  const WordVectors table = table_of({"tiny", "plain", "huge", "near", "far"}, 3, {1.4e-45f, 0.01f, 1e36f, 0.5f, 2},
                                     {100, -3, 7, 100, -3, 7, 100, -3, 7, 99, -3, 8, -5, 60, 1});
  const NearestWords index(table);
  const Matrix all = all_vectors(table);
  for (const std::vector<float>& q : {std::vector<float>{100, -3, 7}, std::vector<float>{1e-40f, 0, 0},
                                      std::vector<float>{3e38f, -3e38f, 1}, std::vector<float>{-5, 60, 1.5f}}) {
    INFO("q = (" << q[0] << ", " << q[1] << ", " << q[2] << ")");
    require_matches(index.nearest(q.data(), 3, 5), brute_force(all, q, 5));
  }
}

TEST_CASE("nearest words refuse a wrong-length, non-finite or zero vector, k < 1 and unknown rows",
          "[nearest][errors]") {
  const WordVectors table = table_of({"a", "b"}, 3, {1, 1}, {1, 0, 0, 0, 1, 0});
  const NearestWords index(table);
  const std::vector<float> q = {1, 2, 3};
  REQUIRE_THROWS_WITH(index.nearest(q.data(), 2, 1), Contains("2 values; the word vectors have 3"));
  REQUIRE_THROWS_WITH(index.nearest(q.data(), 3, 0), Contains("k is 0; it must be at least 1"));
  REQUIRE_THROWS_WITH(index.nearest(q.data(), 3, -4), Contains("k is -4"));
  const std::vector<float> nan = {1, NAN, 3}, inf = {1, 2, -INFINITY}, zero = {0, 0, 0};
  REQUIRE_THROWS_WITH(index.nearest(nan.data(), 3, 1), Contains("NaN at index 1"));
  REQUIRE_THROWS_WITH(index.nearest(inf.data(), 3, 1), Contains("-Inf at index 2"));
  REQUIRE_THROWS_WITH(index.nearest(zero.data(), 3, 1), Contains("all zeros"));
  REQUIRE_THROWS_WITH(index.nearest(q.data(), 3, 1, {2}),
                      Contains("cannot exclude word 2; the vocabulary has words 0 to 1"));
  REQUIRE_THROWS_WITH(index.nearest(q.data(), 3, 1, {-1}), Contains("cannot exclude word -1"));
  REQUIRE_THROWS_AS(index.nearest(q.data(), 3, 1, {-1}), AttentionError);
}

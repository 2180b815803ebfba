// By-hand practice (exercise.hpp): seeded exercises, their answers, and the check of a learner's cells
// (right, wrong, and right from the learner's own wrong upstream) for every step of the sheet.
#include <catch2/catch.hpp>
#include <cmath>
#include <set>
#include <string>

#include "attention/exercise.hpp"

using namespace attn;
using Step = ExerciseStep;

namespace {

Matrix rows(std::initializer_list<std::initializer_list<float>> values) {
  Matrix m(static_cast<Index>(values.size()), static_cast<Index>(values.begin()->size()));
  Index r = 0;
  for (const auto& row : values) {
    Index c = 0;
    for (float v : row) m(r, c++) = v;
    ++r;
  }
  return m;
}

// The page's worked sheet (web/lib/compute/hand.js HAND_DEFAULT).
ExerciseGivens worked_sheet() {
  return {rows({{1, 0, 1, 0}, {0, 2, 0, 1}, {1, 1, 0, 0}, {0, 1, 1, 1}, {2, 0, 1, 0}, {1, 0, 0, 2}}),
          rows({{1, 0, 1, 0, 0, 1}, {0, 1, 0, 1, 0, 0}, {1, 0, 0, 0, 1, 0}}),
          rows({{0, 1, 0, 0, 1, 0}, {1, 0, 1, 0, 0, 0}, {0, 0, 0, 1, 0, 1}}),
          rows({{1, 0, 0, 1, 0, 0}, {0, 1, 1, 0, 0, 0}, {0, 0, 0, 0, 1, 1}})};
}

ExerciseCheck check(const std::vector<ExerciseEntry>& entries, Step step, Index r, Index c, double value,
                    ExerciseMath math = ExerciseMath::Shortcuts) {
  return check_exercise_cell(worked_sheet(), math, entries, {step, r, c}, value);
}

bool equal(const Matrix& a, const Matrix& b) { return a.rows() == b.rows() && a.cols() == b.cols() && a == b; }

}  // namespace

TEST_CASE("the exercise stream is SplitMix64", "[exercise]") {
  // The published first outputs of SplitMix64 from state 0.
  ExerciseRandom random(0);
  CHECK(random.next() == 0xE220A8397B1DCDAFull);
  CHECK(random.next() == 0x6E789E6AA1B965F4ull);
  CHECK(random.next() == 0x06C45D188009454Full);
  ExerciseRandom die(7);
  for (int i = 0; i < 1000; ++i) {
    const int face = die.below(6);
    REQUIRE(face >= 0);
    REQUIRE(face < 6);
  }
  CHECK_THROWS_AS(die.below(0), AttentionError);
}

TEST_CASE("the same seed gives the same exercise, and every exercise stays on paper", "[exercise]") {
  const Exercise a = make_exercise(2024), b = make_exercise(2024), c = make_exercise(2025);
  CHECK(a.seed == 2024);
  CHECK(equal(a.givens.X, b.givens.X));
  CHECK(equal(a.givens.W_Q, b.givens.W_Q));
  CHECK(equal(a.givens.W_K, b.givens.W_K));
  CHECK(equal(a.givens.W_V, b.givens.W_V));
  CHECK(a.code == b.code);
  CHECK(a.draws == b.draws);
  CHECK_FALSE(
      (equal(a.givens.X, c.givens.X) && equal(a.givens.W_Q, c.givens.W_Q) && equal(a.givens.W_K, c.givens.W_K)));

  std::set<std::string> codes;
  for (std::uint32_t seed = 0; seed < 300; ++seed) {
    const Exercise e = make_exercise(seed);
    INFO("seed " << seed);
    REQUIRE(e.draws >= 1);
    REQUIRE(e.draws <= kExerciseMaxDraws);
    REQUIRE(e.code.size() == 4);
    codes.insert(e.code);
    const ExerciseGivens& g = e.givens;
    CHECK(g.X.minCoeff() >= 0);
    CHECK(g.X.maxCoeff() <= 2);
    for (const Matrix* W : {&g.W_Q, &g.W_K, &g.W_V}) {
      CHECK(W->minCoeff() >= -1);
      CHECK(W->maxCoeff() <= 2);
      for (Index d = 0; d < kExerciseDims; ++d) CHECK((W->row(d).array() != 0).count() == 2);
    }
    const ExerciseAnswer s = solve_exercise(g, ExerciseMath::Shortcuts);
    CHECK(s.scores.minCoeff() >= 0);
    CHECK(s.scores.maxCoeff() <= 9);
    CHECK(s.scaled.maxCoeff() <= 4);
    CHECK(s.powers.maxCoeff() <= 81);
    CHECK(s.sums.maxCoeff() <= 200);
    CHECK(s.V.cwiseAbs().maxCoeff() <= 4);
    for (const Matrix* m : {&s.Q, &s.K, &s.V})
      for (Index d = 0; d < kExerciseDims; ++d) CHECK(m->row(d).cwiseAbs().maxCoeff() > 0);
    for (Index j = 0; j < kExerciseTokens; ++j) CHECK(s.A.col(j).sum() == Approx(1.0f));
  }
  CHECK(codes.size() > 290);  // four letters from a hash: a collision or two among 300, not many
}

TEST_CASE("seed 1's exercise, pinned (tests/wasm/exercise.test.mjs pins the same numbers)", "[exercise]") {
  const Exercise e = make_exercise(1);
  CHECK(e.code == "ZRPZ");
  CHECK(e.draws == 26);
  CHECK(equal(e.givens.X, rows({{0, 1, 1, 1}, {1, 1, 1, 0}, {1, 1, 0, 0}, {2, 1, 0, 0}, {0, 1, 0, 0}, {0, 1, 1, 0}})));
  CHECK(equal(e.givens.W_Q, rows({{0, 1, 1, 0, 0, 0}, {0, 0, 1, -1, 0, 0}, {0, 0, 0, 1, 0, 1}})));
  CHECK(equal(e.givens.W_K, rows({{1, 0, 0, 0, 1, 0}, {0, 1, 1, 0, 0, 0}, {0, 1, 1, 0, 0, 0}})));
  CHECK(equal(e.givens.W_V, rows({{0, 1, 1, 0, 0, 0}, {0, 0, 0, 1, 0, 1}, {0, 1, 1, 0, 0, 0}})));
}

TEST_CASE("the worked sheet's numbers, exactly", "[exercise]") {
  const ExerciseAnswer a = solve_exercise(worked_sheet(), ExerciseMath::Shortcuts);
  CHECK(equal(a.Q, rows({{3, 1, 1, 2}, {0, 3, 1, 2}, {3, 0, 2, 0}})));
  CHECK(equal(a.K, rows({{2, 2, 1, 1}, {2, 1, 1, 0}, {1, 1, 1, 3}})));
  CHECK(equal(a.V, rows({{1, 1, 2, 1}, {1, 3, 0, 1}, {3, 0, 1, 2}})));
  CHECK(equal(a.scores, rows({{9, 8, 6, 8}, {9, 5, 5, 6}, {6, 4, 4, 4}, {12, 1, 7, 2}})));
  CHECK(equal(a.scaled, rows({{4, 4, 3, 4}, {4, 2, 2, 3}, {3, 2, 2, 2}, {6, 0, 3, 1}})));
  CHECK(equal(a.powers, rows({{81, 81, 27, 81}, {81, 9, 9, 27}, {27, 9, 9, 9}, {729, 1, 27, 3}})));
  CHECK(equal(a.sums, rows({{918, 100, 72, 120}})));
  CHECK(a.A(3, 0) == Approx(729.0 / 918));  // the worksheet key's 729/918 = .7941
  CHECK(a.A(0, 1) == Approx(0.81));
  CHECK(a.Z(0, 0) == Approx(35.0 / 34));
  CHECK(a.Z(2, 1) == Approx(2.54));
  const ExerciseAnswer real = solve_exercise(worked_sheet(), ExerciseMath::Real);
  CHECK(real.scaled(0, 0) == Approx(9 / std::sqrt(3.0)));
  CHECK(real.powers(0, 0) == Approx(std::exp(9 / std::sqrt(3.0))));
  CHECK(real.sums(0, 0) == Approx(real.powers.col(0).sum()));
  CHECK(real.A.col(2).sum() == Approx(1.0f));
  const ExerciseShortcutGap gap = exercise_shortcut_gap(worked_sheet());
  CHECK(gap.a_gap > 0.05);
  CHECK(gap.a_gap == Approx(std::abs(a.A(gap.a_cell.row, gap.a_cell.col) - real.A(gap.a_cell.row, gap.a_cell.col))));
}

TEST_CASE("every key value checks as right in both modes, on many seeds", "[exercise]") {
  for (ExerciseMath math : {ExerciseMath::Shortcuts, ExerciseMath::Real})
    for (std::uint32_t seed : {1u, 42u, 1000u, 4000000000u}) {
      const ExerciseGivens g = make_exercise(seed).givens;
      const ExerciseAnswer key = solve_exercise(g, math);
      for (int s = 0; s < kExerciseSteps; ++s) {
        const auto step = static_cast<Step>(s);
        for (Index r = 0; r < exercise_step_rows(step); ++r)
          for (Index c = 0; c < exercise_step_cols(step); ++c) {
            const ExerciseCheck k = check_exercise_cell(g, math, {}, {step, r, c}, key.at(step)(r, c));
            INFO("seed " << seed << " step " << s << " cell " << r << "," << c);
            CHECK(k.verdict == ExerciseVerdict::Right);
            CHECK(k.expected == Approx(key.at(step)(r, c)).epsilon(1e-5));
          }
      }
    }
}

TEST_CASE("each step: right, wrong, and right from the learner's wrong upstream", "[exercise]") {
  SECTION("Q (from the givens: no upstream)") {
    const ExerciseCheck right = check({}, Step::Q, 1, 2, 1);
    CHECK(right.verdict == ExerciseVerdict::Right);
    CHECK(right.source == "row 2 of W_Q · column 3 of X");
    CHECK(right.cell_name == "Q₂₃");
    CHECK(right.tolerance == 0);
    const ExerciseCheck wrong = check({}, Step::Q, 1, 2, 2);
    CHECK(wrong.verdict == ExerciseVerdict::Wrong);
    CHECK(wrong.expected == 1);
    CHECK(wrong.hint.find("row 2 of W_Q · column 3 of X") != std::string::npos);
  }
  SECTION("K and V") {
    CHECK(check({}, Step::K, 2, 3, 3).verdict == ExerciseVerdict::Right);
    CHECK(check({}, Step::K, 2, 3, 2).verdict == ExerciseVerdict::Wrong);
    CHECK(check({}, Step::V, 0, 3, 1).verdict == ExerciseVerdict::Right);
    CHECK(check({}, Step::V, 0, 3, -1).verdict == ExerciseVerdict::Wrong);
  }
  SECTION("KᵀQ") {
    CHECK(check({}, Step::Scores, 0, 0, 9).verdict == ExerciseVerdict::Right);
    CHECK(check({}, Step::Scores, 0, 0, 10).verdict == ExerciseVerdict::Wrong);
    // The learner's K₁₁ is 3 (the key's is 2): column 1 of K · column 1 of Q = 3·3 + 2·0 + 1·3 = 12.
    const std::vector<ExerciseEntry> yours = {{{Step::K, 0, 0}, 3}, {{Step::Q, 0, 0}, 3}};
    const ExerciseCheck forgiven = check(yours, Step::Scores, 0, 0, 12);
    CHECK(forgiven.verdict == ExerciseVerdict::RightFromYours);
    CHECK(forgiven.expected == 9);
    CHECK(forgiven.expected_from_yours == 12);
    REQUIRE(forgiven.upstream_off.size() == 1);  // Q₁₁ is right, so only K₁₁ is named
    CHECK(forgiven.upstream_off[0].step == Step::K);
    CHECK(forgiven.hint.find("your K₁₁ is off") != std::string::npos);
    CHECK(forgiven.source == "column 1 of K · column 1 of Q");
    // A wrong value with a wrong upstream: wrong, and the upstream named too.
    const ExerciseCheck wrong = check(yours, Step::Scores, 0, 0, 11);
    CHECK(wrong.verdict == ExerciseVerdict::Wrong);
    CHECK(wrong.hint.find("K₁₁ is off too") != std::string::npos);
  }
  SECTION("S = floor(KᵀQ / 2)") {
    CHECK(check({}, Step::Scaled, 3, 0, 6).verdict == ExerciseVerdict::Right);
    CHECK(check({}, Step::Scaled, 3, 0, 7).verdict == ExerciseVerdict::Wrong);                  // 12/2 is 6
    const ExerciseCheck forgiven = check({{{Step::Scores, 0, 0}, 11}}, Step::Scaled, 0, 0, 5);  // floor(11/2)
    CHECK(forgiven.verdict == ExerciseVerdict::RightFromYours);
    CHECK(forgiven.source == "floor(KᵀQ₁₁ ÷ 2)");
    // A wrong score that floors to the same value leaves S simply right.
    CHECK(check({{{Step::Scores, 0, 0}, 8}}, Step::Scaled, 0, 0, 4).verdict == ExerciseVerdict::Right);
  }
  SECTION("P = 3^S") {
    CHECK(check({}, Step::Powers, 3, 0, 729).verdict == ExerciseVerdict::Right);
    CHECK(check({}, Step::Powers, 3, 0, 243).verdict == ExerciseVerdict::Wrong);
    CHECK(check({{{Step::Scaled, 3, 0}, 5}}, Step::Powers, 3, 0, 243).verdict == ExerciseVerdict::RightFromYours);
  }
  SECTION("Σ, the column sums") {
    CHECK(check({}, Step::Sums, 0, 0, 918).verdict == ExerciseVerdict::Right);
    CHECK(check({}, Step::Sums, 0, 0, 917).verdict == ExerciseVerdict::Wrong);
    const ExerciseCheck forgiven = check({{{Step::Powers, 3, 0}, 243}}, Step::Sums, 0, 0, 432);
    CHECK(forgiven.verdict == ExerciseVerdict::RightFromYours);
    CHECK(forgiven.cell_name == "Σ₁");
    CHECK(forgiven.hint.find("P₄₁") != std::string::npos);
  }
  SECTION("A, as a fraction or a decimal") {
    CHECK(check({}, Step::A, 3, 0, parse_exercise_entry("729/918")).verdict == ExerciseVerdict::Right);
    CHECK(check({}, Step::A, 3, 0, parse_exercise_entry(".79")).verdict == ExerciseVerdict::Right);
    CHECK(check({}, Step::A, 3, 0, parse_exercise_entry("0.8")).verdict ==
          ExerciseVerdict::Right);  // .7941 to two decimals
    CHECK(check({}, Step::A, 3, 0, parse_exercise_entry("0.7")).verdict == ExerciseVerdict::Wrong);
    const ExerciseCheck forgiven = check({{{Step::Sums, 0, 0}, 432}}, Step::A, 3, 0, parse_exercise_entry("729/432"));
    CHECK(forgiven.verdict == ExerciseVerdict::RightFromYours);
    CHECK(forgiven.source == "P₄₁ ÷ Σ₁");
    CHECK(forgiven.tolerance == Approx(0.01));
  }
  SECTION("Z = V·A") {
    CHECK(check({}, Step::Z, 0, 0, 1.03).verdict == ExerciseVerdict::Right);
    CHECK(check({}, Step::Z, 0, 0, 1.1).verdict == ExerciseVerdict::Wrong);
    // V₁₄ written as 2 (the key's is 1): 3/34 + 3/34 + 2/34 + 2·27/34 = 62/34.
    const ExerciseCheck forgiven = check({{{Step::V, 0, 3}, 2}}, Step::Z, 0, 0, 62.0 / 34);
    CHECK(forgiven.verdict == ExerciseVerdict::RightFromYours);
    CHECK(forgiven.hint.find("V₁₄") != std::string::npos);
    // From A written to two decimals (each right), Z may drift past 0.01 of the key: still right.
    const std::vector<ExerciseEntry> rounded = {{{Step::A, 0, 0}, 0.08},
                                                {{Step::A, 1, 0}, 0.08},
                                                {{Step::A, 2, 0}, 0.02},
                                                {{Step::A, 3, 0}, 0.785}};
    const double from_rounded = 0.08 + 0.08 + 2 * 0.02 + 0.785;  // 0.985, 0.044 from the key's 1.0294
    const ExerciseCheck drift = check(rounded, Step::Z, 0, 0, from_rounded);
    CHECK(check({}, Step::Z, 0, 0, from_rounded).verdict == ExerciseVerdict::Wrong);  // without those entries
    CHECK(drift.verdict == ExerciseVerdict::Right);
    CHECK(drift.upstream_off.empty());
  }
  SECTION("real maths: ÷√3 and e^x, to two decimals") {
    using M = ExerciseMath;
    CHECK(check({}, Step::Scaled, 0, 0, 5.20, M::Real).verdict == ExerciseVerdict::Right);  // 9/√3 = 5.196
    CHECK(check({}, Step::Scaled, 0, 0, 5.0, M::Real).verdict == ExerciseVerdict::Wrong);
    CHECK(check({}, Step::Scaled, 0, 0, 5.0, M::Real).source == "KᵀQ₁₁ ÷ √3");
    CHECK(check({}, Step::Powers, 0, 0, std::exp(5.20), M::Real).verdict ==
          ExerciseVerdict::Right);  // e of the rounded S
    CHECK(check({}, Step::Powers, 0, 0, 150, M::Real).verdict == ExerciseVerdict::Wrong);
    CHECK(check({{{Step::Scaled, 0, 0}, 5.0}}, Step::Powers, 0, 0, 148.41, M::Real).verdict ==
          ExerciseVerdict::RightFromYours);
    CHECK(check({}, Step::Scores, 0, 0, 9, M::Real).tolerance == 0);
  }
}

TEST_CASE("entries as a learner types them", "[exercise]") {
  CHECK(parse_exercise_entry("27/39") == Approx(27.0 / 39));
  CHECK(parse_exercise_entry(" 27 / 39 ") == Approx(27.0 / 39));
  CHECK(parse_exercise_entry(".75") == 0.75);
  CHECK(parse_exercise_entry("-1") == -1);
  CHECK(parse_exercise_entry("−2") == -2);
  CHECK(parse_exercise_entry("3") == 3);
  CHECK(parse_exercise_entry("1.") == 1);
  for (const char* bad : {"", " ", "abc", "1/0", "1e3", "--1", ".", "1/2/3", "1,5", "nan", "inf"}) {
    INFO(bad);
    CHECK_THROWS_AS(parse_exercise_entry(bad), AttentionError);
  }
}

TEST_CASE("bad exercise input is refused with a reason", "[exercise]") {
  ExerciseGivens g = worked_sheet();
  CHECK_THROWS_WITH(check_exercise_cell(g, ExerciseMath::Shortcuts, {}, {Step::Sums, 1, 0}, 1),
                    Catch::Contains("outside"));
  CHECK_THROWS_WITH(check_exercise_cell(g, ExerciseMath::Shortcuts, {}, {Step::Q, 0, 4}, 1),
                    Catch::Contains("outside"));
  CHECK_THROWS_WITH(check_exercise_cell(g, ExerciseMath::Shortcuts, {{{Step::Z, 3, 0}, 1}}, {Step::Q, 0, 0}, 1),
                    Catch::Contains("outside"));
  CHECK_THROWS_AS(check_exercise_cell(g, ExerciseMath::Shortcuts, {}, {Step::Q, 0, 0}, std::nan("")), AttentionError);
  CHECK_THROWS_AS(check_exercise_cell(g, ExerciseMath::Shortcuts, {}, {static_cast<Step>(12), 0, 0}, 1),
                  AttentionError);
  g.X = Matrix::Zero(4, 6);
  CHECK_THROWS_WITH(solve_exercise(g, ExerciseMath::Shortcuts), Catch::Contains("X must be 6×4"));
  CHECK_THROWS_AS(exercise_code(g), AttentionError);
}

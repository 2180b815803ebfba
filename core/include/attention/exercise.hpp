/// \file
/// By-hand practice: fresh self-attention exercises on the AI-by-Hand sheet's shapes, drawn from a seed,
/// their answers (with the sheet's shortcuts or the real maths) and the check of a learner's cell.
///
/// The sheet (seeds 001/004, column convention): X is 6 features × 4 tokens, W_Q, W_K, W_V are 3 × 6;
/// Q = W_Q·X, K = W_K·X, V = W_V·X, scores KᵀQ (key rows, query columns), scaled, powers, column sums,
/// A = powers ÷ its column's sum (each column sums to 1), Z = V·A. The shortcut mode scales with
/// floor(x/2) (for ÷√3) and raises 3^x (for e^x); the real-maths mode divides by √d_k = √3 and raises e^x.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "attention/attention.hpp"

namespace attn {

/// The sheet's sizes: features (rows of X), tokens (columns of X), d_k = d_v (rows of each W).
///@{
constexpr Index kExerciseFeatures = 6;
constexpr Index kExerciseTokens = 4;
constexpr Index kExerciseDims = 3;
///@}

/// A small, reproducible random stream (SplitMix64, Steele, Lea & Flood 2014): 64-bit integer
/// arithmetic only, so a seed gives the same numbers natively and in WebAssembly.
class ExerciseRandom {
 public:
  /// A stream that starts from `seed`.
  explicit ExerciseRandom(std::uint64_t seed) : state_(seed) {}
  /// The next 64 random bits.
  std::uint64_t next();
  /// A number in 0 … n-1 (n ≥ 1). The top 32 bits modulo n: the bias, below n / 2³², does not matter
  /// for a die of 6.
  int below(int n);

 private:
  std::uint64_t state_;
};

/// What the learner is given: X (6 × 4) and W_Q, W_K, W_V (3 × 6), all small integers.
struct ExerciseGivens {
  Matrix X;  ///< 6 features × 4 tokens (tokens are columns)
  /// the projections, 3 × 6 each
  ///@{
  Matrix W_Q, W_K, W_V;
  ///@}
};

/// A drawn exercise: its seed, how many draws it took to meet the bounds, its givens and a short code.
struct Exercise {
  std::uint32_t seed = 0;  ///< the seed it was drawn from
  int draws = 0;           ///< draws made until one kept every number on paper (1 = the first)
  ExerciseGivens givens;   ///< X, W_Q, W_K, W_V
  std::string code;        ///< four letters from the givens (exercise_code), to match a sheet to its key
};

/// The most draws make_exercise tries before it gives up (about one draw in 15 meets the bounds, so a seed
/// that needs this many does not occur in practice; it would throw AttentionError rather than loop).
constexpr int kExerciseMaxDraws = 5000;

/// Draws the exercise of `seed`. X's entries are 0, 1 or 2 (a die: 0,0,1,1,1,2); each row of W_Q and
/// W_K has two non-zero entries of 1 or −1 (1,1,1,−1), each row of W_V two of 1, 2 or −1 (1,1,−1,2),
/// at two different features. A draw is kept only when, with the shortcuts, every score KᵀQ is in
/// 0 … 9 (so floor(x/2) is in 0 … 4 and 3^x at most 81), every column sum of 3^x is at most 200,
/// every |V| entry at most 4, no row of Q, K or V all zeros, and at least three of the four columns of floor(KᵀQ/2) are
/// not constant (so A is not uniform everywhere); otherwise the stream draws again.
Exercise make_exercise(std::uint32_t seed);

/// Four letters naming the givens (a hash of their integers over an alphabet without look-alikes):
/// printed on a sheet and on its key so the two can be matched. Throws AttentionError on wrong shapes.
std::string exercise_code(const ExerciseGivens& givens);

/// The two ways to work the sheet.
enum class ExerciseMath {
  Shortcuts,  ///< floor(x/2) for ÷√3, 3^x for e^x (the sheets' own)
  Real,       ///< ÷√d_k = ÷√3 and e^x
};

/// The sheet's steps, in the order they are worked. Shapes: Q, K, V 3 × 4; Scores, Scaled, Powers and
/// A 4 × 4 (key rows, query columns); Sums 1 × 4; Z 3 × 4.
enum class ExerciseStep { Q, K, V, Scores, Scaled, Powers, Sums, A, Z };

/// The number of steps (ExerciseStep::Z + 1).
constexpr int kExerciseSteps = 9;

/// Rows and columns of a step's matrix.
///@{
Index exercise_step_rows(ExerciseStep step);
Index exercise_step_cols(ExerciseStep step);
///@}

/// A step's short name as the sheet writes it ("Q", "KᵀQ", "floor(KᵀQ/2)" or "KᵀQ/√3", "3^x" or "e^x", "Σ", "A", "Z").
std::string exercise_step_name(ExerciseStep step, ExerciseMath math);

/// Every intermediate of the sheet, as a learner should write it.
struct ExerciseAnswer {
  /// the projections, 3 × 4 each
  ///@{
  Matrix Q, K, V;
  ///@}
  Matrix scores;  ///< KᵀQ, 4 × 4
  Matrix scaled;  ///< floor(KᵀQ/2) or KᵀQ/√3
  Matrix powers;  ///< 3^scaled or e^scaled
  Matrix sums;    ///< 1 × 4: each column's sum of powers
  Matrix A;       ///< powers ÷ column sum (each column sums to 1)
  Matrix Z;       ///< V·A, 3 × 4
  /// The matrix of one step.
  const Matrix& at(ExerciseStep step) const;
};

/// The answer of `givens` worked with `math`, from attention_by_columns (with hand_shortcuts for the
/// shortcuts) and softmax_base3_terms, the same computation as the by-hand sheet. Throws AttentionError
/// when a shape is not the sheet's or a value is not finite.
ExerciseAnswer solve_exercise(const ExerciseGivens& givens, ExerciseMath math);

/// One cell of one step (0-based row and column).
struct ExerciseCell {
  ExerciseStep step = ExerciseStep::Q;  ///< which matrix
  Index row = 0;                        ///< 0-based row
  Index col = 0;                        ///< 0-based column
};

/// A learner's number in a cell.
struct ExerciseEntry {
  ExerciseCell cell;  ///< where
  double value = 0;   ///< what they wrote
};

/// How a learner's number compares.
enum class ExerciseVerdict {
  Right,           ///< the expected value, within the tolerance
  Wrong,           ///< neither the expected value nor what follows from the learner's own earlier cells
  RightFromYours,  ///< wrong, but exactly what follows from the learner's earlier cells, some of which are off
};

/// The check of one cell.
struct ExerciseCheck {
  ExerciseVerdict verdict = ExerciseVerdict::Wrong;  ///< right, wrong or right from the learner's upstream
  double expected = 0;                               ///< the right value
  double expected_from_yours = 0;  ///< the value that follows from the learner's own upstream cells (those given)
  double tolerance = 0;            ///< how far from `expected` still counts as right (0: exact)
  std::string cell_name;           ///< e.g. "K₂₃" (1-based row and column, subscripts)
  std::string source;              ///< where the value comes from, e.g. "row 2 of W_Q · column 3 of X"
  std::vector<ExerciseCell> upstream_off;  ///< the learner's entered upstream cells that are wrong
  std::string hint;  ///< one sentence for the learner: the source, and for RightFromYours the cells that are off
};

/// The tolerance of a cell: 0 (exact) for integer steps (Q, K, V and KᵀQ always; with the shortcuts
/// also floor(x/2), 3^x and Σ); otherwise "two decimals": within 0.01, or 1 % of the value when that is
/// larger (so e^x of a rounded x and Σ of rounded powers pass). A is one of these decimals in both
/// modes: a fraction such as 27/39 is read as its value (parse_exercise_entry), so it passes too.
double exercise_tolerance(ExerciseStep step, ExerciseMath math, double expected);

/// Checks `value` in `cell` against the answer of `givens`, and against what follows from the
/// learner's own `entries` upstream of it (an upstream cell not in `entries` counts as right). Only the
/// cells the value is computed from are looked at (for KᵀQ₂₃, column 2 of K and column 3 of Q). A value
/// that is off but rounds the same way as right upstream entries counts as Right. Throws AttentionError
/// for a cell outside its step or a non-finite value (entries outside the sheet are refused too).
ExerciseCheck check_exercise_cell(const ExerciseGivens& givens, ExerciseMath math,
                                  const std::vector<ExerciseEntry>& entries, ExerciseCell cell, double value);

/// Reads what a learner typed: an integer, a decimal ("0.75", ".75", "-1", with "−" as a minus too) or
/// a fraction of two of them ("27/39"), with spaces around allowed. Throws AttentionError naming the
/// text when it is none of these, or for a zero denominator.
double parse_exercise_entry(const std::string& text);

/// Where the shortcuts and the real maths differ most, for an answer key's note.
struct ExerciseShortcutGap {
  double a_gap = 0;     ///< the largest |A(shortcuts) − A(real)|
  ExerciseCell a_cell;  ///< where it is
  double z_gap = 0;     ///< the largest |Z(shortcuts) − Z(real)|
  ExerciseCell z_cell;  ///< where it is
};

/// The largest differences between the two modes' A and Z for `givens`.
ExerciseShortcutGap exercise_shortcut_gap(const ExerciseGivens& givens);

}  // namespace attn

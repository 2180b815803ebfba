// By-hand practice (exercise.hpp): seeded exercises on the AI-by-Hand sheet's shapes, their answers in
// both modes, and the check of one learner's cell against the key and against the learner's own cells.
#include "attention/exercise.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <utility>

namespace attn {

namespace {

[[noreturn]] void fail(const std::string& message) { throw AttentionError(message); }

// ---- drawing --------------------------------------------------------------------------------------

// One row of a W: two non-zero entries at two different features, each a face of `die`.
template <std::size_t N>
void draw_row(ExerciseRandom& random, Matrix& W, Index row, const int (&die)[N]) {
  const int first = random.below(static_cast<int>(kExerciseFeatures));
  int second = random.below(static_cast<int>(kExerciseFeatures) - 1);
  if (second >= first) ++second;  // a different feature than the first, uniformly
  for (int f : {first, second}) W(row, f) = static_cast<float>(die[random.below(static_cast<int>(N))]);
}

ExerciseGivens draw_givens(ExerciseRandom& random) {
  static constexpr int kXDie[] = {0, 0, 1, 1, 1, 2};
  static constexpr int kQKDie[] = {1, 1, 1, -1};
  static constexpr int kVDie[] = {1, 1, -1, 2};
  ExerciseGivens g;
  g.X = Matrix::Zero(kExerciseFeatures, kExerciseTokens);
  for (Index f = 0; f < kExerciseFeatures; ++f)
    for (Index t = 0; t < kExerciseTokens; ++t) g.X(f, t) = static_cast<float>(kXDie[random.below(6)]);
  g.W_Q = g.W_K = g.W_V = Matrix::Zero(kExerciseDims, kExerciseFeatures);
  for (Index d = 0; d < kExerciseDims; ++d) draw_row(random, g.W_Q, d, kQKDie);
  for (Index d = 0; d < kExerciseDims; ++d) draw_row(random, g.W_K, d, kQKDie);
  for (Index d = 0; d < kExerciseDims; ++d) draw_row(random, g.W_V, d, kVDie);
  return g;
}

// Σ_k a(r, k)·b(k, c) over plain loops: the sheet's matrices are tiny, and Eigen's general product
// instantiated for them would add kilobytes to the page's wasm for nothing.
double dot(const Matrix& a, Index r, const Matrix& b, Index c) {
  double s = 0;
  for (Index k = 0; k < a.cols(); ++k) s += static_cast<double>(a(r, k)) * b(k, c);
  return s;
}

// The bounds of make_exercise (documented there): every number stays one a learner writes easily.
bool on_paper(const ExerciseGivens& g) {
  double Q[kExerciseDims][kExerciseTokens], K[kExerciseDims][kExerciseTokens];
  for (Index d = 0; d < kExerciseDims; ++d) {
    bool q_zero = true, k_zero = true, v_zero = true;  // a row of zeros is a row with nothing to work out
    for (Index t = 0; t < kExerciseTokens; ++t) {
      Q[d][t] = dot(g.W_Q, d, g.X, t);
      K[d][t] = dot(g.W_K, d, g.X, t);
      const double v = dot(g.W_V, d, g.X, t);
      if (std::abs(v) > 4) return false;
      q_zero = q_zero && Q[d][t] == 0;
      k_zero = k_zero && K[d][t] == 0;
      v_zero = v_zero && v == 0;
    }
    if (q_zero || k_zero || v_zero) return false;
  }
  int varied = 0;
  for (Index j = 0; j < kExerciseTokens; ++j) {
    double sum = 0, lowest = 99, highest = -99;
    for (Index i = 0; i < kExerciseTokens; ++i) {
      double score = 0;  // KᵀQ(i, j): column i of K · column j of Q
      for (Index d = 0; d < kExerciseDims; ++d) score += K[d][i] * Q[d][j];
      if (score < 0 || score > 9) return false;
      const double s = std::floor(score / 2);
      sum += std::pow(3.0, s);
      lowest = std::min(lowest, s);
      highest = std::max(highest, s);
    }
    if (sum > 200) return false;
    if (highest > lowest) ++varied;
  }
  return varied >= 3;
}

// ---- shapes and names ----------------------------------------------------------------------------

void require_shape(const Matrix& m, Index rows, Index cols, const char* name) {
  if (m.rows() != rows || m.cols() != cols)
    fail(std::string(name) + " must be " + std::to_string(rows) + "×" + std::to_string(cols) +
         " on the by-hand sheet, got " + std::to_string(m.rows()) + "×" + std::to_string(m.cols()));
  require_finite(m, name);
}

void require_givens(const ExerciseGivens& g) {
  require_shape(g.X, kExerciseFeatures, kExerciseTokens, "X");
  require_shape(g.W_Q, kExerciseDims, kExerciseFeatures, "W_Q");
  require_shape(g.W_K, kExerciseDims, kExerciseFeatures, "W_K");
  require_shape(g.W_V, kExerciseDims, kExerciseFeatures, "W_V");
}

void require_cell(const ExerciseCell& c) {
  const int step = static_cast<int>(c.step);
  if (step < 0 || step >= kExerciseSteps)
    fail("an exercise cell names step " + std::to_string(step) + ", not one of the sheet's 9");
  const Index rows = exercise_step_rows(c.step), cols = exercise_step_cols(c.step);
  if (c.row < 0 || c.row >= rows || c.col < 0 || c.col >= cols)
    fail("cell (" + std::to_string(c.row) + ", " + std::to_string(c.col) + ") is outside " +
         exercise_step_name(c.step, ExerciseMath::Shortcuts) + ", which is " + std::to_string(rows) + "×" +
         std::to_string(cols));
}

// "₂₃": 1-based, as subscript digits (the sheet's indices are single digits).
std::string subscript(Index one_based) {
  std::string out;
  for (char ch : std::to_string(one_based)) out += std::string("\xE2\x82") + static_cast<char>('\x80' + (ch - '0'));
  return out;
}

// The symbol a cell's name starts with.
std::string symbol(ExerciseStep step) {
  switch (step) {
    case ExerciseStep::Q: return "Q";
    case ExerciseStep::K: return "K";
    case ExerciseStep::V: return "V";
    case ExerciseStep::Scores: return "KᵀQ";
    case ExerciseStep::Scaled: return "S";
    case ExerciseStep::Powers: return "P";
    case ExerciseStep::Sums: return "Σ";
    case ExerciseStep::A: return "A";
    case ExerciseStep::Z: return "Z";
  }
  return "?";
}

std::string cell_name(const ExerciseCell& c) {
  if (c.step == ExerciseStep::Sums) return symbol(c.step) + subscript(c.col + 1);  // one row: the column alone
  return symbol(c.step) + subscript(c.row + 1) + subscript(c.col + 1);
}

std::string source_of(const ExerciseCell& c, ExerciseMath math) {
  const std::string r = std::to_string(c.row + 1), k = std::to_string(c.col + 1);
  const ExerciseCell scores{ExerciseStep::Scores, c.row, c.col}, scaled{ExerciseStep::Scaled, c.row, c.col},
      power{ExerciseStep::Powers, c.row, c.col}, sum{ExerciseStep::Sums, 0, c.col};
  switch (c.step) {
    case ExerciseStep::Q: return "row " + r + " of W_Q · column " + k + " of X";
    case ExerciseStep::K: return "row " + r + " of W_K · column " + k + " of X";
    case ExerciseStep::V: return "row " + r + " of W_V · column " + k + " of X";
    case ExerciseStep::Scores: return "column " + r + " of K · column " + k + " of Q";
    case ExerciseStep::Scaled:
      return math == ExerciseMath::Shortcuts ? "floor(" + cell_name(scores) + " ÷ 2)" : cell_name(scores) + " ÷ √3";
    case ExerciseStep::Powers:
      return (math == ExerciseMath::Shortcuts ? "3 to the power " : "e to the power ") + cell_name(scaled);
    case ExerciseStep::Sums: return "the sum of column " + k + " of P";
    case ExerciseStep::A: return cell_name(power) + " ÷ " + cell_name(sum);
    case ExerciseStep::Z: return "row " + r + " of V · column " + k + " of A";
  }
  return "";
}

// ---- the learner's own upstream -------------------------------------------------------------------

using Key = std::pair<int, std::pair<Index, Index>>;
Key key_of(const ExerciseCell& c) { return {static_cast<int>(c.step), {c.row, c.col}}; }

// The cells `cell` is computed from, one step up (none for Q, K, V: those come from the givens).
std::vector<ExerciseCell> upstream_of(const ExerciseCell& c) {
  std::vector<ExerciseCell> up;
  switch (c.step) {
    case ExerciseStep::Q:
    case ExerciseStep::K:
    case ExerciseStep::V: break;
    case ExerciseStep::Scores:
      for (Index d = 0; d < kExerciseDims; ++d) up.push_back({ExerciseStep::K, d, c.row});
      for (Index d = 0; d < kExerciseDims; ++d) up.push_back({ExerciseStep::Q, d, c.col});
      break;
    case ExerciseStep::Scaled: up.push_back({ExerciseStep::Scores, c.row, c.col}); break;
    case ExerciseStep::Powers: up.push_back({ExerciseStep::Scaled, c.row, c.col}); break;
    case ExerciseStep::Sums:
      for (Index i = 0; i < kExerciseTokens; ++i) up.push_back({ExerciseStep::Powers, i, c.col});
      break;
    case ExerciseStep::A:
      up.push_back({ExerciseStep::Powers, c.row, c.col});
      up.push_back({ExerciseStep::Sums, 0, c.col});
      break;
    case ExerciseStep::Z:
      for (Index i = 0; i < kExerciseTokens; ++i) up.push_back({ExerciseStep::V, c.row, i});
      for (Index i = 0; i < kExerciseTokens; ++i) up.push_back({ExerciseStep::A, i, c.col});
      break;
  }
  return up;
}

// The value of `c` computed from `value_of` (which gives the learner's entry where there is one, else
// the key's) — the same formula as the key's, one cell at a time.
template <typename ValueOf>
double computed(const ExerciseCell& c, ExerciseMath math, const ExerciseGivens& g, ValueOf value_of) {
  const auto at = [&](ExerciseStep s, Index r, Index k) { return value_of(ExerciseCell{s, r, k}); };
  switch (c.step) {
    case ExerciseStep::Q: return dot(g.W_Q, c.row, g.X, c.col);
    case ExerciseStep::K: return dot(g.W_K, c.row, g.X, c.col);
    case ExerciseStep::V: return dot(g.W_V, c.row, g.X, c.col);
    case ExerciseStep::Scores: {
      double s = 0;
      for (Index d = 0; d < kExerciseDims; ++d) s += at(ExerciseStep::K, d, c.row) * at(ExerciseStep::Q, d, c.col);
      return s;
    }
    case ExerciseStep::Scaled: {
      const double s = at(ExerciseStep::Scores, c.row, c.col);
      return math == ExerciseMath::Shortcuts ? std::floor(s / 2.0) : s / std::sqrt(3.0);
    }
    case ExerciseStep::Powers: {
      const double x = at(ExerciseStep::Scaled, c.row, c.col);
      return math == ExerciseMath::Shortcuts ? std::pow(3.0, x) : std::exp(x);
    }
    case ExerciseStep::Sums: {
      double s = 0;
      for (Index i = 0; i < kExerciseTokens; ++i) s += at(ExerciseStep::Powers, i, c.col);
      return s;
    }
    case ExerciseStep::A: return at(ExerciseStep::Powers, c.row, c.col) / at(ExerciseStep::Sums, 0, c.col);
    case ExerciseStep::Z: {
      double s = 0;
      for (Index i = 0; i < kExerciseTokens; ++i) s += at(ExerciseStep::V, c.row, i) * at(ExerciseStep::A, i, c.col);
      return s;
    }
  }
  return 0;
}

bool within(double value, double target, ExerciseStep step, ExerciseMath math) {
  return std::isfinite(target) && std::abs(value - target) <= exercise_tolerance(step, math, target) + 1e-9;
}

// One decimal number: optional sign, digits, optional point and digits (at least one digit in all).
bool parse_decimal(const std::string& s, double& out) {
  std::size_t i = 0;
  bool negative = false;
  if (i < s.size() && (s[i] == '-' || s[i] == '+')) negative = s[i++] == '-';
  double whole = 0, scale = 1;
  int digits = 0;
  while (i < s.size() && s[i] >= '0' && s[i] <= '9') whole = whole * 10 + (s[i++] - '0'), ++digits;
  if (i < s.size() && s[i] == '.') {
    ++i;
    while (i < s.size() && s[i] >= '0' && s[i] <= '9') whole = whole * 10 + (s[i++] - '0'), scale *= 10, ++digits;
  }
  if (digits == 0 || i != s.size()) return false;
  out = (negative ? -whole : whole) / scale;
  return true;
}

std::string trimmed(const std::string& s) {
  const auto first = s.find_first_not_of(" \t"), last = s.find_last_not_of(" \t");
  return first == std::string::npos ? "" : s.substr(first, last - first + 1);
}

}  // namespace

// ---- ExerciseRandom: SplitMix64 ----------------------------------------------------------------------

std::uint64_t ExerciseRandom::next() {
  std::uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

int ExerciseRandom::below(int n) {
  if (n < 1) fail("ExerciseRandom::below needs n ≥ 1, got " + std::to_string(n));
  return static_cast<int>((next() >> 32) % static_cast<std::uint64_t>(n));
}

// ---- exercises ------------------------------------------------------------------------------------

Exercise make_exercise(std::uint32_t seed) {
  ExerciseRandom random(seed);
  for (int draw = 1; draw <= kExerciseMaxDraws; ++draw) {
    ExerciseGivens g = draw_givens(random);
    if (!on_paper(g)) continue;
    Exercise e;
    e.seed = seed;
    e.draws = draw;
    e.code = exercise_code(g);
    e.givens = std::move(g);
    return e;
  }
  fail("seed " + std::to_string(seed) + " drew no exercise within the sheet's bounds in " +
       std::to_string(kExerciseMaxDraws) + " draws");
}

std::string exercise_code(const ExerciseGivens& givens) {
  require_givens(givens);
  // FNV-1a (32 bits) over the integers, each shifted into a byte.
  std::uint32_t hash = 2166136261u;
  for (const Matrix* m : {&givens.X, &givens.W_Q, &givens.W_K, &givens.W_V})
    for (Index i = 0; i < m->size(); ++i) {
      hash ^= static_cast<std::uint8_t>(static_cast<int>(std::lround(m->data()[i])) + 128);
      hash *= 16777619u;
    }
  static constexpr char kLetters[] = "ABCDEFGHJKLMNPQRSTUVWXYZ";  // no I or O (read as 1 and 0)
  std::string code;
  for (int i = 0; i < 4; ++i, hash /= 24) code += kLetters[hash % 24];
  return code;
}

Index exercise_step_rows(ExerciseStep step) {
  switch (step) {
    case ExerciseStep::Q:
    case ExerciseStep::K:
    case ExerciseStep::V:
    case ExerciseStep::Z: return kExerciseDims;
    case ExerciseStep::Sums: return 1;
    default: return kExerciseTokens;
  }
}

Index exercise_step_cols(ExerciseStep) { return kExerciseTokens; }

std::string exercise_step_name(ExerciseStep step, ExerciseMath math) {
  const bool shortcuts = math == ExerciseMath::Shortcuts;
  switch (step) {
    case ExerciseStep::Q: return "Q = W_Q·X";
    case ExerciseStep::K: return "K = W_K·X";
    case ExerciseStep::V: return "V = W_V·X";
    case ExerciseStep::Scores: return "KᵀQ";
    case ExerciseStep::Scaled: return shortcuts ? "S = floor(KᵀQ ÷ 2)" : "S = KᵀQ ÷ √3";
    case ExerciseStep::Powers: return shortcuts ? "P = 3^S" : "P = e^S";
    case ExerciseStep::Sums: return "Σ = column sums of P";
    case ExerciseStep::A: return "A = P ÷ Σ";
    case ExerciseStep::Z: return "Z = V·A";
  }
  return "?";
}

const Matrix& ExerciseAnswer::at(ExerciseStep step) const {
  switch (step) {
    case ExerciseStep::Q: return Q;
    case ExerciseStep::K: return K;
    case ExerciseStep::V: return V;
    case ExerciseStep::Scores: return scores;
    case ExerciseStep::Scaled: return scaled;
    case ExerciseStep::Powers: return powers;
    case ExerciseStep::Sums: return sums;
    case ExerciseStep::A: return A;
    case ExerciseStep::Z: return Z;
  }
  fail("an exercise step outside the sheet's 9");
}

ExerciseAnswer solve_exercise(const ExerciseGivens& givens, ExerciseMath math) {
  require_givens(givens);
  AttentionOptions options;  // scaled dot: ÷√d_k = ÷√3, or floor(x/2) with the shortcuts
  options.hand_shortcuts = math == ExerciseMath::Shortcuts;
  const AttentionSteps steps =
      attention_by_columns(givens.X, HeadWeights{givens.W_Q, givens.W_K, givens.W_V, {}, {}, {}}, options);
  ExerciseAnswer a;
  a.Q = steps.Q;
  a.K = steps.K;
  a.V = steps.V;
  a.scores = steps.scores;
  a.scaled = steps.scaled;
  a.A = steps.weights;
  a.Z = steps.output;
  if (options.hand_shortcuts) {
    Base3Terms terms = softmax_base3_terms(steps.scaled, Axis::Columns);
    a.powers = std::move(terms.powers);
    a.sums = terms.sums.transpose();
  } else {
    // The real maths a learner writes: e^S and the column sums, not the max-shifted stable form.
    a.powers = steps.scaled;
    a.sums = Matrix::Zero(1, kExerciseTokens);
    for (Index i = 0; i < kExerciseTokens; ++i)
      for (Index j = 0; j < kExerciseTokens; ++j) a.sums(0, j) += a.powers(i, j) = std::exp(steps.scaled(i, j));
  }
  return a;
}

double exercise_tolerance(ExerciseStep step, ExerciseMath math, double expected) {
  const bool whole = step == ExerciseStep::Q || step == ExerciseStep::K || step == ExerciseStep::V ||
                     step == ExerciseStep::Scores ||
                     (math == ExerciseMath::Shortcuts &&
                      (step == ExerciseStep::Scaled || step == ExerciseStep::Powers || step == ExerciseStep::Sums));
  if (whole) return 0;
  return std::max(0.01, 0.01 * std::abs(expected));
}

ExerciseCheck check_exercise_cell(const ExerciseGivens& givens, ExerciseMath math,
                                  const std::vector<ExerciseEntry>& entries, ExerciseCell cell, double value) {
  require_givens(givens);
  require_cell(cell);
  if (!std::isfinite(value)) fail("the value of " + cell_name(cell) + " must be a finite number");
  std::map<Key, double> yours;  // the learner's entries by cell; a later entry for a cell wins
  for (const ExerciseEntry& e : entries) {
    require_cell(e.cell);
    if (!std::isfinite(e.value)) fail("the entry of " + cell_name(e.cell) + " must be a finite number");
    yours[key_of(e.cell)] = e.value;
  }
  const ExerciseAnswer key = solve_exercise(givens, math);
  const auto key_value = [&](const ExerciseCell& c) { return static_cast<double>(key.at(c.step)(c.row, c.col)); };
  const auto your_value = [&](const ExerciseCell& c) {
    const auto found = yours.find(key_of(c));
    return found == yours.end() ? key_value(c) : found->second;
  };

  ExerciseCheck check;
  check.cell_name = cell_name(cell);
  check.source = source_of(cell, math);
  // The key's value by the cell's own formula, in double (the core's float answer agrees to the tolerance).
  check.expected = computed(cell, math, givens, key_value);
  check.expected_from_yours = computed(cell, math, givens, your_value);
  check.tolerance = exercise_tolerance(cell.step, math, check.expected);
  for (const ExerciseCell& up : upstream_of(cell)) {
    const auto found = yours.find(key_of(up));
    if (found != yours.end() && !within(found->second, key_value(up), up.step, math)) check.upstream_off.push_back(up);
  }
  std::string off;
  for (std::size_t i = 0; i < check.upstream_off.size(); ++i)
    off += (i == 0 ? "" : i + 1 == check.upstream_off.size() ? " and " : ", ") + cell_name(check.upstream_off[i]);
  const bool plural = check.upstream_off.size() > 1;

  if (within(value, check.expected, cell.step, math)) {
    check.verdict = ExerciseVerdict::Right;
    check.hint = "Right: " + check.cell_name + " = " + check.source + ".";
  } else if (within(value, check.expected_from_yours, cell.step, math)) {
    // Right from the learner's own upstream: forgiven, and named when some of it is off (otherwise it
    // only carries their rounding, which counts as right).
    check.verdict = check.upstream_off.empty() ? ExerciseVerdict::Right : ExerciseVerdict::RightFromYours;
    check.hint = check.upstream_off.empty()
                     ? "Right (from your rounded numbers): " + check.cell_name + " = " + check.source + "."
                     : "Right from your own numbers: " + check.cell_name + " = " + check.source + "; but your " + off +
                           (plural ? " are" : " is") + " off.";
  } else {
    check.verdict = ExerciseVerdict::Wrong;
    check.hint = "Not yet: " + check.cell_name + " = " + check.source + "." +
                 (off.empty() ? "" : " Your " + off + (plural ? " are" : " is") + " off too.");
  }
  return check;
}

double parse_exercise_entry(const std::string& raw) {
  if (raw.size() > 64) fail("an entry of " + std::to_string(raw.size()) + " characters is not a number");
  std::string text = trimmed(raw);
  // "−" (U+2212, what the page prints) counts as a minus.
  for (std::size_t at; (at = text.find("\xE2\x88\x92")) != std::string::npos;) text.replace(at, 3, "-");
  const auto bad = [&]() -> double { fail("“" + raw + "” is not a number or a fraction such as 27/39"); };
  if (text.empty()) bad();
  const auto slash = text.find('/');
  double top = 0, bottom = 1;
  if (slash == std::string::npos) {
    if (!parse_decimal(text, top)) bad();
    return top;
  }
  if (!parse_decimal(trimmed(text.substr(0, slash)), top) || !parse_decimal(trimmed(text.substr(slash + 1)), bottom))
    bad();
  if (bottom == 0) fail("“" + raw + "” divides by zero");
  return top / bottom;
}

ExerciseShortcutGap exercise_shortcut_gap(const ExerciseGivens& givens) {
  const ExerciseAnswer s = solve_exercise(givens, ExerciseMath::Shortcuts),
                       r = solve_exercise(givens, ExerciseMath::Real);
  ExerciseShortcutGap gap;
  const auto largest = [](const Matrix& a, const Matrix& b, ExerciseStep step, double& size, ExerciseCell& where) {
    for (Index i = 0; i < a.rows(); ++i)
      for (Index j = 0; j < a.cols(); ++j) {
        const double d = std::abs(static_cast<double>(a(i, j)) - b(i, j));
        if (d > size) size = d, where = {step, i, j};
      }
  };
  largest(s.A, r.A, ExerciseStep::A, gap.a_gap, gap.a_cell);
  largest(s.Z, r.Z, ExerciseStep::Z, gap.z_gap, gap.z_cell);
  return gap;
}

}  // namespace attn

// Embind bindings of by-hand practice (core exercise.hpp): seeded exercises, their answers and the
// check of a learner's cell, as plain JS objects. Like bindings.cpp, every entry point catches the core's
// exceptions and returns a JS Error, which wasm/attention.js rethrows as an AttentionError.
#include <emscripten/bind.h>
#include <emscripten/val.h>

#include <string>
#include <vector>

#include "attention/exercise.hpp"
#include "marshal.hpp"

using emscripten::val;
using namespace attn;
using namespace attn::wasm;

namespace {

ExerciseGivens to_givens(const val& g) {
  return {to_matrix(g["X"]), to_matrix(g["Wq"]), to_matrix(g["Wk"]), to_matrix(g["Wv"])};
}

val givens_to_js(const ExerciseGivens& g) {
  val out = val::object();
  out.set("X", to_js(g.X));
  out.set("Wq", to_js(g.W_Q));
  out.set("Wk", to_js(g.W_K));
  out.set("Wv", to_js(g.W_V));
  return out;
}

// The steps by the names the JS API uses, in the sheet's order (ExerciseStep).
constexpr const char* kStepNames[kExerciseSteps] = {"Q", "K", "V", "scores", "scaled", "powers", "sums", "A", "Z"};

ExerciseStep to_step(const val& name) {
  if (name.isString()) {
    const std::string s = name.as<std::string>();
    for (int i = 0; i < kExerciseSteps; ++i)
      if (s == kStepNames[i]) return static_cast<ExerciseStep>(i);
    throw AttentionError("“" + s + "” is not a step of the sheet (Q, K, V, scores, scaled, powers, sums, A, Z)");
  }
  throw AttentionError("an exercise step must be a name such as \"Q\" or \"A\"");
}

ExerciseMath to_math(const std::string& math) {
  if (math == "shortcuts") return ExerciseMath::Shortcuts;
  if (math == "real") return ExerciseMath::Real;
  throw AttentionError("math must be \"shortcuts\" or \"real\", got “" + math + "”");
}

Index to_index(const val& v, const char* what) {
  if (!v.isNumber()) throw AttentionError(std::string("a cell's ") + what + " must be a number");
  const double d = v.as<double>();
  if (!(d >= 0 && d < 16) || d != static_cast<double>(static_cast<Index>(d)))
    throw AttentionError(std::string("a cell's ") + what + " must be a small whole number, got " + std::to_string(d));
  return static_cast<Index>(d);
}

ExerciseCell to_cell(const val& c) {
  return {to_step(c["step"]), to_index(c["row"], "row"), to_index(c["col"], "col")};
}

val cell_to_js(const ExerciseCell& c) {
  val out = val::object();
  out.set("step", std::string(kStepNames[static_cast<int>(c.step)]));
  out.set("row", static_cast<double>(c.row));
  out.set("col", static_cast<double>(c.col));
  return out;
}

val exercise_make_js(double seed) {
  return guarded([&] {
    if (!(seed >= 0 && seed <= 4294967295.0) || seed != static_cast<double>(static_cast<std::uint32_t>(seed)))
      throw AttentionError("an exercise seed must be a whole number from 0 to 4294967295");
    const Exercise e = make_exercise(static_cast<std::uint32_t>(seed));
    val out = givens_to_js(e.givens);
    out.set("seed", static_cast<double>(e.seed));
    out.set("draws", e.draws);
    out.set("code", e.code);
    return out;
  });
}

val exercise_code_js(val givens) {
  return guarded([&] { return val(exercise_code(to_givens(givens))); });
}

val exercise_solve_js(val givens, std::string math) {
  return guarded([&] {
    const ExerciseAnswer a = solve_exercise(to_givens(givens), to_math(math));
    val out = val::object();
    for (int i = 0; i < kExerciseSteps; ++i) out.set(kStepNames[i], to_js(a.at(static_cast<ExerciseStep>(i))));
    return out;
  });
}

// The sheet's steps in order: { step, name, rows, cols } each, their names as the sheet writes them.
val exercise_steps_js(std::string math) {
  return guarded([&] {
    const ExerciseMath m = to_math(math);
    val out = val::array();
    for (int i = 0; i < kExerciseSteps; ++i) {
      const auto step = static_cast<ExerciseStep>(i);
      val s = val::object();
      s.set("step", std::string(kStepNames[i]));
      s.set("name", exercise_step_name(step, m));
      s.set("rows", static_cast<double>(exercise_step_rows(step)));
      s.set("cols", static_cast<double>(exercise_step_cols(step)));
      out.call<void>("push", s);
    }
    return out;
  });
}

const char* verdict_name(ExerciseVerdict v) {
  switch (v) {
    case ExerciseVerdict::Right: return "right";
    case ExerciseVerdict::RightFromYours: return "right-from-yours";
    case ExerciseVerdict::Wrong: break;
  }
  return "wrong";
}

// entries: [{ step, row, col, value }] (attention.js made each value a finite number).
val exercise_check_js(val givens, std::string math, val entries, val cell, double value) {
  return guarded([&] {
    std::vector<ExerciseEntry> yours;
    const auto n = entries["length"].as<unsigned>();
    yours.reserve(n);
    for (unsigned i = 0; i < n; ++i) {
      const val e = entries[i];
      if (!e["value"].isNumber()) throw AttentionError("an entry's value must be a number");
      yours.push_back({to_cell(e), e["value"].as<double>()});
    }
    const ExerciseCheck c = check_exercise_cell(to_givens(givens), to_math(math), yours, to_cell(cell), value);
    val out = val::object();
    out.set("verdict", std::string(verdict_name(c.verdict)));
    out.set("expected", c.expected);
    out.set("expectedFromYours", c.expected_from_yours);
    out.set("tolerance", c.tolerance);
    out.set("cellName", c.cell_name);
    out.set("source", c.source);
    out.set("hint", c.hint);
    val off = val::array();
    for (const ExerciseCell& u : c.upstream_off) off.call<void>("push", cell_to_js(u));
    out.set("upstreamOff", off);
    return out;
  });
}

// The value of a typed entry, wrapped ({ value }) so a failure can come back as an Error.
val exercise_parse_js(std::string text) {
  return guarded([&] {
    val out = val::object();
    out.set("value", parse_exercise_entry(text));
    return out;
  });
}

val exercise_gap_js(val givens) {
  return guarded([&] {
    const ExerciseShortcutGap g = exercise_shortcut_gap(to_givens(givens));
    val out = val::object();
    out.set("aGap", g.a_gap);
    out.set("aCell", cell_to_js(g.a_cell));
    out.set("zGap", g.z_gap);
    out.set("zCell", cell_to_js(g.z_cell));
    return out;
  });
}

}  // namespace

EMSCRIPTEN_BINDINGS(attention_exercise) {
  emscripten::function("exerciseMake", &exercise_make_js);
  emscripten::function("exerciseCode", &exercise_code_js);
  emscripten::function("exerciseSolve", &exercise_solve_js);
  emscripten::function("exerciseSteps", &exercise_steps_js);
  emscripten::function("exerciseCheck", &exercise_check_js);
  emscripten::function("exerciseParse", &exercise_parse_js);
  emscripten::function("exerciseGap", &exercise_gap_js);
}

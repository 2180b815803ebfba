// What the two binding files (bindings.cpp and exercise_bindings.cpp) share: a matrix copied across
// the boundary either way, and the one place an exception becomes a message and a returned JS Error
// (exceptions must never cross into JS: /work/shared/TOOLCHAIN.md).
#pragma once

#include <emscripten/val.h>

#include <cstddef>
#include <new>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "attention/attention.hpp"

namespace attn::wasm {

using emscripten::val;

// Each input is copied once, by one TypedArray.set straight into the storage of the C++ object on the
// wasm heap (wasm/attention.js has checked that it is a matrix, a vector or a mask of the right type).
template <typename T>
void copy_in(const val& from, T* into, std::size_t n) {
  val(emscripten::typed_memory_view(n, into)).call<void>("set", from);
}

// {rows, cols, data: Float32Array of rows·cols values} → Matrix.
inline Matrix to_matrix(const val& m) {
  Matrix out(m["rows"].as<Index>(), m["cols"].as<Index>());
  copy_in(m["data"], out.data(), static_cast<std::size_t>(out.size()));
  return out;
}

// Matrix → {rows, cols, data}. The data is copied into a JS-owned Float32Array: a bare view of the wasm
// heap would die when the heap grows or the matrix is freed.
inline val to_js(const Matrix& m) {
  val out = val::object();
  out.set("rows", static_cast<double>(m.rows()));
  out.set("cols", static_cast<double>(m.cols()));
  out.set("data", val::global("Float32Array")
                      .new_(emscripten::typed_memory_view(static_cast<std::size_t>(m.size()), m.data())));
  return out;
}

// Runs call(body); returns true, or false with the message of the exception it threw in `message`. The
// one place the messages of each kind of exception are made, and the one try/catch: kept out of line and
// not a template, so each entry point does not stamp out its own copy of the catch clauses (~370 bytes
// of wasm each at -O3, 20 entry points: measured 1.7 KiB gzip of the page's module). One indirect call a call.
__attribute__((noinline)) inline bool caught_call(void (*call)(void*), void* body, std::string& message) {
  try {
    call(body);
    return true;
  } catch (const AttentionError& e) {
    message = e.what();
  } catch (const std::bad_alloc&) {
    message = "out of memory: the input is too large";
  } catch (const std::exception& e) {
    message = std::string("internal error: ") + e.what();
  }
  return false;
}

// Runs `body` through caught_call (guarded and the output-only path use it).
template <typename Body>
bool caught(Body&& body, std::string& message) {
  using B = std::remove_reference_t<Body>;
  return caught_call([](void* b) { (*static_cast<B*>(b))(); }, const_cast<void*>(static_cast<const void*>(&body)),
                     message);
}

// A JS Error carrying `message` (out of line: one copy for every guarded entry point).
__attribute__((noinline)) inline val error_of(const std::string& message) { return val::global("Error").new_(message); }

// Runs `body`, turning any exception into a returned JS Error carrying its message.
template <typename Body>
val guarded(Body&& body) {
  val out = val::undefined();
  std::string message;
  if (caught([&] { out = body(); }, message)) return out;
  return error_of(message);
}

}  // namespace attn::wasm

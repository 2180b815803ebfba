// Benchmark driver: times the attention core on identical, deterministic inputs. The same source is built
// natively (-O3 -march=native, and portable -O3) and with Emscripten for node (scalar, -msimd128, relaxed
// SIMD), so "native vs wasm" compares the same code. Prints one JSON object on stdout.
//
//   attention_bench [--smoke] [--label NAME] [--only VARIANT] [--T N] [--reps N] [--min-time SECONDS]
//
// Variants (scaled dot-product attention, Q, K, V: T×64, output softmax(QKᵀ/8)·V):
//   full         attn::attention_from_qkv: the core's explainer path, every T×T intermediate kept
//   output       attn::streaming_attention_output: the output-only path (online softmax, O(T·d) scratch)
//   eigen_sdpa   the maths as the core did it before the kernels: Eigen Q·Kᵀ, reference::softmax_rows
//                (std::exp, double sum), Eigen weights·V; output only
//   kernel_sdpa  the same with attn::kernels (multiply_transposed, softmax_rows, multiply); output only
//   step_*       one step alone, Eigen/scalar against the kernel (T = 64, 128, 512)
// Multi-head (8 heads, d_model 512, Q = X·W_Q …, output concat·W_O):
//   mha          attn::multi_head_attention (every intermediate kept)
//   mha_output   projections + output-only attention per head + W_O (what a forward pass needs)
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "attention/attention.hpp"
#include "attention/streaming.hpp"
#include "kernels.hpp"
#include "reference.hpp"

#ifdef __EMSCRIPTEN__
#include <emscripten/heap.h>
#endif

using namespace attn;

namespace {

// The inputs every implementation of the benchmark generates the same way (bench/common.mjs,
// bench/torch_bench.py): a 32-bit LCG, 24 high bits → a float in [-1, 1), times `scale`.
struct Lcg {
  std::uint32_t state;
  float next(float scale) {
    state = state * 1664525u + 1013904223u;
    return (static_cast<float>(state >> 8) / 16777216.0f * 2.0f - 1.0f) * scale;
  }
};

Matrix fill(Lcg& g, Index rows, Index cols, float scale) {
  Matrix m(rows, cols);
  for (Index i = 0; i < m.size(); ++i) m.data()[i] = g.next(scale);
  return m;
}

double now_ms() {
  using namespace std::chrono;
  return duration<double, std::milli>(steady_clock::now().time_since_epoch()).count();
}

struct Options {
  bool smoke = false;
  std::string label = "native";
  std::string only;
  Index only_T = 0;
  int reps = 0;  // 0: adaptive
  double min_time_ms = 400;
};

struct Result {
  std::string kind, variant;
  Index T;
  double median_ms, min_ms, flops;
  int reps;
  double checksum;
  std::vector<float> head;  // the first output values, to compare implementations
};

std::vector<Result> results;
volatile float sink;

double checksum_of(const Matrix& m) {
  double s = 0;
  for (Index i = 0; i < m.size(); ++i) s += m.data()[i];
  return s;
}

void run(const Options& o, const std::string& kind, const std::string& variant, Index T, double flops,
         const std::function<Matrix()>& body) {
  if (!o.only.empty() && ("," + o.only + ",").find("," + variant + ",") == std::string::npos) return;
  if (o.only_T && o.only_T != T) return;
  // Warm-up (and the checksum): up to 3 runs or 0.2 s; the last one estimates the repetitions.
  Matrix out;
  double first = 0;
  for (int w = 0, spent = 0; w < 3 && spent < 200; ++w) {
    const double t0 = now_ms();
    out = body();
    first = now_ms() - t0;
    spent += static_cast<int>(first);
  }
  int reps = o.reps;
  if (reps == 0) {
    reps = static_cast<int>(o.min_time_ms / std::max(first, 1e-3));
    reps = std::max(5, std::min(reps, 41));
    if (first > 2000) reps = 3;
  }
  std::vector<double> times;
  for (int r = 0; r < reps; ++r) {
    const double a = now_ms();
    Matrix m = body();
    times.push_back(now_ms() - a);
    sink = m.size() ? m.data()[0] : 0.0f;
  }
  std::sort(times.begin(), times.end());
  const std::size_t n = times.size();
  const double median = n % 2 ? times[n / 2] : (times[n / 2 - 1] + times[n / 2]) / 2;
  Result res{kind, variant, T, median, times.front(), flops, reps, checksum_of(out), {}};
  for (Index i = 0; i < std::min<Index>(8, out.size()); ++i) res.head.push_back(out.data()[i]);
  results.push_back(res);
  std::fprintf(stderr, "  %-6s %-14s T=%-5ld %10.3f ms  %7.2f GFLOP/s  (%d reps)\n", kind.c_str(), variant.c_str(),
               static_cast<long>(T), median, flops / median / 1e6, reps);
}

void sdpa(const Options& o, Index T, bool steps) {
  const Index d = 64;
  Lcg g{42u + static_cast<std::uint32_t>(T)};
  const Matrix Q = fill(g, T, d, 2.0f), K = fill(g, T, d, 2.0f), V = fill(g, T, d, 1.0f);
  const float inv = 1.0f / std::sqrt(static_cast<float>(d));
  const double flops = 4.0 * T * T * d;  // Q·Kᵀ and weights·V, 2·T·T·d each
  run(o, "sdpa", "full", T, flops, [&] { return attention_from_qkv(Q, K, V).output; });
  run(o, "sdpa", "output", T, flops, [&] { return streaming_attention_output(Q, K, V); });
  run(o, "sdpa", "eigen_sdpa", T, flops, [&] {
    Matrix S = (Q * K.transpose()) * inv;
    reference::softmax_rows(S, 1.0f);
    return Matrix(S * V);
  });
  run(o, "sdpa", "kernel_sdpa", T, flops, [&] {
    Matrix S = kernels::multiply_transposed(Q, K, inv);
    kernels::softmax_rows(S.data(), T, T, T, 1.0f);
    return kernels::multiply(S, V);
  });
  if (!steps) return;
  const double half = 2.0 * T * T * d;
  const Matrix S = (Q * K.transpose()) * inv;
  Matrix P = S;
  reference::softmax_rows(P, 1.0f);
  run(o, "step", "qk_eigen", T, half, [&] { return Matrix((Q * K.transpose()) * inv); });
  run(o, "step", "qk_kernel", T, half, [&] { return kernels::multiply_transposed(Q, K, inv); });
  run(o, "step", "softmax_scalar", T, 0, [&] {
    Matrix m = S;
    reference::softmax_rows(m, 1.0f);
    return m;
  });
  run(o, "step", "softmax_kernel", T, 0, [&] {
    Matrix m = S;
    kernels::softmax_rows(m.data(), T, T, T, 1.0f);
    return m;
  });
  run(o, "step", "copy_TxT", T, 0, [&] { return Matrix(S); });  // what the two softmax rows include
  run(o, "step", "pv_eigen", T, half, [&] { return Matrix(P * V); });
  run(o, "step", "pv_kernel", T, half, [&] { return kernels::multiply(P, V); });
}

void mha(const Options& o, Index T) {
  const Index dm = 512, heads = 8, dk = dm / heads;
  Lcg g{7u + static_cast<std::uint32_t>(T)};
  const Matrix X = fill(g, T, dm, 1.0f);
  const float ws = 0.08f;
  const Matrix Wq = fill(g, dm, dm, ws), Wk = fill(g, dm, dm, ws), Wv = fill(g, dm, dm, ws), Wo = fill(g, dm, dm, ws);
  const MultiHeadWeights w = split_heads(Wq, Wk, Wv, Wo, heads);
  const double flops = 8.0 * T * dm * dm + 4.0 * T * T * dm;
  run(o, "mha", "mha", T, flops, [&] { return multi_head_attention(X, w).output; });
  auto product = [](const Matrix& A, const Matrix& B) {
    if constexpr (kernels::kUseForWeightsV) return kernels::multiply(A, B);
    return Matrix(A * B);
  };
  run(o, "mha", "mha_output", T, flops, [&] {
    const Matrix Q = product(X, Wq), K = product(X, Wk), V = product(X, Wv);
    Matrix concat(T, dm);
    for (Index h = 0; h < heads; ++h)
      concat.middleCols(h * dk, dk) = streaming_attention_output(Q.middleCols(h * dk, dk), K.middleCols(h * dk, dk),
                                                                 V.middleCols(h * dk, dk));
    return product(concat, Wo);
  });
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&] { return i + 1 < argc ? std::string(argv[++i]) : std::string(); };
    if (a == "--smoke")
      o.smoke = true;
    else if (a == "--label")
      o.label = value();
    else if (a == "--only")
      o.only = value();
    else if (a == "--T")
      o.only_T = std::stol(value());
    else if (a == "--reps")
      o.reps = std::stoi(value());
    else if (a == "--min-time")
      o.min_time_ms = std::stod(value()) * 1000;
    else {
      std::fprintf(stderr, "unknown argument %s\n", a.c_str());
      return 2;
    }
  }
  std::fprintf(stderr, "%s: kernels %s, Eigen %s\n", o.label.c_str(), kernels::vector_description(),
               Eigen::SimdInstructionSetsInUse());
  if (o.smoke) {
    if (o.reps == 0) o.reps = 2;
    sdpa(o, 64, true);
    mha(o, 64);
  } else {
    for (Index T : {16, 64, 128, 256, 512, 1024, 4096}) sdpa(o, T, T == 64 || T == 128 || T == 512);
    for (Index T : {64, 512}) mha(o, T);
  }
  std::printf("{\"label\":\"%s\",\"kernels\":\"%s\",\"eigen_simd\":\"%s\",", o.label.c_str(),
              kernels::vector_description(), Eigen::SimdInstructionSetsInUse());
#ifdef __EMSCRIPTEN__
  std::printf("\"wasm_heap_bytes\":%zu,", emscripten_get_heap_size());
#endif
  std::printf("\"results\":[");
  for (std::size_t i = 0; i < results.size(); ++i) {
    const Result& r = results[i];
    std::printf(
        "%s\n{\"kind\":\"%s\",\"variant\":\"%s\",\"T\":%ld,\"median_ms\":%.6f,\"min_ms\":%.6f,\"reps\":%d,"
        "\"flops\":%.0f,\"checksum\":%.9g,\"head\":[",
        i ? "," : "", r.kind.c_str(), r.variant.c_str(), static_cast<long>(r.T), r.median_ms, r.min_ms, r.reps, r.flops,
        r.checksum);
    for (std::size_t j = 0; j < r.head.size(); ++j) std::printf("%s%.9g", j ? "," : "", r.head[j]);
    std::printf("]}");
  }
  std::printf("]}\n");
  return 0;
}

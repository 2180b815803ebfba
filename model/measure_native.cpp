// Times the language model natively: parsing data/model.bin and the forward pass at T = 7 and T = 32
// (medians of repeated runs). Built and run by model/measure.sh; prints one JSON line.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "attention/model.hpp"

namespace {

template <typename Body>
double median_ms(int repetitions, Body&& body) {
  std::vector<double> times;
  for (int i = 0; i < repetitions; ++i) {
    const auto start = std::chrono::steady_clock::now();
    body();
    times.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
  }
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  const std::string path = argc > 1 ? argv[1] : "data/model.bin";
  std::ifstream file(path, std::ios::binary);
  const std::vector<std::uint8_t> bytes((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  if (bytes.empty()) {
    std::fprintf(stderr, "cannot read %s\n", path.c_str());
    return 1;
  }
  const attn::LanguageModel model = attn::LanguageModel::parse(bytes.data(), bytes.size());
  const std::string short_sentence = "the train left the station on time";
  std::string full;  // 32 tokens: the context length
  for (int i = 0; i < 4; ++i) full += "the train left the station on time . ";
  if (attn::tokenize(full).size() != 32) return 1;

  volatile float sink = 0;
  const double parse = median_ms(21, [&] { sink = attn::LanguageModel::parse(bytes.data(), bytes.size()).embedding(1, 0); });
  const double t7 = median_ms(201, [&] { sink = attn::run_model(model, short_sentence).predictions[0].probability; });
  const double t32 = median_ms(201, [&] { sink = attn::run_model(model, full).predictions[0].probability; });
  std::printf("{\"where\": \"native\", \"bytes\": %zu, \"parse_ms\": %.3f, \"forward_T7_ms\": %.3f, \"forward_T32_ms\": %.3f}\n",
              bytes.size(), parse, t7, t32);
  return 0;
}

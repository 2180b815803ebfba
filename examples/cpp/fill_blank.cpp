// Example: the trained encoder (data/encoder.bin) fills a blank. One word of the sentence is replaced by
// [MASK]; the model's guesses are softmax(LN_f(x_blank) Eᵀ) over its vocabulary, most probable first. A pieces
// encoder hides all of the word's pieces and guesses whole words (attn::fill_blank).
// Usage: fill_blank [data/encoder.bin] [sentence] [position of the blank, from 0]
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "attention/model.hpp"

int main(int argc, char** argv) {
  const char* path = argc > 1 ? argv[1] : "data/encoder.bin";
  const std::string sentence = argc > 2 ? argv[2] : "the train left the station on time";
  const attn::Index position = argc > 3 ? std::atoi(argv[3]) : 4;  // "station"
  // The core does no I/O: the program reads the file and parses its bytes.
  std::ifstream file(path, std::ios::binary);
  if (!file) {
    std::fprintf(stderr, "cannot read %s\n", path);
    return 1;
  }
  const std::vector<std::uint8_t> bytes((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  const attn::LanguageModel model = attn::LanguageModel::parse(bytes.data(), bytes.size());
  std::printf("encoder: %d layers, %d heads, d_model %d, %d words or pieces\n", static_cast<int>(model.layer_count),
              static_cast<int>(model.heads), static_cast<int>(model.d_model), static_cast<int>(model.vocabulary_size));

  const attn::FilledBlank blank = attn::fill_blank(model, sentence, position, 5);
  for (attn::Index t = 0; t < static_cast<attn::Index>(blank.run.tokens.size()); ++t)
    std::printf("%s%s", t ? " " : "", blank.run.tokens[t].text.c_str());
  std::string hidden;  // a words model hides one token; a pieces model all of the word's pieces
  for (const attn::Index t : blank.masked) hidden += (hidden.empty() ? "" : " ") + blank.tokens[t].text;
  std::printf("   (hidden: %s)\n", hidden.c_str());
  for (const attn::Prediction& p : blank.run.predictions) std::printf("%10s %.4f\n", p.word.c_str(), p.probability);
  return 0;
}

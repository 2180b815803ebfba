// Command-line front of the core's text side, so the Python scripts (data/, model/) call the core instead of
// copying it:
//   attention-tokenize                 each line's tokens (attn::tokenize), space-separated
//   attention-tokenize --stems         one word a line → its attn::stem_candidates, space-separated (an empty
//                                      line when none); flushed after every line, so a script can keep one
//                                      process open and ask word by word
//   attention-tokenize --pieces VOCAB  each line's pieces (attn::PieceVocabulary from the file VOCAB): the
//                                      words' piece ids, a word's ids joined by ',' and words by ' '
// data/build_vectors.sh uses the first so the corpus and the reader's sentence are tokenised the same way.
#include <fstream>
#include <iostream>
#include <iterator>
#include <string>

#include "attention/pieces.hpp"
#include "attention/text.hpp"

namespace {

int tokens() {
  std::string line;
  while (std::getline(std::cin, line)) {
    const auto tokens = attn::tokenize(line);
    for (std::size_t i = 0; i < tokens.size(); ++i) {
      if (i) std::cout << ' ';
      std::cout << tokens[i];
    }
    std::cout << '\n';
  }
  return 0;
}

int stems() {
  std::string word;
  while (std::getline(std::cin, word)) {
    const auto stems = attn::stem_candidates(word);
    for (std::size_t i = 0; i < stems.size(); ++i) std::cout << (i ? " " : "") << stems[i];
    std::cout << std::endl;  // flush: the asker waits for this line
  }
  return 0;
}

int pieces(const char* vocab_path) {
  std::ifstream file(vocab_path, std::ios::binary);
  if (!file) {
    std::cerr << "attention-tokenize: cannot read " << vocab_path << '\n';
    return 1;
  }
  const std::string text{std::istreambuf_iterator<char>(file), std::istreambuf_iterator<char>()};
  const auto vocabulary = attn::PieceVocabulary::parse(text);
  std::string line;
  while (std::getline(std::cin, line)) {
    const attn::PieceEncoding e = vocabulary.encode(line);
    for (std::size_t p = 0; p < e.ids.size(); ++p) {
      if (p) std::cout << (e.word_of[p] == e.word_of[p - 1] ? ',' : ' ');
      std::cout << e.ids[p];
    }
    std::cout << '\n';
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  std::ios::sync_with_stdio(false);
  try {
    const std::string mode = argc > 1 ? argv[1] : "";
    if (argc == 1) return tokens();
    if (argc == 2 && mode == "--stems") return stems();
    if (argc == 3 && mode == "--pieces") return pieces(argv[2]);
    std::cerr << "usage: attention-tokenize [--stems | --pieces VOCAB] < text\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "attention-tokenize: " << e.what() << '\n';
    return 1;
  }
}

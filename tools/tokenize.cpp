// Command-line front of attn::tokenize: reads text on stdin, writes each line's tokens space-separated.
// data/build_vectors.sh uses it so the corpus and the reader's sentence are tokenised the same way.
#include <iostream>
#include <string>

#include "attention/text.hpp"

int main() {
  std::ios::sync_with_stdio(false);
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

#!/usr/bin/python3
"""Golden cases for the core's piece encoder (attn::PieceVocabulary, tests/core/test_pieces.cpp): what
SentencePiece's own encoder (Debian's python3-sentencepiece) gives for data/pieces.vocab's model on a few
thousand varied words and sentences. Run after data/build_pieces.py export (it needs build/pieces/bpe8000.model,
the model data/pieces.vocab was exported from):

  /usr/bin/python3 tests/reference/make_pieces_cases.py   # → tests/reference/pieces_cases.txt

Each case is one line, fields separated by tabs:
  word <TAB> the word <TAB> SentencePiece's ids for it
  sentence <TAB> raw text <TAB> the ids of SentencePiece on attn::tokenize's tokens joined by single spaces
The words: every 25th word of /usr/share/dict/words (rare words, names, possessives), contractions, numbers
and ordinals, hyphenated words, accented, Greek, Cyrillic and CJK words, emoji, and seeded random strings
of letters, digits, marks and non-ASCII characters. The sentences: hand-written ones (mixed case,
contractions, numbers, punctuation, emoji) and every 40th held-out corpus line."""
import pathlib
import random
import subprocess

import sentencepiece as spm

ROOT = pathlib.Path(__file__).resolve().parents[2]
MODEL = ROOT / "build" / "pieces" / "bpe8000.model"
VOCAB = ROOT / "data" / "pieces.vocab"
OUT = ROOT / "tests" / "reference" / "pieces_cases.txt"
TOKENIZE = ROOT / "build" / "native" / "attention-tokenize"

HAND_WORDS = """you've aren't they'll won't can't shan't o'clock rock'n'roll students' murphy's
95 1987 3rd 21st 95th 1,000 3.14 0.5 007 2026 1e10 x86_64
non-linear well-paid state-of-the-art mother-in-law -dash trailing- --
café naïve résumé façade über straße smörgåsbord jalapeño coöperate
αβγ λόγος москва привет 東京 日本語 한국어 עברית العربية हिन्दी
😀 👍🏽 🇬🇧 ❤️ ☃ ∑ ∞ ½ ™ € £ ¥ ▁ ▁▁ a▁b
a b z q x aa zz qqq xyzzy supercalifragilisticexpialidocious pneumonoultramicroscopicsilicovolcanoconiosis
station stations sta tion train the The THE Hello hello""".split()

HAND_SENTENCES = [
    "The train left the station on time.",
    "He cashed a check at the bank.",
    "You've met a paranoid Murphy's dog, haven't you?",
    "In 1987, 95 people walked 3.5 miles -- non-stop!",
    "Café society: naïve résumés & jalapeño façades.",
    "Emoji 😀 and 東京 and москва in one line.",
    "state-of-the-art, well-paid, mother-in-law; (parenthesised) \"quoted\" 'single'",
    "Σ ∞ ½ ™ € — the end…",
    "ALL CAPS AND lower case MiXeD",
    "a",
]


def random_words(rng, count):
    alphabet = list("abcdefghijklmnopqrstuvwxyz0123456789'-") + list("éüñçøåßæœ") + list("αβγδλμπσω") + \
        list("дзлпр") + list("東京日本語") + ["😀", "👍", "∑", "½", "€"]
    return ["".join(rng.choice(alphabet) for _ in range(rng.randint(1, 14))) for _ in range(count)]



def tokenize(lines):
    data = "".join(l + "\n" for l in lines).encode("utf-8")
    out = subprocess.run([str(TOKENIZE)], input=data, stdout=subprocess.PIPE, check=True).stdout.decode("utf-8")
    return out.split("\n")[:-1]


def main():
    sp = spm.SentencePieceProcessor(model_file=str(MODEL))
    # The exported file is this model: same pieces, same scores, same order.
    exported = VOCAB.read_text(encoding="utf-8").split("\n")[1:-1]
    assert len(exported) == sp.get_piece_size()
    assert all(line.split("\t")[0] == sp.id_to_piece(i) for i, line in enumerate(exported))
    rng = random.Random(24)
    dictionary = pathlib.Path("/usr/share/dict/words").read_text(encoding="utf-8").split("\n")[::25]
    words = HAND_WORDS + [w for w in dictionary if w] + random_words(rng, 1000)
    # The encoder sees the tokenizer's words, which have no whitespace: SentencePiece sees them the same.
    # Except "▁" itself: SentencePiece reads a "▁" in its input as a space ("a▁b" is two words to it, "▁"
    # none), while the core keeps it as a character of the word (decode_word gives the word back).
    words = [w for w in dict.fromkeys(words) if w and not any(c.isspace() for c in w) and "▁" not in w]
    held = (ROOT / "build" / "corpus" / "heldout.txt").read_text(encoding="utf-8").split("\n")[:-1][::40]
    sentences = HAND_SENTENCES + held
    lines = ["# pieces cases: SentencePiece 0.1.97 (python3-sentencepiece) on data/pieces.vocab's model; "
             "written by tests/reference/make_pieces_cases.py"]
    for w in words:
        lines.append("word\t" + w + "\t" + " ".join(map(str, sp.encode(w))))
    for text, tokens in zip(sentences, tokenize(sentences)):
        assert "\t" not in text
        lines.append("sentence\t" + text + "\t" + " ".join(map(str, sp.encode(tokens))))
    OUT.write_text("\n".join(lines) + "\n", encoding="utf-8")
    print(f"{len(words)} words, {len(sentences)} sentences -> {OUT}")


if __name__ == "__main__":
    main()

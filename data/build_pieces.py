#!/usr/bin/python3
"""The subword vocabulary of issue 24 §3: SentencePiece BPE with byte fallback, trained on the training
lines of build/corpus/train.txt (data/build_corpus.py), exported to data/pieces.vocab, a plain text file
the core reads without protobuf (attn::PieceVocabulary, format in data/README.md).

  /usr/bin/python3 data/build_pieces.py sweep         # trains 2k/4k/8k/16k, measures them on held-out lines
  /usr/bin/python3 data/build_pieces.py export 8000   # trains that size again and writes data/pieces.vocab

Needs Debian's python3-sentencepiece (0.1.97). One thread, seeded by construction (BPE training is
deterministic). The input is the core's tokens joined by single spaces, so a piece never spans two words
and the core encodes a sentence word by word ("▁" + word) with the same result as SentencePiece on the line.
Normalisation is off (identity): the core's tokenizer has already lower-cased ASCII, and no other rewriting
happens on either side."""
import pathlib
import sys
import time

import sentencepiece as spm

ROOT = pathlib.Path(__file__).resolve().parent.parent
CORPUS = ROOT / "build" / "corpus"
WORK = ROOT / "build" / "pieces"
VOCAB_FILE = ROOT / "data" / "pieces.vocab"
HEADER = "attention-pieces 1 bpe"
SIZES = (2000, 4000, 8000, 16000)
BUDGET = 1_000_000  # bytes of a model file (model/README.md)


def train(size, prefix):
    """Trains BPE of `size` pieces (with <unk> and the 256 byte pieces) on the training lines."""
    spm.SentencePieceTrainer.train(
        input=str(CORPUS / "train.txt"), model_prefix=str(prefix), model_type="bpe", vocab_size=size,
        byte_fallback=True, character_coverage=0.9999, normalization_rule_name="identity",
        unk_id=0, bos_id=-1, eos_id=-1, pad_id=-1, num_threads=1, input_sentence_size=0,
        split_digits=False, max_sentencepiece_length=16, minloglevel=2)
    return spm.SentencePieceProcessor(model_file=str(prefix) + ".model")


def measure(sp, lines):
    """Pieces per word, the share of words that are one piece, byte pieces used, and how many lines
    exceed 32 and 128 pieces, on the held-out lines."""
    words = pieces = single = byte_pieces = over32 = over128 = 0
    for line in lines:
        ids = sp.encode(line)
        tokens = line.split()
        words += len(tokens)
        pieces += len(ids)
        byte_pieces += sum(1 for i in ids if sp.is_byte(i))
        over32 += len(ids) > 32
        over128 += len(ids) > 128
        starts = sum(1 for i in ids if sp.id_to_piece(i).startswith("▁"))
        assert starts == len(tokens), line  # every word starts with a word-start piece
    single = sum(1 for line in lines for t in line.split() if len(sp.encode(t)) == 1)
    return {"words": words, "pieces": pieces, "per_word": pieces / words, "single": single / words,
            "bytes": byte_pieces, "over32": over32 / len(lines), "over128": over128 / len(lines)}


def piece_bytes(sp):
    """What the vocabulary costs in a model file: one u8 length + UTF-8 bytes per piece."""
    return sum(1 + len(sp.id_to_piece(i).encode("utf-8")) for i in range(sp.get_piece_size()))


def sweep():
    WORK.mkdir(parents=True, exist_ok=True)
    held = (CORPUS / "heldout.txt").read_text(encoding="utf-8").split("\n")[:-1]
    print("| pieces | train s | pieces/word | one-piece words | byte pieces | lines > 32 | lines > 128 | "
          "vocab bytes | int8 embedding d=64 | d=80 | d=96 |")
    for size in SIZES:
        started = time.time()
        sp = train(size, WORK / f"bpe{size}")
        seconds = time.time() - started
        m = measure(sp, held)
        embedding = {d: size * (d + 4) + piece_bytes(sp) for d in (64, 80, 96)}
        print(f"| {size} | {seconds:.0f} | {m['per_word']:.3f} | {100 * m['single']:.1f} % | {m['bytes']} | "
              f"{100 * m['over32']:.2f} % | {100 * m['over128']:.3f} % | {piece_bytes(sp)} | "
              + " | ".join(f"{embedding[d]:,}" for d in (64, 80, 96)) + " |", flush=True)


def export(size):
    WORK.mkdir(parents=True, exist_ok=True)
    sp = train(size, WORK / f"bpe{size}")
    lines = [HEADER]
    for i in range(sp.get_piece_size()):
        piece = sp.id_to_piece(i)
        assert piece and "\t" not in piece and "\n" not in piece and " " not in piece, piece
        lines.append(f"{piece}\t{sp.get_score(i):.9g}")
    VOCAB_FILE.write_text("\n".join(lines) + "\n", encoding="utf-8")
    print(f"{sp.get_piece_size()} pieces -> {VOCAB_FILE} ({VOCAB_FILE.stat().st_size} bytes)")


if __name__ == "__main__":
    if sys.argv[1:2] == ["sweep"]:
        sweep()
    elif sys.argv[1:2] == ["export"] and len(sys.argv) == 3:
        export(int(sys.argv[2]))
    else:
        raise SystemExit(__doc__)

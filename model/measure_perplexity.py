#!/usr/bin/python3
"""Per-word perplexity of trained decoders on the same held-out text, read from the model files as shipped
(int8 or float16 weights de-quantised): today's words decoder (data/model.bin) against a pieces decoder.
Prints model/README.md's table.

  /usr/bin/python3 model/measure_perplexity.py [--lines N] MODEL.bin [MODEL.bin ...]

Held-out text: build/corpus/heldout.txt (data/build_corpus.py), each line's first 32 tokens (today's
context). Every model predicts words 2…n of each line from the words before them: a words model one token
a word, a pieces model every piece of words 2…n (a word's probability is the product of its pieces'), so
both sum -log p over the same words and divide by the same count, n - 1 a line. A words model reads a word
outside its vocabulary as <unk> and is scored on guessing "<unk>", which is easier than guessing the word:
the table says how many target words that was."""
import argparse
import math
import pathlib
import sys
import tempfile

import torch

sys.dont_write_bytecode = True  # no __pycache__ beside the scripts
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import tinylm  # noqa: E402

CONTEXT = 32


def held_out_lines(limit):
    lines = (tinylm.ROOT / "build" / "corpus" / "heldout.txt").read_text(encoding="utf-8").split("\n")
    lines = [l.split(" ")[:CONTEXT] for l in lines if l]
    return [l for l in lines if len(l) >= 2][:limit]


def sequences(m, lines):
    """Per line: (ids, which token positions are scored). A pieces model scores the pieces of words 2…n."""
    if "pieces_text" in m:
        out = []
        with tempfile.NamedTemporaryFile("w", encoding="utf-8", suffix=".vocab") as vocab_file:
            vocab_file.write(m["pieces_text"])  # the model's own vocabulary, as the core reads the file
            vocab_file.flush()
            lines_pieces = tinylm.pieces_of_lines([" ".join(l) for l in lines], vocab_file.name)
        for words in lines_pieces:
            ids = [i for word in words for i in word]
            scored = [False] * len(words[0]) + [True] * (len(ids) - len(words[0]))
            out.append((ids, scored))
        return out, 0, 0
    vocab = tinylm.Vocabulary(m["vocab"])
    lines_ids = vocab.ids_of_lines(lines)
    unknown = sum(1 for ids in lines_ids for i in ids[1:] if i == 0)
    total = sum(len(ids) - 1 for ids in lines_ids)
    return [(ids, [False] + [True] * (len(ids) - 1)) for ids in lines_ids], unknown, total


def nats(model, seqs, context):
    """Σ -log p(token | tokens before it) over the scored positions of every sequence."""
    total = 0.0
    with torch.no_grad():
        for ids, scored in seqs:
            assert len(ids) <= context, f"{len(ids)} tokens: more than the model's context {context}"
            x = torch.tensor([ids])
            logp = torch.log_softmax(model.logits(model.hidden(x))[0].double(), dim=-1)
            for t in range(1, len(ids)):
                if scored[t]:
                    total -= logp[t - 1, ids[t]].item()
    return total


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("models", nargs="+")
    parser.add_argument("--lines", type=int, default=3000)
    args = parser.parse_args()
    torch.set_num_threads(2)
    lines = held_out_lines(args.lines)
    words = sum(len(l) - 1 for l in lines)
    print(f"Per-word perplexity on the first {len(lines)} held-out lines (first {CONTEXT} tokens each), "
          f"{words} predicted words:\n")
    print("| decoder | shape | per-word perplexity | target words read as <unk> |\n| --- | --- | --- | --- |")
    for path in args.models:
        m = tinylm.read_model(path)
        assert m["causal"], f"{path} is not a decoder"
        model = tinylm.model_from_file(m, torch.float32)
        seqs, unknown, total = sequences(m, lines)
        ppl = math.exp(nats(model, seqs, m["context"]) / words)
        shape = f"{m['layers']}×{m['heads']}×{m['d_model']}×{m['d_ff']}, {'pieces' if 'pieces_text' in m else 'words'} ({len(m['vocab'])})"
        share = f"{100 * unknown / total:.1f} %" if total else "none (pieces)"
        print(f"| {path} | {shape} | {ppl:.1f} | {share} |")


if __name__ == "__main__":
    main()

#!/usr/bin/python3
"""Writes tests/reference/model_cases.txt and encoder_cases.txt (the shipped pieces models, data/model.bin and
data/encoder.bin, in make_pieces_fixture.py's format) and tests/reference/words_decoder_cases.txt and words_encoder_cases.txt: the words models (words_decoder.bin, a decoder, and
words_encoder.bin; the page shipped them before the pieces models) run by PyTorch in float64 on fixed sentences, from the de-quantised weights (exactly the
numbers the C++ core parses), through torch.nn.TransformerEncoderLayer. tests/core/test_model.cpp and
tests/wasm/model.test.mjs check the core against them.

  /usr/bin/python3 model/make_golden.py

Format (text, one item per line):
  model <bytes> <fnv1a64 of the model file, hex>      the file the cases were made from
  case <name>
  sentence <the text, to the end of the line>
  blank <position>                                      encoder only: the token replaced by [MASK], or -1
                                                        for a run on the sentence as it is
  token <text> <known|stemmed|unknown> <matched> <id>   one line per token of the sentence as written
  <name> <rows> <cols>                                  then rows·cols numbers on the next line:
      input (√d·E[ids] + PE), L<l>.H<h>.weights, L<l>.output, final_norm, rollout,
      top5_ids, top5_logits, top5_probabilities (1 × 5, most probable first; the decoder's next word
      after the last token, the encoder's guesses for the blank; never <unk> or [MASK]),
      nearest.input.ids / .similarities, nearest.L<l>.ids / .similarities (T × 5): per position, the five
      words whose embeddings are nearest by cosine to that row of the input or of layer l's output read
      through LN_f (attn::nearest_embeddings with final_norm), the position's own word, <unk> and [MASK]
      left out"""
import pathlib
import sys

import torch

sys.dont_write_bytecode = True  # no __pycache__ beside the scripts
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import tinylm  # noqa: E402

OUT = tinylm.ROOT / "tests" / "reference" / "words_decoder_cases.txt"
ENCODER_OUT = tinylm.ROOT / "tests" / "reference" / "words_encoder_cases.txt"
SENTENCES = {
    "train_station": "the train left the station on time",
    "bank_check": "he cashed a check at the bank",
    "stemmed": "the trains stopped at two stations",
    "unknown_word": "the zorblaxian engineer repaired a broken bridge",
    # Exactly the context length: 32 tokens.
    "full_context": 'financial institution that accepts deposits and channels the money into lending activities ; '
                    '" he cashed a check at the bank " ; " that bank holds the mortgage on my home',
}


def fnv1a64(data):
    h = 0xcbf29ce484222325
    for b in data:
        h = ((h ^ b) * 0x100000001b3) & 0xFFFFFFFFFFFFFFFF
    return h


def tokenize(text):
    """attn::tokenize through the attention-tokenize CLI (the project's tokenizer, not a copy)."""
    import subprocess
    tool = tinylm.ROOT / "build" / "native" / "attention-tokenize"
    if not tool.exists():
        subprocess.run(["cmake", "--build", "build/native", "--target", "attention-tokenize"], cwd=tinylm.ROOT, check=True)
    return subprocess.run([str(tool)], input=text + "\n", capture_output=True, text=True, check=True).stdout.split()


def write(lines, name, t):
    t = t.detach().reshape(1, -1) if t.dim() == 1 else t.detach()
    lines.append(f"{name} {t.shape[0]} {t.shape[1]}")
    lines.append(" ".join(f"{v:.10g}" for v in t.flatten().tolist()))


# The encoder's cases: (name, sentence, the token to blank out, or -1 for a plain run).
ENCODER_CASES = [
    ("train_station_run", SENTENCES["train_station"], -1),
    ("train_station", SENTENCES["train_station"], 4),  # the train left the [station] on time
    ("bank_check", SENTENCES["bank_check"], 6),         # he cashed a check at the [bank]
    ("stemmed", SENTENCES["stemmed"], 1),               # the [trains] stopped at two stations
    ("unknown_word", SENTENCES["unknown_word"], 3),     # the zorblaxian engineer [repaired] a broken bridge
    ("full_context", SENTENCES["full_context"], 20),    # " he cashed a check at the [bank] " ; …
]


def top5(logits, mask_id, vocab, probabilities=None):
    """The five most probable words, never <unk> (id 0) or [MASK] (the core skips them as well); their
    probabilities stay the model's own, a softmax over the whole vocabulary."""
    probabilities = torch.softmax(logits, dim=0) if probabilities is None else probabilities
    allowed = logits.clone()
    allowed[0] = float("-inf")
    if mask_id:
        allowed[mask_id] = float("-inf")
    top = torch.topk(allowed, 5)
    return top.indices, logits[top.indices], probabilities[top.indices]


def nearest(model, m, stream, ids):
    """Per row of the stream (T × d): the five words whose embeddings are nearest by cosine to LN_f(row),
    the row's own word, <unk> (0) and [MASK] skipped; ties (never seen here) to the lower id."""
    import torch
    with torch.no_grad():
        E = model.embedding.weight
        read = model.final_norm(stream)
        cosine = (read @ E.T) / (read.norm(dim=1, keepdim=True) * E.norm(dim=1)[None, :])
        cosine[:, 0] = float("-inf")
        if m["mask_id"]:
            cosine[:, m["mask_id"]] = float("-inf")
        for t, i in enumerate(ids):
            cosine[t, i] = float("-inf")
        top = torch.topk(cosine, 5, dim=1)
        return top.indices, top.values


def run_case(lines, model, m, vocab, name, sentence, blank=None):
    """One case: the tokens, every head's weights, each layer's output, LN_f, rollout and the top 5 of the
    last position (decoder) or of the blank (encoder). blank: None for the decoder, else a position or -1."""
    tokens = tokenize(sentence)
    assert 1 <= len(tokens) <= m["context"], (name, len(tokens))
    looked_up = [vocab.lookup(t) for t in tokens]
    kinds = {kind for _, kind, _ in looked_up}
    ids = [i for i, _, _ in looked_up]
    if blank is not None and blank >= 0:
        ids[blank] = m["mask_id"]
    print(f"{name}: {len(tokens)} tokens, lookups {sorted(kinds)}" +
          (f", blank at {blank} ({tokens[blank]})" if blank is not None and blank >= 0 else ""))
    x0, weights, outputs, final = tinylm.run_with_attention(model, torch.tensor([ids]))
    lines.append(f"case {name}")
    lines.append(f"sentence {sentence}")
    if blank is not None:
        lines.append(f"blank {blank}")
    for token, (i, kind, matched) in zip(tokens, looked_up):
        lines.append(f"token {token} {kind} {matched or '<unk>'} {i}")
    write(lines, "input", x0[0])
    for l, (w, out) in enumerate(zip(weights, outputs)):
        for h in range(w.shape[1]):
            write(lines, f"L{l}.H{h}.weights", w[0, h])
        write(lines, f"L{l}.output", out[0])
    write(lines, "final_norm", final[0])
    write(lines, "rollout", tinylm.rollout([w[0] for w in weights]))
    for what, stream in [("input", x0[0])] + [(f"L{l}", out[0]) for l, out in enumerate(outputs)]:
        nearest_ids, similarities = nearest(model, m, stream, ids)
        write(lines, f"nearest.{what}.ids", nearest_ids.double())
        write(lines, f"nearest.{what}.similarities", similarities)
    if blank == -1:
        return
    position = len(tokens) - 1 if blank is None else blank
    logits = final[0, position] @ model.embedding.weight.T
    ids5, logits5, probabilities5 = top5(logits, m["mask_id"], vocab)
    write(lines, "top5_ids", ids5.double())
    write(lines, "top5_logits", logits5)
    write(lines, "top5_probabilities", probabilities5)
    print("  " + ("next" if blank is None else "blank") + ": " +
          ", ".join(f"{m['vocab'][i]} {p:.3f}" for i, p in zip(ids5.tolist(), probabilities5.tolist())))
    gaps = (logits5[:-1] - logits5[1:]).min().item()
    print(f"  smallest gap between the top-5 logits: {gaps:.2e}; largest |output| "
          f"{max(o.abs().max().item() for o in outputs):.2f}")


# The shipped pieces models (data/model.bin, data/encoder.bin) run through make_pieces_fixture.run_case: the same
# format as the fixtures' cases (a piece a token, whole-word blanks by word index, guesses by brute force).
SHIPPED_SENTENCES = {
    "train_station": "the train left the station on time",
    "own": "you've seen murphy's paranoid cat, haven't you?",
    "bytes": "the café served crème brûlée",
}
SHIPPED_ENCODER_CASES = [
    ("train_station_run", SHIPPED_SENTENCES["train_station"], -1),
    ("station", SHIPPED_SENTENCES["train_station"], 4),  # the train left the [station] on time
    ("paranoid", SHIPPED_SENTENCES["own"], 3),  # several pieces hidden
    ("the", SHIPPED_SENTENCES["train_station"], 0),
    ("bytes", SHIPPED_SENTENCES["bytes"], 3),  # crème
]
SHIPPED = ((tinylm.MODEL_FILE, tinylm.ROOT / "tests" / "reference" / "model_cases.txt"),
           (tinylm.ENCODER_FILE, tinylm.ROOT / "tests" / "reference" / "encoder_cases.txt"))


def shipped_cases():
    """tests/reference/model_cases.txt and encoder_cases.txt from the shipped pieces models."""
    import make_pieces_fixture
    vocab_file = tinylm.ROOT / "data" / "pieces.vocab"
    sp = make_pieces_fixture.sentencepiece_of(vocab_file.read_text(encoding="utf-8"))
    for path, out in SHIPPED:
        data = path.read_bytes()
        m = tinylm.read_model(path)
        if "pieces_text" not in m:
            print(f"-- {path.name} is a words model: no shipped cases")
            continue
        model = tinylm.model_from_file(m, torch.float64)
        lines = [f"model {len(data)} {fnv1a64(data):016x}"]
        print(f"-- {path.name}")
        cases = [(n, s, None) for n, s in SHIPPED_SENTENCES.items()] if m["causal"] else SHIPPED_ENCODER_CASES
        for name, sentence, blank in cases:
            make_pieces_fixture.run_case(lines, model, m, vocab_file, sp, name, sentence, blank)
        out.write_text("\n".join(lines) + "\n", encoding="utf-8")
        print(f"wrote {out} ({out.stat().st_size} bytes)")


def main():
    torch.set_default_dtype(torch.float64)
    shipped_cases()
    for path, out, cases in ((tinylm.WORDS_DECODER_FILE, OUT, [(name, s, None) for name, s in SENTENCES.items()]),
                             (tinylm.WORDS_ENCODER_FILE, ENCODER_OUT, ENCODER_CASES)):
        data = path.read_bytes()
        m = tinylm.read_model(path)
        model = tinylm.model_from_file(m, torch.float64)
        vocab = tinylm.Vocabulary(m["vocab"])
        lines = [f"model {len(data)} {fnv1a64(data):016x}"]
        print(f"-- {path.name}")
        for name, sentence, blank in cases:
            run_case(lines, model, m, vocab, name, sentence, blank)
        out.write_text("\n".join(lines) + "\n")
        print(f"wrote {out} ({out.stat().st_size} bytes)")


if __name__ == "__main__":
    main()

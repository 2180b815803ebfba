#!/usr/bin/python3
"""Writes tests/reference/model_cases.txt: the committed data/model.bin run by PyTorch in float64 on fixed
sentences, from the de-quantised weights (exactly the numbers the C++ core parses), through
torch.nn.TransformerEncoderLayer. tests/core/test_model.cpp and tests/wasm/model.test.mjs check the core
against it.

  /usr/bin/python3 model/make_golden.py

Format (text, one item per line):
  model <bytes> <fnv1a64 of data/model.bin, hex>      the file the cases were made from
  case <name>
  sentence <the text, to the end of the line>
  token <text> <known|stemmed|unknown> <matched> <id>   one line per token
  <name> <rows> <cols>                                  then rows·cols numbers on the next line:
      input (√d·E[ids] + PE), L<l>.H<h>.weights, L<l>.output, final_norm, rollout,
      top5_ids, top5_logits, top5_probabilities (1 × 5, most probable first)"""
import pathlib
import sys

import torch

sys.dont_write_bytecode = True  # no __pycache__ beside the scripts
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import tinylm  # noqa: E402

OUT = tinylm.ROOT / "tests" / "reference" / "model_cases.txt"
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


def main():
    torch.set_default_dtype(torch.float64)
    data = tinylm.MODEL_FILE.read_bytes()
    m = tinylm.read_model(tinylm.MODEL_FILE)
    model = tinylm.model_from_file(m, torch.float64)
    vocab = tinylm.Vocabulary(m["vocab"])
    lines = [f"model {len(data)} {fnv1a64(data):016x}"]
    for name, sentence in SENTENCES.items():
        tokens = tokenize(sentence)
        assert 1 <= len(tokens) <= m["context"], (name, len(tokens))
        looked_up = [vocab.lookup(t) for t in tokens]
        kinds = {kind for _, kind, _ in looked_up}
        print(f"{name}: {len(tokens)} tokens, lookups {sorted(kinds)}")
        ids = torch.tensor([[i for i, _, _ in looked_up]])
        x0, weights, outputs, final = tinylm.run_with_attention(model, ids)
        lines.append(f"case {name}")
        lines.append(f"sentence {sentence}")
        for token, (i, kind, matched) in zip(tokens, looked_up):
            lines.append(f"token {token} {kind} {matched or '<unk>'} {i}")
        write(lines, "input", x0[0])
        for l, (w, out) in enumerate(zip(weights, outputs)):
            for h in range(w.shape[1]):
                write(lines, f"L{l}.H{h}.weights", w[0, h])
            write(lines, f"L{l}.output", out[0])
        write(lines, "final_norm", final[0])
        write(lines, "rollout", tinylm.rollout([w[0] for w in weights]))
        logits = final[0, -1] @ model.embedding.weight.T
        probabilities = torch.softmax(logits, dim=0)
        top = torch.topk(logits, 5)
        write(lines, "top5_ids", top.indices.double())
        write(lines, "top5_logits", top.values)
        write(lines, "top5_probabilities", probabilities[top.indices])
        print("  next:", ", ".join(f"{m['vocab'][i]} {p:.3f}" for i, p in zip(top.indices.tolist(),
                                                                            probabilities[top.indices].tolist())))
        gaps = (top.values[:-1] - top.values[1:]).min().item()
        print(f"  smallest gap between the top-5 logits: {gaps:.2e}; largest |output| "
              f"{max(o.abs().max().item() for o in outputs):.2f}")
    OUT.write_text("\n".join(lines) + "\n")
    print(f"wrote {OUT} ({OUT.stat().st_size} bytes)")


if __name__ == "__main__":
    main()

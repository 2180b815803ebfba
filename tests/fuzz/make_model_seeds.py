#!/usr/bin/env python3
# Writes the seed corpus of fuzz_model: two tiny, well-formed language-model files in the format of
# model/README.md ("ATTNLM" version 1), so the fuzzer starts from bytes the parser accepts and the
# forward pass runs, instead of spending its time on the magic. Standard library only; deterministic.
#   python3 tests/fuzz/make_model_seeds.py   (rewrites tests/fuzz/corpus/fuzz_model/seed-*)
import random
import struct
from pathlib import Path

LAYER_TENSORS = ["norm1_gamma", "norm1_beta", "W_Q", "b_Q", "W_K", "b_K", "W_V", "b_V", "W_O", "b_O",
                 "norm2_gamma", "norm2_beta", "W1", "b1", "W2", "b2"]


def model_file(words, d, heads, layers, d_ff, context, captions, seed):
    rng = random.Random(seed)
    blob = b"".join(bytes([len(w)]) + w.encode() for w in words)
    out = bytearray(b"ATTNLM") + struct.pack("<H", 1)
    out += struct.pack("<8I", len(words), d, layers, heads, d_ff, context, 7, len(blob))  # flags 7: causal, GELU, sinusoidal
    out += struct.pack("<2f", 1e-5, d ** 0.5)  # LayerNorm eps, embedding scale
    out += blob
    out += struct.pack(f"<{len(words)}f", *[0.05 * (i + 1) for i in range(len(words))])  # per-word int8 scales
    out += struct.pack(f"<{len(words) * d}b", *[rng.randint(-64, 64) for _ in range(len(words) * d)])
    shapes = {"W_Q": d * d, "W_K": d * d, "W_V": d * d, "W_O": d * d, "W1": d * d_ff, "b1": d_ff, "W2": d_ff * d}
    halves = []
    for _ in range(layers):
        for name in LAYER_TENSORS:
            n = shapes.get(name, d)
            halves += [1.0] * n if name.endswith("gamma") else [rng.randint(-32, 32) / 64 for _ in range(n)]
    halves += [1.0] * d + [0.0] * d  # the final LayerNorm
    out += struct.pack(f"<{len(halves)}e", *halves)
    out += struct.pack("<I", len(captions))
    for c in captions:
        out += struct.pack("<H", len(c.encode())) + c.encode()
    return bytes(out)


corpus = Path(__file__).resolve().parent / "corpus" / "fuzz_model"
corpus.mkdir(parents=True, exist_ok=True)
(corpus / "seed-1layer").write_bytes(model_file(["<unk>", "the", "train", "left", "station", "on", "time"],
                                               d=4, heads=2, layers=1, d_ff=8, context=6,
                                               captions=["previous word", "spread out"], seed=1))
(corpus / "seed-2layers").write_bytes(model_file(["<unk>", "a", "bank", "check", "."], d=6, heads=3, layers=2,
                                                d_ff=4, context=5, captions=[], seed=2))

#!/usr/bin/env python3
# Writes the seed corpus of fuzz_model: tiny, well-formed model files in the format of model/README.md,
# two decoders ("ATTNLM" version 1) and two encoders (version 2: a [MASK] word, no causal flag, float16
# or int8 layer matrices), so the fuzzer starts from bytes the parser accepts and the forward pass (and
# fill-the-blank) runs, instead of spending its time on the magic; and a pieces encoder (version 2, flag
# 32: a pieces vocabulary's text instead of the words, [MASK] after the pieces). Standard library only;
# deterministic.
#   python3 tests/fuzz/make_model_seeds.py   (rewrites tests/fuzz/corpus/fuzz_model/seed-*)
import random
import struct
from pathlib import Path

LAYER_TENSORS = ["norm1_gamma", "norm1_beta", "W_Q", "b_Q", "W_K", "b_K", "W_V", "b_V", "W_O", "b_O",
                 "norm2_gamma", "norm2_beta", "W1", "b1", "W2", "b2"]


MATRICES = {"W_Q", "W_K", "W_V", "W_O", "W1", "W2"}


def model_file(words, d, heads, layers, d_ff, context, captions, seed, encoder=False, int8=False, pieces=False):
    """A decoder (version 1), or with encoder=True a version-2 encoder whose last word is [MASK]; int8
    stores its layer matrices as int8 with a float32 scale per output column; pieces (with encoder): `words`
    are the normal pieces of a pieces vocabulary after <unk> and the 256 byte pieces."""
    rng = random.Random(seed)
    if pieces:
        normal = words
        words = ["<unk>"] + [f"<0x{b:02X}>" for b in range(256)] + normal
        text = "attention-pieces 1 bpe\n" + "".join(f"{w}\t{-i}\n" for i, w in enumerate(words))
    if encoder:
        words = words + ["[MASK]"]
    blob = text.encode() if pieces else b"".join(bytes([len(w)]) + w.encode() for w in words)
    if encoder:  # flags: GELU 2 | sinusoidal 4 | int8 8 | pieces 32, no causal 1; then the mask id after words_bytes
        out = bytearray(b"ATTNLM") + struct.pack("<H", 2)
        out += struct.pack("<9I", len(words), d, layers, heads, d_ff, context,
                           6 | (8 if int8 else 0) | (32 if pieces else 0), len(blob), len(words) - 1)
    else:
        out = bytearray(b"ATTNLM") + struct.pack("<H", 1)
        out += struct.pack("<8I", len(words), d, layers, heads, d_ff, context, 7, len(blob))  # flags 7: causal, GELU, sinusoidal
    out += struct.pack("<2f", 1e-5, d ** 0.5)  # LayerNorm eps, embedding scale
    out += blob
    out += struct.pack(f"<{len(words)}f", *[0.05 * (i + 1) for i in range(len(words))])  # per-word int8 scales
    out += struct.pack(f"<{len(words) * d}b", *[rng.randint(-64, 64) for _ in range(len(words) * d)])
    shapes = {"W_Q": d * d, "W_K": d * d, "W_V": d * d, "W_O": d * d, "W1": d * d_ff, "b1": d_ff, "W2": d_ff * d}
    columns = {"W1": d_ff}  # output units of each matrix (d for the others)
    for _ in range(layers):
        for name in LAYER_TENSORS:
            n = shapes.get(name, d)
            if int8 and name in MATRICES:
                cols = columns.get(name, d)
                out += struct.pack(f"<{cols}f", *[0.004 * (c + 1) for c in range(cols)])
                out += struct.pack(f"<{n}b", *[rng.randint(-127, 127) for _ in range(n)])
                continue
            halves = [1.0] * n if name.endswith("gamma") else [rng.randint(-32, 32) / 64 for _ in range(n)]
            out += struct.pack(f"<{n}e", *halves)
    out += struct.pack(f"<{2 * d}e", *([1.0] * d + [0.0] * d))  # the final LayerNorm
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
(corpus / "seed-encoder").write_bytes(model_file(["<unk>", "the", "train", "left", "station"], d=4, heads=2,
                                                layers=2, d_ff=6, context=6, captions=[], seed=3, encoder=True))
(corpus / "seed-encoder-int8").write_bytes(model_file(["<unk>", "a", "bank", "check", "."], d=6, heads=2, layers=1,
                                                     d_ff=4, context=5, captions=["next word", "itself"], seed=4,
                                                     encoder=True, int8=True))
(corpus / "seed-pieces-encoder").write_bytes(model_file(["\u2581t", "he", "\u2581the", "\u2581s", "ta", "tion", "in"],
                                                       d=4, heads=2, layers=1, d_ff=4, context=32, captions=[],
                                                       seed=5, encoder=True, pieces=True))

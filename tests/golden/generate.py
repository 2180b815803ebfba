#!/usr/bin/python3
"""Golden cases for the attention core, computed in float64 by an independent reference (PyTorch).

    /usr/bin/python3 tests/golden/generate.py            # rewrites tests/golden/golden.bin
    /usr/bin/python3 tests/golden/generate.py --check    # regenerates in memory, compares with the file

Needs Debian's python3-torch (apt-get install python3-torch); CI does not: the file is committed.
Seeded and reproducible: the same script writes the same bytes.

Compactness: the inputs are not stored. Every input value comes from a tiny counter-based generator
(a Weyl sequence through the "lowbias32" integer hash) that the C++ test (test_golden.cpp) and the node
test (golden.test.mjs) reimplement bit for bit; each value is (k - 2^23) / 2^23 · 2^e for a 24-bit k, so
it is exactly a float32 and the same number in every language. Each case stores its seed, shapes and
options, the float64 sum of its inputs (to prove the three generators agree), and the reference
results rounded once to float32.

File format (little-endian):
  "ATTNGLD1" | u32 version (1) | u32 case count | cases
  case: u8 variant | u8 score | u8 flags (1 causal, 2 bias, 4 padding) | i8 x_exp | i8 w_exp | u8 heads
        | u16 N | u16 T | u16 d_model | u16 d_k | u16 d_v | u16 d_a | f32 temperature | f32 constant
        | u32 seed | f64 input sum | u32 expected count | f32 expected[count]

Variants, their inputs in draw order, and what is expected:
  0 dot, 1 scaled_dot, 2 cosine, 3 additive   attn::attention (row convention)
      X T×d_model · 2^x_exp; W_Q d_model×d_k, W_K d_model×d_k, W_V d_model×d_v (· 2^w_exp);
      if bias: b_Q d_k, b_K d_k, b_V d_v; if additive: W1 d_a×d_k, W2 d_a×d_k, v d_a (· 2^w_exp);
      if padding: per key j, padded when next() % 4 == 0.
      expected: weights T×T, output T×d_v.
  4 parameter_free   attn::parameter_free_attention(X, constant) with the dot score
      X T×d_model, padding as above. expected: weights T×T, output T×d_model.
  5 by_columns       attn::attention_by_columns, score 0/1/2 (dot, scaled dot, cosine)
      X d_model×T; W_Q d_k×d_model, W_K d_k×d_model, W_V d_v×d_model; biases; padding as above.
      expected: weights T×T (key rows, query columns), output d_v×T.
  6 mha              torch.nn.MultiheadAttention (N = 1) against attn::split_heads + multi_head_attention
  7 mha_batched      the same with N ≥ 2 sequences and key_padding_mask, against attn::batched_attention
      E = d_model = heads·d_k = heads·d_v. X N×T×E; W_Q, W_K, W_V, W_O E×E (core layout: Q = X·W_Q);
      if bias: b_Q, b_K, b_V, b_O (E each); if padding: per sequence a length 1 + next() % T (keys at
      and after it are padding). Temperature 1 (torch has none).
      torch layout, mapped: in_proj_weight = [W_Qᵀ; W_Kᵀ; W_Vᵀ], in_proj_bias = [b_Q; b_K; b_V],
      out_proj.weight = W_Oᵀ, out_proj.bias = b_O; head h uses columns [h·d_k, (h+1)·d_k) of W_Q/W_K/W_V
      and rows of W_O, exactly what split_heads takes; the core gets b_Q[h·d_k, (h+1)·d_k) per head.
      expected: for each sequence n: weights T×T of each head (average_attn_weights=False), then
      output T×E.

The reference's conventions: a query whose keys are all masked gets all-zero weights (torch gives NaN
there; single-head variants apply the rule, the multi-head ones never have such a row since key 0 is
never padding); scaled dot divides by the exact √d_k; a zero vector's cosine with anything is 0.
"""
import argparse
import math
import struct
import sys
from pathlib import Path

import torch

torch.set_grad_enabled(False)
DT = torch.float64
M32 = 0xFFFFFFFF
MAGIC = b"ATTNGLD1"
VERSION = 1
CASES_PER_VARIANT = 1000
VARIANTS = ["dot", "scaled_dot", "cosine", "additive", "parameter_free", "by_columns", "mha", "mha_batched"]
OUT = Path(__file__).with_name("golden.bin")
HEADER = struct.Struct("<BBBbbBHHHHHHffIdI")


class Rng:
    """Weyl sequence + lowbias32: the generator every test reimplements."""

    def __init__(self, seed):
        self.state = seed & M32
        self.total = 0.0  # float64 sum of every value drawn with value(), in order

    def next(self):
        self.state = (self.state + 0x9E3779B9) & M32
        x = self.state
        x ^= x >> 16
        x = (x * 0x7FEB352D) & M32
        x ^= x >> 15
        x = (x * 0x846CA68B) & M32
        x ^= x >> 16
        return x

    def value(self, exp):
        v = math.ldexp((self.next() >> 8) - 8388608, exp - 23)  # exactly a float32
        self.total += v
        return v

    def matrix(self, rows, cols, exp):
        return torch.tensor([self.value(exp) for _ in range(rows * cols)], dtype=DT).reshape(rows, cols)

    def vector(self, n, exp):
        return torch.tensor([self.value(exp) for _ in range(n)], dtype=DT)


def f32(x):
    return struct.unpack("<f", struct.pack("<f", x))[0]


def w_exp_for(d_in):
    """Weights ~ U(-1, 1) / 2^ceil(log2 √d_in): projections keep unit-ish size (Xavier-like)."""
    return -math.ceil(math.log2(math.sqrt(d_in))) if d_in > 1 else 0


def masked_softmax(scaled, masked, dim):
    """softmax along dim with masked entries at -inf; an all-masked line is all zero."""
    z = scaled.masked_fill(masked, -math.inf)
    w = torch.softmax(z, dim=dim)
    return torch.nan_to_num(w, nan=0.0)


def key_mask(rng, T, padding, causal):
    """T×T bool, query rows × key columns: True = hidden."""
    m = torch.zeros(T, T, dtype=torch.bool)
    if padding:
        pad = torch.tensor([rng.next() % 4 == 0 for _ in range(T)])
        m |= pad[None, :]
    if causal:
        m |= torch.triu(torch.ones(T, T, dtype=torch.bool), diagonal=1)
    return m


def single_head(rng, variant, score, T, d, dk, dv, da, x_exp, w_exp, bias, temperature, causal, padding):
    if variant == 5:  # column convention: tokens are columns
        X = rng.matrix(d, T, x_exp)
        Wq, Wk, Wv = rng.matrix(dk, d, w_exp), rng.matrix(dk, d, w_exp), rng.matrix(dv, d, w_exp)
        Xr, Wq, Wk, Wv = X.T, Wq.T, Wk.T, Wv.T  # the reference works in rows, then transposes back
    else:
        Xr = rng.matrix(T, d, x_exp)
        Wq, Wk, Wv = rng.matrix(d, dk, w_exp), rng.matrix(d, dk, w_exp), rng.matrix(d, dv, w_exp)
    if bias:
        bq, bk, bv = rng.vector(dk, w_exp), rng.vector(dk, w_exp), rng.vector(dv, w_exp)
    else:
        bq, bk, bv = torch.zeros(dk, dtype=DT), torch.zeros(dk, dtype=DT), torch.zeros(dv, dtype=DT)
    if score == 3:
        W1, W2, v = rng.matrix(da, dk, w_exp), rng.matrix(da, dk, w_exp), rng.vector(da, w_exp)
    mask = key_mask(rng, T, padding, causal)
    Q, K, V = Xr @ Wq + bq, Xr @ Wk + bk, Xr @ Wv + bv
    if score in (0, 1):
        S = Q @ K.T
        if score == 1:
            S = S / math.sqrt(dk)
    elif score == 2:
        qn, kn = Q.norm(dim=1, keepdim=True), K.norm(dim=1, keepdim=True)
        S = (Q / torch.where(qn > 0, qn, 1)) @ (K / torch.where(kn > 0, kn, 1)).T
    else:
        S = torch.tanh((Q @ W1.T)[:, None, :] + (K @ W2.T)[None, :, :]) @ v
    W = masked_softmax(S / temperature, mask, dim=1)
    out = W @ V
    if variant == 5:
        return [W.T, out.T]
    return [W, out]


def parameter_free(rng, T, d, x_exp, constant, temperature, causal, padding):
    X = rng.matrix(T, d, x_exp)
    mask = key_mask(rng, T, padding, causal)
    W = masked_softmax((X @ X.T) / constant / temperature, mask, dim=1)
    return [W, W @ X]


def mha(rng, N, T, heads, dk, x_exp, w_exp, bias, causal, padding):
    E = heads * dk
    X = torch.stack([rng.matrix(T, E, x_exp) for _ in range(N)])
    Wq, Wk, Wv, Wo = (rng.matrix(E, E, w_exp) for _ in range(4))
    if bias:
        bq, bk, bv, bo = (rng.vector(E, w_exp) for _ in range(4))
    lengths = [1 + rng.next() % T for _ in range(N)] if padding else [T] * N
    m = torch.nn.MultiheadAttention(E, heads, bias=bias, batch_first=True, dtype=DT)
    m.in_proj_weight.copy_(torch.cat([Wq.T, Wk.T, Wv.T]))
    m.out_proj.weight.copy_(Wo.T)
    if bias:
        m.in_proj_bias.copy_(torch.cat([bq, bk, bv]))
        m.out_proj.bias.copy_(bo)
    kpm = torch.tensor([[j >= n for j in range(T)] for n in lengths]) if padding else None
    causal_mask = torch.triu(torch.ones(T, T, dtype=torch.bool), diagonal=1) if causal else None
    out, w = m(X, X, X, key_padding_mask=kpm, attn_mask=causal_mask, need_weights=True, average_attn_weights=False)
    assert not torch.isnan(out).any() and not torch.isnan(w).any()
    result = []
    for n in range(N):
        result += [w[n, h] for h in range(heads)] + [out[n]]
    return result


def make_case(index, variant):
    seed = (index * 2654435761 + 0x5EED) & M32
    shape = Rng(seed ^ 0xA5A5A5A5)  # a separate stream picks shapes and options
    r = lambda lo, hi: lo + shape.next() % (hi - lo + 1)  # noqa: E731
    k = index % CASES_PER_VARIANT
    size = "big" if k < 8 else "medium" if k < 80 else "small"
    # The corners of the ranges are always there: T = 1, d = 1, T = 64, d = 128, 8 heads.
    if size == "big":
        T = [64, 64, 33, 48, 64, 40, 1, 64][k]
        d = [128, 64, 128, 100, 1, 77, 128, 96][k]
    elif size == "medium":
        T, d = r(1, 24), r(1, 64)
    else:
        T, d = r(1, 8), r(1, 10)
    if k == 8:
        T, d = 1, 1
    causal, bias, padding = shape.next() % 2 == 1, shape.next() % 2 == 1, shape.next() % 3 == 0
    flags = causal | bias << 1 | padding << 2
    temperature = 1.0 if shape.next() % 3 == 0 else f32(0.2 + (shape.next() % 4801) / 1000.0)
    x_exp = r(-2, 1)
    N, heads, dk, dv, da, constant = 1, 1, 0, 0, 0, 0.0
    if variant in (0, 1, 2, 3, 5):
        score = variant if variant < 4 else r(0, 2)
        cap = 32 if size == "big" else 24 if size == "medium" else 8
        dk, dv = r(1, cap), r(1, cap)
        if size == "big" and k < 2:
            dk = dv = 64
        da = r(1, 16) if score == 3 else 0
        w_exp = w_exp_for(d)
        rng = Rng(seed)
        expected = single_head(rng, variant, score, T, d, dk, dv, da, x_exp, w_exp, bias, temperature, causal, padding)
    elif variant == 4:
        score, w_exp = 0, 0
        x_exp = r(-2, 0)
        constant = f32(math.sqrt(d)) if shape.next() % 2 == 0 else f32(0.5 + (shape.next() % 8000) / 1000.0)
        rng = Rng(seed)
        expected = parameter_free(rng, T, d, x_exp, constant, temperature, causal, padding)
    else:
        score, temperature = 1, 1.0
        if size == "big":  # heads·T² weights per sequence: keep the long ones few
            heads = [8, 4, 2, 8, 1, 8, 8, 2][k]
            T = [64 if variant == 6 else 32, 32, 16, 24, 64, 20, 1, 48][k]
            dk = 16 if k in (0, 6) else max(1, d // heads)  # E = 128 with 8 heads twice
        elif size == "medium":
            heads, dk, T = r(1, 8), r(1, 16), r(1, 12)
        else:
            heads, dk, T = (8 if k % 10 == 0 else r(1, 4)), r(1, 4), min(T, 6)
        d = heads * dk  # E
        dv = dk
        N = 1 if variant == 6 else 3 if k % 5 == 0 else 2
        if size == "big":
            N = 1 if variant == 6 else 2
        w_exp = w_exp_for(d)
        rng = Rng(seed)
        expected = mha(rng, N, T, heads, dk, x_exp, w_exp, bias, causal, padding)
    flat = torch.cat([e.reshape(-1) for e in expected]).tolist()
    header = HEADER.pack(variant, score, flags, x_exp, w_exp, heads, N, T, d, dk, dv, da, temperature, constant,
                         seed, rng.total, len(flat))
    return header + struct.pack(f"<{len(flat)}f", *flat)


def generate():
    chunks = [MAGIC, struct.pack("<II", VERSION, CASES_PER_VARIANT * len(VARIANTS))]
    for v in range(len(VARIANTS)):
        for k in range(CASES_PER_VARIANT):
            chunks.append(make_case(v * CASES_PER_VARIANT + k, v))
        print(f"{VARIANTS[v]}: {CASES_PER_VARIANT} cases", file=sys.stderr)
    return b"".join(chunks)


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--check", action="store_true", help="compare with the committed file instead of writing")
    args = p.parse_args()
    torch.manual_seed(0)
    data = generate()
    if args.check:
        same = OUT.read_bytes() == data
        print("identical" if same else "DIFFERENT", f"({len(data):,} bytes)")
        sys.exit(0 if same else 1)
    OUT.write_bytes(data)
    print(f"wrote {OUT} ({len(data):,} bytes)")


if __name__ == "__main__":
    main()

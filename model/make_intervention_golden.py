#!/usr/bin/python3
"""Writes tests/reference/intervention_cases.txt: the words models (tests/reference/words_decoder.bin and words_encoder.bin)
with parts switched off (attn::Intervention), run by PyTorch in float64 from the de-quantised weights.
tests/core/test_intervention.cpp and tests/wasm/model-intervention-golden.test.mjs check the core against it.

  /usr/bin/python3 model/make_intervention_golden.py

The forward pass here is written from the equations (model/README.md, core/include/attention/model.hpp's
Intervention), with all heads of a layer as one H × T × T tensor, not after the core's loops; with nothing
switched off it is checked against torch.nn.TransformerEncoderLayer (tinylm.run_with_attention) first.

Format (text, one item per line; the matrices as in make_golden.py: "<name> <rows> <cols>", then the
numbers on the next line):
  model <decoder|encoder> <bytes> <fnv1a64 of the file, hex>   the file the cases after it were made from
  case <name>
  sentence <the text, to the end of the line>
  blank <position>                       the encoder's blank (replaced by [MASK]); -1 for the decoder
  off <heads> <mode> <layers> <positions>
      heads "1.2,1.3" (layer.head, from 0) or "-"; mode zero|mean|uniform; layers "1" or "-"; positions 0|1
  L<l>.output, L<l>.H<h>.weights (each switched head's: the weights the run used), rollout,
  top5_ids, top5_probabilities             the decoder's next word after the last token, the encoder's blank
  effects <mode>                           a head-effects case instead (attn::head_effects, nothing in `off`):
  target 1 1, base 1 2 (probability, rank), heads (layers·heads) × 5 (layer, head, probability, rank, drop)
"""
import math
import pathlib
import sys

import torch
import torch.nn.functional as F

sys.dont_write_bytecode = True  # no __pycache__ beside the scripts
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import make_golden  # noqa: E402  (the tokenizer, the writer and the file hash: shared, not copied)
import tinylm  # noqa: E402

OUT = tinylm.ROOT / "tests" / "reference" / "intervention_cases.txt"
SENTENCE = "the train left the station on time"
MODES = ("zero", "mean", "uniform")

# (name, heads [(layer, head)], mode, layers, positions_off): each mode on a head of each model, two heads
# at once, a layer, positions; the encoder's with "station" hidden.
CASES = {
    "decoder": [
        ("zero_L1H2", [(1, 2)], "zero", [], False),
        ("mean_L1H2", [(1, 2)], "mean", [], False),
        ("uniform_L0H3", [(0, 3)], "uniform", [], False),
        ("two_heads_L1H2_L1H3", [(1, 2), (1, 3)], "zero", [], False),
        ("uniform_two_layers", [(0, 1), (1, 0)], "uniform", [], False),
        ("layer_1_off", [], "zero", [1], False),
        ("positions_off", [], "zero", [], True),
        ("everything", [(0, 2), (1, 1)], "mean", [0], True),
    ],
    "encoder": [
        ("zero_L1H2", [(1, 2)], "zero", [], False),
        ("mean_L0H1", [(0, 1)], "mean", [], False),
        ("uniform_L2H0", [(2, 0)], "uniform", [], False),
        ("two_heads_L1H2_L1H3", [(1, 2), (1, 3)], "zero", [], False),
        ("layer_1_off", [], "zero", [1], False),
        ("positions_off", [], "zero", [], True),
    ],
}
ENCODER_BLANK = 4  # the train left the [station] on time


class Weights:
    """The file's de-quantised weights as float64 tensors (row convention: W is d_in × d_out)."""

    def __init__(self, m):
        t = lambda a: torch.tensor(a, dtype=torch.float64)  # noqa: E731
        self.m = m
        self.E = t(m["embedding"])
        self.layers = [{k: t(v) for k, v in layer.items()} for layer in m["layer_tensors"]]
        self.final_gamma, self.final_beta = t(m["final_gamma"]), t(m["final_beta"])
        self.H, self.d, self.eps = m["heads"], m["d_model"], float(m["eps"])
        self.causal = m["causal"]


def forward(w, ids, heads_off=(), mode="zero", layers_off=(), positions_off=False):
    """x = s·E[ids] (+ PE); per layer x = x + MHA'(LN1(x)); x = x + FFN(LN2(x)); LN_f. MHA' = the heads'
    outputs A·V side by side, the switched ones replaced, times W_O plus b_O; nothing for a layer that is
    off. Returns the per-layer outputs, the H × T × T weights each layer used, LN_f(x)."""
    T, H, d = len(ids), w.H, w.d
    dk = d // H
    x = w.m["embedding_scale"] * w.E[ids]
    if not positions_off:
        x = x + tinylm.sinusoidal_positions(T, d)
    allowed = torch.tril(torch.ones(T, T, dtype=torch.bool)) if w.causal else torch.ones(T, T, dtype=torch.bool)
    outputs, used = [], []
    for l, p in enumerate(w.layers):
        h = F.layer_norm(x, (d,), p["norm1_gamma"], p["norm1_beta"], w.eps)
        q, k, v = ((h @ p[f"W_{r}"] + p[f"b_{r}"]).reshape(T, H, dk).transpose(0, 1) for r in "QKV")  # H × T × dk
        scores = (q @ k.transpose(1, 2)) / math.sqrt(dk)  # H × T × T
        A = torch.softmax(scores.masked_fill(~allowed, float("-inf")), dim=-1)
        heads_out = A @ v  # H × T × dk
        for hl, hh in heads_off:
            if hl != l:
                continue
            if mode == "zero":
                heads_out[hh] = 0
            elif mode == "mean":
                heads_out[hh] = heads_out[hh].mean(dim=0, keepdim=True).expand(T, dk)
            else:  # uniform: 1/(number of keys the query may see) on each of them
                A[hh] = allowed.double() / allowed.double().sum(dim=1, keepdim=True)
                heads_out[hh] = A[hh] @ v[hh]
        mha = heads_out.transpose(0, 1).reshape(T, d) @ p["W_O"] + p["b_O"]
        if l in layers_off:
            mha = torch.zeros_like(mha)
        x = x + mha
        x = x + F.gelu(F.layer_norm(x, (d,), p["norm2_gamma"], p["norm2_beta"], w.eps) @ p["W1"] + p["b1"]) @ p["W2"] + p["b2"]
        outputs.append(x)
        used.append(A)
    return outputs, used, F.layer_norm(x, (d,), w.final_gamma, w.final_beta, w.eps)


def rollout(used, heads_off, mode, layers_off):
    """Attention rollout with the Intervention's rules: zero and mean heads left out of their layer's
    average, uniform heads in with their even weights, a layer off (or with no head left) the identity."""
    T = used[0].shape[-1]
    R = torch.eye(T, dtype=torch.float64)
    for l, A in enumerate(used):
        kept = [A[h] for h in range(A.shape[0]) if (l, h) not in heads_off or mode == "uniform"]
        if l in layers_off or not kept:
            continue  # Ã = I
        mixed = 0.5 * torch.stack(kept).mean(dim=0) + 0.5 * torch.eye(T, dtype=torch.float64)
        R = (mixed / mixed.sum(dim=1, keepdim=True)) @ R
    return R


def odds(w, final, at, target):
    """The target's probability (softmax over the whole vocabulary) and rank (1 + the words before it:
    higher logit, or equal and a lower id; <unk> and [MASK] not counted)."""
    logits = final[at] @ w.E.T
    p = torch.softmax(logits, dim=0)[target].item()
    before = (logits > logits[target]) | ((logits == logits[target]) & (torch.arange(len(logits)) < target))
    before[0] = False
    if w.m["mask_id"]:
        before[w.m["mask_id"]] = False
    return p, 1 + int(before.sum().item())


def case_ids(w, vocab, tokens):
    ids = [vocab.lookup(t)[0] for t in tokens]
    if not w.causal:
        ids[ENCODER_BLANK] = w.m["mask_id"]
    return ids


def write_case(lines, w, vocab, tokens, name, heads_off, mode, layers_off, positions_off):
    ids = case_ids(w, vocab, tokens)
    outputs, used, final = forward(w, ids, heads_off, mode, layers_off, positions_off)
    at = len(ids) - 1 if w.causal else ENCODER_BLANK
    lines.append(f"case {name}")
    lines.append(f"sentence {SENTENCE}")
    lines.append(f"blank {-1 if w.causal else ENCODER_BLANK}")
    heads = ",".join(f"{l}.{h}" for l, h in heads_off) or "-"
    layers = ",".join(str(l) for l in layers_off) or "-"
    lines.append(f"off {heads} {mode} {layers} {int(positions_off)}")
    for l, out in enumerate(outputs):
        make_golden.write(lines, f"L{l}.output", out)
    for l, h in heads_off:
        make_golden.write(lines, f"L{l}.H{h}.weights", used[l][h])
    make_golden.write(lines, "rollout", rollout(used, heads_off, mode, layers_off))
    logits = final[at] @ w.E.T
    ids5, logits5, probabilities5 = make_golden.top5(logits, w.m["mask_id"], vocab)
    make_golden.write(lines, "top5_ids", ids5.double())
    make_golden.write(lines, "top5_probabilities", probabilities5)
    gap = (logits5[:-1] - logits5[1:]).min().item()
    print(f"  {name}: " + ", ".join(f"{w.m['vocab'][i]} {p:.3f}" for i, p in zip(ids5.tolist(), probabilities5.tolist()))
          + f" (smallest top-5 logit gap {gap:.1e})")


def write_effects(lines, w, vocab, tokens, mode):
    ids = case_ids(w, vocab, tokens)
    at = len(ids) - 1 if w.causal else ENCODER_BLANK
    _, _, plain = forward(w, ids)
    target = ids[at] if not w.causal else 0
    if not w.causal:
        target = vocab.lookup(tokens[at])[0]
    if target == 0:  # the unablated model's top guess
        target = make_golden.top5(plain[at] @ w.E.T, w.m["mask_id"], vocab)[0][0].item()
    base_p, base_rank = odds(w, plain, at, target)
    rows = []
    for l in range(len(w.layers)):
        for h in range(w.H):
            p, rank = odds(w, forward(w, ids, [(l, h)], mode)[2], at, target)
            rows.append([l, h, p, rank, base_p - p])
    lines.append(f"case effects_{mode}")
    lines.append(f"sentence {SENTENCE}")
    lines.append(f"blank {-1 if w.causal else ENCODER_BLANK}")
    lines.append(f"effects {mode}")
    make_golden.write(lines, "target", torch.tensor([[float(target)]]))
    make_golden.write(lines, "base", torch.tensor([[base_p, float(base_rank)]]))
    make_golden.write(lines, "heads", torch.tensor(rows, dtype=torch.float64))
    most = max(rows, key=lambda r: r[4])
    print(f"  effects ({mode}) on '{w.m['vocab'][target]}' (p {base_p:.4f}, rank {base_rank}): largest drop "
          f"L{most[0]}H{most[1]} {most[4]:.4f} (rank {most[3]})")


def main():
    torch.set_default_dtype(torch.float64)
    tokens = make_golden.tokenize(SENTENCE)
    lines = []
    for kind, path in (("decoder", tinylm.WORDS_DECODER_FILE), ("encoder", tinylm.WORDS_ENCODER_FILE)):
        data = path.read_bytes()
        m = tinylm.read_model(path)
        w, vocab = Weights(m), tinylm.Vocabulary(m["vocab"])
        # This forward with nothing switched off is torch.nn.TransformerEncoderLayer's (to 1e-6: the file's
        # embedding scale is √d_model rounded to float32, which the core reads and this forward uses, where
        # run_with_attention takes math.sqrt(d_model)).
        ids = case_ids(w, vocab, tokens)
        x0, weights, reference, final = tinylm.run_with_attention(tinylm.model_from_file(m, torch.float64), torch.tensor([ids]))
        outputs, used, mine = forward(w, ids)
        assert all(torch.allclose(a, b[0], rtol=0, atol=1e-6) for a, b in zip(outputs, reference))
        assert all(torch.allclose(a, b[0], rtol=0, atol=1e-6) for a, b in zip(used, weights))
        assert torch.allclose(mine, final[0], rtol=0, atol=1e-6)
        assert torch.allclose(rollout(used, [], "zero", []), tinylm.rollout([a[0] for a in weights]), rtol=0, atol=1e-6)
        print(f"-- {path.name}: the forward pass agrees with nn.TransformerEncoderLayer")
        lines.append(f"model {kind} {len(data)} {make_golden.fnv1a64(data):016x}")
        for name, heads_off, mode, layers_off, positions_off in CASES[kind]:
            write_case(lines, w, vocab, tokens, name, heads_off, mode, layers_off, positions_off)
        for mode in ("zero", "mean"):
            write_effects(lines, w, vocab, tokens, mode)
    OUT.write_text("\n".join(lines) + "\n")
    print(f"wrote {OUT} ({OUT.stat().st_size} bytes)")


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Writes tests/reference/transformer_cases.txt: small transformer encoder layers run by PyTorch
(float64, Debian's python3-torch) as an independent reference for tests/core/test_transformer.cpp.

Format: for each case a line "case <name> <norm: post|pre> <activation: relu|gelu> <heads> <layers>",
then named matrices, each "<name> <rows> <cols>" followed by rows*cols numbers on one line.
Weights are written in the core's row convention (W is d_in × d_out, i.e. torch's weight transposed).
Run: /usr/bin/python3 tests/reference/make_transformer_cases.py  (seeded; same output every run)."""
import pathlib
import torch

torch.manual_seed(2024)
torch.set_default_dtype(torch.float64)
OUT = pathlib.Path(__file__).with_name("transformer_cases.txt")


def write(lines, name, tensor):
    t = tensor.detach().reshape(tensor.shape[0], -1) if tensor.dim() > 1 else tensor.detach().reshape(1, -1)
    lines.append(f"{name} {t.shape[0]} {t.shape[1]}")
    lines.append(" ".join(f"{v:.17g}" for v in t.flatten().tolist()))


def case(lines, name, norm_first, activation, heads, n_layers, T=5, d_model=8, d_ff=12):
    layers = [torch.nn.TransformerEncoderLayer(d_model, heads, d_ff, dropout=0.0, activation=activation,
                                               batch_first=True, norm_first=norm_first) for _ in range(n_layers)]
    for layer in layers:
        layer.eval()
        # Non-trivial LayerNorm parameters, so gamma/beta are really tested.
        for norm in (layer.norm1, layer.norm2):
            torch.nn.init.uniform_(norm.weight, 0.5, 1.5)
            torch.nn.init.uniform_(norm.bias, -0.5, 0.5)
        torch.nn.init.uniform_(layer.self_attn.in_proj_bias, -0.3, 0.3)
        torch.nn.init.uniform_(layer.self_attn.out_proj.bias, -0.3, 0.3)
    x = torch.randn(1, T, d_model)
    lines.append(f"case {name} {'pre' if norm_first else 'post'} {activation} {heads} {n_layers}")
    write(lines, "X", x[0])
    h = x
    for l, layer in enumerate(layers):
        a = layer.self_attn
        W = a.in_proj_weight  # (3·d_model) × d_model, rows: q, k, v
        b = a.in_proj_bias
        for i, role in enumerate("QKV"):
            write(lines, f"L{l}.W_{role}", W[i * d_model:(i + 1) * d_model].T)
            write(lines, f"L{l}.b_{role}", b[i * d_model:(i + 1) * d_model])
        write(lines, f"L{l}.W_O", a.out_proj.weight.T)
        write(lines, f"L{l}.b_O", a.out_proj.bias)
        write(lines, f"L{l}.W1", layer.linear1.weight.T)
        write(lines, f"L{l}.b1", layer.linear1.bias)
        write(lines, f"L{l}.W2", layer.linear2.weight.T)
        write(lines, f"L{l}.b2", layer.linear2.bias)
        for n, norm in (("norm1", layer.norm1), ("norm2", layer.norm2)):
            write(lines, f"L{l}.{n}_gamma", norm.weight)
            write(lines, f"L{l}.{n}_beta", norm.bias)
        # Per-head attention weights, on the input the attention sublayer sees.
        attn_in = layer.norm1(h) if norm_first else h
        _, weights = a(attn_in, attn_in, attn_in, need_weights=True, average_attn_weights=False)
        for head in range(heads):
            write(lines, f"L{l}.weights{head}", weights[0, head])
        with torch.no_grad():
            h = layer(h)
        write(lines, f"L{l}.output", h[0])


lines = []
case(lines, "post_relu_2heads", False, "relu", 2, 1)
case(lines, "pre_gelu_4heads", True, "gelu", 4, 1)
case(lines, "post_relu_stack3", False, "relu", 2, 3)
case(lines, "pre_gelu_stack2", True, "gelu", 1, 2)
OUT.write_text("\n".join(lines) + "\n")
print(f"wrote {OUT} ({OUT.stat().st_size} bytes)")

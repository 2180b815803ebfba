#!/usr/bin/python3
"""Exports the benchmark's attention as ONNX graphs for onnxruntime-web (bench/ort.mjs), with Debian's
python3-torch (apt-get install -y python3-torch). The weights are graph inputs, so the graphs hold no
numbers: bench/sdpa.onnx (q, k, v: T×64 → softmax(q·kᵀ/8)·v) and bench/mha.onnx (x: T×512 and
wq, wk, wv, wo: 512×512 → 8-head attention, concat·wo). T is a dynamic axis.

    /usr/bin/python3 bench/export_onnx.py
"""
import math
import os

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
D, D_MODEL, HEADS = 64, 512, 8


class Sdpa(torch.nn.Module):
    def forward(self, q, k, v):
        return torch.softmax(q @ k.transpose(0, 1) / math.sqrt(D), dim=-1) @ v


class MultiHead(torch.nn.Module):
    def forward(self, x, wq, wk, wv, wo):
        t = x.shape[0]
        dk = D_MODEL // HEADS

        def heads(m):  # T × d_model → HEADS × T × dk
            return m.reshape(t, HEADS, dk).transpose(0, 1)

        q, k, v = heads(x @ wq), heads(x @ wk), heads(x @ wv)
        weights = torch.softmax(q @ k.transpose(1, 2) / math.sqrt(dk), dim=-1)
        concat = (weights @ v).transpose(0, 1).reshape(t, D_MODEL)
        return concat @ wo


def main():
    T = 64
    torch.onnx.export(Sdpa(), (torch.randn(T, D), torch.randn(T, D), torch.randn(T, D)),
                      os.path.join(HERE, "sdpa.onnx"), input_names=["q", "k", "v"], output_names=["out"],
                      dynamic_axes={"q": {0: "T"}, "k": {0: "T"}, "v": {0: "T"}, "out": {0: "T"}}, opset_version=14)
    w = [torch.randn(D_MODEL, D_MODEL) for _ in range(4)]
    torch.onnx.export(MultiHead(), (torch.randn(T, D_MODEL), *w), os.path.join(HERE, "mha.onnx"),
                      input_names=["x", "wq", "wk", "wv", "wo"], output_names=["out"],
                      dynamic_axes={"x": {0: "T"}, "out": {0: "T"}}, opset_version=14)
    print("wrote bench/sdpa.onnx and bench/mha.onnx")


if __name__ == "__main__":
    main()

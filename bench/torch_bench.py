#!/usr/bin/python3
"""The same attention in PyTorch on the CPU, one thread: the native peer. Debian's python3-torch
(apt-get install -y python3-torch). Inputs from the same LCG as the other implementations.

    /usr/bin/python3 bench/torch_bench.py [--smoke] [--T N]      (one JSON object on stdout)
"""
import argparse
import json
import math
import statistics
import sys
import time

import numpy as np
import torch

D, D_MODEL, HEADS = 64, 512, 8
SDPA_T = [16, 64, 128, 256, 512, 1024, 4096]
MHA_T = [64, 512]


def lcg(seed):
    state = [seed & 0xFFFFFFFF]

    def take(n, scale):
        # The recurrence vectorised in chunks would change nothing; a plain loop over numpy uint64 is clear.
        out = np.empty(n, dtype=np.float32)
        s = state[0]
        for i in range(n):
            s = (s * 1664525 + 1013904223) & 0xFFFFFFFF
            out[i] = np.float32((s >> 8) / 16777216.0 * 2.0 - 1.0)
        state[0] = s
        return torch.from_numpy(out * np.float32(scale))

    return take


def sdpa(q, k, v):
    return torch.softmax(q @ k.T / math.sqrt(D), dim=-1) @ v


def mha(x, wq, wk, wv, wo):
    t, dk = x.shape[0], D_MODEL // HEADS

    def heads(m):
        return m.reshape(t, HEADS, dk).transpose(0, 1)

    q, k, v = heads(x @ wq), heads(x @ wk), heads(x @ wv)
    w = torch.softmax(q @ k.transpose(1, 2) / math.sqrt(dk), dim=-1)
    return (w @ v).transpose(0, 1).reshape(t, D_MODEL) @ wo


def timed(args, kind, T, flops, body, results):
    if args.T and args.T != T:
        return
    with torch.inference_mode():
        # Warm-up (and the output): up to 3 runs or 0.2 s; the last one estimates the repetitions.
        spent, first = 0.0, 0.0
        for _ in range(3):
            t0 = time.perf_counter()
            out = body()
            first = (time.perf_counter() - t0) * 1000
            spent += first
            if spent >= 200:
                break
        reps = args.reps or max(5, min(41, int(400 / max(first, 1e-3))))
        if not args.reps and first > 2000:
            reps = 3
        times = []
        for _ in range(reps):
            a = time.perf_counter()
            body()
            times.append((time.perf_counter() - a) * 1000)
    median = statistics.median(times)
    flat = out.reshape(-1)
    results.append({"kind": kind, "variant": "torch", "T": T, "median_ms": median, "min_ms": min(times), "reps": reps,
                    "flops": flops, "checksum": float(flat.double().sum()), "head": [float(x) for x in flat[:8]]})
    print(f"  torch      {kind:5} torch        T={T:<5} {median:10.3f} ms  {flops / median / 1e6:7.2f} GFLOP/s  ({reps} reps)",
          file=sys.stderr)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--smoke", action="store_true")
    p.add_argument("--T", type=int, default=0)
    p.add_argument("--reps", type=int, default=0)
    args = p.parse_args()
    if args.smoke and not args.reps:
        args.reps = 2
    torch.set_num_threads(1)
    results = []
    for T in [64] if args.smoke else SDPA_T:
        g = lcg(42 + T)
        q, k, v = g(T * D, 2.0).reshape(T, D), g(T * D, 2.0).reshape(T, D), g(T * D, 1.0).reshape(T, D)
        timed(args, "sdpa", T, 4 * T * T * D, lambda: sdpa(q, k, v), results)
    for T in [64] if args.smoke else MHA_T:
        g = lcg(7 + T)
        x = g(T * D_MODEL, 1.0).reshape(T, D_MODEL)
        w = [g(D_MODEL * D_MODEL, 0.08).reshape(D_MODEL, D_MODEL) for _ in range(4)]
        timed(args, "mha", T, 8 * T * D_MODEL * D_MODEL + 4 * T * T * D_MODEL, lambda: mha(x, *w), results)
    print(json.dumps({"label": "torch", "version": torch.__version__, "threads": torch.get_num_threads(),
                      "results": results}))


if __name__ == "__main__":
    main()

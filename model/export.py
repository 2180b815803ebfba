#!/usr/bin/python3
"""Writes data/model.bin from model/train.py's checkpoint: the embedding as int8 with a float32 scale per
row, everything else as float16 (format in model/README.md), no head captions yet (model/head_stats.py
adds them). Then reads the file back and reports the validation loss of the de-quantised model, the
weights the C++ core and the golden cases use.

  /usr/bin/python3 model/export.py [--checkpoint build/model/checkpoint.pt] [--out data/model.bin]"""
import argparse
import math
import pathlib
import sys

import torch

sys.dont_write_bytecode = True  # no __pycache__ beside the scripts
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import tinylm  # noqa: E402
import train  # noqa: E402

MAX_BYTES = 1_000_000


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--checkpoint", default=str(tinylm.ROOT / "build" / "model" / "checkpoint.pt"))
    parser.add_argument("--out", default=str(tinylm.WORDS_DECODER_FILE))
    args = parser.parse_args()
    torch.set_num_threads(2)

    checkpoint = torch.load(args.checkpoint)
    hyper, vocab = checkpoint["hyper"], checkpoint["vocab"]
    model = tinylm.make_model(len(vocab), hyper["d_model"], hyper["heads"], hyper["d_ff"], hyper["layers"],
                              hyper["context"], 0.0)
    model.load_state_dict(checkpoint["state_dict"])
    model.eval()

    emb_scale, emb_q = tinylm.quantise_rows(model.embedding.weight.detach())
    size = tinylm.write_model(args.out, {
        "vocab": vocab, "d_model": hyper["d_model"], "layers": hyper["layers"], "heads": hyper["heads"],
        "d_ff": hyper["d_ff"], "context": hyper["context"], "eps": model.final_norm.eps,
        "embedding_scale": math.sqrt(hyper["d_model"]),
        "emb_scale": emb_scale.numpy(), "emb_q": emb_q.numpy(),
        "layer_tensors": [{k: v.numpy() for k, v in tinylm.torch_layer_tensors(layer).items()} for layer in model.layers],
        "final_gamma": model.final_norm.weight.detach().numpy(), "final_beta": model.final_norm.bias.detach().numpy(),
        "captions": []})
    print(f"wrote {args.out}: {size} bytes")
    if size > MAX_BYTES:
        raise SystemExit(f"{args.out} is {size} bytes, over the {MAX_BYTES}-byte budget")

    # The file as the core sees it, against the float32 checkpoint, on the validation lines.
    m = tinylm.read_model(args.out)
    assert m["vocab"] == vocab
    dequantised = tinylm.model_from_file(m, torch.float32)
    config = checkpoint.get("config")
    if config and config["vocab"] == "pieces":  # a pieces decoder: its own held-out lines and score per word
        data = train.Data(train.GPTConfig(**config), print)
        held, words_per_target, unigram = train.decoder_held_out(train.GPTConfig(**config), data)
        for name, net in (("float32 checkpoint", model), (f"{args.out} (de-quantised)", dequantised)):
            r, n, _ = train.decoder_evaluate(net, held, unigram, words_per_target)
            print(f"{name}: held-out {r['model']:.4f} nats/piece (perplexity {math.exp(r['model']):.1f}), per word "
                  f"{r['model_per_word']:.4f} (perplexity {math.exp(r['model_per_word']):.1f}); unigram "
                  f"{r['unigram']:.4f} nats/piece; {n} targets")
        return
    lines = tinylm.read_corpus()
    train_lines, validation_lines = tinylm.split_corpus(lines)
    v = tinylm.Vocabulary(vocab)
    validation = train.word_id_sequences(validation_lines, v, hyper["context"])
    ids = torch.cat(train.word_id_sequences(train_lines, v, hyper["context"]))
    counts = torch.bincount(ids, minlength=len(v)).double() + 1
    unigram = (counts / counts.sum()).log()
    for name, net in (("float32 checkpoint", model), (f"{args.out} (de-quantised)", dequantised)):
        r, n, _ = train.decoder_evaluate(net, validation, unigram, 1.0)
        print(f"{name}: validation {r['model']:.4f} nats/token (perplexity {math.exp(r['model']):.1f}); "
              f"unigram {r['unigram']:.4f} ({math.exp(r['unigram']):.1f}); without <unk> targets "
              f"{r['model_known']:.4f} vs {r['unigram_known']:.4f}; {n} targets")


if __name__ == "__main__":
    main()

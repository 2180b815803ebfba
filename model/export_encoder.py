#!/usr/bin/python3
"""Writes data/encoder.bin from model/train_encoder.py's checkpoint (format: model/README.md, "ATTNLM"
version 2): the embedding as int8 with a float32 scale per row; the layers' matrices as float16 when
that fits the 1 MB budget, otherwise as int8 with a float32 scale per output unit; no head captions yet
(model/head_stats.py --model data/encoder.bin adds them). Then reads the file back and reports the held-out masked-word
accuracy of the de-quantised model, the weights the C++ core and the golden cases use, beside the
float32 checkpoint's.

  /usr/bin/python3 model/export_encoder.py [--checkpoint build/model/encoder.pt] [--out data/encoder.bin]
                                           [--int8 auto|yes|no]"""
import argparse
import math
import pathlib
import sys

import torch

sys.dont_write_bytecode = True  # no __pycache__ beside the scripts
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import tinylm  # noqa: E402
import train  # noqa: E402  (the one training script: its encoder's data and held-out score)

MAX_BYTES = 1_000_000


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--checkpoint", default=str(tinylm.ROOT / "build" / "model" / "encoder.pt"))
    parser.add_argument("--out", default=str(tinylm.WORDS_ENCODER_FILE))
    parser.add_argument("--int8", choices=("auto", "yes", "no"), default="auto",
                        help="int8 layer matrices: auto = only when float16 would not fit 1 MB")
    args = parser.parse_args()
    torch.set_num_threads(2)

    checkpoint = torch.load(args.checkpoint)
    shape, vocab, context = checkpoint["shape"], checkpoint["vocab"], checkpoint["context"]
    model = tinylm.make_model(len(vocab), shape["d_model"], shape["heads"], shape["d_ff"], shape["layers"], context,
                              0.0, causal=False)
    model.load_state_dict(checkpoint["state_dict"])
    model.eval()
    mask_id = vocab.index(tinylm.MASK)

    emb_scale, emb_q = tinylm.quantise_rows(model.embedding.weight.detach())
    contents = {
        "vocab": vocab, "d_model": shape["d_model"], "layers": shape["layers"], "heads": shape["heads"],
        "d_ff": shape["d_ff"], "context": context, "eps": model.final_norm.eps,
        "embedding_scale": math.sqrt(shape["d_model"]), "causal": False, "mask_id": mask_id,
        "emb_scale": emb_scale.numpy(), "emb_q": emb_q.numpy(),
        "layer_tensors": [{k: v.numpy() for k, v in tinylm.torch_layer_tensors(layer).items()} for layer in model.layers],
        "final_gamma": model.final_norm.weight.detach().numpy(), "final_beta": model.final_norm.bias.detach().numpy(),
        "captions": []}
    size = tinylm.write_model(args.out, {**contents, "int8": args.int8 == "yes"})
    if args.int8 == "auto" and size > MAX_BYTES:
        print(f"float16 layers: {size} bytes, over the budget; storing the layers' matrices as int8")
        size = tinylm.write_model(args.out, {**contents, "int8": True})
    m = tinylm.read_model(args.out)
    print(f"wrote {args.out}: {size} bytes ({'int8' if m['int8'] else 'float16'} layer matrices)")
    if size > MAX_BYTES:
        raise SystemExit(f"{args.out} is {size} bytes, over the {MAX_BYTES}-byte budget")

    # The file as the core sees it, against the float32 checkpoint, on the held-out fill-the-blank cases.
    assert m["vocab"] == vocab and m["mask_id"] == mask_id
    dequantised = tinylm.model_from_file(m, torch.float32)
    config = checkpoint.get("config")
    if config and config["vocab"] == "pieces":  # a pieces encoder: its own held-out lines, whole words hidden
        data = train.Data(train.GPTConfig(**config), print)
        cases = train.encoder_held_out(train.GPTConfig(**config), data)
        base = train.unigram_baseline(data.train_ids, cases, len(vocab), mask_id)
        print(f"unigram baseline (per hidden piece): top-1 {100 * base['top1']:.2f}% top-5 {100 * base['top5']:.2f}%")
        for name, net in (("float32 checkpoint", model), (f"{args.out} (de-quantised)", dequantised)):
            r = train.encoder_evaluate(net, cases, mask_id)
            print(f"{name}: held-out whole-word top-1 {100 * r['top1']:.2f}% top-5 per hidden piece "
                  f"{100 * r['top5']:.2f}% cross-entropy {r['nll']:.4f} ({r['cases']} cases)")
        return
    train_lines, validation_lines = tinylm.split_corpus(tinylm.read_corpus())
    v = tinylm.Vocabulary(vocab)
    context = checkpoint["context"]
    cases = train.held_out_cases(train.word_chunks(validation_lines, v, context), mask_id)
    train_ids = torch.tensor([i for piece, _ in train.word_chunks(train_lines, v, context) for i in piece])
    base = train.unigram_baseline(train_ids, cases, len(vocab), mask_id)
    print(f"unigram baseline: top-1 {100 * base['top1']:.2f}% top-5 {100 * base['top5']:.2f}% "
          f"({', '.join(vocab[i] for i in base['words'])})")
    for name, net in (("float32 checkpoint", model), (f"{args.out} (de-quantised)", dequantised)):
        r = train.encoder_evaluate(net, cases, mask_id)
        print(f"{name}: held-out masked word top-1 {100 * r['top1']:.2f}% top-5 {100 * r['top5']:.2f}% "
              f"cross-entropy {r['nll']:.4f} ({r['cases']} cases)")


if __name__ == "__main__":
    main()

#!/usr/bin/python3
"""Writes a pieces model file (model/README.md, "ATTNLM" version 2 with flag 32: data/pieces.vocab's text as
the vocabulary) from a model/train.py --vocab pieces checkpoint, decoder or encoder as the checkpoint says:
the embedding as int8 with a float32 scale per row, the layers' matrices float16 (--int8 yes: int8 with a
float32 scale per output unit), no captions. Then reads the file back and checks that it round-trips.

  /usr/bin/python3 model/export_pieces.py --checkpoint build/smoke/encoder.pt --out build/pieces/encoder.bin"""
import argparse
import math
import pathlib
import sys

import torch

sys.dont_write_bytecode = True  # no __pycache__ beside the scripts
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import tinylm  # noqa: E402


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--checkpoint", required=True)
    parser.add_argument("--out", required=True)
    parser.add_argument("--vocabulary", default=str(tinylm.ROOT / "data" / "pieces.vocab"))
    parser.add_argument("--int8", choices=("yes", "no"), default="no")
    args = parser.parse_args()

    checkpoint = torch.load(args.checkpoint)
    config, shape, vocab, context = checkpoint["config"], checkpoint["shape"], checkpoint["vocab"], checkpoint["context"]
    assert config["vocab"] == "pieces", f"{args.checkpoint} is a {config['vocab']} model"
    causal = config["kind"] == "decoder"
    text = pathlib.Path(args.vocabulary).read_text(encoding="utf-8")
    pieces = tinylm.pieces_in_text(text)
    assert vocab == pieces + ([] if causal else [tinylm.MASK]), "the checkpoint was trained on another vocabulary"
    model = tinylm.make_model(len(vocab), shape["d_model"], shape["heads"], shape["d_ff"], shape["layers"], context,
                              0.0, causal=causal)
    model.load_state_dict(checkpoint["state_dict"])
    model.eval()
    emb_scale, emb_q = tinylm.quantise_rows(model.embedding.weight.detach())
    contents = {
        "vocab": vocab, "pieces_text": text, "d_model": shape["d_model"], "layers": shape["layers"],
        "heads": shape["heads"], "d_ff": shape["d_ff"], "context": context, "eps": model.final_norm.eps,
        "embedding_scale": math.sqrt(shape["d_model"]), "causal": causal, "mask_id": 0 if causal else len(pieces),
        "emb_scale": emb_scale.numpy(), "emb_q": emb_q.numpy(),
        "layer_tensors": [{k: v.numpy() for k, v in tinylm.torch_layer_tensors(layer).items()} for layer in model.layers],
        "final_gamma": model.final_norm.weight.detach().numpy(), "final_beta": model.final_norm.bias.detach().numpy(),
        "captions": [], "int8": args.int8 == "yes"}
    pathlib.Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    size = tinylm.write_model(args.out, contents)
    m = tinylm.read_model(args.out)
    assert m["vocab"] == vocab and m["pieces_text"] == text and m["causal"] == causal
    print(f"wrote {args.out}: {size} bytes, {config['kind']}, V = {len(vocab)}, "
          f"{'int8' if m['int8'] else 'float16'} layer matrices")


if __name__ == "__main__":
    main()

#!/usr/bin/python3
"""The encoder's training command, kept so model/README.md's commands still work: it is
`model/train.py --kind encoder` (one config, one training loop for both models; see model/train.py).

  OMP_WAIT_POLICY=PASSIVE sh model/openblas.sh /usr/bin/python3 model/train_encoder.py --shape 3x4x80x256 \
      --epochs 8 --eval-every 500 --stop-after-minutes 30     # the committed run (model/README.md)"""
import pathlib
import sys

sys.dont_write_bytecode = True  # no __pycache__ beside the scripts
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import train  # noqa: E402

if __name__ == "__main__":
    train.train(train.parse_config(["--kind", "encoder"] + sys.argv[1:]))

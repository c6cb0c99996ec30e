"""Exports the feature part of a shipped card index model: its last hidden
layer (32 maps of 9×5, after the ReLU), flattened, as an ONNX model of its
own that OpenCV 4.6 reads. Enrolment compares crops by these features
(classify.Embedder): the network learned them on many card designs, and
two crops of one card lie close in them where the pixels differ in light,
blur and a millimetre of shift.

    /usr/bin/python3 models/cardindex/features.py --arch v1 \\
        models/cardindex/cardindex.onnx models/cardindex/cardindex-features.onnx

It writes the .json beside it: the source model and its SHA-256, the
input normalisation (the source's), the output's name and size, and the
features file's own SHA-256. Needs Debian's python3-torch and python3-onnx
(scripts/setup-training)."""

import argparse
import hashlib
import json
import os

import torch
from torch import nn

from train import COLS, ROWS, Net, load_onnx


def sha256(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("model", help="a model train.py exported (its .json beside it)")
    ap.add_argument("out", help="the features model to write (.onnx; the .json goes beside it)")
    ap.add_argument("--arch", choices=["v1", "v2", "v3", "v4"], default="v1")
    a = ap.parse_args()
    meta = json.load(open(os.path.splitext(a.model)[0] + ".json"))
    net = Net(len(meta["classes"]), a.arch)
    # Exported weights fold each BatchNorm into its convolution; in eval
    # mode load_onnx's rebuilt BatchNorms give W·x + b again whatever the
    # sample, so any input of the right shape serves.
    load_onnx(net, a.model, torch.randint(0, 256, (64, ROWS, COLS, 3), dtype=torch.uint8))
    feat = nn.Sequential(net.features, nn.Flatten())
    feat.eval()
    torch.onnx.export(feat, torch.zeros(1, 3, ROWS, COLS), a.out, opset_version=11,
                      input_names=["crops"], output_names=["features"],
                      dynamic_axes={"crops": {0: "n"}, "features": {0: "n"}},
                      do_constant_folding=True)
    with torch.no_grad():
        size = feat(torch.zeros(1, 3, ROWS, COLS)).shape[1]
    out = {
        "format": "bjmonitor-cardfeatures/1",
        "model": os.path.basename(a.out),
        "sha256": sha256(a.out),
        "source": os.path.basename(a.model),
        "source_sha256": sha256(a.model),
        "input": {**meta["input"], "output": "features"},
        "size": int(size),
    }
    with open(os.path.splitext(a.out)[0] + ".json", "w") as f:
        json.dump(out, f, indent=2)
        f.write("\n")
    print(f"{a.out}: {size} features from {a.model}")


if __name__ == "__main__":
    main()

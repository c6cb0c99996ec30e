#!/usr/bin/python3
"""Train the card index classifier and export it to ONNX.

Run with Debian's Python, which has torch (CPU only):

    /usr/bin/python3 models/cardindex/train.py --data .cache/cardindex --out models/cardindex

It reads the crops written by gendata (see models/README.md), trains for
about --minutes of wall time on the CPU, measures top-1 accuracy on the
held-out decks, and writes cardindex.onnx and cardindex.json to --out.

The network is kept to operations OpenCV 4.6's ONNX importer reads
(Conv, BatchNormalization, Relu, MaxPool, Flatten, Gemm): the monitor runs
it with gocv's dnn module.
"""
import argparse
import datetime
import hashlib
import json
import os
import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

ROWS, COLS = 72, 40
# Input normalisation, shared with vision/classify through cardindex.json:
# blob = (pixel - MEAN) * SCALE, BGR order as OpenCV decodes.
MEAN, SCALE = 128.0, 1.0 / 64.0


def block(i, o):
    return [nn.Conv2d(i, o, 3, padding=1, bias=False), nn.BatchNorm2d(o), nn.ReLU(inplace=True)]


class Net(nn.Module):
    """About 150k weights: three 2×2 poolings take 72×40 to 9×5, and the
    flattened 9×5 map keeps where things are (rank above suit) for the
    last layer, which a global pool would lose."""

    def __init__(self, n_classes, c=(24, 48, 64)):
        super().__init__()
        c1, c2, c3 = c
        self.features = nn.Sequential(
            *block(3, c1), nn.MaxPool2d(2),
            *block(c1, c2), *block(c2, c2), nn.MaxPool2d(2),
            *block(c2, c3), *block(c3, c3), nn.MaxPool2d(2),
            *block(c3, c3),
            nn.Conv2d(c3, 32, 1, bias=False), nn.BatchNorm2d(32), nn.ReLU(inplace=True),
        )
        self.head = nn.Sequential(nn.Flatten(), nn.Dropout(0.2), nn.Linear(32 * 9 * 5, n_classes))

    def forward(self, x):
        return self.head(self.features(x))


def load(data, split):
    x = np.fromfile(os.path.join(data, f"{split}_x.u8"), np.uint8).reshape(-1, ROWS, COLS, 3)
    y = np.fromfile(os.path.join(data, f"{split}_y.u8"), np.uint8).astype(np.int64)
    return torch.from_numpy(x), torch.from_numpy(y)


def prep(xb):
    # N×H×W×C uint8 → N×C×H×W float, normalised as OpenCV's blobFromImages does.
    return (xb.permute(0, 3, 1, 2).float() - MEAN) * SCALE


@torch.no_grad()
def predict(net, x, bs=1024):
    net.eval()
    probs = []
    for i in range(0, len(x), bs):
        probs.append(F.softmax(net(prep(x[i:i + bs])), 1))
    return torch.cat(probs)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", default=".cache/cardindex")
    ap.add_argument("--out", default="models/cardindex")
    ap.add_argument("--minutes", type=float, default=18)
    ap.add_argument("--batch", type=int, default=128)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--none-weight", type=float, default=3.0,
                    help="loss weight of the none class: a card read at a corner without an index "
                         "is worse than a doubtful read, and none is only 10%% of the crops")
    ap.add_argument("--threshold", type=float, default=0.8,
                    help="confidence below which a read counts as low confidence")
    a = ap.parse_args()
    torch.manual_seed(a.seed)
    torch.set_num_threads(os.cpu_count() or 2)
    meta = json.load(open(os.path.join(a.data, "meta.json")))
    classes = meta["classes"]
    xt, yt = load(a.data, "train")
    xv, yv = load(a.data, "val")
    vdeck = np.fromfile(os.path.join(a.data, "val_deck.u8"), np.uint8)
    vres = np.fromfile(os.path.join(a.data, "val_res.f32"), "<f4")
    print(f"train {len(xt)}, val {len(xv)} (held-out decks {meta['heldout_decks']})", flush=True)

    cw = torch.ones(len(classes))
    cw[classes.index("none")] = a.none_weight
    net = Net(len(classes))
    print("parameters:", sum(p.numel() for p in net.parameters()), flush=True)
    opt = torch.optim.AdamW(net.parameters(), lr=3e-3, weight_decay=5e-4)
    # The step count follows from the time budget: time a few steps first,
    # then run a one-cycle schedule over the steps that fit.
    budget = a.minutes * 60
    start = time.time()
    step, total, sched = 0, None, None
    g = torch.Generator().manual_seed(a.seed)
    while total is None or step < total:
        perm = torch.randperm(len(xt), generator=g)
        net.train()
        for i in range(0, len(perm) - a.batch + 1, a.batch):
            idx = perm[i:i + a.batch]
            xb, yb = prep(xt[idx]), yt[idx]
            loss = F.cross_entropy(net(xb), yb, weight=cw, label_smoothing=0.05)
            opt.zero_grad()
            loss.backward()
            opt.step()
            step += 1
            if sched:
                sched.step()
            if step == 30 and total is None:
                per = (time.time() - start) / 30
                total = max(int(budget / per), 60)
                print(f"{per * 1000:.0f} ms/step → {total} steps "
                      f"({total * a.batch / len(xt):.1f} epochs)", flush=True)
                sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=3e-3, total_steps=total - 29,
                                                            pct_start=0.15)
            if step % 200 == 0:
                print(f"step {step}/{total} loss {loss.item():.3f} {time.time() - start:.0f}s", flush=True)
            if total is not None and step >= total:
                break

    p = predict(net, xv)
    conf, pred = p.max(1)
    pred, conf = pred.numpy(), conf.numpy()
    yvn = yv.numpy()
    ok = pred == yvn
    low = conf < a.threshold
    confident_wrong = (~ok) & (~low)
    print(f"held-out top-1 {ok.mean():.4f}, low-confidence {low.mean():.4f}, "
          f"wrong among confident {confident_wrong.sum() / max(1, (~low).sum()):.4f}")
    per_deck = {}
    for k, d in enumerate(meta["heldout_decks"]):
        m = vdeck == k
        per_deck[d] = {"n": int(m.sum()), "top1": round(float(ok[m].mean()), 4),
                       "low_confidence": round(float(low[m].mean()), 4)}
        print(f"  {d:14s} n={m.sum():5d} top-1 {ok[m].mean():.4f} low-conf {low[m].mean():.4f}")
    per_res = {}
    for lo, hi in [(1.5, 2.0), (2.0, 3.0), (3.0, 5.01)]:
        m = (vres >= lo) & (vres < hi)
        per_res[f"{lo}-{hi:g}"] = round(float(ok[m].mean()), 4)
        print(f"  {lo}-{hi:g} px/mm n={m.sum():5d} top-1 {ok[m].mean():.4f}")
    per_class = {}
    for c, name in enumerate(classes):
        m = yvn == c
        if name in ("none", "back"):
            per_class[name] = round(float(ok[m].mean()), 4)
    print("  none/back:", per_class)

    os.makedirs(a.out, exist_ok=True)
    onnx_path = os.path.join(a.out, "cardindex.onnx")
    net.eval()
    torch.onnx.export(net, torch.zeros(1, 3, ROWS, COLS), onnx_path, opset_version=11,
                      input_names=["crops"], output_names=["logits"],
                      dynamic_axes={"crops": {0: "n"}, "logits": {0: "n"}},
                      do_constant_folding=True)
    # The hash lets the Go side refuse a damaged file before OpenCV sees
    # it: OpenCV's importer aborts the process on a bad model.
    sha = hashlib.sha256(open(onnx_path, "rb").read()).hexdigest()
    out = {
        "format": "bjmonitor-cardindex/1",
        "model": "cardindex.onnx",
        "sha256": sha,
        "classes": classes,
        "input": {"cols": COLS, "rows": ROWS, "channels": 3, "order": "BGR",
                  "mean": MEAN, "scale": SCALE, "output": "logits"},
        "crop": {"width_mm": meta["crop"]["width_mm"], "height_mm": meta["crop"]["height_mm"]},
        "training_decks": meta["training_decks"],
        "heldout_decks": meta["heldout_decks"],
        "created": datetime.date.today().isoformat(),
        "data": {"generator": "models/cardindex/gendata", "train": len(xt), "val": len(xv),
                 "seed": meta["seed"], "train_steps": step, "batch": a.batch,
                 "none_weight": a.none_weight},
        "accuracy": {
            "set": "gendata val split: held-out decks, full augmentation, 1.5-5 px/mm",
            "top1": round(float(ok.mean()), 4),
            "low_confidence_threshold": a.threshold,
            "low_confidence": round(float(low.mean()), 4),
            "wrong_among_confident": round(float(confident_wrong.sum() / max(1, (~low).sum())), 4),
            "per_deck": per_deck,
            "per_resolution": per_res,
            "none_back": per_class,
        },
    }
    with open(os.path.join(a.out, "cardindex.json"), "w") as f:
        json.dump(out, f, indent=2)
        f.write("\n")
    print("wrote", onnx_path, os.path.getsize(onnx_path), "bytes")


if __name__ == "__main__":
    main()

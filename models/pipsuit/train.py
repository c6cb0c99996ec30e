#!/usr/bin/python3
"""Train the pip suit reader: a small CNN that reads one pip glyph
(vision/pips.Face.Glyphs, 24x24 grey, upright) as a spade, heart, diamond
or club, exported to ONNX for OpenCV's dnn (opset 11) with its metadata.

    /usr/bin/python3 models/pipsuit/train.py \\
        --train .cache/pipsuit/gnome.bin,.cache/pipsuit/train.bin \\
        --val .cache/pipsuit/val-gnome.bin,.cache/pipsuit/val-proc.bin \\
        --out models/pipsuit/pipsuit.onnx

Each --train and --val file is written by models/pipsuit/glyphs (its deck
names in FILE.decks). The validation files are measured glyph by glyph
and card by card: a card's glyphs summed in log-probability, the suit
chosen between the two of its colour, as the monitor chooses.
"""
import argparse
import datetime
import hashlib
import json
import os

import numpy as np
import torch
import torch.nn as nn

GLYPH = 24
SUITS = ["S", "H", "D", "C"]  # cards.Suits' order
RECORD = 8 + GLYPH * GLYPH


def load(path):
    d = np.fromfile(path, dtype=np.uint8).reshape(-1, RECORD)
    x = d[:, 8:].reshape(-1, 1, GLYPH, GLYPH).astype(np.float32) / 255.0
    y = d[:, 0].astype(np.int64)
    deck = d[:, 2].astype(np.int64) + 256 * d[:, 3].astype(np.int64)
    card = d[:, 4:8].copy().view("<u4").ravel()
    with open(path + ".decks") as f:
        names = f.read().split()
    return x, y, deck, card, names


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.f = nn.Sequential(
            nn.Conv2d(1, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(16, 32, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(32, 48, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
            nn.Flatten(), nn.Linear(48 * 3 * 3, 64), nn.ReLU(), nn.Linear(64, 4))

    def forward(self, x):
        return self.f(x)


def augment(x, rng):
    """Shift up to 2 px, mirror left to right (every suit is symmetric so),
    change contrast and level, add noise."""
    n = len(x)
    out = np.empty_like(x)
    for i in range(n):
        dx, dy = rng.integers(-2, 3, 2)
        out[i, 0] = np.roll(np.roll(x[i, 0], dy, 0), dx, 1)
    gain = rng.uniform(0.7, 1.2, (n, 1, 1, 1)).astype(np.float32)
    level = rng.uniform(-0.15, 0.15, (n, 1, 1, 1)).astype(np.float32)
    out = out * gain + level + rng.normal(0, 0.04, out.shape).astype(np.float32)
    mirror = rng.random(n) < 0.5
    out[mirror] = out[mirror][:, :, :, ::-1]
    return np.clip(out, 0, 1.2)


def measure(net, path):
    x, y, deck, card, names = load(path)
    with torch.no_grad():
        lp = torch.log_softmax(net(torch.from_numpy(x)), 1).numpy()
    glyphs_right = float((lp.argmax(1) == y).mean())
    cards_n, cards_right, least = 0, 0, float("inf")
    wrong = {}
    for c in np.unique(card):
        m = card == c
        s = int(y[m][0])
        pair = (0, 3) if s in (0, 3) else (1, 2)
        total = lp[m][:, list(pair)].sum(0)
        margin = total[pair.index(s)] - total[1 - pair.index(s)]
        cards_n += 1
        if margin > 0:
            cards_right += 1
            least = min(least, float(margin))
        else:
            name = names[int(deck[m][0])]
            wrong[name] = wrong.get(name, 0) + 1
    return {"file": os.path.basename(path), "glyphs": int(len(y)), "glyphs_right": round(glyphs_right, 5),
            "cards": cards_n, "cards_right": cards_right, "least_right_margin": round(least, 1),
            "wrong_by_deck": wrong}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--train", required=True)
    ap.add_argument("--val", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--epochs", type=int, default=12)
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    torch.manual_seed(a.seed)
    rng = np.random.default_rng(a.seed)
    parts = [load(p) for p in a.train.split(",")]
    x = np.concatenate([p[0] for p in parts])
    y = np.concatenate([p[1] for p in parts])
    train_decks = sorted({n for p in parts for n in p[4]})
    net = Net()
    opt = torch.optim.Adam(net.parameters(), 1e-3)
    batch = 128
    steps = a.epochs * ((len(x) + batch - 1) // batch)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, 3e-3, total_steps=steps)
    for epoch in range(a.epochs):
        net.train()
        order = rng.permutation(len(x))
        loss_sum = 0.0
        for i in range(0, len(x), batch):
            idx = order[i:i + batch]
            xb = torch.from_numpy(augment(x[idx], rng))
            loss = nn.functional.cross_entropy(net(xb), torch.from_numpy(y[idx]))
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            loss_sum += loss.item() * len(idx)
        print(f"epoch {epoch} loss {loss_sum / len(x):.5f}", flush=True)
    net.eval()
    vals = [measure(net, p) for p in a.val.split(",")]
    for v in vals:
        print(json.dumps(v))
    val_decks = sorted({n for p in a.val.split(",") for n in load(p)[4]})
    torch.onnx.export(net, torch.zeros(1, 1, GLYPH, GLYPH), a.out, opset_version=11,
                      input_names=["glyphs"], output_names=["logits"],
                      dynamic_axes={"glyphs": {0: "n"}, "logits": {0: "n"}})
    with open(a.out, "rb") as f:
        sha = hashlib.sha256(f.read()).hexdigest()
    meta = {
        "format": "bjmonitor-pipsuit/1",
        "model": os.path.basename(a.out),
        "sha256": sha,
        "classes": SUITS,
        "input": {"cols": GLYPH, "rows": GLYPH, "channels": 1, "order": "grey",
                  "mean": 0.0, "scale": 1 / 255, "output": "logits"},
        "training_decks": train_decks,
        "heldout_decks": val_decks,
        "created": datetime.date.today().isoformat(),
        "train_glyphs": int(len(x)),
        "epochs": a.epochs,
        "seed": a.seed,
        "validation": vals,
    }
    with open(os.path.splitext(a.out)[0] + ".json", "w") as f:
        json.dump(meta, f, indent=2)
        f.write("\n")


if __name__ == "__main__":
    main()

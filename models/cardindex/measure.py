#!/usr/bin/python3
"""Measure the card index models as the monitor runs them: the fast model,
the careful model, and their cascade (classify.Cascade: the fast model
reads every crop, and where it is below --recheck-below the two models'
probabilities are averaged), on the validation split of gendata or
harvest folders, deck by deck.

    /usr/bin/python3 models/cardindex/measure.py .cache/harvest-val

A reading counts as confident from --confident (vision.Confident, the
confidence an alert trusts) and as wrong where it is not the crop's
label. Run with Debian's Python (scripts/setup-training).
"""
import argparse
import json
import os

import numpy as np

import train as T


def load_model(path, arch, n_classes, sample):
    net = T.Net(n_classes, arch)
    T.load_onnx(net, path, sample)
    return net


def figures(p, y, confident):
    pred, conf = p.argmax(1), p.max(1)
    ok = pred == y
    return ok, pred, conf, (~ok) & (conf >= confident)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("val", nargs="+", help="gendata or harvest folders with a val split")
    ap.add_argument("--fast", default="models/cardindex/cardindex-fast.onnx")
    ap.add_argument("--fast-arch", default="v2")
    ap.add_argument("--careful", default="models/cardindex/cardindex.onnx")
    ap.add_argument("--careful-arch", default="v1")
    ap.add_argument("--recheck-below", type=float, default=0.9)
    ap.add_argument("--confident", type=float, default=0.75)
    a = ap.parse_args()
    for d in a.val:
        xv, yv = T.load(d, "val")
        y = yv.numpy()
        meta = json.load(open(os.path.join(d, "meta.json")))
        classes = meta["classes"]
        decks = meta.get("val_decks", meta["heldout_decks"])
        vdeck = np.fromfile(os.path.join(d, "val_deck.u8"), np.uint8)
        fast = T.predict(load_model(a.fast, a.fast_arch, len(classes), xv[:256]), xv).numpy()
        careful = T.predict(load_model(a.careful, a.careful_arch, len(classes), xv[:256]), xv).numpy()
        cascade = fast.copy()
        unsure = fast.max(1) < a.recheck_below
        cascade[unsure] = (fast[unsure] + careful[unsure]) / 2
        print(f"{d}: {len(y)} crops; the careful model rereads {unsure.mean():.1%}")
        for name, p in [("fast", fast), ("careful", careful), ("cascade", cascade)]:
            ok, _, conf, cw = figures(p, y, a.confident)
            print(f"  {name:8s} right {ok.mean():.2%}, below {a.confident} {(conf < a.confident).mean():.2%}, "
                  f"confident and wrong {cw.sum()}")
        ok, pred, conf, cw = figures(cascade, y, a.confident)
        for k, deck in enumerate(decks):
            m = vdeck == k
            if not m.any():
                continue
            wrong = {}
            for i in np.where(m & ~ok)[0]:
                key = f"{classes[y[i]]}→{classes[pred[i]]}"
                wrong[key] = wrong.get(key, 0) + 1
            worst = ", ".join(f"{k} ×{n}" for k, n in sorted(wrong.items(), key=lambda kv: -kv[1])[:4])
            print(f"    {deck:13s} {m.sum():5d} crops, cascade right {ok[m].mean():.2%}, "
                  f"confident and wrong {cw[m].sum()}{'; ' + worst if worst else ''}")


if __name__ == "__main__":
    main()

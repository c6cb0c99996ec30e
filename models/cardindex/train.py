#!/usr/bin/python3
"""Train the card index classifier and export it to ONNX.

Run with Debian's Python, which has torch (CPU only):

    /usr/bin/python3 models/cardindex/train.py --data .cache/cardindex --out models/cardindex

It reads the crops written by gendata (see models/README.md), trains for
about --minutes of wall time on the CPU, measures top-1 accuracy on the
held-out decks, and writes cardindex.onnx and cardindex.json to --out.
--data may be given more than once: the training splits are joined, and
the held-out (val) split of each --data (or of each --val, when given) is
measured; the first one's figures go into cardindex.json.

The network is kept to operations OpenCV 4.6's ONNX importer reads
(Conv, BatchNormalization, Relu, MaxPool, Flatten, Gemm): the monitor runs
it with gocv's dnn module.
"""
import argparse
import datetime
import hashlib
import json
import math
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


def block(i, o, stride=1):
    return [nn.Conv2d(i, o, 3, stride=stride, padding=1, bias=False), nn.BatchNorm2d(o), nn.ReLU(inplace=True)]


class Net(nn.Module):
    """arch "v1" (the cascade's careful model): 214k weights, 38M multiply-adds a
    crop; three 2×2 poolings take 72×40 to 9×5.

    arch "v2" (the cascade's fast model; see models/README.md): 159k
    weights, 7.7M multiply-adds; a stride-2 first convolution and two 2×2
    poolings take 72×40 to 9×5, plain 3×3 convolutions only (what OpenCV
    4.6 runs well on the CPU).

    arch "v3" (half v2's cost; tried, not adopted: see models/README.md):
    125k weights, 3.9M multiply-adds; two stride-2 convolutions and one
    2×2 pooling take 72×40 to 9×5, with narrower layers than v2's.

    arch "v4" (v2 at full resolution in its first layer): v2's weights and
    layers, but the first convolution runs at stride 1 and a 2×2 pooling
    follows it, 8.5M multiply-adds. At 1.7 px/mm a club's three lobes lie
    one or two pixels apart, which a stride-2 convolution sees only in some
    phases; every v2 weight fits, so --init-onnx can start it from the
    shipped fast model.

    In each the flattened 9×5 map keeps where things are (rank above suit)
    for the last layer, which a global pool would lose."""

    def __init__(self, n_classes, arch="v1"):
        super().__init__()
        if arch == "v1":
            c1, c2, c3 = 24, 48, 64
            layers = [
                *block(3, c1), nn.MaxPool2d(2),
                *block(c1, c2), *block(c2, c2), nn.MaxPool2d(2),
                *block(c2, c3), *block(c3, c3), nn.MaxPool2d(2),
                *block(c3, c3),
            ]
        elif arch == "v2":
            c0, c1, c2, c3 = 16, 24, 48, 64
            layers = [
                *block(3, c0, stride=2),                    # 36×20
                *block(c0, c1), nn.MaxPool2d(2),            # 18×10
                *block(c1, c2), nn.MaxPool2d(2),            # 9×5
                *block(c2, c3), *block(c3, c3),
            ]
        elif arch == "v4":
            c0, c1, c2, c3 = 16, 24, 48, 64
            layers = [
                *block(3, c0), nn.MaxPool2d(2),             # 36×20
                *block(c0, c1), nn.MaxPool2d(2),            # 18×10
                *block(c1, c2), nn.MaxPool2d(2),            # 9×5
                *block(c2, c3), *block(c3, c3),
            ]
        elif arch == "v3":
            c0, c1, c2, c3 = 16, 24, 32, 48
            layers = [
                *block(3, c0, stride=2),                    # 36×20
                *block(c0, c1, stride=2),                   # 18×10
                *block(c1, c2), nn.MaxPool2d(2),            # 9×5
                *block(c2, c3), *block(c3, c3),
            ]
        else:
            raise ValueError(f"unknown arch {arch!r}")
        self.features = nn.Sequential(
            *layers,
            nn.Conv2d(c3, 32, 1, bias=False), nn.BatchNorm2d(32), nn.ReLU(inplace=True),
        )
        self.head = nn.Sequential(nn.Flatten(), nn.Dropout(0.2), nn.Linear(32 * 9 * 5, n_classes))

    def forward(self, x):
        return self.head(self.features(x))


def load_onnx(net, path, sample):
    """Loads the weights of an exported model (train.py's own ONNX, as the
    repository ships it) into net, an untrained Net of the same arch, so
    that a shipped model can be fine-tuned without its checkpoint.

    The export folds each BatchNorm into the convolution before it, so the
    file holds a weight W and a bias b per convolution. Each BatchNorm is
    rebuilt from the statistics of W·x over sample (a batch of training
    crops): running mean μ and variance σ², scale √(σ²+ε), shift μ + b. In
    eval mode that is exactly W·x + b again; in training mode the batch
    statistics start close to μ and σ², so the first steps do not undo
    what the model knows. Needs Debian's python3-onnx
    (scripts/setup-training)."""
    import onnx
    from onnx import numpy_helper
    m = onnx.load(path)
    init = {t.name: numpy_helper.to_array(t) for t in m.graph.initializer}
    convs = [n for n in m.graph.node if n.op_type == "Conv"]
    pairs = [(mod, bn) for mod, bn in zip(net.features, list(net.features)[1:])
             if isinstance(mod, nn.Conv2d)]
    if len(convs) != len(pairs):
        raise SystemExit(f"{path}: {len(convs)} convolutions, the --arch has {len(pairs)}")
    with torch.no_grad():
        for node, (conv, bn) in zip(convs, pairs):
            w, b = (torch.from_numpy(init[i].copy()) for i in node.input[1:3])
            if w.shape != conv.weight.shape:
                raise SystemExit(f"{path}: {node.input[1]} is {tuple(w.shape)}, the --arch wants {tuple(conv.weight.shape)}")
            conv.weight.copy_(w)
            bn.reset_running_stats()
            bn.running_var.fill_(1 - bn.eps)  # BN(y) = y + b until the statistics below are in
            bn.weight.fill_(1)
            bn.bias.copy_(b)
        gemm = next(n for n in m.graph.node if n.op_type == "Gemm")
        net.head[2].weight.copy_(torch.from_numpy(init[gemm.input[1]].copy()))
        net.head[2].bias.copy_(torch.from_numpy(init[gemm.input[2]].copy()))
        stats = {}
        hooks = [conv.register_forward_hook(
            lambda mod, inp, out, bn=bn: stats.__setitem__(bn, (out.mean((0, 2, 3)), out.var((0, 2, 3), unbiased=False))))
            for conv, bn in pairs]
        net.eval()
        net(prep(sample))
        for h in hooks:
            h.remove()
        for _, bn in pairs:
            mu, var = stats[bn]
            b = bn.bias.clone()
            bn.running_mean.copy_(mu)
            bn.running_var.copy_(var)
            bn.weight.copy_(torch.sqrt(var + bn.eps))
            bn.bias.copy_(mu + b)


def teach(path, arch, x, n_classes, seed):
    """Returns the class probabilities that the exported model at path (a
    network of arch) gives each crop of x, as float16: the soft targets of
    --teacher-onnx. The careful model knows suits the fast one confuses
    at the smallest scales (a club's three lobes against a spade's point);
    learning its whole answer, not only the label, passes on which classes
    it finds alike."""
    teacher = Net(n_classes, arch)
    sample = x[torch.randperm(len(x), generator=torch.Generator().manual_seed(seed))[:4096]]
    load_onnx(teacher, path, sample)
    start = time.time()
    p = predict(teacher, x).half()
    print(f"teacher {path}: {len(x)} crops in {time.time() - start:.0f}s", flush=True)
    return p


def load(data, split):
    x = np.fromfile(os.path.join(data, f"{split}_x.u8"), np.uint8).reshape(-1, ROWS, COLS, 3)
    y = np.fromfile(os.path.join(data, f"{split}_y.u8"), np.uint8).astype(np.int64)
    return torch.from_numpy(x), torch.from_numpy(y)


def load_train(dirs):
    xs, ys = zip(*(load(d, "train") for d in dirs))
    return torch.cat(xs), torch.cat(ys)


def evaluate(net, d, classes, threshold):
    """Measures the held-out (val) split of gendata folder d; returns the
    accuracy record for cardindex.json."""
    xv, yv = load(d, "val")
    vdeck = np.fromfile(os.path.join(d, "val_deck.u8"), np.uint8)
    vres = np.fromfile(os.path.join(d, "val_res.f32"), "<f4")
    vmeta = json.load(open(os.path.join(d, "meta.json")))
    p = predict(net, xv)
    conf, pred = p.max(1)
    pred, conf = pred.numpy(), conf.numpy()
    yvn = yv.numpy()
    ok = pred == yvn
    low = conf < threshold
    confident_wrong = (~ok) & (~low)
    print(f"val {d} ({len(xv)} crops, restyle {vmeta.get('restyle', 0)}): held-out top-1 {ok.mean():.4f}, "
          f"low-confidence {low.mean():.4f}, wrong among confident "
          f"{confident_wrong.sum() / max(1, (~low).sum()):.4f} ({confident_wrong.sum()})")
    per_deck = {}
    # val_decks (gendata -proc) adds the procedural designs of held-out
    # font families after the held-out decks.
    for k, dk in enumerate(vmeta.get("val_decks", vmeta["heldout_decks"])):
        m = vdeck == k
        per_deck[dk] = {"n": int(m.sum()), "top1": round(float(ok[m].mean()), 4),
                        "low_confidence": round(float(low[m].mean()), 4)}
        print(f"  {dk:14s} n={m.sum():5d} top-1 {ok[m].mean():.4f} low-conf {low[m].mean():.4f} "
              f"confident wrong {(confident_wrong[m]).sum()}")
    per_res = {}
    for lo, hi in [(1.5, 2.0), (2.0, 3.0), (3.0, 5.01)]:
        m = (vres >= lo) & (vres < hi)
        per_res[f"{lo}-{hi:g}"] = round(float(ok[m].mean()), 4)
        print(f"  {lo}-{hi:g} px/mm n={m.sum():5d} top-1 {ok[m].mean():.4f} low-conf {low[m].mean():.4f}")
    per_class = {}
    for c, name in enumerate(classes):
        m = yvn == c
        if name in ("none", "back"):
            per_class[name] = round(float(ok[m].mean()), 4)
    print("  none/back:", per_class, flush=True)
    return {
        "set": f"gendata val split ({d.rstrip('/').split('/')[-1]}, seed {vmeta['seed']}, "
               f"restyle {vmeta.get('restyle', 0)}): held-out decks, full augmentation, 1.5-5 px/mm",
        "top1": round(float(ok.mean()), 4),
        "low_confidence_threshold": threshold,
        "low_confidence": round(float(low.mean()), 4),
        "wrong_among_confident": round(float(confident_wrong.sum() / max(1, (~low).sum())), 4),
        "per_deck": per_deck,
        "per_resolution": per_res,
        "none_back": per_class,
        "_n": len(xv),
    }


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
    ap.add_argument("--data", action="append",
                    help="gendata output folder; repeat to join several training sets "
                         "(default .cache/cardindex)")
    ap.add_argument("--val", action="append",
                    help="gendata folders whose val split to measure (default: each --data); "
                         "the first goes into cardindex.json")
    ap.add_argument("--out", default="models/cardindex")
    ap.add_argument("--minutes", type=float, default=18,
                    help="wall time to train; 0 only measures (and exports) the --init or --init-onnx weights")
    ap.add_argument("--batch", type=int, default=128)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--none-weight", type=float, default=3.0,
                    help="loss weight of the none class: a card read at a corner without an index "
                         "is worse than a doubtful read, and none is only 10%% of the crops")
    ap.add_argument("--threshold", type=float, default=0.8,
                    help="confidence below which a read counts as low confidence")
    ap.add_argument("--smoothing", type=float, default=0.05,
                    help="label smoothing; it caps a sure read's confidence near 1 - smoothing")
    ap.add_argument("--lr", type=float, default=3e-3, help="peak learning rate of the one-cycle schedule")
    ap.add_argument("--checkpoint", help="also save the trained weights (state_dict) here")
    ap.add_argument("--init", help="start from these weights (a --checkpoint of the same --arch) "
                                   "instead of random ones")
    ap.add_argument("--init-onnx", help="start from an exported model of the same --arch "
                    "(e.g. models/cardindex/cardindex-fast.onnx), for fine-tuning a shipped model")
    ap.add_argument("--teacher-onnx", help="also learn a teacher's answers: an exported model "
                    "(e.g. the careful model, models/cardindex/cardindex.onnx), whose class "
                    "probabilities on each training crop become soft targets (knowledge distillation)")
    ap.add_argument("--teacher-arch", choices=["v1", "v2", "v3", "v4"], default="v1",
                    help="the --teacher-onnx model's network")
    ap.add_argument("--distill", type=float, default=0.5,
                    help="with --teacher-onnx, the share of the loss that is the teacher's soft "
                         "targets; the rest is the labels'")
    ap.add_argument("--arch", choices=["v1", "v2", "v3", "v4"], default="v1",
                    help="v1: the careful model's network; v2: the fast model's, 5× cheaper; "
                         "v3: half v2's cost; v4: v2 at full resolution in its first layer")
    a = ap.parse_args()
    if a.checkpoint:
        # Made now, not found missing after the run.
        os.makedirs(os.path.dirname(a.checkpoint) or ".", exist_ok=True)
    a.data = a.data or [".cache/cardindex"]
    a.val = a.val or a.data
    torch.manual_seed(a.seed)
    torch.set_num_threads(os.cpu_count() or 2)
    metas = [json.load(open(os.path.join(d, "meta.json"))) for d in a.data + a.val]
    meta = metas[0]
    classes = meta["classes"]
    for m in metas[1:]:
        if (m["classes"] != classes or m["crop"] != meta["crop"] or m["heldout_decks"] != meta["heldout_decks"]
                or m["training_decks"] != meta["training_decks"]):
            raise SystemExit("the --data and --val folders disagree on classes, crop or decks")
    xt, yt = load_train(a.data)
    print(f"train {len(xt)} from {a.data} (held-out decks {meta['heldout_decks']})", flush=True)

    cw = torch.ones(len(classes))
    cw[classes.index("none")] = a.none_weight
    net = Net(len(classes), a.arch)
    print("parameters:", sum(p.numel() for p in net.parameters()), flush=True)
    if a.init:
        net.load_state_dict(torch.load(a.init))
        print("weights from", a.init, flush=True)
    if a.init_onnx:
        sample = xt[torch.randperm(len(xt), generator=torch.Generator().manual_seed(a.seed))[:4096]]
        load_onnx(net, a.init_onnx, sample)
        print("weights from", a.init_onnx, flush=True)
    soft = None
    if a.teacher_onnx:
        soft = teach(a.teacher_onnx, a.teacher_arch, xt, len(classes), a.seed)
    opt = torch.optim.AdamW(net.parameters(), lr=a.lr, weight_decay=5e-4)
    # A one-cycle schedule over wall time rather than steps: the cores are
    # shared, so a step count fitted to the first steps' speed can overrun
    # the budget. The learning rate rises from lr/25 over the first 15% of
    # --minutes, then falls along a cosine to lr/10⁴, and training stops
    # when the time is up.
    budget = a.minutes * 60
    start = time.time()
    step, done, epoch = 0, budget <= 0, 0

    def lr_at(f):
        if f < 0.15:
            return a.lr / 25 + (a.lr - a.lr / 25) * (1 - math.cos(math.pi * f / 0.15)) / 2
        f = min(1.0, (f - 0.15) / 0.85)
        return a.lr / 1e4 + (a.lr - a.lr / 1e4) * (1 + math.cos(math.pi * f)) / 2

    g = torch.Generator().manual_seed(a.seed)
    while not done:
        perm = torch.randperm(len(xt), generator=g)
        net.train()
        for i in range(0, len(perm) - a.batch + 1, a.batch):
            f = (time.time() - start) / budget
            if f >= 1:
                done = True
                break
            for pg in opt.param_groups:
                pg["lr"] = lr_at(f)
            idx = perm[i:i + a.batch]
            xb, yb = prep(xt[idx]), yt[idx]
            out = net(xb)
            loss = F.cross_entropy(out, yb, weight=cw, label_smoothing=a.smoothing)
            if soft is not None:
                taught = -(soft[idx].float() * F.log_softmax(out, 1)).sum(1).mean()
                loss = (1 - a.distill) * loss + a.distill * taught
            opt.zero_grad()
            loss.backward()
            opt.step()
            step += 1
            if step % 200 == 0:
                el = time.time() - start
                print(f"step {step} epoch {epoch} loss {loss.item():.3f} lr {lr_at(f):.2e} {el:.0f}s "
                      f"({el / step * 1000:.0f} ms/step)", flush=True)
        epoch += 1
    print(f"trained {step} steps of {a.batch} ({step * a.batch / len(xt):.2f} epochs) in "
          f"{time.time() - start:.0f}s", flush=True)
    if a.checkpoint:
        torch.save(net.state_dict(), a.checkpoint)

    accs = [evaluate(net, d, classes, a.threshold) for d in a.val]

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
        "data": {"generator": "models/cardindex/gendata", "train": len(xt), "val": accs[0].pop("_n"),
                 "seed": meta["seed"], "train_steps": step, "batch": a.batch,
                 "none_weight": a.none_weight,
                 "restyle": meta.get("restyle", 0), "proc": meta.get("proc", 0)},
        "accuracy": accs[0],
    }
    if meta.get("training_fonts"):
        out["training_fonts"] = meta["training_fonts"]
        out["heldout_fonts"] = meta["heldout_fonts"]
    with open(os.path.join(a.out, "cardindex.json"), "w") as f:
        json.dump(out, f, indent=2)
        f.write("\n")
    print("wrote", onnx_path, os.path.getsize(onnx_path), "bytes")


if __name__ == "__main__":
    main()

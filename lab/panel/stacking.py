#!/usr/bin/python3
"""Offline experiment: ways to combine the grid points' models, on held-out rows.

    lab/panel/stacking.py KPLS PANEL SETS     (SETS: comma-separated panel set names)

PANEL is what `kpls-lab panel gen --out DIR` wrote. Needs numpy and scipy (Debian:
python3-numpy, python3-scipy). For each set and split, `kpls select --json` on the
training rows gives every grid point's choice (kernel, width, m, RMSECV). Each choice
is refitted with `kpls fit` on five folds of the training rows (seeded, a split of
our own, not select's) for its out-of-fold predictions, and on all training rows to
predict the test rows. The rules compared, each scored on the test rows against
the peer's recorded KernelRidge + GridSearchCV RMSE (lab/panel/results/...):

  best     the best grid point alone
  mean5    the equal mean of the points within 5 % of the best RMSECV
  stack    stacking weights (w >= 0, sum 1, fitted to the out-of-fold
           predictions; Breiman 1996) over every point, as a weighted sum
  stack10  the same over the points within 10 %
  caruana  Caruana et al.'s greedy ensemble selection with replacement
           (20 steps) over the points within 10 %
  support  the equal mean of the points stack10 gives weight >= 0.005
  supbest  support with the best point always in (what select does by default
           since 2026-11-26, with select's own folds)
"""
import json, os, subprocess, sys, tempfile, statistics, random, math
import numpy as np
from scipy.optimize import nnls

KPLS = sys.argv[1]
PANEL = sys.argv[2]
SETS = sys.argv[3].split(",")


# the panel's file helpers, shared with coverage.py beside this script
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from coverage import rows_of, write_rows as write, indices as idx  # noqa: E402


def run(cmd):
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        raise RuntimeError(" ".join(cmd) + ": " + p.stderr[-300:])
    return p.stdout


def fit_predict(tmp, h, rows, tr, te, c):
    a, b, m = (os.path.join(tmp, f) for f in ("a.csv", "b.csv", "m.kpls"))
    write(a, h, rows, tr)
    write(b, h, rows, te)
    cmd = [KPLS, "fit", "--data", a, "--target", "y", "--kernel", c["kernel"], "--components", str(max(c["m"], 1)),
           "--dof", "none", "--model", m, "--progress=off"]
    if c["kernel"] != "linear":
        cmd += ["--width", repr(c["width"])]
    run(cmd)
    d = json.loads(run([KPLS, "predict", "--model", m, "--data", b, "--components", str(c["m"]), "--json", "--progress=off"]))
    return np.array([p["yhat"] for p in d["predictions"]])


def stack_weights(P, y):
    # min ||P w - y|| s.t. w >= 0, sum w = 1: NNLS with a heavily weighted row of ones
    k = P.shape[1]
    big = 1e3 * math.sqrt(len(y)) * max(1.0, float(np.std(y)))
    A = np.vstack([P, big * np.ones((1, k))])
    b = np.concatenate([y, [big]])
    w, _ = nnls(A, b)
    return w / w.sum()


peer = {}
HERE = os.path.dirname(os.path.abspath(__file__))
for l in list(open(os.path.join(HERE, "results/small/peer.jsonl"))) + list(open(os.path.join(HERE, "results/peer.jsonl"))):
    r = json.loads(l)
    if r.get("method") == "krr":
        peer[(r["data"], r["split"])] = r["rmse"]

out = {}
with tempfile.TemporaryDirectory() as tmp:
    for name in SETS:
        h, rows = rows_of(os.path.join(PANEL, name + ".csv"))
        yall = np.array([float(r[h.index("y")]) for r in rows])
        sdir = os.path.join(PANEL, name + ".splits")
        k = 0
        while os.path.exists(os.path.join(sdir, f"split-{k}.train")):
            tr, te = idx(os.path.join(sdir, f"split-{k}.train")), idx(os.path.join(sdir, f"split-{k}.test"))
            trf = os.path.join(tmp, "train.csv")
            write(trf, h, rows, tr)
            sel = json.loads(run([KPLS, "select", "--data", trf, "--target", "y", "--json", "--progress=off"]))
            cs = [c for c in sel["choices"] if c["rmsecv"] is not None]
            rng = random.Random(1000 + k)
            perm = tr[:]
            rng.shuffle(perm)
            folds = [perm[f::5] for f in range(5)]
            oof = np.zeros((len(tr), len(cs)))
            pos = {r: i for i, r in enumerate(tr)}
            test = np.zeros((len(te), len(cs)))
            for j, c in enumerate(cs):
                for f in range(5):
                    fte = folds[f]
                    fs = set(fte)
                    ftr = [r for r in tr if r not in fs]
                    p = fit_predict(tmp, h, rows, ftr, fte, c)
                    for r, v in zip(fte, p):
                        oof[pos[r], j] = v
                test[:, j] = fit_predict(tmp, h, rows, tr, te, c)
            ytr, yte = yall[tr], yall[te]
            rm = lambda p: float(np.sqrt(np.mean((p - yte) ** 2)))
            best = min(range(len(cs)), key=lambda j: cs[j]["rmsecv"])
            bs = cs[best]["rmsecv"]
            within = [j for j in range(len(cs)) if cs[j]["rmsecv"] <= 1.05 * bs]
            w = stack_weights(oof, ytr)
            w10 = np.zeros(len(cs))
            near = [j for j in range(len(cs)) if cs[j]["rmsecv"] <= 1.10 * bs]
            w10[near] = stack_weights(oof[:, near], ytr)
            def caruana(P, y, steps=20):
                counts = np.zeros(P.shape[1])
                cur = np.zeros(len(y))
                for st in range(steps):
                    errs = [np.mean(((cur * st + P[:, j]) / (st + 1) - y) ** 2) for j in range(P.shape[1])]
                    j = int(np.argmin(errs))
                    counts[j] += 1
                    cur = (cur * st + P[:, j]) / (st + 1)
                return counts / counts.sum()
            wc = np.zeros(len(cs))
            wc[near] = caruana(oof[:, near], ytr)
            sup = [j for j in range(len(cs)) if w10[j] > 0.005]
            supb = sorted(set(sup) | {best})
            res = {
                "supbest": rm(test[:, supb].mean(axis=1)),
                "bestin": best in sup,
                "caruana": rm(test @ wc),
                "support": rm(test[:, sup].mean(axis=1)),
                "best": rm(test[:, best]),
                "mean5": rm(test[:, within].mean(axis=1)),
                "stack": rm(test @ w),
                "stack10": rm(test @ w10),
                "peer": peer.get((name, k)),
                "weights": {f'{cs[j]["kernel"]} {cs[j]["width"]:.3g} m={cs[j]["m"]}': round(float(w[j]), 3) for j in range(len(cs)) if w[j] > 0.005},
                "mean5_members": len(within),
            }
            print(json.dumps({"set": name, "split": k, **res}), flush=True)
            out.setdefault(name, []).append(res)
            k += 1

print()
METH = ("best", "mean5", "stack", "stack10", "caruana", "support", "supbest")
print("| data | " + " | ".join(METH) + " |")
print("|---|" + "--:|" * len(METH))
geo = {m: [] for m in METH}
for name, rs in out.items():
    cells = []
    for m in METH:
        ratios = [r[m] / r["peer"] for r in rs if r["peer"]]
        med, worst = statistics.median(ratios), max(ratios)
        geo[m].append(med)
        cells.append(f"{med:.3f} / {worst:.3f}")
    print(f"| {name} | " + " | ".join(cells) + " |")
print("| geometric mean | " + " | ".join(f"{math.exp(statistics.mean(math.log(v) for v in geo[m])):.3f}" for m in geo) + " |")

#!/usr/bin/env python3
"""Kernel PLS2 (scores shared by every response) against PLS1 per response.

Issue #23 asks whether users with several responses would gain from PLS2,
which kpls does not offer (it fits each target on its own, PLS1, sharing
only the kernel matrices). This is the measurement, on the classic case:
the Tecator meats data with its three responses (water, fat, protein;
water and fat correlate at −0.99), on the panel's five splits of meats.

Both methods run in this one harness, with the same code, kernel, grid of
widths, components and 5-fold cross-validation on the training rows, so
that only the sharing of scores differs:

- PLS1: each response on its own, its own width and m by its RMSECV;
- PLS2, one m: the responses scaled to unit variance, one set of scores
  (Rosipal and Trejo's kernel NIPALS, the kernel deflated after each
  score), the width and m minimising the sum of the responses' PRESS
  over their variances;
- PLS2, own m: the same scores, each response at its own width and m.

The fit is kernel NIPALS on the centred kernel matrix: for each
component, u from the (deflated) responses, t = K u normalised, iterated
to convergence with several responses (one pass with one), then
K ← (I − ttᵀ)K(I − ttᵀ) and Y ← Y − ttᵀY; α_m = U_m (T_mᵀ K U_m)⁻¹ T_mᵀ Y.
With one response this is the fit kpls makes. `kpls select --target
water,fat,protein` (the product, its own search) is run on the same splits
for reference.

    /usr/bin/python3 lab/panel/pls2.py --data meats3.csv --panel DIR --kpls BIN

meats3.csv is modeldata::meats written whole by R
(write.csv(modeldata::meats, "meats3.csv", row.names = FALSE)); DIR is
what `kpls-lab panel gen --out DIR` wrote (its meats.csv is the same rows
in the same order, with fat as y). Needs numpy.
"""
import argparse
import csv
import json
import os
import statistics
import subprocess
import tempfile

import numpy as np

RESPONSES = ["water", "fat", "protein"]
WIDTHS = [50 * 2.0 ** k for k in range(-3, 11)]  # d/2 = 50 times 1/8 … 1,024: 6.25 … 51,200
MMAX = 60
FOLDS = 5


def rbf(a, b, w):
    d = (a * a).sum(1)[:, None] + (b * b).sum(1)[None, :] - 2 * a @ b.T
    return np.exp(-np.maximum(d, 0) / (2 * w))


def centre_train(k):
    cm = k.mean(0)
    g = cm.mean()
    return k - cm[None, :] - cm[:, None] + g, cm, g


def centre_test(kt, cm, g):
    return kt - cm[None, :] - kt.mean(1)[:, None] + g


def nipals(kc, y, mmax):
    """Kernel NIPALS on centred kc (n×n) and centred y (n×q): T, U (n×m)."""
    n, q = y.shape
    kd, yd = kc.copy(), y.copy()
    ts, us = [], []
    for _ in range(mmax):
        u = yd[:, np.argmax((yd * yd).sum(0))].copy()
        t = None
        for _ in range(1 if q == 1 else 500):
            t_new = kd @ u
            nt = np.linalg.norm(t_new)
            if not nt > 1e-12 * np.linalg.norm(kc):
                return np.array(ts).T, np.array(us).T
            t_new /= nt
            if q > 1:
                u = yd @ (yd.T @ t_new)
                u /= np.linalg.norm(u)
            if t is not None and np.linalg.norm(t_new - t) < 1e-12:
                t = t_new
                break
            t = t_new
        if q > 1:
            u = yd @ (yd.T @ t)  # the u that gives this t
            u /= np.linalg.norm(u)
        p = np.eye(n) - np.outer(t, t)
        kd = p @ kd @ p
        yd = yd - np.outer(t, t @ yd)
        ts.append(t)
        us.append(u)
    return np.array(ts).T, np.array(us).T


def coefficients(kc, y, t, u):
    """α_m for m = 1..len(t): a list of n×q matrices."""
    out = []
    for m in range(1, t.shape[1] + 1):
        tm, um = t[:, :m], u[:, :m]
        out.append(um @ np.linalg.solve(tm.T @ kc @ um, tm.T @ y))
    return out


def fit_predict(xtr, ytr, xte, w, mmax):
    """Predictions at xte for m = 1..mmax (list of p×q), responses as given."""
    k, cm, g = centre_train(rbf(xtr, xtr, w))
    ym = ytr.mean(0)
    t, u = nipals(k, ytr - ym, mmax)
    kt = centre_test(rbf(xte, xtr, w), cm, g)
    return [kt @ a + ym for a in coefficients(k, ytr - ym, t, u)]


def folds_of(n, seed):
    idx = np.random.default_rng(seed).permutation(n)
    return [idx[f::FOLDS] for f in range(FOLDS)]


def press(x, y, w, folds):
    """PRESS per m (rows) and response (columns) by cross-validation; NaN past a fold's breakdown."""
    out = np.zeros((MMAX, y.shape[1]))
    n = len(y)
    for test in folds:
        train = np.setdiff1d(np.arange(n), test)
        preds = fit_predict(x[train], y[train], x[test], w, MMAX)
        for m in range(MMAX):
            out[m] += ((preds[m] - y[test]) ** 2).sum(0) if m < len(preds) else np.nan
    return out


def best(scores):
    """(score, width, m) of the smallest score over widths and m = 1…"""
    return min((float(np.nan_to_num(v, nan=np.inf).min()), w, int(np.nan_to_num(v, nan=np.inf).argmin()) + 1)
               for w, v in scores.items())


def standardise(xtr, xte):
    mu, sd = xtr.mean(0), xtr.std(0, ddof=1)
    sd[sd == 0] = 1
    return (xtr - mu) / sd, (xte - mu) / sd


def held_out(x, y, tr, te, seed):
    xtr, xte = standardise(x[tr], x[te])
    ytr, yte = y[tr], y[te]
    folds = folds_of(len(tr), seed)
    rmse = lambda p, r: float(np.sqrt(((p - yte[:, r]) ** 2).mean()))
    res = {}
    # PLS1: each response alone.
    for r, name in enumerate(RESPONSES):
        _, w, m = best({w: press(xtr, ytr[:, [r]], w, folds)[:, 0] for w in WIDTHS})
        res[("pls1", name)] = (rmse(fit_predict(xtr, ytr[:, [r]], xte, w, m)[m - 1][:, 0], r), w, m)
    # PLS2: scaled responses, shared scores.
    sd = ytr.std(0, ddof=1)
    ys = ytr / sd
    tables = {w: press(xtr, ys, w, folds) for w in WIDTHS}
    _, w, m = best({w: tables[w].sum(1) for w in WIDTHS})
    p = fit_predict(xtr, ys, xte, w, m)[m - 1] * sd
    for r, name in enumerate(RESPONSES):
        res[("pls2 one m", name)] = (rmse(p[:, r], r), w, m)
    for r, name in enumerate(RESPONSES):
        _, w, m = best({w: tables[w][:, r] for w in WIDTHS})
        res[("pls2 own m", name)] = (rmse(fit_predict(xtr, ys, xte, w, m)[m - 1][:, r] * sd[r], r), w, m)
    return res


def kpls_select(kpls, header, rows, tr, te, tmp):
    def write(path, idx):
        with open(path, "w", newline="") as f:
            wr = csv.writer(f)
            wr.writerow(header)
            for i in idx:
                wr.writerow(rows[i])
    train, test, model = (os.path.join(tmp, f) for f in ("train.csv", "test.csv", "m.kpls"))
    write(train, tr)
    write(test, te)
    subprocess.run([kpls, "select", "--data", train, "--target", ",".join(RESPONSES), "--model", model, "--progress=off"],
                   check=True, capture_output=True)
    doc = json.loads(subprocess.run([kpls, "predict", "--model", model, "--data", test, "--json", "--progress=off"],
                                    check=True, capture_output=True, text=True).stdout)
    return {("kpls select", t["target"]["name"]): (t["target"]["rmse"], None, None) for t in doc["targets"]}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", required=True)
    ap.add_argument("--panel", required=True)
    ap.add_argument("--kpls", required=True)
    args = ap.parse_args()
    with open(args.data, newline="") as f:
        rd = csv.reader(f)
        header = next(rd)
        rows = list(rd)
    feats = [i for i, h in enumerate(header) if h.startswith("x_")]
    x = np.array([[float(r[i]) for i in feats] for r in rows])
    y = np.array([[float(r[header.index(n)]) for n in RESPONSES] for r in rows])
    sdir = os.path.join(args.panel, "meats.splits")
    results = []
    with tempfile.TemporaryDirectory() as tmp:
        k = 0
        while os.path.exists(os.path.join(sdir, f"split-{k}.train")):
            tr = [int(v) for v in open(os.path.join(sdir, f"split-{k}.train")) if v.strip()]
            te = [int(v) for v in open(os.path.join(sdir, f"split-{k}.test")) if v.strip()]
            res = held_out(x, y, np.array(tr), np.array(te), seed=k)
            res.update(kpls_select(args.kpls, header, rows, tr, te, tmp))
            for (method, name), (e, w, m) in res.items():
                print(json.dumps({"split": k, "method": method, "response": name, "rmse": e, "width": w, "m": m}), flush=True)
            results.append(res)
            k += 1
    methods = ["pls1", "pls2 one m", "pls2 own m", "kpls select"]
    print()
    print("| response | " + " | ".join(methods) + " | PLS2 one m / PLS1 | PLS2 own m / PLS1 |")
    print("|---|" + "--:|" * (len(methods) + 2))
    for name in RESPONSES:
        med = {mt: statistics.median(r[(mt, name)][0] for r in results) for mt in methods}
        ratio = lambda mt: statistics.median(r[(mt, name)][0] / r[("pls1", name)][0] for r in results)
        print(f"| {name} | " + " | ".join(f"{med[mt]:.3f}" for mt in methods) + f" | {ratio('pls2 one m'):.3f} | {ratio('pls2 own m'):.3f} |")
    print("\nmedian RMSE over the splits; ratios are medians of the per-split ratios, which are:")
    for name in RESPONSES:
        for mt in methods[1:]:
            per = ", ".join(f"{r[(mt, name)][0] / r[('pls1', name)][0]:.2f}" for r in results)
            print(f"  {name}, {mt} / PLS1: {per}")


if __name__ == "__main__":
    main()

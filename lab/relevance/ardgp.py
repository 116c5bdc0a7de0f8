#!/usr/bin/env python3
"""The ARD Gaussian process behind `kpls-lab relevance run --ard`: per data
set and split of a panel directory (lab/panel, and the sets written by
`kpls-lab relevance gen`), scikit-learn's

    Pipeline(StandardScaler, GaussianProcessRegressor(
        ConstantKernel() * RBF(length_scale=[sqrt(d)]*d, length_scale_bounds=(1e-2, 1e3))
        + WhiteKernel(), normalize_y=True, n_restarts_optimizer=R, random_state=0))

fitted to the training rows (R = --restarts, default 0). One JSON line per
(set, split) is appended to --out: the learned length scales (one per
feature, in standardised units), the held-out RMSE of the GP itself (a peer
figure), the noise level and the log marginal likelihood. Lines already in
--out are not recomputed.

    /usr/bin/python3 lab/relevance/ardgp.py --panel DIR --sets concrete,boston --out ard.jsonl

Needs numpy and scikit-learn (Debian: apt-get install python3-sklearn).
"""

import argparse
import json
import math
import os
import sys
import warnings

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import numpy as np  # noqa: E402
from sklearn.exceptions import ConvergenceWarning  # noqa: E402
from sklearn.gaussian_process import GaussianProcessRegressor  # noqa: E402
from sklearn.gaussian_process.kernels import RBF, ConstantKernel, WhiteKernel  # noqa: E402
from sklearn.pipeline import Pipeline  # noqa: E402
from sklearn.preprocessing import StandardScaler  # noqa: E402


def read_csv(path):
    with open(path) as f:
        header = f.readline().strip().split(",")
    data = np.loadtxt(path, delimiter=",", skiprows=1, ndmin=2)
    return header, data[:, :-1], data[:, -1]


def read_idx(path):
    with open(path) as f:
        return np.array([int(s) for s in f if s.strip()], dtype=int)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--panel", required=True)
    ap.add_argument("--sets", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--restarts", type=int, default=0)
    ap.add_argument("--max-splits", type=int, default=0, help="at most this many splits per set (0: all)")
    a = ap.parse_args()
    done = set()
    if os.path.exists(a.out):
        with open(a.out) as f:
            for line in f:
                r = json.loads(line)
                done.add((r["set"], r["split"]))
    for name in a.sets.split(","):
        header, x, y = read_csv(os.path.join(a.panel, name + ".csv"))
        d = x.shape[1]
        sd = os.path.join(a.panel, name + ".splits")
        k = 0
        while os.path.exists(os.path.join(sd, f"split-{k}.train")):
            if a.max_splits and k >= a.max_splits:
                break
            if (name, k) in done:
                k += 1
                continue
            tr, te = read_idx(os.path.join(sd, f"split-{k}.train")), read_idx(os.path.join(sd, f"split-{k}.test"))
            kern = ConstantKernel() * RBF(length_scale=[math.sqrt(d)] * d, length_scale_bounds=(1e-2, 1e3)) + WhiteKernel()
            gp = Pipeline([("s", StandardScaler()), ("gp", GaussianProcessRegressor(
                kernel=kern, normalize_y=True, n_restarts_optimizer=a.restarts, random_state=0))])
            with warnings.catch_warnings(record=True) as ws:
                warnings.simplefilter("always", ConvergenceWarning)
                gp.fit(x[tr], y[tr])
            pred = gp.predict(x[te])
            rmse = float(np.sqrt(np.mean((pred - y[te]) ** 2)))
            kf = gp.named_steps["gp"].kernel_
            rec = {"set": name, "split": k, "n_train": int(len(tr)), "d": d,
                   "rmse": rmse, "length_scales": [float(v) for v in np.atleast_1d(kf.k1.k2.length_scale)],
                   "noise": float(kf.k2.noise_level), "lml": float(gp.named_steps["gp"].log_marginal_likelihood_value_),
                   "features": header[:-1],
                   "warnings": sorted({str(w.message)[:120] for w in ws})}
            with open(a.out, "a") as f:
                f.write(json.dumps(rec) + "\n")
            print(f"{name} split {k}: ARD GP RMSE {rmse:.4g}", file=sys.stderr, flush=True)
            k += 1


if __name__ == "__main__":
    main()

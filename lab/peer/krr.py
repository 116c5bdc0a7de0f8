#!/usr/bin/env python3
"""scikit-learn peer of `kpls-lab eval`: kernel ridge regression tuned by
cross-validation, and Gaussian-process regression, on the train/test splits
of the evaluation panel (lab/panel).

Run (after `go run ./lab/cmd/kpls-lab panel gen --out /tmp/kpls-panel/data`):

    python3 lab/peer/krr.py --data /tmp/kpls-panel/data/kin8nm.csv \\
        --splits /tmp/kpls-panel/data/kin8nm.splits --out peer.jsonl

Needs numpy and scikit-learn (Debian: apt-get install python3-sklearn);
pandas is not used. If `python3` on PATH is another installation without
sklearn (pyenv, a venv), run /usr/bin/python3.

For every split K in --splits (files split-K.train and split-K.test, one
0-based data-row index a line, header not counted) and every method:

krr   Pipeline(StandardScaler, KernelRidge(kernel="rbf")), the scaler fitted
      on the training rows, tuned by GridSearchCV(cv=KFold(5, shuffle=True,
      random_state=0), scoring="neg_mean_squared_error") over
      gamma = 1/(2w), w in {d/8, d/4, d/2, d, 2d} (w is kpls's width, a
      variance: k(x, z) = exp(-|x - z|^2 / (2w)) on standardised x), and
      alpha in {1e-3, 1e-2, 1e-1, 1} (--width-factors and --alphas change
      the grid; a choice on its edge is noted in the record). KernelRidge
      has no intercept, so the target is centred on the training mean
      (TransformedTargetRegressor with StandardScaler(with_std=False)), as
      kpls centres it; --no-center-y turns that off. With --linear the grid also holds kernel="linear"
      (same alphas) and the method is reported as "krr+linear".
gpr   Pipeline(StandardScaler, GaussianProcessRegressor(
      ConstantKernel() * RBF(length_scale=sqrt(d), length_scale_bounds=
      (1e-2, 1e3)) + WhiteKernel(), normalize_y=True, n_restarts_optimizer=0,
      random_state=0)). Training sets larger than --gpr-max (4000) are
      replaced by a random subset of that size (numpy default_rng seeded
      with [--seed, K]); the record's n_fit and note say so.

Reported per (data, split, method): the held-out RMSE, the wall seconds of
fit + predict (time.perf_counter; GridSearchCV and its refit included), the
chosen parameters, n_train, n_test. Records are appended to --out as JSON
lines; a table goes to stdout.

Threads: OMP_NUM_THREADS, OPENBLAS_NUM_THREADS and MKL_NUM_THREADS are set
to --threads (default: the number of CPUs, os.cpu_count()) before numpy is
imported, unless already set, and threadpoolctl limits the BLAS and OpenMP
pools to the same number; GridSearchCV runs with n_jobs=--jobs (default 1),
so the parallelism is BLAS's (kernel matrices by GEMM, the Cholesky solves).
The numpy, scipy and sklearn versions and the BLAS are printed and recorded.
"""

import argparse
import glob
import json
import math
import os
import platform
import re
import sys
import time
import warnings
from datetime import datetime, timezone


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--data", required=True, help="CSV file with a header line")
    p.add_argument("--splits", required=True, help="directory of split-K.train / split-K.test")
    p.add_argument("--target", default="y", help="target column (default y)")
    p.add_argument("--out", help="append JSON lines to this file")
    p.add_argument("--methods", default="krr,gpr", help="comma-separated: krr, gpr (default both)")
    p.add_argument("--linear", action="store_true", help="add kernel=linear to the KRR grid")
    p.add_argument("--width-factors", default="0.125,0.25,0.5,1,2",
                   help="KRR widths as multiples of d (default 0.125,0.25,0.5,1,2)")
    p.add_argument("--alphas", default="0.001,0.01,0.1,1", help="KRR alphas (default 0.001,0.01,0.1,1)")
    p.add_argument("--no-center-y", dest="center_y", action="store_false",
                   help="do not centre the target for KRR")
    p.add_argument("--gpr-max", type=int, default=4000,
                   help="largest GPR training set; larger ones are sub-sampled (default 4000)")
    p.add_argument("--only", help="comma-separated split numbers to run (default all)")
    p.add_argument("--seed", type=int, default=0, help="seed of the GPR sub-sample (default 0)")
    p.add_argument("--threads", type=int, default=os.cpu_count() or 1,
                   help="BLAS/OpenMP threads (default: number of CPUs)")
    p.add_argument("--jobs", type=int, default=1, help="GridSearchCV n_jobs (default 1)")
    p.add_argument("--name", help="data set name in the records (default: file name without .csv)")
    p.add_argument("--tag", help="append -TAG to the method names (e.g. krr-wide for another grid), so the "
                   "records of a variant can share a file and a summary with the default ones")
    return p.parse_args(argv)


args = parse_args() if __name__ == "__main__" else None
if args is not None:
    for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ.setdefault(var, str(args.threads))

import numpy as np  # noqa: E402  (after the thread variables)
import scipy  # noqa: E402
import sklearn  # noqa: E402
from sklearn.compose import TransformedTargetRegressor  # noqa: E402
from sklearn.gaussian_process import GaussianProcessRegressor  # noqa: E402
from sklearn.gaussian_process.kernels import RBF, ConstantKernel, WhiteKernel  # noqa: E402
from sklearn.kernel_ridge import KernelRidge  # noqa: E402
from sklearn.model_selection import GridSearchCV, KFold  # noqa: E402
from sklearn.pipeline import Pipeline  # noqa: E402
from sklearn.preprocessing import StandardScaler  # noqa: E402
from threadpoolctl import threadpool_info, threadpool_limits  # noqa: E402

WIDTH_FACTORS = (0.125, 0.25, 0.5, 1.0, 2.0)  # w = factor * d; --width-factors
ALPHAS = (1e-3, 1e-2, 1e-1, 1.0)  # --alphas


def read_csv(path, target):
    """Returns X (n x d), y and the feature names of a numeric CSV file."""
    with open(path, encoding="utf-8-sig") as f:
        head = [h.strip().strip('"').strip() for h in f.readline().split(",")]
    if target not in head:
        sys.exit(f"{path}: no column {target!r} (have {', '.join(head)})")
    data = np.loadtxt(path, delimiter=",", skiprows=1, ndmin=2)
    if data.shape[1] != len(head):
        sys.exit(f"{path}: {data.shape[1]} columns of data, {len(head)} names")
    j = head.index(target)
    feats = [h for i, h in enumerate(head) if i != j]
    return np.delete(data, j, axis=1), data[:, j], feats


def read_splits(d, n, only):
    """Returns [(K, train, test)] for the split files in d, checked."""
    ks = sorted(int(m.group(1)) for f in glob.glob(os.path.join(d, "split-*.train"))
                if (m := re.search(r"split-(\d+)\.train$", f)))
    if not ks:
        sys.exit(f"{d}: no split-K.train files")
    if only is not None:
        ks = [k for k in ks if k in only]
    out = []
    for k in ks:
        tr = np.loadtxt(os.path.join(d, f"split-{k}.train"), dtype=np.int64, ndmin=1)
        te = np.loadtxt(os.path.join(d, f"split-{k}.test"), dtype=np.int64, ndmin=1)
        for name, idx in (("train", tr), ("test", te)):
            if idx.size == 0 or idx.min() < 0 or idx.max() >= n:
                sys.exit(f"{d}/split-{k}.{name}: indices outside 0..{n - 1}")
        if np.intersect1d(tr, te).size:
            sys.exit(f"{d}/split-{k}: train and test overlap")
        out.append((k, tr, te))
    return out


def rmse(y, yhat):
    return float(math.sqrt(np.mean((np.asarray(y) - np.asarray(yhat)) ** 2)))


def fit_krr(Xtr, ytr, Xte, d, linear, center_y):
    pipe = Pipeline([("scale", StandardScaler()), ("krr", KernelRidge(kernel="rbf"))])
    model = pipe
    prefix = "krr__"
    if center_y:
        model = TransformedTargetRegressor(regressor=pipe, transformer=StandardScaler(with_std=False))
        prefix = "regressor__krr__"
    widths = [f * d for f in WIDTH_FACTORS]
    grid = [{prefix + "kernel": ["rbf"], prefix + "gamma": [1 / (2 * w) for w in widths],
             prefix + "alpha": list(ALPHAS)}]
    if linear:
        grid.append({prefix + "kernel": ["linear"], prefix + "alpha": list(ALPHAS)})
    search = GridSearchCV(model, grid, cv=KFold(5, shuffle=True, random_state=0),
                          scoring="neg_mean_squared_error", n_jobs=ARGS_JOBS, refit=True)
    t0 = time.perf_counter()
    search.fit(Xtr, ytr)
    yhat = search.predict(Xte)
    secs = time.perf_counter() - t0
    bp = {k[len(prefix):]: v for k, v in search.best_params_.items()}
    params = {"kernel": bp["kernel"], "alpha": bp["alpha"], "cv_rmse": math.sqrt(-search.best_score_),
              "grid_size": sum(len(g[prefix + "alpha"]) * len(g.get(prefix + "gamma", [0])) for g in grid),
              "width_factors": list(WIDTH_FACTORS), "alphas": list(ALPHAS),
              "center_y": center_y}
    if bp["kernel"] == "rbf":
        w = 1 / (2 * bp["gamma"])
        params.update(gamma=bp["gamma"], width=w, width_over_d=w / d)
    # A choice on the edge of the grid is worth knowing about.
    edge = []
    if bp["alpha"] in (ALPHAS[0], ALPHAS[-1]):
        edge.append("alpha")
    if bp["kernel"] == "rbf" and any(math.isclose(params["width_over_d"], f) for f in
                                     (WIDTH_FACTORS[0], WIDTH_FACTORS[-1])):
        edge.append("width")
    note = f"chosen {' and '.join(edge)} on the edge of the grid" if edge else ""
    return yhat, secs, params, len(ytr), note


def fit_gpr(Xtr, ytr, Xte, d, gpr_max, seed, split):
    n_train = len(ytr)
    note = ""
    if n_train > gpr_max:
        rng = np.random.default_rng([seed, split])
        sub = np.sort(rng.choice(n_train, size=gpr_max, replace=False))
        Xtr, ytr = Xtr[sub], ytr[sub]
        note = f"fitted on a random subset of {gpr_max} of the {n_train} training rows (seed [{seed}, {split}])"
    kernel = ConstantKernel() * RBF(length_scale=math.sqrt(d), length_scale_bounds=(1e-2, 1e3)) + WhiteKernel()
    gpr = GaussianProcessRegressor(kernel=kernel, normalize_y=True, n_restarts_optimizer=0, random_state=0)
    pipe = Pipeline([("scale", StandardScaler()), ("gpr", gpr)])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        t0 = time.perf_counter()
        pipe.fit(Xtr, ytr)
        yhat = pipe.predict(Xte)
        secs = time.perf_counter() - t0
    k = pipe.named_steps["gpr"].kernel_
    ls = float(k.k1.k2.length_scale)
    params = {"constant": float(k.k1.k1.constant_value), "length_scale": ls, "width": ls * ls,
              "width_over_d": ls * ls / d, "noise_level": float(k.k2.noise_level),
              "log_marginal_likelihood": float(pipe.named_steps["gpr"].log_marginal_likelihood_value_),
              "kernel": str(k)}
    msgs = sorted({str(w.message).split("\n")[0][:160] for w in caught})
    if msgs:
        note = "; ".join(filter(None, [note, "warnings: " + " | ".join(msgs)]))
    return yhat, secs, params, len(ytr), note


def blas_info():
    return [{"api": i.get("internal_api"), "version": i.get("version"), "threads": i.get("num_threads")}
            for i in threadpool_info()]


def summary(method, p):
    if method.startswith("krr"):
        s = f"alpha={p['alpha']:g}"
        if p["kernel"] == "rbf":
            s += f" w={p['width']:.4g} (d*{p['width_over_d']:g})"
        else:
            s += " linear"
        return s + f" cv_rmse={p['cv_rmse']:.4g}"
    return f"w={p['width']:.4g} (d*{p['width_over_d']:.3g}) noise={p['noise_level']:.3g} c={p['constant']:.3g}"


ARGS_JOBS = 1


def main(a):
    global ARGS_JOBS, WIDTH_FACTORS, ALPHAS
    ARGS_JOBS = a.jobs
    WIDTH_FACTORS = tuple(sorted(float(s) for s in a.width_factors.split(",")))
    ALPHAS = tuple(sorted(float(s) for s in a.alphas.split(",")))
    methods = [m.strip() for m in a.methods.split(",") if m.strip()]
    for m in methods:
        if m not in ("krr", "gpr"):
            sys.exit(f"--methods: unknown method {m!r} (have krr, gpr)")
    only = None if not a.only else {int(s) for s in a.only.split(",")}
    name = a.name or os.path.splitext(os.path.basename(a.data))[0]
    X, y, feats = read_csv(a.data, a.target)
    n, d = X.shape
    splits = read_splits(a.splits, n, only)
    versions = {"python": platform.python_version(), "numpy": np.__version__, "scipy": scipy.__version__,
                "sklearn": sklearn.__version__}
    with threadpool_limits(limits=a.threads):
        blas = blas_info()
        print(f"# {name}: n={n} d={d} splits={[k for k, _, _ in splits]}; "
              + " ".join(f"{k} {v}" for k, v in versions.items())
              + f"; threads={a.threads} jobs={a.jobs}; "
              + ", ".join(f"{b['api']} {b['version'] or ''} x{b['threads']}" for b in blas), flush=True)
        print(f"{'data':<12} {'split':>5} {'method':<10} {'n_train':>7} {'n_test':>6} {'rmse':>10} {'seconds':>8}  params",
              flush=True)
        out = open(a.out, "a", encoding="utf-8") if a.out else None
        results = {}
        try:
            for k, tr, te in splits:
                for m in methods:
                    if m == "krr":
                        label = "krr+linear" if a.linear else "krr"
                        label += f"-{a.tag}" if a.tag else ""
                        yhat, secs, params, n_fit, note = fit_krr(X[tr], y[tr], X[te], d, a.linear, a.center_y)
                    else:
                        label = "gpr" + (f"-{a.tag}" if a.tag else "")
                        yhat, secs, params, n_fit, note = fit_gpr(X[tr], y[tr], X[te], d, a.gpr_max, a.seed, k)
                    e = rmse(y[te], yhat)
                    rec = {"data": name, "split": k, "method": label, "rmse": e, "seconds": secs,
                           "n_train": int(len(tr)), "n_test": int(len(te)), "n_fit": int(n_fit), "d": d,
                           "params": params, "note": note, "data_file": a.data, "versions": versions,
                           "threads": a.threads, "jobs": a.jobs, "blas": blas,
                           "time": datetime.now(timezone.utc).isoformat(timespec="seconds")}
                    results.setdefault(label, []).append((e, secs))
                    print(f"{name:<12} {k:>5} {label:<10} {len(tr):>7} {len(te):>6} {e:>10.5g} {secs:>8.2f}  "
                          f"{summary(label, params)}" + (f"  [{note}]" if note else ""), flush=True)
                    if out:
                        out.write(json.dumps(rec) + "\n")
                        out.flush()
        finally:
            if out:
                out.close()
        for label, r in results.items():
            print(f"{name:<12} {'med':>5} {label:<10} {'':>7} {'':>6} {np.median([e for e, _ in r]):>10.5g} "
                  f"{np.median([s for _, s in r]):>8.2f}", flush=True)


if __name__ == "__main__":
    main(args)

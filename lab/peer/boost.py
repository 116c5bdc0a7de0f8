#!/usr/bin/python3
"""Gradient boosting and an ARD Gaussian process on kpls's 80/20 splits: held-out RMSE.

usage: boost.py {hgb,xgb,gp} {protein,kin8nm} --splits DIR [--out DIR] [--subsample N]

DIR holds DATA-train.csv and DATA-test.csv as `go run ./lab/peer/split` writes
them (the split `kpls-lab scale` scores protein on). Each model is tuned by
3-fold CV on the training rows (KFold, shuffled, seed 0) and refitted on all of
them; writes OUT/<model>-<data>.json (default: the splits directory). Threads:
2 (OpenMP/BLAS), CV n_jobs=1; set OMP_WAIT_POLICY=PASSIVE on a shared machine.
Debian's python3-sklearn and python3-xgboost.
"""
import argparse, json, os, sys, time

os.environ.setdefault("OMP_NUM_THREADS", "2")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "2")

import numpy as np
import sklearn
from sklearn.model_selection import GridSearchCV, KFold

TARGET = {"protein": "RMSD", "kin8nm": "y"}
THREADS = 2


def load(splits, data, part):
    path = os.path.join(splits, f"{data}-{part}.csv")
    with open(path) as f:
        head = [h.strip().strip('"') for h in f.readline().split(",")]
    a = np.loadtxt(path, delimiter=",", skiprows=1, dtype=np.float64)
    j = head.index(TARGET[data])
    return np.delete(a, j, axis=1), a[:, j], path


def rmse(y, p):
    return float(np.sqrt(np.mean((np.asarray(y) - np.asarray(p)) ** 2)))


def cv():
    return KFold(n_splits=3, shuffle=True, random_state=0)


def run_hgb(X, y):
    from sklearn.ensemble import HistGradientBoostingRegressor
    est = HistGradientBoostingRegressor(max_iter=1000, early_stopping=True,
                                        validation_fraction=0.1, n_iter_no_change=10,
                                        random_state=0)
    grid = {"learning_rate": [0.05, 0.1], "max_leaf_nodes": [31, 63, 127],
            "l2_regularization": [0.0, 1.0]}
    gs = GridSearchCV(est, grid, cv=cv(), scoring="neg_root_mean_squared_error",
                      n_jobs=1, refit=True)
    gs.fit(X, y)
    extra = {"n_iter_ (refit, early-stopped)": int(gs.best_estimator_.n_iter_),
             "fixed": "max_iter=1000, early_stopping=True, validation_fraction=0.1, n_iter_no_change=10, random_state=0"}
    return gs, gs.best_estimator_, extra


class StagedCV:
    """GridSearchCV-shaped result of a staged grid search (see run_xgb)."""
    def __init__(self, params, scores):
        self.cv_results_ = {"params": params, "mean_test_score": scores}
        b = int(np.argmax(scores))
        self.best_params_, self.best_score_ = params[b], scores[b]


def run_xgb(X, y):
    """3-fold CV over max_depth x learning_rate x n_estimators.

    n_estimators {500, 1000} is evaluated from one 1000-tree fit per fold and
    (max_depth, learning_rate) by predicting with the first 500 and all 1000
    trees (iteration_range): boosting is sequential, so the first 500 trees of
    a 1000-tree model (same seed) are the 500-tree model. Same scores as
    GridSearchCV over the 12 points, at about 2/3 of the cost. The winner is
    refit on all training rows.
    """
    from xgboost import XGBRegressor
    base = dict(tree_method="hist", subsample=0.8, colsample_bytree=0.8,
                n_jobs=THREADS, random_state=0)
    depths, rates, ntrees = [6, 8, 10], [0.05, 0.1], [500, 1000]
    sse = {}
    for tr, va in cv().split(X):
        for d in depths:
            for lr in rates:
                m = XGBRegressor(max_depth=d, learning_rate=lr, n_estimators=max(ntrees), **base)
                m.fit(X[tr], y[tr])
                for nt in ntrees:
                    p = m.predict(X[va], iteration_range=(0, nt))
                    sse.setdefault((d, lr, nt), []).append(rmse(y[va], p))
    params = [{"learning_rate": lr, "max_depth": d, "n_estimators": nt}
              for (d, lr, nt) in sse]
    scores = [-float(np.mean(v)) for v in sse.values()]
    gs = StagedCV(params, scores)
    best = XGBRegressor(**gs.best_params_, **base).fit(X, y)
    extra = {"fixed": "tree_method=hist, subsample=0.8, colsample_bytree=0.8, n_jobs=2, random_state=0",
             "cv_note": "staged: n_estimators 500 scored from the first 500 trees of each 1000-tree fold fit"}
    return gs, best, extra


GP_LOG = []


def budget_lbfgs(seconds):
    """An optimizer for GaussianProcessRegressor: scipy L-BFGS-B (as
    sklearn's default 'fmin_l_bfgs_b'), but each optimizer run (the initial
    one and each restart) stops after `seconds` of wall time and returns the
    best point evaluated so far. Every run is logged in GP_LOG."""
    from scipy.optimize import minimize

    class Out(Exception):
        pass

    def opt(obj_func, initial_theta, bounds):
        best = {"f": np.inf, "theta": initial_theta, "nfev": 0}
        t0 = time.perf_counter()

        def f(theta):
            if time.perf_counter() - t0 > seconds:
                raise Out
            v, g = obj_func(theta, eval_gradient=True)
            best["nfev"] += 1
            if v < best["f"]:
                best["f"], best["theta"] = v, np.array(theta)
            return v, g

        entry = {"start_theta": [float(x) for x in initial_theta]}
        try:
            r = minimize(f, initial_theta, method="L-BFGS-B", jac=True, bounds=bounds)
            entry.update(converged=bool(r.success), message=str(r.message), nit=int(r.nit))
            theta, fv = r.x, float(r.fun)
        except Out:
            entry.update(converged=False, message=f"stopped at the {seconds:.0f}s budget, best point kept")
            theta, fv = best["theta"], float(best["f"])
        entry.update(nfev=best["nfev"], neg_lml=fv, seconds=time.perf_counter() - t0)
        GP_LOG.append(entry)
        print("gp optimizer run:", entry, file=sys.stderr, flush=True)
        return theta, fv
    return opt


def run_gp(X, y, budget=600.0):
    from sklearn.gaussian_process import GaussianProcessRegressor
    from sklearn.gaussian_process.kernels import RBF, WhiteKernel, ConstantKernel
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler
    d = X.shape[1]
    kernel = ConstantKernel(1.0, (1e-3, 1e3)) * RBF(length_scale=np.ones(d), length_scale_bounds=(1e-2, 1e3)) \
        + WhiteKernel(noise_level=0.1, noise_level_bounds=(1e-6, 1e1))
    gp = GaussianProcessRegressor(kernel=kernel, normalize_y=True, n_restarts_optimizer=1,
                                  optimizer=budget_lbfgs(budget), random_state=0)
    model = make_pipeline(StandardScaler(), gp)
    model.fit(X, y)
    g = model[-1]
    extra = {"kernel_": str(g.kernel_), "log_marginal_likelihood": float(g.log_marginal_likelihood_value_),
             "optimizer_runs": GP_LOG,
             "fixed": f"StandardScaler on X; ConstantKernel*RBF(ARD, 8 length scales)+WhiteKernel; normalize_y=True; "
                      f"n_restarts_optimizer=1; random_state=0; L-BFGS-B with a {budget:.0f}s wall budget per optimizer run"}
    return None, model, extra


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("model", choices=["hgb", "xgb", "gp"])
    ap.add_argument("data", choices=["protein", "kin8nm"])
    ap.add_argument("--splits", required=True, help="directory of DATA-train.csv and DATA-test.csv")
    ap.add_argument("--out", help="directory for the result (default: --splits)")
    ap.add_argument("--subsample", type=int, default=0,
                    help="fit on a seeded subsample of this many training rows (GP)")
    ap.add_argument("--gp-budget", type=float, default=600.0,
                    help="wall seconds per GP optimizer run (initial + each restart)")
    a = ap.parse_args()

    Xtr, ytr, ptr = load(a.splits, a.data, "train")
    Xte, yte, pte = load(a.splits, a.data, "test")
    n_train_full = len(ytr)
    if a.subsample and a.subsample < len(ytr):
        idx = np.random.default_rng(0).choice(len(ytr), a.subsample, replace=False)
        Xtr, ytr = Xtr[idx], ytr[idx]

    t0, c0 = time.perf_counter(), time.process_time()
    if a.model == "gp":
        gs, model, extra = run_gp(Xtr, ytr, a.gp_budget)
    else:
        gs, model, extra = {"hgb": run_hgb, "xgb": run_xgb}[a.model](Xtr, ytr)
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    p = model.predict(Xte)

    res = {"model": a.model, "data": a.data, "train_rows_used": len(ytr),
           "train_rows_split": n_train_full, "test_rows": len(yte),
           "subsample_seed": 0 if a.subsample else None,
           "test_rmse": rmse(yte, p), "wall_seconds_tune_fit": wall, "cpu_seconds_tune_fit": cpu,
           "threads": THREADS, "cv": "KFold(3, shuffle=True, random_state=0), one fit at a time" if gs else None,
           "versions": {"sklearn": sklearn.__version__, "numpy": np.__version__}}
    if gs is not None:
        res["best_params"] = gs.best_params_
        res["cv_rmse_best"] = float(-gs.best_score_)
        res["cv_table"] = [{"params": pr, "cv_rmse": float(-s)} for pr, s in
                           zip(gs.cv_results_["params"], gs.cv_results_["mean_test_score"])]
    if a.model == "xgb":
        import xgboost
        res["versions"]["xgboost"] = xgboost.__version__
    res.update(extra)
    outdir = a.out or a.splits
    suffix = f"-sub{a.subsample}" if a.subsample else ""
    os.makedirs(outdir, exist_ok=True)
    out = os.path.join(outdir, f"{a.model}-{a.data}{suffix}.json")
    with open(out, "w") as f:
        json.dump(res, f, indent=1, default=str)
    print(json.dumps({k: res[k] for k in ("model", "data", "train_rows_used", "test_rmse", "wall_seconds_tune_fit")} |
                     {"best": res.get("best_params", res.get("kernel_"))}, default=str))


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Where the default `kpls select` loses on a data set: a summary of
`kpls-lab panel diag` documents.

    python3 lab/panel/diag.py [--peer peer.jsonl] diag/*.json

Per split, from seed 0's run (the folds `kpls select` and `kpls-lab eval`
use by default):

  choice    the chosen kernel, w/d and m, and its held-out RMSE (ratio to
            KRR+CV's, given --peer);
  best      the cell of the same grid (every kernel, width and m select
            scored, extended widths included) with the lowest held-out RMSE;
  regret    choice / best held-out RMSE, split into
            width = the best m at the chosen (kernel, width) / best, and
            m     = choice / the best m at the chosen (kernel, width);
  lin       the best linear cell / the best RBF cell (held out): > 1 means
            RBF was better;
  cv-gap    how much lower (in %) the chosen cell's RMSECV is than the best
            cell's: a small gap with a large regret is a noisy CV score;
  seeds     over the fold seeds: how many distinct choices, and the
            largest / smallest held-out RMSE of their choices.

Standard library only.
"""

import argparse
import json
import os
import statistics


def load(path):
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def name_of(s):
    b = os.path.basename(str(s))
    return b[:-4] if b.endswith(".csv") else b


def peer_rmse(paths):
    out = {}
    for p in paths:
        with open(p, encoding="utf-8") as f:
            for line in f:
                if line.strip():
                    r = json.loads(line)
                    if r["method"] == "krr":
                        out[(name_of(r["data"]), r["split"])] = r["rmse"]
    return out


def cell(c, d):
    if c["kernel"] == "rbf":
        return f"rbf {c['width'] / d:.3g}d m={c['m']}"
    return f"{c['kernel']} m={c['m']}"


def key(c):
    return (c["kernel"], c["width"])


def split_row(doc, sp, peer):
    d = doc["d"]
    grid = [c for c in sp["grid"] if c["rmse"] is not None]
    run = sp["runs"][0]
    best = min(grid, key=lambda c: c["rmse"])
    same = [c for c in grid if key(c) == key(run)]
    best_here = min(c["rmse"] for c in same)
    lin = [c["rmse"] for c in grid if c["kernel"] == "linear"]
    rbf = [c["rmse"] for c in grid if c["kernel"] == "rbf"]
    cvbest = next(c["rmsecv"] for c in grid if c is best)
    widths = sorted({c["width"] for c in grid if c["kernel"] == "rbf"})
    outs = [r["rmse"] for r in sp["runs"]]
    distinct = {(r["kernel"], r["width"], r["m"]) for r in sp["runs"]}
    p = peer.get((name_of(doc["data"]), sp["split"]))
    return {
        "split": sp["split"],
        "choice": cell(run, d),
        "ratio": run["rmse"] / p if p else None,
        "best": cell(best, d),
        "best_ratio": best["rmse"] / p if p else None,
        "regret": run["rmse"] / best["rmse"],
        "width": best_here / best["rmse"],
        "m": run["rmse"] / best_here,
        "lin": min(lin) / min(rbf) if lin and rbf else None,
        "cvgap": 100 * (cvbest - run["rmsecv"]) / run["rmsecv"],
        "wmax": widths[-1] / d if widths else None,
        "nseeds": len(distinct),
        "seedspread": max(outs) / min(outs),
    }


def f3(x):
    return "–" if x is None else f"{x:.3f}"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--peer", nargs="*", default=[], help="krr.py JSON-lines files (for the ratios to KRR+CV)")
    ap.add_argument("diag", nargs="+", help="kpls-lab panel diag documents")
    a = ap.parse_args()
    peer = peer_rmse(a.peer)
    print("Default kpls select (5-fold CV, fold seed 0) against the best cell of its own grid, "
          "held out; ratio = RMSE / KRR+CV's")
    print()
    print("| data | split | choice | ratio | best cell | ratio | regret | width | m | lin/rbf | "
          "cv-gap % | widest | seeds: choices | spread |")
    print("|---|--:|---|--:|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|")
    for path in a.diag:
        doc = load(path)
        rows = [split_row(doc, sp, peer) for sp in doc["splits"]]
        for r in rows:
            print(f"| {name_of(doc['data'])} | {r['split']} | {r['choice']} | {f3(r['ratio'])} | {r['best']} | "
                  f"{f3(r['best_ratio'])} | {r['regret']:.3f} | {r['width']:.3f} | {r['m']:.3f} | {f3(r['lin'])} | "
                  f"{r['cvgap']:.1f} | {r['wmax']:.3g}d | {r['nseeds']} of {doc['seeds']} | {r['seedspread']:.3f} |")
        med = statistics.median
        print(f"| {name_of(doc['data'])} | med | | {f3(med([r['ratio'] for r in rows]) if peer else None)} | | "
              f"{f3(med([r['best_ratio'] for r in rows]) if peer else None)} | {med([r['regret'] for r in rows]):.3f} | "
              f"{med([r['width'] for r in rows]):.3f} | {med([r['m'] for r in rows]):.3f} | | | | | |")


if __name__ == "__main__":
    main()

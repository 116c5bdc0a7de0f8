#!/usr/bin/env python3
"""Held-out coverage of `kpls predict --intervals` over the panel's splits.

For each data set and split: writes the split's training and test rows as
CSV files, runs `kpls select --model` on the training rows (with the extra
select flags given), then `kpls predict --intervals --level L --json` on
the test rows, and records the held-out RMSE, the share of test targets
inside their intervals and the wall time of `kpls select` (the command as a
user runs it: reading the file, the search, the final fits, writing the
model). Prints one JSON line per split and a table per data set: the median
RMSE, the pooled coverage over splits, the worst split's and the median
select time.

    lab/panel/coverage.py --panel DIR --kpls BIN [--sets a,b] [--level 0.95]
                          [--select-args "--average-within 0.05"]

DIR is what `kpls-lab panel gen --out DIR` wrote (NAME.csv with target y,
NAME.splits/split-K.train and .test holding 0-based row indices).
"""
import argparse
import csv
import json
import math
import os
import shlex
import statistics
import subprocess
import sys
import tempfile
import time


def rows_of(path):
    with open(path, newline="") as f:
        r = csv.reader(f)
        header = next(r)
        return header, list(r)


def write_rows(path, header, rows, idx):
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(header)
        for i in idx:
            w.writerow(rows[i])


def indices(path):
    with open(path) as f:
        return [int(line) for line in f if line.strip()]


def log_density(preds, ys):
    """Sum over rows of log N(y; yhat, se²)."""
    total = 0.0
    for p, y in zip(preds, ys):
        v = p["se"] ** 2
        total += -0.5 * math.log(2 * math.pi * v) - (y - p["yhat"]) ** 2 / (2 * v)
    return total


def run(cmd):
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        raise RuntimeError(f"{cmd[1]}: exit {p.returncode}: {p.stderr.strip().splitlines()[0] if p.stderr.strip() else ''}")
    return p.stdout


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--panel", required=True)
    ap.add_argument("--kpls", required=True)
    ap.add_argument("--sets", default="")
    ap.add_argument("--level", type=float, default=0.95)
    ap.add_argument("--select-args", default="")
    args = ap.parse_args()
    panel = json.load(open(os.path.join(args.panel, "panel.json")))
    sets = [s["name"] for s in panel["sets"]]
    if args.sets:
        sets = args.sets.split(",")
    table = []
    with tempfile.TemporaryDirectory() as tmp:
        for name in sets:
            header, rows = rows_of(os.path.join(args.panel, name + ".csv"))
            sdir = os.path.join(args.panel, name + ".splits")
            k = 0
            rmses, secs, inside, total, worst, fails = [], [], 0, 0, 1.0, []
            covs, lpd = [], 0.0
            y_at = header.index("y")
            while os.path.exists(os.path.join(sdir, f"split-{k}.train")):
                train, test, model = (os.path.join(tmp, f) for f in ("train.csv", "test.csv", "m.kpls"))
                write_rows(train, header, rows, indices(os.path.join(sdir, f"split-{k}.train")))
                test_idx = indices(os.path.join(sdir, f"split-{k}.test"))
                write_rows(test, header, rows, test_idx)
                try:
                    t0 = time.monotonic()
                    run([args.kpls, "select", "--data", train, "--target", "y", "--model", model, "--progress=off"]
                        + shlex.split(args.select_args))
                    secs.append(time.monotonic() - t0)
                    doc = json.loads(run([args.kpls, "predict", "--model", model, "--data", test, "--intervals",
                                          "--level", str(args.level), "--json", "--progress=off"]))
                except RuntimeError as e:
                    fails.append(f"split {k}: {e}")
                    print(json.dumps({"set": name, "split": k, "error": str(e)}), flush=True)
                    k += 1
                    continue
                cov = doc["target"]["coverage"]
                rmses.append(doc["target"]["rmse"])
                inside += round(cov * len(test_idx))
                total += len(test_idx)
                worst = min(worst, cov)
                covs.append(cov)
                split_lpd = log_density(doc["predictions"], (float(rows[i][y_at]) for i in test_idx))
                lpd += split_lpd
                print(json.dumps({"set": name, "split": k, "rmse": doc["target"]["rmse"], "coverage": cov,
                                  "lpd": split_lpd / len(test_idx), "noise": doc["noise"]["s"],
                                  "mean": len(doc.get("mean") or []), "select_seconds": round(secs[-1], 3)}), flush=True)
                k += 1
            if total:
                table.append((name, len(rows), statistics.median(rmses), inside / total, worst, len(fails),
                              statistics.median(secs), total, statistics.median(covs), lpd / total))
    print(f"\n{100*args.level:g} % prediction intervals, select {args.select_args or '(defaults)'}\n")
    print("| data | n | test rows | splits failed | median RMSE | pooled coverage | median split | worst split | mean LPD | select (s, median) |")
    print("|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|")
    for name, n, rmse, cov, worst, nf, sec, nt, med, lpd in table:
        print(f"| {name} | {n} | {nt} | {nf} | {rmse:.4g} | {100*cov:.1f} % | {100*med:.1f} % | {100*worst:.1f} % | {lpd:.3f} | {sec:.3g} |")
    if table:
        print(f"| all (pooled over sets, equal weight) | | | | | {100*statistics.mean(t[3] for t in table):.1f} % | | |"
              f" {statistics.mean(t[9] for t in table):.3f} | |")


if __name__ == "__main__":
    sys.exit(main())

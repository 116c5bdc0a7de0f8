#!/usr/bin/env python3
"""Held-out error of the points `kpls predict` flags by leverage.

For each data set and split: writes the split's training and test rows
as CSV files, runs the default `kpls select --model` on the training rows
and `kpls predict --json` on the test rows, and records every test
point's error and leverage (one JSON line per point to --out). Prints a
table per data set: the test points, how many have a leverage above 1
(the flag of docs/design.md §6), the largest leverage, the RMSE of the
flagged and of the other points, and the points flagged outside by
either rule.

    lab/panel/leverage.py --panel DIR --kpls BIN --out FILE [--sets a,b]

DIR is what `kpls-lab panel gen --out DIR` wrote (see coverage.py).
"""
import argparse
import collections
import json
import math
import os
import subprocess
import tempfile

from coverage import indices, rows_of, write_rows


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--panel", required=True)
    ap.add_argument("--kpls", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--sets", default="")
    args = ap.parse_args()
    panel = json.load(open(os.path.join(args.panel, "panel.json")))
    sets = args.sets.split(",") if args.sets else [s["name"] for s in panel["sets"]]
    points = collections.defaultdict(list)
    with open(args.out, "w") as out, tempfile.TemporaryDirectory() as tmp:
        for name in sets:
            header, rows = rows_of(os.path.join(args.panel, name + ".csv"))
            target = header.index("y")
            sdir = os.path.join(args.panel, name + ".splits")
            k = 0
            while os.path.exists(os.path.join(sdir, f"split-{k}.train")):
                train, test, model = (os.path.join(tmp, f) for f in ("train.csv", "test.csv", "m.kpls"))
                write_rows(train, header, rows, indices(os.path.join(sdir, f"split-{k}.train")))
                test_idx = indices(os.path.join(sdir, f"split-{k}.test"))
                write_rows(test, header, rows, test_idx)
                subprocess.run([args.kpls, "select", "--data", train, "--target", "y", "--model", model,
                                "--progress=off"], check=True, capture_output=True)
                doc = json.loads(subprocess.run([args.kpls, "predict", "--model", model, "--data", test, "--json",
                                                 "--progress=off"], check=True, capture_output=True, text=True).stdout)
                for i, p in zip(test_idx, doc["predictions"]):
                    r = {"set": name, "split": k, "err": p["yhat"] - float(rows[i][target]),
                         "leverage": p["leverage"], "outside": p["outside"]}
                    out.write(json.dumps(r) + "\n")
                    points[name].append(r)
                k += 1

    def rmse(v):
        return f"{math.sqrt(sum(r['err'] ** 2 for r in v) / len(v)):.4g}" if v else "–"

    print("| data | test points | leverage > 1 | largest leverage | RMSE, flagged | RMSE, the others | outside (either rule) |")
    print("|---|--:|--:|--:|--:|--:|--:|")
    for name in sets:
        v = points[name]
        high = [r for r in v if r["leverage"] > 1]
        low = [r for r in v if r["leverage"] <= 1]
        print(f"| {name} | {len(v)} | {len(high)} | {max(r['leverage'] for r in v):.3g} | {rmse(high)} | {rmse(low)} | "
              f"{sum(r['outside'] for r in v)} |")


if __name__ == "__main__":
    main()

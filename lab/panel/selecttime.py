#!/usr/bin/env python3
"""Wall time of the default `kpls select` against the peer's GridSearchCV.

For each data set and split: writes the split's training rows as a CSV
file and times `kpls select --model` on them (the command as a user runs
it: reading the file, the search, the final fits, writing the model).
Prints, per data set, the median time over the splits next to the
median of the peer's recorded KernelRidge + GridSearchCV time on the same
splits (method "krr" in the peer files), their ratio, and both totals;
then the totals over every set timed.

    lab/panel/selecttime.py --panel DIR --kpls BIN --peer FILE[,FILE] [--sets a,b] [--select-args ARGS]

DIR is what `kpls-lab panel gen --out DIR` wrote (see coverage.py).
"""
import argparse
import collections
import json
import os
import shlex
import statistics
import subprocess
import tempfile
import time

from coverage import indices, rows_of, write_rows


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--panel", required=True)
    ap.add_argument("--kpls", required=True)
    ap.add_argument("--peer", required=True)
    ap.add_argument("--sets", default="")
    ap.add_argument("--select-args", default="")
    args = ap.parse_args()
    panel = json.load(open(os.path.join(args.panel, "panel.json")))
    sets = args.sets.split(",") if args.sets else [s["name"] for s in panel["sets"]]
    peer = collections.defaultdict(dict)
    for path in args.peer.split(","):
        for line in open(path):
            r = json.loads(line)
            if r["method"] == "krr":
                peer[r["data"]][r["split"]] = r["seconds"]
    print("| data | splits | kpls select, median | peer, median | ratio of medians | kpls, total | peer, total |")
    print("|---|--:|--:|--:|--:|--:|--:|")
    total_k = total_p = 0.0
    with tempfile.TemporaryDirectory() as tmp:
        for name in sets:
            header, rows = rows_of(os.path.join(args.panel, name + ".csv"))
            sdir = os.path.join(args.panel, name + ".splits")
            ours, theirs = [], []
            k = 0
            while os.path.exists(os.path.join(sdir, f"split-{k}.train")):
                train, model = os.path.join(tmp, "train.csv"), os.path.join(tmp, "m.kpls")
                write_rows(train, header, rows, indices(os.path.join(sdir, f"split-{k}.train")))
                cmd = [args.kpls, "select", "--data", train, "--target", "y", "--model", model, "--progress=off"]
                start = time.perf_counter()
                subprocess.run(cmd + shlex.split(args.select_args), check=True, capture_output=True)
                ours.append(time.perf_counter() - start)
                theirs.append(peer[name][k])
                k += 1
            mk, mp = statistics.median(ours), statistics.median(theirs)
            total_k, total_p = total_k + sum(ours), total_p + sum(theirs)
            print(f"| {name} | {k} | {mk:.3g} s | {mp:.3g} s | {mk / mp:.2f} | {sum(ours):.3g} s | {sum(theirs):.3g} s |", flush=True)
    print(f"| all | | | | {total_k / total_p:.3f} (of the totals) | {total_k:.4g} s | {total_p:.4g} s |")


if __name__ == "__main__":
    main()

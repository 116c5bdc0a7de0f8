#!/usr/bin/env python3
"""Summary table of the evaluation panel: the scikit-learn peer's JSON lines
(lab/peer/krr.py --out) against `kpls-lab eval --json` documents.

    python3 lab/panel/summarize.py --peer peer.jsonl --kpls kpls/*.json

Prints markdown: per data set, the median over splits of the held-out RMSE
of KRR+CV, GPR and every kpls method, each kpls method's (and GPR's) ratio
to KRR+CV, and the median seconds. Standard library only.

The kpls document is {"data": ..., "splits": [{"split": K, "n_train": ...,
"n_test": ..., "methods": [{"method": "cv", "rmse": ..., "seconds": ...,
...}, ...]}, ...]}; a file may hold one document or one per line. Methods
this script does not know are added as columns, after the known ones
(cv, gcv, bic, aic, gmdl, oracle). Data sets are matched by name: the
file name of "data" without directory and .csv.

The ratio is the median over splits of the per-split ratio method RMSE /
KRR+CV RMSE, over the splits both have (the splits are paired: identical
rows), not the ratio of the medians.
"""

import argparse
import json
import os
import statistics
import sys

KPLS_ORDER = ["cv", "gcv", "bic", "aic", "gmdl", "oracle"]
PEER_ORDER = ["krr", "krr+linear", "gpr"]
PEER_LABEL = {"krr": "KRR+CV", "krr+linear": "KRR+CV lin", "gpr": "GPR"}
REF = ("peer", "krr")


def name_of(s):
    b = os.path.basename(str(s))
    return b[:-4] if b.endswith(".csv") else b


def load_json_docs(path):
    with open(path, encoding="utf-8") as f:
        text = f.read()
    try:
        doc = json.loads(text)
        return doc if isinstance(doc, list) else [doc]
    except json.JSONDecodeError:
        return [json.loads(l) for l in text.splitlines() if l.strip()]


def collect(peer_files, kpls_files):
    """Returns rows[data][(source, method)][split] = record, and n[data]."""
    rows, n_train = {}, {}
    for p in peer_files:
        for r in load_json_docs(p):
            d = name_of(r["data"])
            rows.setdefault(d, {}).setdefault(("peer", r["method"]), {})[r["split"]] = r
            n_train.setdefault(d, set()).add(r.get("n_train"))
    for p in kpls_files:
        for doc in load_json_docs(p):
            d = name_of(doc.get("data", p))
            for s in doc.get("splits", []):
                n_train.setdefault(d, set()).add(s.get("n_train"))
                for m in s.get("methods", []):
                    rows.setdefault(d, {}).setdefault(("kpls", m["method"]), {})[s["split"]] = m
    return rows, n_train


def columns(rows):
    seen = []
    for d in rows.values():
        for key in d:
            if key not in seen:
                seen.append(key)

    def rank(key):
        src, m = key
        order = PEER_ORDER if src == "peer" else KPLS_ORDER
        return (0 if src == "peer" else 1, order.index(m) if m in order else len(order), seen.index(key))

    return sorted(seen, key=rank)


def label(key):
    src, m = key
    if src == "kpls":
        return f"kpls {m}"
    base, _, tag = m.partition("-")  # krr.py --tag TAG gives krr-TAG
    if base in PEER_LABEL:
        return PEER_LABEL[base] + (f" {tag}" if tag else "")
    return m


def med(xs):
    xs = [x for x in xs if x is not None]
    return statistics.median(xs) if xs else None


def fmt(x, digits=4):
    if x is None:
        return "–"
    return f"{x:.{digits}g}"


def fmt_s(x):
    if x is None:
        return "–"
    return f"{x:.3g}" if x < 10 else f"{x:.0f}"


def table(rows, n_train, cols):
    out = []
    head = ["data", "n_train", "splits"] + [label(c) for c in cols]
    out.append("Held-out RMSE, median over splits (ratio to KRR+CV: median of per-split ratios)")
    out.append("")
    out.append("| " + " | ".join(head) + " |")
    out.append("|" + "|".join(["---"] + ["--:"] * (len(head) - 1)) + "|")
    for d in sorted(rows):
        ref = rows[d].get(REF, {})
        ns = sorted(x for x in n_train.get(d, ()) if x is not None)
        splits = sorted({k for c in rows[d].values() for k in c})
        cells = [d, "/".join(map(str, ns)) or "–", str(len(splits))]
        for c in cols:
            recs = rows[d].get(c, {})
            m = med([r.get("rmse") for r in recs.values()])
            cell = fmt(m)
            if c != REF and m is not None and ref:
                ratios = [recs[k]["rmse"] / ref[k]["rmse"] for k in recs
                          if k in ref and recs[k].get("rmse") is not None and ref[k].get("rmse")]
                if ratios:
                    cell += f" ({med(ratios):.3f})"
            cells.append(cell)
        out.append("| " + " | ".join(cells) + " |")
    out.append("")
    out.append("Seconds (fit + predict, model selection included), median over splits")
    out.append("")
    head = ["data"] + [label(c) for c in cols]
    out.append("| " + " | ".join(head) + " |")
    out.append("|" + "|".join(["---"] + ["--:"] * (len(head) - 1)) + "|")
    for d in sorted(rows):
        cells = [d] + [fmt_s(med([r.get("seconds") for r in rows[d].get(c, {}).values()])) for c in cols]
        out.append("| " + " | ".join(cells) + " |")
    return "\n".join(out)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--peer", nargs="*", default=[], help="krr.py JSON-lines files")
    p.add_argument("--kpls", nargs="*", default=[], help="kpls-lab eval --json documents")
    a = p.parse_args()
    if not a.peer and not a.kpls:
        p.error("nothing to summarise: give --peer and/or --kpls files")
    rows, n_train = collect(a.peer, a.kpls)
    for d, ns in sorted(n_train.items()):
        ns = {x for x in ns if x is not None}
        if len(ns) > 1:
            print(f"warning: {d}: different n_train across results {sorted(ns)}: not the same splits?",
                  file=sys.stderr)
    print(table(rows, n_train, columns(rows)))


if __name__ == "__main__":
    main()

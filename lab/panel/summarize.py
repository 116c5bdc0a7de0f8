#!/usr/bin/env python3
"""Summary table of the evaluation panel: the scikit-learn peer's JSON lines
(lab/peer/krr.py --out) against `kpls-lab eval --json` documents.

    python3 lab/panel/summarize.py --peer peer.jsonl --kpls kpls/*.json

Prints markdown: per data set, the median over splits of the held-out RMSE
of KRR+CV, GPR and every kpls method, each kpls method's (and GPR's) ratio
to KRR+CV, and the median seconds; then the ratios to KRR+CV per data set,
median and worst split, with their geometric mean over the panel (and over
its small and its large sets). Small data sets (under 2000 rows, n =
n_train + n_test; lab/panel gives them 5 splits) are marked "small". With
--choices, a table per data set of what each split chose: KRR+CV's alpha
and width, kpls cv's kernel, width and m, and the oracle's (the best
kernel, width and m on eval's grid, judged by the test rows). Standard
library only.

The kpls document is {"data": ..., "splits": [{"split": K, "n_train": ...,
"n_test": ..., "methods": [{"method": "cv", "rmse": ..., "seconds": ...,
...}, ...]}, ...]}; a file may hold one document or one per line. Methods
this script does not know are added as columns, after the known ones
(cv, gcv, bic, aic, gmdl, oracle). Data sets are matched by name: the
file name of "data" without directory and .csv.

The ratio is the median over splits of the per-split ratio method RMSE /
KRR+CV RMSE, over the splits both have (the splits are paired: identical
rows), not the ratio of the medians. The worst split is the largest of
those ratios. The geometric mean is over data sets, of their median
ratios, counting only the data sets where the method has a ratio.
"""

import argparse
import json
import math
import os
import statistics
import sys

KPLS_ORDER = ["cv", "gcv", "bic", "aic", "gmdl", "oracle"]
PEER_ORDER = ["krr", "krr+linear", "gpr"]
PEER_LABEL = {"krr": "KRR+CV", "krr+linear": "KRR+CV lin", "gpr": "GPR"}
REF = ("peer", "krr")
SMALL = 2000  # rows: lab/panel's smallRows


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
    """Returns rows[data][(source, method)][split] = record, n_train[data]
    (a set) and n[data] (a set: the data set's rows)."""
    rows, n_train, n = {}, {}, {}
    for p in peer_files:
        for r in load_json_docs(p):
            d = name_of(r["data"])
            rows.setdefault(d, {}).setdefault(("peer", r["method"]), {})[r["split"]] = r
            n_train.setdefault(d, set()).add(r.get("n_train"))
            if r.get("n_train") is not None and r.get("n_test") is not None and r.get("n_fit") == r["n_train"]:
                n.setdefault(d, set()).add(r["n_train"] + r["n_test"])
    for p in kpls_files:
        for doc in load_json_docs(p):
            d = name_of(doc.get("data", p))
            if doc.get("n") is not None:
                n.setdefault(d, set()).add(doc["n"])
            for s in doc.get("splits", []):
                n_train.setdefault(d, set()).add(s.get("n_train"))
                for m in s.get("methods", []):
                    rows.setdefault(d, {}).setdefault(("kpls", m["method"]), {})[s["split"]] = m
    return rows, n_train, n


def is_small(n, d):
    """Whether data set d has under SMALL rows; None if unknown. The peer's
    n_train + n_test undercounts a set cut by --max-train, so the largest
    count wins."""
    ns = n.get(d)
    return max(ns) < SMALL if ns else None


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


def split_ratios(rows, d, c):
    """{split: RMSE of c / RMSE of KRR+CV} on data set d."""
    ref, recs = rows[d].get(REF, {}), rows[d].get(c, {})
    return {k: recs[k]["rmse"] / ref[k]["rmse"] for k in sorted(recs)
            if k in ref and recs[k].get("rmse") is not None and ref[k].get("rmse")}


def geomean(xs):
    xs = [x for x in xs if x is not None and x > 0]
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else None


def size_label(rows, n, d):
    small = is_small(n, d)
    return d + (" (small)" if small else "")


def ratio_table(rows, n, cols):
    """Per data set and method: the median ratio to KRR+CV and the worst
    split; then the geometric means of the medians."""
    cols = [c for c in cols if c != REF]
    out = ["Ratio of held-out RMSE to KRR+CV: median over splits / worst split (its number); "
           "last rows: geometric mean over data sets of the medians", ""]
    head = ["data", "n"] + [label(c) for c in cols]
    out.append("| " + " | ".join(head) + " |")
    out.append("|" + "|".join(["---", "--:"] + ["--:"] * len(cols)) + "|")
    meds = {c: {} for c in cols}
    for d in sorted(rows):
        ns = n.get(d)
        cells = [size_label(rows, n, d), str(max(ns)) if ns else "–"]
        for c in cols:
            r = split_ratios(rows, d, c)
            if not r:
                cells.append("–")
                continue
            meds[c][d] = med(list(r.values()))
            kw = max(r, key=r.get)
            cells.append(f"{meds[c][d]:.3f} / {r[kw]:.3f} ({kw})")
        out.append("| " + " | ".join(cells) + " |")
    for name, keep in (("all", lambda d: True), ("small", lambda d: is_small(n, d) is True),
                       ("large", lambda d: is_small(n, d) is False)):
        sets = [d for d in rows if keep(d)]
        if not sets or (name != "all" and len(sets) == len(rows)):
            continue
        cells = [f"geometric mean, {name} ({len(sets)})", ""]
        for c in cols:
            g = geomean([meds[c].get(d) for d in sets])
            k = sum(1 for d in sets if d in meds[c])
            cells.append("–" if g is None else f"{g:.3f}" + (f" ({k} sets)" if k != len(sets) else ""))
        out.append("| " + " | ".join(cells) + " |")
    return "\n".join(out)


def choice(rec):
    """What a kpls record chose: kernel, width as a multiple of d, m."""
    if rec is None:
        return "–"
    if rec.get("kernel") == "rbf":
        return f"rbf w={rec['width']:.4g} m={rec['m']}"
    return f"{rec.get('kernel')} m={rec.get('m')}"


def choices_table(rows, d, dims):
    """Per split of data set d: KRR+CV's and kpls cv's choices and the
    oracle's, with their RMSE ratios to KRR+CV."""
    ref = rows[d].get(REF, {})
    cv = rows[d].get(("kpls", "cv"), {})
    orc = rows[d].get(("kpls", "oracle"), {})
    dd = dims.get(d)
    out = [f"{d}" + (f" (d = {dd})" if dd else "") + ": choices per split; w/d in brackets; "
           "ratio = RMSE / KRR+CV's", ""]
    out.append("| split | KRR+CV | RMSE | kpls cv | ratio | oracle | ratio | cv / oracle |")
    out.append("|--:|---|--:|---|--:|---|--:|--:|")
    for k in sorted(set(ref) | set(cv) | set(orc)):
        r, c, o = ref.get(k), cv.get(k), orc.get(k)
        rp = r["params"] if r else {}
        if rp.get("kernel") == "rbf":
            rs = f"α={rp['alpha']:g} w={rp['width']:.4g} ({rp['width_over_d']:g})"
        elif rp:
            rs = f"α={rp['alpha']:g} linear"
        else:
            rs = "–"

        def ch(x):
            s = choice(x)
            if x and x.get("kernel") == "rbf" and dd:
                s = s.replace(f"w={x['width']:.4g}", f"w={x['width']:.4g} ({x['width'] / dd:.3g})")
            return s

        def rat(x):
            return f"{x['rmse'] / r['rmse']:.3f}" if x and r else "–"
        co = f"{c['rmse'] / o['rmse']:.3f}" if c and o else "–"
        out.append(f"| {k} | {rs} | {fmt(r['rmse']) if r else '–'} | {ch(c)} | {rat(c)} | {ch(o)} | {rat(o)} | {co} |")
    return "\n".join(out)


def table(rows, n_train, cols, n=None):
    n = n or {}
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
        cells = [size_label(rows, n, d), "/".join(map(str, ns)) or "–", str(len(splits))]
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
    p.add_argument("--choices", action="store_true",
                   help="also print, per data set and split, what KRR+CV, kpls cv and the oracle chose")
    a = p.parse_args()
    if not a.peer and not a.kpls:
        p.error("nothing to summarise: give --peer and/or --kpls files")
    rows, n_train, n = collect(a.peer, a.kpls)
    for d, ns in sorted(n_train.items()):
        ns = {x for x in ns if x is not None}
        if len(ns) > 1:
            print(f"warning: {d}: different n_train across results {sorted(ns)}: not the same splits?",
                  file=sys.stderr)
    cols = columns(rows)
    print(table(rows, n_train, cols, n))
    if REF in cols and len(cols) > 1:
        print()
        print(ratio_table(rows, n, cols))
    if a.choices:
        dims = {}
        for p_ in a.kpls:
            for doc in load_json_docs(p_):
                dims[name_of(doc.get("data", p_))] = doc.get("d")
        for p_ in a.peer:
            for r in load_json_docs(p_):
                dims.setdefault(name_of(r["data"]), r.get("d"))
        for d in sorted(rows):
            print()
            print(choices_table(rows, d, dims))


if __name__ == "__main__":
    main()

"""Smoke test of panelpeers.py (run and table) on a tiny synthetic panel it
writes itself (no shared data needed):

    /usr/bin/python3 -m unittest discover -s lab/peer -p 'test_*.py'
"""

import json
import math
import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPT = os.path.join(HERE, "panelpeers.py")


class PanelPeersTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.panel = os.path.join(self.tmp.name, "panel")
        os.mkdir(self.panel)
        # 60 rows, y = sin(x1) + x2/5 + noise-free wiggle; x3 is irrelevant. Target last, as panel gen writes.
        with open(os.path.join(self.panel, "tiny.csv"), "w") as f:
            f.write("x1,x2,x3,y\n")
            for i in range(60):
                x1, x2, x3 = (i % 13) / 2.0, (i * 7 % 11) - 5.0, (i * 5 % 17) / 3.0
                f.write(f"{x1},{x2},{x3},{math.sin(x1) + x2 / 5 + 0.01 * ((i * 13) % 5 - 2)}\n")
        sd = os.path.join(self.panel, "tiny.splits")
        os.mkdir(sd)
        for k in range(2):
            test = [i for i in range(60) if i % 4 == k]
            train = [i for i in range(60) if i % 4 != k]
            for ext, idx in (("train", train), ("test", test)):
                with open(os.path.join(sd, f"split-{k}.{ext}"), "w") as f:
                    f.write("".join(f"{i}\n" for i in idx))
        # kpls's records in the shape of lab/relevance/results/results.jsonl
        self.kpls = os.path.join(self.tmp.name, "results.jsonl")
        with open(self.kpls, "w") as f:
            for k, e in ((0, 0.05), (1, 0.2)):
                f.write(json.dumps({"set": "tiny", "split": k, "n_train": 45, "n_test": 15, "d": 3,
                                    "variants": [{"name": "iso", "rmse": e}, {"name": "gop", "rmse": 9.0}]}) + "\n")
        self.out = os.path.join(self.tmp.name, "peers.jsonl")

    def tearDown(self):
        self.tmp.cleanup()

    def run_script(self, *args):
        r = subprocess.run([sys.executable, SCRIPT, *args], capture_output=True, text=True,
                           env={**os.environ, "OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1"})
        self.assertEqual(r.returncode, 0, r.stderr)
        return r

    def records(self):
        with open(self.out) as f:
            return [json.loads(l) for l in f]

    def test_run_and_table(self):
        self.run_script("run", "--panel", self.panel, "--sets", "tiny", "--methods", "hgb,krr,gp",
                        "--restarts", "1", "--out", self.out)
        recs = self.records()
        self.assertEqual([(r["split"], r["method"]) for r in recs],
                         [(0, "hgb"), (0, "krr"), (0, "gp-ard-r1"), (1, "hgb"), (1, "krr"), (1, "gp-ard-r1")])
        for r in recs:
            self.assertEqual((r["set"], r["n_train"], r["n_test"], r["d"]), ("tiny", 45, 15, 3))
            self.assertTrue(0 < r["rmse"] < 1, r)
            self.assertGreater(r["seconds"], 0)
        hgb = recs[0]["params"]
        self.assertEqual(hgb["grid_size"], 96)
        self.assertIn(hgb["learning_rate"], (0.05, 0.1))
        self.assertGreaterEqual(recs[1]["params"]["grid_size"], 66)  # more when widened past an edge
        gp = recs[2]["params"]
        self.assertEqual((gp["restarts"], len(gp["length_scales"])), (1, 3))

        # resumes: nothing is recomputed
        self.run_script("run", "--panel", self.panel, "--sets", "tiny", "--methods", "hgb,krr,gp",
                        "--restarts", "1", "--out", self.out)
        self.assertEqual(len(self.records()), 6)

        t = self.run_script("table", "--peers", self.out, "--kpls", self.kpls, "--restarts", "1",
                            "--sets", "tiny").stdout
        row = [l for l in t.splitlines() if l.startswith("| tiny |")]
        self.assertEqual(len(row), 2, t)  # the RMSE table's and the seconds table's
        cells = [c.strip() for c in row[0].split("|")[1:-1]]
        self.assertEqual(cells[:4], ["tiny", "45×3", "2", "0.125"])  # kpls: the median of 0.05 and 0.2
        # the best peer by median, and kpls's per-split ratios against it
        by = {}
        for r in recs:
            by.setdefault(r["method"], {})[r["split"]] = r["rmse"]
        med = {m: (v[0] + v[1]) / 2 for m, v in by.items()}
        bm = min(med, key=med.get)
        ratios = [0.05 / by[bm][0], 0.2 / by[bm][1]]
        self.assertEqual(cells[7], {"hgb": "HGB", "krr": "kernel ridge", "gp-ard-r1": "ARD GP"}[bm])
        self.assertEqual(cells[8], f"{sum(ratios) / 2:.3f} ({max(ratios):.3f})")
        kg = min(("krr", "gp-ard-r1"), key=med.get)
        ratios = [0.05 / by[kg][0], 0.2 / by[kg][1]]
        self.assertEqual(cells[10], f"{sum(ratios) / 2:.3f} ({max(ratios):.3f})")
        self.assertIn("geometric mean", t)
        secs = [c.strip() for c in row[1].split("|")[1:-1]]
        self.assertEqual(len(secs), 4, row[1])

    def test_wide_grid(self):
        self.run_script("run", "--panel", self.panel, "--sets", "tiny", "--methods", "hgb", "--splits", "1",
                        "--wide-d", "2", "--out", self.out)
        (r,) = self.records()
        self.assertEqual((r["split"], r["params"]["grid_size"], r["params"]["l2_regularization"]), (1, 48, 0.0))


if __name__ == "__main__":
    unittest.main()

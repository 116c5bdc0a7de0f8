"""Smoke tests of the peer (krr.py) and the panel summariser on a tiny
data set:

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
KRR = os.path.join(HERE, "krr.py")
SUMMARIZE = os.path.join(HERE, "..", "panel", "summarize.py")


class PeerTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        d = self.tmp.name
        # 80 rows of y = sin(x1) + x2/10 + small deterministic wiggle, target first
        # (not last) to check --target handling; quoted header as in kin8nm.
        self.data = os.path.join(d, "tiny.csv")
        with open(self.data, "w") as f:
            f.write('"y","x1","x2"\n')
            for i in range(80):
                x1, x2 = (i % 17) / 3.0, (i * 7 % 11) - 5.0
                f.write(f"{math.sin(x1) + x2 / 10 + 0.01 * ((i * 13) % 5 - 2)}, {x1}, {x2}\n")
        self.splits = os.path.join(d, "tiny.splits")
        os.mkdir(self.splits)
        for k in range(2):
            test = [i for i in range(80) if i % 4 == k]
            train = [i for i in range(80) if i % 4 not in (k, 3)]
            for ext, idx in (("train", train), ("test", test)):
                with open(os.path.join(self.splits, f"split-{k}.{ext}"), "w") as f:
                    f.write("".join(f"{i}\n" for i in idx))

    def tearDown(self):
        self.tmp.cleanup()

    def run_peer(self, *extra):
        out = os.path.join(self.tmp.name, "peer.jsonl")
        r = subprocess.run([sys.executable, KRR, "--data", self.data, "--splits", self.splits,
                            "--out", out, "--threads", "1", *extra], capture_output=True, text=True)
        self.assertEqual(r.returncode, 0, r.stderr)
        with open(out) as f:
            return [json.loads(l) for l in f], r.stdout

    def test_records(self):
        recs, stdout = self.run_peer("--gpr-max", "30", "--linear")
        self.assertEqual([(r["split"], r["method"]) for r in recs],
                         [(0, "krr+linear"), (0, "gpr"), (1, "krr+linear"), (1, "gpr")])
        for r in recs:
            self.assertEqual((r["data"], r["n_train"], r["n_test"], r["d"]), ("tiny", 40, 20, 2))
            self.assertTrue(0 < r["rmse"] < 1, r)
            self.assertGreater(r["seconds"], 0)
        krr, gpr = recs[0], recs[1]
        self.assertEqual(krr["params"]["grid_size"], 24)
        if krr["params"]["kernel"] == "rbf":
            self.assertAlmostEqual(krr["params"]["width"], 1 / (2 * krr["params"]["gamma"]))
        self.assertEqual(gpr["n_fit"], 30)
        self.assertIn("subset of 30", gpr["note"])
        self.assertIn("sklearn", stdout)

    def test_summary(self):
        recs, _ = self.run_peer("--methods", "krr")
        doc = {"data": "somewhere/tiny.csv", "splits": [
            {"split": r["split"], "n_train": 40, "n_test": 20, "methods": [
                {"method": "gmdl", "rmse": 2 * r["rmse"], "seconds": 0.5},
                {"method": "brand-new", "rmse": r["rmse"], "seconds": 0.25}]} for r in recs]}
        kp = os.path.join(self.tmp.name, "tiny.json")
        with open(kp, "w") as f:
            json.dump(doc, f)
        r = subprocess.run([sys.executable, SUMMARIZE, "--peer", os.path.join(self.tmp.name, "peer.jsonl"),
                            "--kpls", kp], capture_output=True, text=True)
        self.assertEqual(r.returncode, 0, r.stderr)
        rows = [l for l in r.stdout.splitlines() if l.startswith("| tiny")]
        self.assertEqual(len(rows), 2, r.stdout)
        self.assertIn("(2.000)", rows[0])  # gmdl / KRR+CV
        self.assertIn("(1.000)", rows[0])  # the unknown method got a column
        self.assertIn("kpls brand-new", r.stdout)


if __name__ == "__main__":
    unittest.main()

#!/usr/bin/env python3
"""Writes sklearn_reference.json: scikit-learn's log marginal likelihood of an
ARD Gaussian process (ConstantKernel * RBF(one length scale per feature) +
WhiteKernel, normalize_y) on the deterministic rows of ard_test.go's
referenceRows, at two fixed parameter vectors and at its own optimum.

    /usr/bin/python3 internal/ard/testdata/sklearn_reference.py > internal/ard/testdata/sklearn_reference.json

Needs Debian's python3-sklearn.
"""
import json
import math

import numpy as np
import sklearn
from sklearn.gaussian_process import GaussianProcessRegressor
from sklearn.gaussian_process.kernels import RBF, ConstantKernel, WhiteKernel

n, d = 60, 3
x = np.array([[math.sin(1.7 * i + 0.9 * j * j + j) * (1 + j) for j in range(d)] for i in range(n)])
y = np.array([math.sin(2 * x[i, 0]) + 0.3 * x[i, 1] + 0.05 * math.cos(7 * i) for i in range(n)])
kern = ConstantKernel() * RBF(length_scale=[math.sqrt(d)] * d, length_scale_bounds=(1e-2, 1e3)) + WhiteKernel()
gp = GaussianProcessRegressor(kernel=kern, normalize_y=True, n_restarts_optimizer=0, random_state=0).fit(x, y)
# sklearn's theta: log σ_f², log ℓ_1…ℓ_d, log σ_n².
points = []
for theta in ([0.2, 0.1, -0.3, 0.5, math.log(0.05)], [-0.4, 1.0, 0.7, -0.2, math.log(0.2)]):
    points.append({"theta": theta, "lml": float(gp.log_marginal_likelihood(np.array(theta)))})
print(json.dumps({"sklearn": sklearn.__version__, "points": points,
                  "optimum": {"theta": [float(v) for v in gp.kernel_.theta], "lml": float(gp.log_marginal_likelihood_value_)}}, indent=1))

"""Can a rank-r eigenbasis of the kernel matrix give a point's standard error?

Issue #43 asks for se(x) in O(n·r) a point. The spectral part of
g = H_mᵀk_c(x) is s_m(K)k with s_m(λ) = (1 − q_m(λ))/λ, q_m(λ) = Π(1 − λ/θ_i)
over the fit's Ritz values. In K's eigenbasis (λ_i, v_i), with a_i = v_iᵀk,

    ‖s_m(K)k‖² = s_m(0)²‖k‖² + Σ_i (s_m(λ_i)² − s_m(0)²) a_i²,

so a rank-r basis could answer it with the tail's error at most
max over [0, λ_(r+1)] of |s_m² − s_m(0)²| times the tail's ‖e‖². This script
measures, on kernel matrices like those selection picks, how far down the
spectrum the smallest Ritz value θ_min lies, and the relative error of the
rank-r answer (true and bounded) at 200 held-out points. It uses numpy only,
independent of kpls: the full eigendecomposition is the oracle; the Ritz
values come from Lanczos on diag(λ) started at √λ_i·(v_iᵀy_c), the measure
whose orthogonal polynomial is PLS's residual polynomial.

Run from the repository root with Debian's python3-numpy:

    python3 lab/bands/spectrum.py ../shared/data

Results: docs/scale.md, "Standard errors from a low-rank basis".
"""
import sys

import numpy as np


def kernel(a, b, kind, w):
    d2 = np.maximum((a * a).sum(1)[:, None] + (b * b).sum(1)[None, :] - 2 * a @ b.T, 0)
    return np.exp(-d2 / (2 * w)) if kind == "rbf" else np.exp(-np.sqrt(d2) / w)


def ritz(lam, b, m):
    v = np.sqrt(lam) * b
    v /= np.linalg.norm(v)
    basis, alpha, beta = [v], [], []
    for _ in range(m):
        w = lam * basis[-1]
        alpha.append(w @ basis[-1])
        for q in basis:  # full reorthogonalisation
            w = w - (w @ q) * q
        beta.append(np.linalg.norm(w))
        basis.append(w / beta[-1])
    t = np.diag(alpha) + np.diag(beta[:-1], 1) + np.diag(beta[:-1], -1)
    return np.sort(np.linalg.eigvalsh(t))[::-1]


def s_of(theta, lam):
    lam = np.asarray(lam, float)
    q, acc = np.ones_like(lam), np.zeros_like(lam)
    for t in theta:
        acc += q / t
        q = q * (1 - lam / t)
    return acc


def run(path, ycol, n, kind, w, ms, ranks, rng):
    data = np.genfromtxt(path, delimiter=",", skip_header=1)
    y, x = data[:, ycol], np.delete(data, ycol, 1)
    idx = rng.permutation(len(data))
    train, test = idx[:n], idx[n:n + 200]
    x = (x - x[train].mean(0)) / x[train].std(0)
    k = kernel(x[train], x[train], kind, w)
    c = np.eye(n) - 1.0 / n
    kx = kernel(x[test], x[train], kind, w) - k.mean(0)[None, :]
    kx -= kx.mean(1)[:, None]  # centred kernel rows
    lam, v = np.linalg.eigh(c @ k @ c)
    lam, v = np.maximum(lam[::-1], 0), v[:, ::-1]
    a = kx @ v
    b = v.T @ (y[train] - y[train].mean())
    for m in ms:
        theta = ritz(lam, b, m)
        s, s0 = s_of(theta, lam), s_of(theta, 0.0)
        exact = (a ** 2 * s[None, :] ** 2).sum(1)
        below = int((lam > theta[-1]).sum())
        print(f"{path.split('/')[-1]} {kind} w={w} n={n} m={m}: θ_min = {theta[-1]:.3g} = λ_{below + 1}")
        if np.abs(s * lam).max() > 1e6:
            # |q_m(λ)| = |1 − λ·s_m(λ)| this large at the top eigenvalues
            # cancels in float64: the spectral sums, the oracle included,
            # have lost their digits.
            print(f"  max |q_m(λ_i)| = {np.abs(1 - s * lam).max():.1e}: float64 cannot evaluate the spectral form here")
            continue
        for r in ranks:
            e2 = np.maximum((kx ** 2).sum(1) - (a[:, :r] ** 2).sum(1), 0)
            approx = s0 ** 2 * (kx ** 2).sum(1) + (a[:, :r] ** 2 * (s[:r] ** 2 - s0 ** 2)[None, :]).sum(1)
            grid = np.linspace(0, lam[r], 2000)
            bound = 0.5 * np.abs(s_of(theta, grid) ** 2 - s0 ** 2).max() * e2 / exact
            err = np.abs(np.sqrt(approx / exact) - 1)
            print(f"  r={r:4d}  λ_(r+1)/θ_min={lam[r] / theta[-1]:8.3g}  error median {np.median(err):.1e} max {err.max():.1e}"
                  f"  bound median {np.median(bound):.1e}  points the bound passes at 1 %: {np.mean(bound < 0.01):.0%}")


def main():
    shared = sys.argv[1] if len(sys.argv) > 1 else "../shared/data"
    rng = np.random.default_rng(1)
    kin, protein = f"{shared}/kin8nm.csv", f"{shared}/protein.csv"
    run(kin, 8, 2000, "rbf", 2.0, [10, 30], [100, 200, 400, 800], rng)
    run(kin, 8, 2000, "laplacian", 2.83, [10, 30], [100, 200, 400, 800], rng)
    run(protein, 0, 2000, "laplacian", 1.5, [6], [100, 200, 400, 800], rng)


if __name__ == "__main__":
    main()

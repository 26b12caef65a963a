"""NumPy code with in-place updates, run unchanged on graphc: eagerly and as a gc.function.

Each kernel is ordinary NumPy code taking its module as ``xp``; it runs on NumPy, on
graphc tensors eagerly, and traced by ``gc.function``, and every result and every array
it wrote into is compared with NumPy's.
"""

import numpy as np

import graphc as gc
import graphc.numpy as gnp


def jacobi_1d(xp, A, B, steps):
    for _ in range(steps):  # a Python int: unrolled while tracing
        B[1:-1] = (A[:-2] + A[1:-1] + A[2:]) / 3
        A[1:-1] = (B[:-2] + B[1:-1] + B[2:]) / 3


def mvt(xp, x1, x2, y1, y2, A):
    x1 += A @ y1  # writes into the caller's arrays
    x2 += y2 @ A


def clip_rows(xp, M):
    for row in (M[0], M[-1]):  # views: writing them writes M
        row[row < 0] = 0
    M.T[1] *= -1  # through a transpose


def _on_graphc(kernel, static):
    def run(*arrays):
        return kernel(gnp, *arrays, *static)
    run.__name__ = kernel.__name__
    return run


def main():
    rng = np.random.default_rng(0)
    cases = [
        (jacobi_1d, [rng.random(10), np.zeros(10)], (4,)),
        (mvt, [np.zeros(4), np.zeros(4), rng.random(4), rng.random(4), rng.random((4, 4))], ()),
        (clip_rows, [rng.standard_normal((3, 4))], ()),
    ]
    for kernel, arrays, static in cases:
        want = [a.copy() for a in arrays]
        kernel(np, *want, *static)
        eager = [gnp.array(a) for a in arrays]
        kernel(gnp, *eager, *static)
        traced = [a.copy() for a in arrays]
        gc.function(_on_graphc(kernel, static))(*traced)
        for w, e, t in zip(want, eager, traced):
            np.testing.assert_allclose(e.numpy(), w, rtol=1e-12)
            np.testing.assert_allclose(t, w, rtol=1e-12)
        print(f"{kernel.__name__}: eager and gc.function wrote NumPy's values")


if __name__ == "__main__":
    main()

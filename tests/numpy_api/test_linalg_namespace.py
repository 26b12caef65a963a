"""``gnp.linalg`` as a namespace: every name of ../shared/api_targets/numpy.linalg.txt
exists (and ``LinAlgError`` is NumPy's class too), and the names NumPy 2 repeats from
its main namespace (``matmul``, ``outer``, ``tensordot``, ``trace``, ``diagonal``,
``cross``, ``vecdot``, ``matrix_transpose``) follow ``numpy.linalg``'s spellings,
eagerly, traced and compiled (exact for ints, 1e-12 relative for float64)."""

from __future__ import annotations

import numpy as np
import pytest
from linalg_helpers import close, compiling, tall

import graphc as gc
import graphc.numpy as gnp

NAMES = ("cholesky cond cross det diagonal eig eigh eigvals eigvalsh inv lstsq matmul "
         "matrix_norm matrix_power matrix_rank matrix_transpose multi_dot norm outer pinv qr "
         "slogdet solve svd svdvals tensordot tensorinv tensorsolve trace vecdot "
         "vector_norm").split()


def test_every_numpy_linalg_name_exists():
    assert len(NAMES) == 31
    missing = [n for n in NAMES if not callable(getattr(gnp.linalg, n, None))]
    assert not missing, missing
    assert issubclass(gnp.linalg.LinAlgError, np.linalg.LinAlgError)
    assert issubclass(gnp.linalg.LinAlgError, gc.errors.InvalidArgumentError)


X = tall((2, 3, 3))
XI = np.arange(18).reshape(2, 3, 3) - 7
V3 = tall((4, 3))
VC = tall((4, 3), np.complex128)

CASES = {
    "matmul": (lambda lib, a, b: lib.linalg.matmul(a, b), (X, X)),
    "matmul_int": (lambda lib, a, b: lib.linalg.matmul(a, b), (XI, XI[0])),
    "outer": (lambda lib, a, b: lib.linalg.outer(a, b), (V3[0], V3[1])),
    "tensordot": (lambda lib, a, b: lib.linalg.tensordot(a, b, axes=1), (X, V3.T)),
    "tensordot_pairs": (lambda lib, a, b: lib.linalg.tensordot(a, b, axes=([1, 2], [0, 1])),
                        (X, X[0])),
    "trace": (lambda lib, a: lib.linalg.trace(a), (X,)),
    "trace_offset": (lambda lib, a: lib.linalg.trace(a, offset=1), (XI,)),
    "trace_dtype": (lambda lib, a: lib.linalg.trace(a, dtype=np.int32), (XI,)),
    "diagonal": (lambda lib, a: lib.linalg.diagonal(a), (X,)),
    "diagonal_offset": (lambda lib, a: lib.linalg.diagonal(a, offset=1), (XI,)),
    "diagonal_negative": (lambda lib, a: lib.linalg.diagonal(a, offset=-2), (X,)),
    "diagonal_wide": (lambda lib, a: lib.linalg.diagonal(a, offset=-1), (tall((3, 5)),)),
    "cross": (lambda lib, a, b: lib.linalg.cross(a, b), (V3, V3[::-1])),
    "cross_int": (lambda lib, a, b: lib.linalg.cross(a, b), (XI[0], XI[1, 0])),
    "cross_axis": (lambda lib, a, b: lib.linalg.cross(a, b, axis=0), (V3.T, V3.T[:, ::-1])),
    "vecdot": (lambda lib, a, b: lib.linalg.vecdot(a, b), (V3, V3[::-1])),
    "vecdot_axis": (lambda lib, a, b: lib.linalg.vecdot(a, b, axis=0), (V3, V3)),
    "vecdot_int": (lambda lib, a, b: lib.linalg.vecdot(a, b), (XI.astype(np.int32), XI[0])),
    "vecdot_complex": (lambda lib, a, b: lib.linalg.vecdot(a, b), (VC, VC[::-1])),
    "matrix_transpose": (lambda lib, a: lib.linalg.matrix_transpose(a), (X,)),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_matches_numpy(name):
    fn, args = CASES[name]
    want = fn(np, *args)
    close(fn(gnp, *args), want)
    close(gc.function(lambda *a: fn(gnp, *a))(*args), want)


def test_compiled(tmp_path):
    real = {k: v for k, v in CASES.items() if "complex" not in k}
    with compiling(tmp_path):
        fn = gc.function(lambda: [f(gnp, *a) for f, a in real.values()], jit_compile=True)
        got = fn()
        assert "backend: numba" in fn.explain()
    for g, (f, a) in zip(got, real.values()):
        close(g, f(np, *a))


@pytest.mark.parametrize("call, match", [
    (lambda: gnp.linalg.outer(X, V3[0]), "one-dimensional"),
    (lambda: gnp.linalg.matrix_transpose(V3[0]), "at least 2-dimensional"),
    (lambda: gnp.linalg.trace(V3[0]), "two dimensions"),
    (lambda: gnp.linalg.diagonal(V3[0]), "two dimensions"),
    (lambda: gnp.linalg.cross(V3[:, :2], V3), "3-dimensional vectors"),
])
def test_errors_are_numpys(call, match):
    with pytest.raises(ValueError, match=match):
        call()


def test_gradients_of_the_compositions():
    x = gc.constant(tall((3, 3)))
    with gc.GradientTape() as tape:
        tape.watch(x)
        y = (gnp.sum(gnp.linalg.diagonal(x, offset=1)) + gnp.linalg.trace(x)
             + gnp.sum(gnp.linalg.cross(x, x[::-1])) + gnp.sum(gnp.linalg.vecdot(x, x)))
    g = tape.gradient(y, x).numpy()
    a = x.numpy()
    want = np.eye(3, k=1) + np.eye(3) + 2 * a
    # cross(x, flip(x)): d/dx of sum(cross(a, b)) with b = a[::-1]
    ones = np.ones(3)
    want += np.cross(a[::-1], ones) + np.cross(ones, a)[::-1]
    np.testing.assert_allclose(g, want, rtol=1e-12, atol=1e-12)

"""``gnp.linalg``'s solvers against NumPy: ``cholesky``, ``inv``, ``solve``, ``det``,
``slogdet``: eagerly, traced (interpreter) and compiled, over float32/float64/int/complex
and stacks; NumPy's errors; gradients through whole computations; ``vectorized_map``.

Tolerances: float64 1e-12 relative (the interpreter runs NumPy itself; compiled float64
is LAPACK's result, equal to NumPy's on these matrices), float32 1e-5.
"""

from __future__ import annotations

import numpy as np
import pytest
from linalg_helpers import RNG, close, compiling, numeric_grad, spd

import graphc as gc
import graphc.numpy as gnp


@pytest.fixture(scope="module")
def compiled(tmp_path_factory):
    with compiling(tmp_path_factory.mktemp("linalg-cache")):
        yield


CASES = {
    "cholesky": lambda lib, a, b: lib.linalg.cholesky(a),
    "cholesky_upper": lambda lib, a, b: lib.linalg.cholesky(a, upper=True),
    "inv": lambda lib, a, b: lib.linalg.inv(a),
    "solve": lambda lib, a, b: lib.linalg.solve(a, b),
    "solve_vector": lambda lib, a, b: lib.linalg.solve(a, b[..., 0]),
    "det": lambda lib, a, b: lib.linalg.det(a),
    "slogdet": lambda lib, a, b: tuple(lib.linalg.slogdet(a)),
}


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int64, np.complex128,
                                   np.complex64])
@pytest.mark.parametrize("batch", [(), (2,), (2, 1)], ids=["2d", "stack", "stack2"])
@pytest.mark.parametrize("name", sorted(CASES))
def test_matches_numpy_eager_and_traced(name, batch, dtype):
    if np.dtype(dtype).kind == "i":
        a = np.array([[4, 1, 0], [1, 3, 1], [0, 1, 2]]) * np.ones(batch + (1, 1), np.int64)
        b = np.arange(6).reshape(3, 2) * np.ones(batch + (1, 1), np.int64)
    else:
        a = spd(3, batch, dtype)
        b = RNG.normal(size=batch + (3, 2)).astype(dtype)
    if name == "solve_vector" and batch:
        b = b[(0,) * len(batch)]  # one vector for the whole stack (NumPy 2)
    fn = CASES[name]
    want = fn(np, a, b)
    eager = fn(gnp, a, b)
    traced = gc.function(lambda x, y: fn(gnp, x, y))(a, b)
    for got in (eager, traced):
        for g, w in zip(got if isinstance(want, tuple) else [got],
                        want if isinstance(want, tuple) else [want]):
            close(g, w)


def test_solve_broadcasts_stacks():
    a, b = spd(3, (2, 1)), RNG.normal(size=(4, 3, 2))
    close(gnp.linalg.solve(a, b), np.linalg.solve(a, b))
    close(gc.function(gnp.linalg.solve)(a, b), np.linalg.solve(a, b))


def test_npbench_complex128():
    """NPBench's kernels: ``cholesky(A)``, ``inv(Tz)``, ``solve(Tz, Y)`` on complex128."""
    a = spd(4, dtype=np.complex128)
    y = RNG.normal(size=(4, 3)) + 1j * RNG.normal(size=(4, 3))

    @gc.function
    def kernel(a, y):
        return gnp.linalg.cholesky(a), gnp.linalg.inv(a), gnp.linalg.solve(a, y)

    for got, want in zip(kernel(a, y), (np.linalg.cholesky(a), np.linalg.inv(a),
                                        np.linalg.solve(a, y))):
        close(got, want)


def test_float16_is_refused_as_numpy_does():
    with pytest.raises(TypeError, match="float16"):
        np.linalg.inv(np.eye(2, dtype=np.float16))
    with pytest.raises(TypeError, match="float16"):
        gnp.linalg.inv(np.eye(2, dtype=np.float16))


# --------------------------------------------------------------------------- errors
SINGULAR = np.array([[1.0, 2.0], [2.0, 4.0]])


@pytest.mark.parametrize("call", [lambda x: gnp.linalg.inv(x),
                                  lambda x: gnp.linalg.solve(x, np.ones(2)),
                                  lambda x: gnp.linalg.cholesky(x - 3 * np.eye(2))],
                         ids=["inv", "solve", "cholesky"])
@pytest.mark.parametrize("how", ["eager", "traced", "compiled"])
def test_singular_raises_linalgerror(call, how, compiled):
    fn = {"eager": call, "traced": gc.function(call, backend="numpy"),
          "compiled": gc.function(call, jit_compile=True)}[how]
    with pytest.raises(np.linalg.LinAlgError) as info:
        fn(SINGULAR)
    assert isinstance(info.value, gnp.linalg.LinAlgError)
    assert isinstance(info.value, gc.errors.InvalidArgumentError)


@pytest.mark.parametrize("name", ["cholesky", "inv", "det", "slogdet", "eigh", "eigvalsh",
                                  "eig", "eigvals", "matrix_power"])
def test_non_square_raises_linalgerror(name):
    fn = getattr(gnp.linalg, name)
    args = (2,) if name == "matrix_power" else ()
    with pytest.raises(np.linalg.LinAlgError, match="square"):
        getattr(np.linalg, name)(np.ones((2, 3)), *args)
    with pytest.raises(gnp.linalg.LinAlgError, match="square"):
        fn(np.ones((2, 3)), *args)
    with pytest.raises(gnp.linalg.LinAlgError, match="square"):  # while tracing
        gc.function(lambda x: fn(x, *args))(np.ones((2, 3)))
    with pytest.raises(gnp.linalg.LinAlgError, match="two-dimensional"):
        fn(np.ones(3), *args)


def test_solve_shape_mismatch_is_a_valueerror():
    with pytest.raises(ValueError):
        gnp.linalg.solve(np.eye(3), np.ones((4, 2)))


# --------------------------------------------------------------------------- compiled
def _all_solvers(a, b):
    return (gnp.linalg.cholesky(a), gnp.linalg.cholesky(a, upper=True), gnp.linalg.inv(a),
            gnp.linalg.solve(a, b), gnp.linalg.solve(a[0], b[0, :, 0]), gnp.linalg.det(a),
            *gnp.linalg.slogdet(a), gnp.linalg.det(a[0]))


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_compiled_matches_numpy(dtype, compiled):
    a, b = spd(3, (2,), dtype), RNG.normal(size=(2, 3, 2)).astype(dtype)
    fn = gc.function(_all_solvers, jit_compile=True)
    got = fn(a, b)
    assert "backend: numba" in fn.explain(a, b)
    want = (np.linalg.cholesky(a), np.linalg.cholesky(a, upper=True), np.linalg.inv(a),
            np.linalg.solve(a, b), np.linalg.solve(a[0], b[0, :, 0]), np.linalg.det(a),
            *np.linalg.slogdet(a), np.linalg.det(a[0]))
    for g, w in zip(got, want):
        close(g, w)


def test_compiled_int_operands_promote(compiled):
    a = np.array([[4, 1], [1, 3]], np.int32)
    fn = gc.function(lambda x: (gnp.linalg.inv(x), gnp.linalg.det(x)), jit_compile=True)
    inv, det = fn(a)
    close(inv, np.linalg.inv(a))
    close(det, np.linalg.det(a))


# --------------------------------------------------------------------------- gradients
def _gaussian_nll(lib, x, y):
    """A Gaussian negative log-likelihood with covariance ``x x.T + I``."""
    cov = x @ x.T + lib.eye(3)
    chol = lib.linalg.cholesky(cov)
    z = lib.linalg.solve(chol, y)
    return 0.5 * lib.sum(z * z) + lib.linalg.slogdet(cov)[1] + lib.log(
        lib.abs(lib.linalg.det(lib.linalg.inv(cov))))


@pytest.mark.parametrize("how", ["eager", "traced", "compiled"])
def test_gradient_through_a_likelihood(how, compiled):
    x, y = RNG.normal(size=(3, 3)), RNG.normal(size=(3, 2))

    def grad(x):
        with gc.GradientTape() as tape:
            tape.watch(x)
            loss = _gaussian_nll(gnp, x, y)
        return tape.gradient(loss, x)

    fn = {"eager": lambda v: grad(gc.constant(v)), "traced": gc.function(grad, backend="numpy"),
          "compiled": gc.function(grad, jit_compile=True)}[how]
    want = numeric_grad(lambda v: _gaussian_nll(np, v, y), x)
    np.testing.assert_allclose(fn(x).numpy(), want, rtol=1e-6, atol=1e-7)


# --------------------------------------------------------------------------- batching
@pytest.mark.parametrize("name", ["cholesky", "inv", "det", "solve"])
def test_vectorized_map(name):
    a, b = spd(3, (4,)), RNG.normal(size=(4, 3))
    if name == "solve":
        got = gc.vectorized_map(lambda t: gnp.linalg.solve(t[0], t[1]), (a, b))
        want = np.stack([np.linalg.solve(a[i], b[i]) for i in range(4)])
    else:
        got = gc.vectorized_map(getattr(gnp.linalg, name), a)
        want = np.stack([getattr(np.linalg, name)(a[i]) for i in range(4)])
    close(got, want)

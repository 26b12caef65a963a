"""gc.linalg's new ops and the namespace as a whole: the 47 names of the target list,
docstrings, lazy loading; compiled programs (jit_compile=True) agreeing with the
interpreter; gradients against finite differences; gc.vectorized_map against a loop."""

from __future__ import annotations

import json
import pathlib
import subprocess
import sys

import numpy as np
import pytest
from tf_linalg_helpers import RNG, compiling, general, numeric_grad, tape_grad, tri

import graphc as gc
from graphc.core.registry import bind
from graphc.ops.linalg_tf import LOGM

L = gc.linalg
TARGETS = pathlib.Path(__file__).resolve().parents[3] / "shared/api_targets/tf.linalg.txt"
NAMES = [ln.strip() for ln in TARGETS.read_text().splitlines()
         if ln.strip() and not ln.startswith("#")] if TARGETS.is_file() else []


def test_every_listed_name_exists_with_a_docstring():
    assert len(NAMES) == 47
    for name in NAMES:
        assert getattr(L, name).__doc__, name


def test_lazy_loading():
    code = ("import json, sys, graphc; a = 'graphc.linalg' in sys.modules; "
            "import graphc as gc; gc.linalg.lu; "
            "print(json.dumps([a, 'graphc.linalg' in sys.modules, 'scipy' in sys.modules]))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=300)
    assert json.loads(out.stdout.strip().splitlines()[-1]) == [False, True, False]


def test_compiled_agrees(tmp_path):
    a, b = tri(3, batch=(2,)), RNG.normal(size=(3, 2))
    m = general((2, 4, 4)) + RNG.normal(size=(2, 4, 4)) * 3

    def fn(a, b, m):
        lu, p = L.lu(m)
        return (L.triangular_solve(a, b), L.triangular_solve(a, b, lower=False, adjoint=True),
                lu, p, L.lu_solve(lu, p, m[..., :2]), L.cholesky_solve(a, b),
                L.diag_part(m, k=(-1, 1)), L.band_part(m, 1, 0),
                L.norm(m, ord=1, axis=(-2, -1)))

    want = gc.function(fn, backend="numpy")(a, b, m)
    with compiling(tmp_path):
        got = gc.function(fn, jit_compile=True)(a, b, m)
        got32 = gc.function(fn, jit_compile=True)(*(x.astype(np.float32) for x in (a, b, m)))
    for g, w, g32 in zip(got, want, got32):
        np.testing.assert_allclose(g.numpy(), w.numpy(), rtol=1e-12, atol=1e-12)
        assert g32.dtype == (np.float32 if w.dtype.kind == "f" else w.dtype)
        np.testing.assert_allclose(g32.numpy(), w.numpy(), rtol=2e-5, atol=2e-5)


@pytest.mark.parametrize("lower", [True, False])
@pytest.mark.parametrize("adjoint", [False, True])
def test_triangular_solve_gradient(lower, adjoint):
    a, b = tri(3), RNG.normal(size=(3, 2))
    seed = RNG.normal(size=(3, 2))

    def obj_a(x):
        return float(np.sum(seed * L.triangular_solve(x, b, lower, adjoint).numpy()))

    def obj_b(y):
        return float(np.sum(seed * L.triangular_solve(a, y, lower, adjoint).numpy()))

    ga = tape_grad(lambda t: L.triangular_solve(t, b, lower, adjoint), a, seed)
    gb = tape_grad(lambda t: L.triangular_solve(a, t, lower, adjoint), b, seed)
    np.testing.assert_allclose(ga, numeric_grad(obj_a, a), rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(gb, numeric_grad(obj_b, b), rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("name", ["lu", "lu_solve", "expm", "sqrtm", "logm"])
def test_gradients(name):
    x = general((3, 3))
    b = RNG.normal(size=(3, 2))
    if name == "sqrtm":
        x = x @ x.T
    fns = {"lu": lambda t: L.lu(t).lu, "lu_solve": lambda t: L.lu_solve(*L.lu(t), b),
           "expm": L.expm, "sqrtm": L.sqrtm,
           # logm is complex-only in TensorFlow; the op itself takes real matrices
           "logm": lambda t: bind(LOGM, t)}
    fn = fns[name]
    seed = RNG.normal(size=np.shape(fn(x).numpy()))
    got = tape_grad(fn, x, seed)
    want = numeric_grad(lambda v: float(np.sum(seed * fn(v).numpy())), x)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-7)


def test_gradient_inside_function():
    x, seed = general((3, 3)) * 0.3, RNG.normal(size=(3, 3))

    @gc.function(backend="numpy")
    def grad(t):
        with gc.GradientTape() as tape:
            tape.watch(t)
            y = gc.reduce_sum(L.expm(t) * seed)
        return tape.gradient(y, t)

    want = numeric_grad(lambda v: float(np.sum(seed * L.expm(v).numpy())), x)
    np.testing.assert_allclose(grad(x).numpy(), want, rtol=1e-5, atol=1e-7)


@pytest.mark.parametrize("name", ["triangular_solve", "lu", "expm", "lu_solve", "diag_part"])
def test_vectorized_map_matches_a_loop(name):
    xs = general((3, 3, 3))
    b = RNG.normal(size=(3, 2))
    fns = {"triangular_solve": lambda t: L.triangular_solve(t, b, lower=False),
           "lu": lambda t: L.lu(t).lu, "expm": L.expm,
           "lu_solve": lambda t: L.lu_solve(*L.lu(t), b),
           "diag_part": lambda t: L.diag_part(t, k=(-1, 1))}
    fn = fns[name]
    got = gc.vectorized_map(fn, gc.constant(xs)).numpy()
    want = np.stack([fn(x).numpy() for x in xs])
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)
    # a batched right-hand side too
    bs = RNG.normal(size=(3, 3, 2))
    got = gc.vectorized_map(lambda y: L.triangular_solve(xs[0], y), gc.constant(bs)).numpy()
    np.testing.assert_allclose(got, np.stack([L.triangular_solve(xs[0], y).numpy()
                                              for y in bs]), rtol=1e-12)

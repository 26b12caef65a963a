"""A ``concatenate`` whose parts are elementwise loops read by it alone: each loop stores
straight into its slab of the result (``ownership.Ownership.into_part``,
``kernels_join.part_region``) and the other parts are copied in by loops. Checked
exactly against NumPy: a staged stencil (the plan: no ``np.concatenate``, one result
array per step), later and negative axes, several loop parts and a part of another
dtype, a loop part read twice (not stored in place), and random concatenations
(hypothesis)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import graphc as gc
import graphc.numpy as gnp
from graphc.runtime.cpu import numba_cpu, runners

pytestmark = pytest.mark.usefixtures("eager_compile")


def stencil(xp, u):
    for _ in range(5):
        mid = u[1:-1] + 0.25 * (u[2:] - 2.0 * u[1:-1] + u[:-2])
        u = xp.concatenate([u[:1], mid, u[-1:]])
    return u


def _compiled(fn, *args):
    ex = numba_cpu.executor_for(gc.function(fn).get_concrete_function(*args).optimized_graph)
    assert ex.backend == "numba", ex.explain()
    return ex


def test_a_staged_stencil_stores_into_the_concatenation(compiled_only):
    u = np.sin(np.linspace(0.0, 3.0, 40))
    ex = _compiled(lambda u: stencil(gnp, u), u)
    src = ex.program.source
    assert "np.concatenate" not in src
    made = [ln for ln in src.splitlines() if "np.empty(" in ln]
    # the results only (loops write there), and the loop's empty spare (loop_reuse)
    assert made and all("_join" in ln or "_spare" in ln for ln in made)
    np.testing.assert_array_equal(ex([u])[0], stencil(np, u))


def joined(xp, x, k):
    a = xp.abs(x[:, :40]) * 0.5 + 1.0        # a loop part (rows of 40: a row loop)
    b = x[:, 3:5]                           # a view, copied in
    c = x[:, :7] * 2.0 - 1.0                # a second loop part
    return xp.concatenate([a, b, c, k], axis=-1)


def test_later_axis_several_loops_and_another_dtype(compiled_only):
    x = np.linspace(-1.0, 1.0, 3 * 45).reshape(3, 45)
    k = np.arange(6, dtype=np.int32).reshape(3, 2)
    ex = _compiled(lambda x, k: joined(gnp, x, k), x, k)
    assert ex.program.source.count("_join") > 0 and "np.concatenate" not in ex.program.source
    got, want = ex([x, k])[0], joined(np, x, k)
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(got, want)


def test_parts_on_the_first_axis_of_a_matrix(compiled_only):
    """Slabs of whole rows: the copied parts' loops run over every dim of the part."""
    x = np.arange(12.0).reshape(3, 4)

    def f(xp, x):
        return xp.concatenate([x[1:], xp.abs(x - 5.0) * 2.0, x[:1]], axis=0)

    ex = _compiled(lambda x: f(gnp, x), x)
    assert "_join" in ex.program.source and "np.concatenate" not in ex.program.source
    np.testing.assert_array_equal(ex([x])[0], f(np, x))


def test_a_loop_part_read_twice_goes_through_numpy(compiled_only):
    x = np.arange(24.0).reshape(2, 12)

    def f(xp, x):
        y = x * 3.0
        return xp.concatenate([x, y], axis=0), y

    ex = _compiled(lambda x: f(gnp, x), x)
    assert "np.concatenate" in ex.program.source
    for g, w in zip(ex([x]), f(np, x), strict=True):
        np.testing.assert_array_equal(g, w)


@st.composite
def concatenations(draw):
    nd = draw(st.integers(1, 3))
    axis = draw(st.integers(-nd, nd - 1))
    shape = [draw(st.integers(1, 4)) for _ in range(nd)]
    parts = []
    for _ in range(draw(st.integers(1, 4))):
        width = draw(st.integers(0, 3))
        parts.append((width, draw(st.sampled_from(["view", "loop", "int"]))))
    return nd, axis, shape, parts


@pytest.mark.filterwarnings("ignore::graphc.errors.RetracingWarning")  # a new function each
@settings(max_examples=8, deadline=None)  # each example compiles a program (~0.5 s)
@given(concatenations(), st.integers(0, 2**31))
def test_random_concatenations_agree_with_numpy(no_rerun, case, seed):
    nd, axis, shape, parts = case
    ax = axis % nd
    width = sum(w for w, _ in parts)
    full = list(shape)
    full[ax] = max(width, 1) + 2
    x = np.random.default_rng(seed).integers(-4, 5, full).astype(np.float64)

    def f(xp, x):
        pieces, at = [], 0
        for w, kind in parts:
            idx = tuple(slice(at, at + w) if d == ax else slice(None) for d in range(nd))
            piece = x[idx]
            pieces.append(piece * 2.0 + 1.0 if kind == "loop" else
                          (piece * 3.0).astype(xp.int32) if kind == "int" else piece)
            at += 1
        return xp.concatenate(pieces, axis=axis)

    ex = _compiled(lambda x: f(gnp, x), x)
    got, want = ex([x])[0], f(np, x)
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_array_equal(got, want)


@pytest.fixture(scope="module")
def no_rerun():
    """``compiled_only`` for the whole module (hypothesis takes no function-scoped
    fixtures): a compiled program that raises fails the test."""
    mp = pytest.MonkeyPatch()
    mp.setattr(runners, "run_graph", _raised)
    yield
    mp.undo()


def _raised(graph, arrays):
    raise AssertionError("the compiled program raised; the call went to the interpreter")

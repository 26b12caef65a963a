"""Random two-operand einsums whose labels are each free in one operand or summed over
both (kernels_linalg._as_products: one product, a product with its operands swapped so
that the result needs no transpose, or a loop of products over a run of leading free
labels) agree exactly with NumPy on small-integer values, for float and int dtypes."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import graphc as gc
import graphc.numpy as gnp
from graphc.runtime.cpu import kernels_linalg, numba_cpu, runners

pytestmark = pytest.mark.usefixtures("eager_compile")


@st.composite
def specs(draw):
    labels = draw(st.permutations("abcdefg"))
    nfa, nfb, nk = draw(st.integers(0, 3)), draw(st.integers(0, 2)), draw(st.integers(0, 2))
    fa, fb = list(labels[:nfa]), list(labels[nfa:nfa + nfb])
    ks = list(labels[nfa + nfb:nfa + nfb + nk])
    ta, tb = draw(st.permutations(fa + ks)), draw(st.permutations(fb + ks))
    out = draw(st.permutations(fa + fb))
    dims = {c: draw(st.integers(1, 4)) for c in labels}
    return "".join(ta), "".join(tb), "".join(out), dims


@settings(max_examples=8, deadline=None)  # each example compiles a program (~0.5 s)
@given(specs(), st.sampled_from([np.float64, np.float32, np.int32]), st.integers(0, 2**31))
def test_random_products_agree_with_numpy(monkeypatch_products, spec, dtype, seed):
    ta, tb, out, dims = spec
    rng = np.random.default_rng(seed)
    a = rng.integers(-3, 4, [dims[c] for c in ta]).astype(dtype)
    b = rng.integers(-3, 4, [dims[c] for c in tb]).astype(dtype)
    subscripts = f"{ta},{tb}->{out}"
    f = gc.function(lambda x, y: gnp.einsum(subscripts, x, y))
    ex = numba_cpu.executor_for(f.get_concrete_function(a, b).optimized_graph)
    assert ex.backend == "numba", ex.explain()
    got, want = ex([a, b])[0], np.einsum(subscripts, a, b)
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_array_equal(got, want, err_msg=subscripts)


def _raised(graph, arrays):
    raise AssertionError("the compiled program raised; the call went to the interpreter")


@pytest.fixture(scope="module")
def monkeypatch_products():
    """Every product size takes the loop of products (not only >= BATCHED_MIN), and a
    compiled program that raises fails the test (``compiled_only``'s rule for the
    whole module: hypothesis does not take function-scoped fixtures)."""
    mp = pytest.MonkeyPatch()
    mp.setattr(kernels_linalg, "BATCHED_MIN", 1)
    mp.setattr(runners, "run_graph", _raised)
    yield
    mp.undo()

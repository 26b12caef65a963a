"""GradientTape through in-place writes (SPEC section 12): eagerly and inside a
gc.function, against central finite differences (the oracle), including writes through
views and generated sequences of views and writes."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import graphc as gc
import graphc.numpy as gnp

X0 = np.array([0.5, -1.25, 2.0, 3.5, -0.75, 1.5])


def p_mixed(x):
    y = x * 1.0
    y[1] = 0.0                 # the overwritten element gets no gradient
    y += x * x
    y[2:] *= 3.0               # t[key] op= v: through a view
    return gnp.sum(y * gnp.arange(6.0))


def p_views(x):
    m = gnp.reshape(x * 1.0, (2, 3)).copy()  # traced, writes through a reshape raise
    row = m[1]
    row[::2] = x[:2] ** 2      # a write through a view reaches m
    col = m.T[:, 0]
    col *= 2.0                 # through a transposed view
    return gnp.sum(m * m) + gnp.sum(row)


def p_sort_fill(x):
    y = x * x
    y.sort()
    z = x * 1.0
    z[3:].fill(2.0)
    return gnp.sum(y * gnp.arange(6.0)) + gnp.sum(z * z)


def finite_differences(f, x0, eps=1e-6):
    out = np.zeros_like(x0)
    for i in range(x0.size):
        d = np.zeros_like(x0)
        d[i] = eps
        out[i] = (float(f(gnp.asarray(x0 + d))) - float(f(gnp.asarray(x0 - d)))) / (2 * eps)
    return out


def eager_gradient(f, x0):
    x = gnp.asarray(x0)
    with gc.GradientTape() as tape:
        tape.watch(x)
        loss = f(x)
    return tape.gradient(loss, x).numpy()


def traced_gradient(f, x0):
    @gc.function
    def grad(x):
        with gc.GradientTape() as tape:
            tape.watch(x)
            loss = f(x)
        return tape.gradient(loss, x)

    return grad(x0).numpy()


@pytest.mark.parametrize("f", [p_mixed, p_views, p_sort_fill])
def test_gradients_through_writes_match_finite_differences(f):
    want = finite_differences(f, X0)
    np.testing.assert_allclose(eager_gradient(f, X0), want, rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(traced_gradient(f, X0), want, rtol=1e-6, atol=1e-6)


def p_view_of_view(x):
    y = x * 1.0
    v = y[1:]
    w = v[::2]
    w[0] = x[0] * x[5]         # a view of a view: y and v see the write
    v *= x[1:]
    return gnp.sum(y * gnp.arange(6.0)) + gnp.sum(w)


def p_reshape_view(x):
    m = gnp.reshape(x * 1.0, (2, 3))  # eagerly NumPy says it is a view: a tape follows
    m[1, :2] = x[:2] * 3.0
    return gnp.sum(m) + gnp.sum((x * 1.0) * 0.0)


def test_writes_through_views_of_views_match_finite_differences():
    want = finite_differences(p_view_of_view, X0)
    np.testing.assert_allclose(eager_gradient(p_view_of_view, X0), want, rtol=1e-6)
    np.testing.assert_allclose(traced_gradient(p_view_of_view, X0), want, rtol=1e-6)


def test_eager_writes_through_a_reshape_view_match_finite_differences():
    np.testing.assert_allclose(eager_gradient(p_reshape_view, X0),
                               finite_differences(p_reshape_view, X0), rtol=1e-6)


STEP = st.tuples(st.sampled_from(["view", "set", "iadd", "imul", "read"]),
                 st.integers(0, 7), st.integers(0, 5), st.integers(1, 3))


def run_steps(steps, x):
    """A program of views of ``y = x * 1``, writes and reads; the loss weighs each read."""
    arrays, loss = [x * 1.0], 0.0
    for kind, which, a, c in steps:
        t = arrays[which % len(arrays)]
        n = t.shape[0]
        if kind == "view" and which % len(arrays) == 0:
            arrays.append(t[a % n:] if c != 3 else t[::-1])
        elif kind == "set":
            t[a % n] = x[a] * c
        elif kind == "iadd":
            t += x[: t.shape[0]] * 0.5 if t.shape[0] <= x.shape[0] else 0.5
        elif kind == "imul":
            t *= float(c)
        else:
            loss = loss + gnp.sum(t * t) * c
    return loss + gnp.sum(arrays[0] * gnp.arange(6.0))


@settings(max_examples=25, deadline=None)
@given(st.lists(STEP, min_size=1, max_size=7))
def test_generated_writes_differentiate_like_finite_differences(steps):
    def f(x):
        return run_steps(steps, x)

    want = finite_differences(f, X0)
    np.testing.assert_allclose(eager_gradient(f, X0), want, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(traced_gradient(f, X0), want, rtol=1e-5, atol=1e-5)

"""Generated programs of views, reads and in-place writes: NumPy, eager graphc and a traced
gc.function must agree on every value read and on the argument's final contents."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import graphc as gc
import graphc.numpy as gnp

# one step of a program: (kind, which array, three numbers that pick a key or a value)
STEP = st.tuples(st.sampled_from(["view", "set", "iadd", "imul", "read", "mask"]),
                 st.integers(0, 7), st.integers(-4, 4), st.integers(-4, 4),
                 st.integers(1, 3))


def _key(shape, a, b, c):
    """A basic key valid for ``shape``, chosen by ``a, b, c``."""
    if not shape:
        return ()
    n = shape[0]
    if n == 0:
        return slice(None)
    if a % 3 == 0:
        return a % n
    if a % 3 == 1:
        return slice(b % (n + 1), None, c)
    return (Ellipsis, slice(None, None, -1)) if len(shape) > 1 else slice(None, None, -c)


def interpret(xp, steps, base):
    """Run ``steps`` on ``base`` with the namespace ``xp``; the values read, in order."""
    arrays, reads = [base], []
    for kind, which, a, b, c in steps:
        x = arrays[which % len(arrays)]
        if kind == "view":
            arrays.append(x.T if a % 4 == 3 else x[_key(x.shape, a, b, c)])
        elif kind == "set":
            x[_key(x.shape, a, b, c)] = b
        elif kind == "iadd":
            x += a
        elif kind == "imul":
            x *= c
        elif kind == "mask":
            x[x > a] = b
        else:
            reads.append(x.sum() * 1)
    return tuple(reads) + (base * 1,)


@settings(max_examples=40, deadline=None)
@given(st.lists(STEP, min_size=1, max_size=8))
def test_views_and_writes_agree_with_numpy(steps):
    data = np.arange(12.0).reshape(3, 4) - 5
    want_arg = data.copy()
    want = interpret(np, steps, want_arg)
    eager_arg = gnp.array(data)
    eager = interpret(gnp, steps, eager_arg)
    traced_arg = data.copy()
    traced = gc.function(lambda x: interpret(gnp, steps, x))(traced_arg)
    for e, t, w in zip(eager, traced, want):
        np.testing.assert_array_equal(np.asarray(e), w)
        np.testing.assert_array_equal(np.asarray(t), w)
    np.testing.assert_array_equal(eager_arg.numpy(), want_arg)
    np.testing.assert_array_equal(traced_arg, want_arg)

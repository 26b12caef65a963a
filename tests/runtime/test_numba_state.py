"""Variables inside compiled programs (graphc/runtime/cpu/kernels_state.py).

Each case runs the same function on the compiled backend and on the interpreter
(``backend="numpy"``), each with its own fresh variables, and compares the results and
the variables' values after every call.
"""

from __future__ import annotations

import io
import warnings

import numpy as np
import pytest

import graphc as gc
from graphc import nest

pytestmark = pytest.mark.usefixtures("eager_compile")


def both(make, args_list, whole=True):
    """``make() -> (fn, variables)``; run fn compiled and interpreted on each args and
    compare outputs and variables. ``whole``: the compiled side is one program."""
    runs = []
    for backend in ("numba", "numpy"):
        fn, variables = make()
        f = gc.function(fn, backend=backend)
        outs = []
        with warnings.catch_warnings():
            warnings.simplefilter("error" if whole else "ignore", gc.errors.FallbackWarning)
            for args in args_list:
                out = f(*args)
                outs.append((nest.map_structure(np.asarray, out),
                             [v.numpy().copy() for v in variables]))
        runs.append((f, outs))
    (f, got), (_, want) = runs
    for (g_out, g_vars), (w_out, w_vars) in zip(got, want):
        for a, b in zip(nest.flatten(g_out)[0], nest.flatten(w_out)[0]):
            np.testing.assert_array_equal(a, b)
            assert np.asarray(a).dtype == np.asarray(b).dtype
        for a, b in zip(g_vars, w_vars):
            np.testing.assert_array_equal(a, b)
    if whole:
        runtime = f.get_concrete_function(*args_list[0]).runtime
        assert runtime.backend == "numba", runtime.reasons
        assert runtime.program.variables
    return f


def test_writes_in_a_loop_accumulate():
    def make():
        count = gc.Variable(0, dtype=gc.int64)
        total = gc.Variable(np.zeros(3, np.float32))

        def fn(n):
            i = 0
            while i < n:
                count.assign_add(1)
                total.assign_add(gc.cast(i, gc.float32) * np.array([1, 2, 3], np.float32))
                i += 1
            return count.read_value(), total.read_value()
        return fn, [count, total]
    both(make, [(gc.constant(5),), (gc.constant(3),), (gc.constant(0),)])


def test_reads_are_snapshots_and_assign_copies():
    def make():
        v = gc.Variable(np.arange(4.0))

        def fn(x):
            before = v.read_value()
            v.assign(x)
            after = v.read_value()
            v.assign_sub(1.0)
            return before, after, v.read_value()
        return fn, [v]
    x = np.array([5.0, 6.0, 7.0, 8.0])
    both(make, [(x,), (x * 2,)])

    v = gc.Variable(np.zeros(4))

    @gc.function
    def store(x):
        v.assign(x)
        return v.read_value() + 0.0

    store(x)
    x[0] = 100.0  # the caller's array changes (and stays writable): the variable keeps its copy
    assert v.numpy()[0] == 5.0


def test_casts_broadcasts_and_scalars():
    def make():
        grid = gc.Variable(np.zeros((2, 3), np.float32))
        n = gc.Variable(1.5)

        def fn(row, k):
            grid.assign_add(row)           # int64 row cast to float32, broadcast to (2, 3)
            grid.assign_sub(gc.cast(k, gc.float32))
            n.assign(k)                    # int32 -> float64 scalar
            return grid.read_value() * n.read_value()
        return fn, [grid, n]
    both(make, [(np.array([1, 2, 3]), np.int32(2)), (np.array([0, -1, 5]), np.int32(-3))])


def test_writes_in_branches():
    def make():
        hits = gc.Variable(np.zeros(2, np.int32))

        def fn(x):
            if x > 0:
                hits.assign_add(np.array([1, 0], np.int32))
            else:
                hits.assign_add(np.array([0, 1], np.int32))
            return hits.read_value()
        return fn, [hits]
    both(make, [(gc.constant(1.0),), (gc.constant(-1.0),), (gc.constant(2.0),)])


def test_output_sharing_the_variable_is_read_only():
    v = gc.Variable(np.zeros(3))

    @gc.function
    def fn(x):
        v.assign(x * 2.0)
        return v.read_value()

    out = np.asarray(fn(np.ones(3)))
    assert not out.flags.writeable
    np.testing.assert_array_equal(v.numpy(), [2.0, 2.0, 2.0])


def test_another_effect_keeps_variables_in_python_in_order():
    def make():
        v = gc.Variable(0)

        def fn(x):
            v.assign_add(1)
            gc.print("v is", v.read_value(), file=stream)
            v.assign_add(10)
            return x + v.read_value()
        return fn, [v]
    stream = io.StringIO()
    f = both(make, [(gc.constant(1),), (gc.constant(2),)], whole=False)
    assert stream.getvalue() == "v is 1\nv is 12\n" * 2  # compiled run, then interpreted
    runtime = f.get_concrete_function(gc.constant(1)).runtime
    assert runtime.backend in ("segments", "numpy")


def test_a_run_time_error_after_a_write_writes_once():
    v = gc.Variable(0)

    @gc.function(input_signature=[gc.TensorSpec([None], gc.float64)] * 2)
    def fn(a, b):
        v.assign_add(1)
        return a + b

    fn(np.ones(2), np.ones(2))
    assert fn.get_concrete_function().runtime.backend == "numba"
    with pytest.raises(gc.errors.InvalidArgumentError):
        fn(np.ones(2), np.ones(3))  # the program raises; the interpreter runs and raises
    assert int(v.numpy()) == 2


def test_unknown_dims_and_init_stay_in_python():
    v = gc.Variable(np.zeros(2), shape=[None])

    @gc.function
    def fn(x):
        v.assign(x)
        return v.read_value() + 1.0

    with pytest.warns(gc.errors.FallbackWarning, match="unknown dims"):
        out = fn(np.ones(3))
    np.testing.assert_array_equal(np.asarray(out), [2.0, 2.0, 2.0])

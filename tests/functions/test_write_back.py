"""Arguments a gc.function writes into hold NumPy's final values after the call (SPEC
section 12): NumPy arrays and tensors, nested in containers, on the interpreter and the
compiled backend, from an enclosing trace; read-only arrays raise NumPy's error."""

import warnings

import numpy as np
import pytest

import graphc as gc
import graphc.numpy as gnp
from graphc.runtime.cpu import numba_cpu


def kernel(x, A, y):  # NPBench's mvt-style updates, the way NumPy code writes them
    x += A @ y
    A[0, :] = x
    y[::2] *= 2


def expected(x, A, y):
    x, A, y = x.copy(), A.copy(), y.copy()
    kernel(x, A, y)
    return x, A, y


def inputs():
    return np.arange(3.0), np.arange(9.0).reshape(3, 3), np.array([1.0, -2.0, 0.5])


def check(got, want):
    for g, w in zip(got, want):
        np.testing.assert_array_equal(np.asarray(g), w)


def test_numpy_arguments_are_written_back_on_every_call():
    f = gc.function(kernel)
    args = inputs()
    want = expected(*args)
    assert f(*args) is None
    check(args, want)
    want = expected(*args)
    f(*args)  # the same trace, called again on the updated arrays
    check(args, want)
    assert f.experimental_get_tracing_count() == 1


def test_tensor_arguments_are_written_back():
    f = gc.function(kernel)
    args = [gnp.array(a) for a in inputs()]
    want = expected(*inputs())
    f(*args)
    check([a.numpy() for a in args], want)


def test_arguments_in_containers():
    @gc.function
    def f(pair, scale):
        a, b = pair
        a[0] = scale
        b[...] = a * 2
        return a.sum()

    a, b = np.zeros(2), np.zeros(2)
    total = f([a, b], 3.0)
    np.testing.assert_array_equal(a, [3, 0])
    np.testing.assert_array_equal(b, [6, 0])
    assert float(total) == 3.0


def test_written_and_returned():
    @gc.function
    def f(a):
        a[1] = 5
        return a, a * 2

    a = np.zeros(3)
    r, d = f(a)
    np.testing.assert_array_equal(a, [0, 5, 0])
    np.testing.assert_array_equal(r.numpy(), [0, 5, 0])
    np.testing.assert_array_equal(d.numpy(), [0, 10, 0])


def test_read_only_argument_raises_numpys_error():
    a = np.zeros(3)
    a.flags.writeable = False
    with pytest.raises(ValueError, match="read-only") as info:
        gc.function(kernel)(a, np.eye(3), np.ones(3))
    assert "'x'" in str(info.value)


def test_compiled_program_writes_back():
    before = numba_cpu.settings.mode
    numba_cpu.settings.mode = "eager"
    try:
        f = gc.function(kernel)
        args = inputs()
        want = expected(*args)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", gc.errors.FallbackWarning)
            f(*args)
        check(args, want)
    finally:
        numba_cpu.settings.mode = before


def test_a_function_called_inside_a_trace_writes_the_callers_tensor():
    inner = gc.function(kernel)

    @gc.function
    def outer(x, A, y):
        inner(x, A, y)
        return x * 1

    args = inputs()
    want = expected(*args)
    got = outer(*args)
    check(args, want)
    np.testing.assert_array_equal(got.numpy(), want[0])


def test_a_saved_function_writes_its_arguments_back_after_loading(tmp_path):
    f = gc.function(kernel)
    f.get_concrete_function(*inputs())
    gc.saved_model.save(f, str(tmp_path / "m"))
    loaded = gc.saved_model.load(str(tmp_path / "m")).functions["kernel"]
    args = inputs()
    want = expected(*args)
    assert loaded(*args) is None
    check(args, want)
    frozen = [a.copy() for a in inputs()]
    frozen[1].flags.writeable = False
    with pytest.raises(ValueError, match="read-only"):
        loaded(*frozen)


@pytest.mark.parametrize("backend", ["numpy", "numba"])
def test_returned_tuples_lists_and_literals_beside_written_arguments(backend):
    """A flat tuple of tensors is wrapped by the short path (``_tuple``): the values
    written back into arguments, which the program returns after the outputs, are not
    part of it; lists and Python numbers among the outputs keep their structure."""
    def pair(x, y):
        x += 1.0
        return x * 2.0, y - x

    def mixed(x, y):
        x += 1.0
        return [x * 2.0, 3], (y,)

    f, g = gc.function(pair, backend=backend), gc.function(mixed, backend=backend)
    x, y = np.arange(3.0), np.ones(3)
    got = f(x, y)
    assert type(got) is tuple and len(got) == 2 and f.get_concrete_function(x, y)._tuple
    check(got, [np.arange(1.0, 4.0) * 2.0, 1.0 - np.arange(1.0, 4.0)])
    check([x], [np.arange(1.0, 4.0)])  # written back
    x = np.arange(3.0)
    out = g(x, y)
    assert type(out) is tuple and type(out[0]) is list and out[0][1] == 3
    assert not g.get_concrete_function(x, y)._tuple
    check([out[0][0], out[1][0], x], [np.arange(1.0, 4.0) * 2.0, y, np.arange(1.0, 4.0)])

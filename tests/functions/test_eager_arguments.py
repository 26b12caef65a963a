"""``run_functions_eagerly(True)`` gives the body the arguments tracing gives it: NumPy
arrays as tensors (they used to arrive as ndarrays, so ``tape.watch(x)`` raised
``TypeError: GradientTape.watch takes tensors and gc.Variables, got ndarray``)."""

import collections

import numpy as np
import pytest

import graphc as gc

Pair = collections.namedtuple("Pair", "a b")


@pytest.fixture(params=[False, True], ids=["traced", "eager"])
def eagerly(request):
    gc.config.run_functions_eagerly(request.param)
    yield request.param
    gc.config.run_functions_eagerly(False)


def test_tape_watch_on_a_numpy_argument(eagerly):
    @gc.function
    def grad_of_square(x):
        with gc.GradientTape() as tape:
            tape.watch(x)
            y = gc.reduce_sum(x * x)
        return tape.gradient(y, x)

    x = np.array([1.0, 2.0, 3.0], np.float32)
    g = grad_of_square(x)
    assert isinstance(g, gc.Tensor) and g.dtype == np.float32
    np.testing.assert_allclose(g.numpy(), 2 * x)


def test_leaves_are_converted_as_tracing_converts_them(eagerly):
    seen = {}

    @gc.function
    def f(x, nested, n, s, scalar, kw=None):
        seen.update(x=type(x), a=type(nested["p"].a), b=type(nested["p"].b),
                    lst=[type(t) for t in nested["l"]], n=type(n), s=s,
                    scalar=type(scalar), kw=type(kw))
        return x.sum() + nested["p"].a.mean() * n

    x = np.arange(3.0)
    nested = {"p": Pair(np.ones(2), 2.5), "l": [np.zeros(1), gc.constant(1.0)]}
    out = f(x, nested, 3, "s", np.float64(2.0), kw=np.ones(1))
    assert float(out.numpy()) == 6.0
    assert seen == {"x": gc.Tensor, "a": gc.Tensor, "b": float, "lst": [gc.Tensor] * 2,
                    "n": int, "s": "s", "scalar": np.float64, "kw": gc.Tensor}


def test_writes_reach_the_callers_array(eagerly):
    @gc.function
    def bump(a):
        a[0] += 10.0
        return a * 2

    a = np.zeros(3)
    np.testing.assert_array_equal(bump(a).numpy(), [20.0, 0.0, 0.0])
    np.testing.assert_array_equal(a, [10.0, 0.0, 0.0])


def test_input_signature_converts_and_checks(eagerly):
    @gc.function(input_signature=[gc.TensorSpec([None], gc.float32)])
    def f(x):
        assert isinstance(x, gc.Tensor) and x.dtype == np.float32
        return x + 1

    np.testing.assert_array_equal(f([1, 2]).numpy(), [2.0, 3.0])
    np.testing.assert_array_equal(f(np.ones(2, np.float32)).numpy(), [2.0, 2.0])
    with pytest.raises(TypeError, match="does not match the input_signature"):
        f(np.ones((2, 2), np.float32))


def test_bad_array_arguments_get_the_traced_error(eagerly):
    @gc.function
    def f(x):
        return x

    with pytest.raises(TypeError, match="argument 'x': cannot convert a masked array"):
        f(np.ma.masked_array([1.0, 2.0], mask=[0, 1]))

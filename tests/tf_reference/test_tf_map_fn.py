"""TensorFlow's ``kernel_tests/control_flow/map_fn_test.py`` (``MapFnTest``) ported to
``gc.map_fn`` (see tests/tf_reference/README.md). Each case runs eagerly and inside a
``gc.function`` where TensorFlow ran it in both modes; expected values are worked out by
hand (the comment shows the arithmetic).
"""

from __future__ import annotations

import numpy as np
import pytest
from tfref import tensorflow, value

import graphc as gc

NUMS = np.array([1, 2, 3, 4, 5, 6])


def _run(mode, fn, *args):
    """``fn(*args)`` eagerly, or as a ``gc.function``."""
    return fn(*args) if mode == "eager" else gc.function(fn)(*args)


MODES = pytest.mark.parametrize("mode", ["eager", "function"])


@MODES
def test_map_simple(mode):
    r = _run(mode, lambda e: gc.map_fn(lambda x: (x + 3) * 2, e), gc.constant(NUMS))
    # (1+3)*2, (2+3)*2, ... (6+3)*2
    assert value(r).tolist() == [8, 10, 12, 14, 16, 18]


@MODES
def test_map_not_tensor(mode):
    # A NumPy array is converted, as a tensor would be.
    r = _run(mode, lambda: gc.map_fn(lambda x: (x + 3) * 2, NUMS))
    assert value(r).tolist() == [8, 10, 12, 14, 16, 18]


@MODES
def test_map_over_variable(mode):
    v = gc.Variable([1, 2])
    r = _run(mode, lambda: gc.map_fn(lambda x: x + 1, v))
    assert value(r).tolist() == [2, 3]


@pytest.mark.parametrize("elems", [[1, 2], 1], ids=["list_of_numbers", "number"])
def test_map_over_scalars_raises(elems):
    # A list of Python numbers is a nest of 0-d tensors: nothing to map over.
    with pytest.raises(ValueError, match="0-d"):
        gc.map_fn(lambda x: x, elems)


def test_map_over_empty_list_raises():
    with pytest.raises(ValueError, match="elems holds no tensors"):
        gc.map_fn(lambda x: x, [])


@MODES
def test_map_grad(mode):
    def grads(param, elems):
        with gc.GradientTape(persistent=True) as tape:
            tape.watch([param, elems])
            y = gc.map_fn(lambda x: x * x * param, elems)
        return tape.gradient(y, param), tape.gradient(y, elems)

    elems = gc.constant([1.0, 2.0, 3.0, 4.0, 5.0, 6.0])
    g_param, g_elems = _run(mode, grads, gc.constant(2.0), elems)
    # d/dparam sum(x^2 * param) = 1 + 4 + 9 + 16 + 25 + 36 = 91
    assert float(value(g_param)) == 91.0
    # d/dx (x^2 * 2) = 4x
    assert value(g_elems).tolist() == [4.0, 8.0, 12.0, 16.0, 20.0, 24.0]


def test_map_grad_graph_gradients():
    @gc.function
    def grads(param, elems):
        y = gc.map_fn(lambda x: x * x * param, elems)
        return gc.gradients(y, param)[0], gc.gradients(y, elems)[0]

    g_param, g_elems = grads(gc.constant(2.0), gc.constant([1.0, 2.0, 3.0]))
    assert float(value(g_param)) == 14.0  # 1 + 4 + 9
    assert value(g_elems).tolist() == [4.0, 8.0, 12.0]


@MODES
def test_single_input_multi_output(mode):
    r = _run(mode, lambda: gc.map_fn(lambda x: ((x + 3) * 2, -(x + 3) * 2), NUMS,
                                     dtype=(gc.int64, gc.int64)))
    assert isinstance(r, tuple) and len(r) == 2
    assert tuple(r[0].shape) == (6,) and tuple(r[1].shape) == (6,)
    assert value(r[0]).tolist() == [8, 10, 12, 14, 16, 18]
    assert value(r[1]).tolist() == [-8, -10, -12, -14, -16, -18]


@MODES
def test_multi_output_structure_differs_from_dtype(mode):
    # fn returns a tuple, the signature is a list: TensorFlow raises TypeError
    # ("two structures don't have the same nested structure"); graphc a ValueError.
    with pytest.raises((TypeError, ValueError), match="structure"):
        _run(mode, lambda: gc.map_fn(lambda x: ((x + 3) * 2, -(x + 3) * 2), NUMS,
                                     dtype=[gc.int64, gc.int64]))


def test_multi_output_structure_differs_from_dtype_is_type_error():
    with pytest.raises(TypeError):
        gc.map_fn(lambda x: ((x + 3) * 2, -(x + 3) * 2), NUMS, dtype=[gc.int64, gc.int64])


@MODES
def test_multi_input_single_output(mode):
    r = _run(mode, lambda: gc.map_fn(lambda x: x[0] * x[1][0] + x[1][1],
                                     (NUMS, (NUMS, -NUMS)), dtype=gc.int64))
    assert tuple(r.shape) == (6,)
    # n * n - n: 0, 2, 6, 12, 20, 30
    assert value(r).tolist() == [0, 2, 6, 12, 20, 30]


@MODES
def test_multi_input_same_structure_output(mode):
    r = _run(mode, lambda: gc.map_fn(lambda x: (x[1][0], (x[1][1], x[0])),
                                     (NUMS, (2 * NUMS, -NUMS))))
    flat = [r[0], r[1][0], r[1][1]]
    assert [tuple(t.shape) for t in flat] == [(6,)] * 3
    assert value(flat[0]).tolist() == [2, 4, 6, 8, 10, 12]
    assert value(flat[1]).tolist() == [-1, -2, -3, -4, -5, -6]
    assert value(flat[2]).tolist() == [1, 2, 3, 4, 5, 6]


def test_autograph_converts_fn_called_indirectly():
    def pick(x):
        cond = gc.constant(-1)
        if cond == 0:  # a tensor condition: AutoGraph turns it into a cond
            result = x * 10
        else:
            result = x + 1
        return result

    @gc.function
    def map_call(x):
        return gc.map_fn(pick, x)

    assert value(map_call(gc.constant([1, 5]))).tolist() == [2, 6]


@MODES
def test_static_shape_matches_value(mode):
    seen = []

    def f(x):
        y = gc.map_fn(lambda e: e, x)
        seen.append(tuple(y.shape))
        return y

    y = _run(mode, f, gc.constant([[1, 2, 3], [4, 5, 6]]))
    assert seen == [(2, 3)]
    assert value(y).shape == (2, 3)


def test_unknown_rank_input_gives_unknown_shape():
    seen = []

    @gc.function(input_signature=[gc.TensorSpec(None, gc.float32)])
    def f(x):
        y = gc.map_fn(lambda e: e, x)
        seen.append(y.shape)
        return y

    f.get_concrete_function()
    assert seen == [None]


def test_empty_input_scalar_result_in_function():
    @gc.function
    def f():
        return gc.map_fn(lambda x: 1, gc.constant([], dtype=gc.int32))

    r = f()
    assert r.dtype == gc.int32
    assert value(r).shape == (0,)


def test_empty_input_tensor_result_in_function():
    seen = []

    @gc.function
    def f():
        y = gc.map_fn(lambda x: gc.zeros([3, 2]), gc.constant([]))
        seen.append(tuple(y.shape))
        return y

    assert value(f()).shape == (0, 3, 2)
    assert seen == [(0, 3, 2)]


@MODES
def test_empty_input_with_output_signature(mode):
    # graphc's way to map over zero elements: state the result's shape.
    r = _run(mode, lambda: gc.map_fn(lambda x: gc.zeros([3, 2]), gc.constant([]),
                                     fn_output_signature=gc.TensorSpec([3, 2], gc.float32)))
    assert value(r).shape == (0, 3, 2)


# ------------------------------------------------------------- TensorFlow as a witness
def test_map_cases_tensorflow():
    tf = tensorflow()
    assert tf.map_fn(lambda x: (x + 3) * 2, tf.constant(NUMS)).numpy().tolist() == [
        8, 10, 12, 14, 16, 18]
    with pytest.raises(ValueError, match="not scalars"):
        tf.map_fn(lambda x: x, [1, 2])
    with pytest.raises(TypeError, match="structure"):
        tf.map_fn(lambda x: ((x + 3) * 2, -(x + 3) * 2), NUMS, dtype=[tf.int64, tf.int64])
    f = tf.function(lambda: tf.map_fn(lambda x: tf.zeros([3, 2]), tf.constant([])))
    assert f().shape == (0, 3, 2)
    g = tf.function(lambda x: tf.map_fn(lambda e: e, x),
                    input_signature=[tf.TensorSpec(None, tf.float32)])
    assert g.get_concrete_function().outputs[0].shape.rank is None

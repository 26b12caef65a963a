"""Error paths of the core API (SPEC section 1): every error names the op (or the
function) and, for errors found while an op runs or is traced, the user's own source line,
here this file. No error is a bare NumPy message."""

from __future__ import annotations

import os
import sys

import numpy as np
import pytest

import graphc as gc
import graphc.numpy as gnp
from graphc.errors import InvalidArgumentError, InvalidIndexError, SymbolicTensorError

THIS_FILE = os.path.basename(__file__)


def here() -> int:
    """The caller's line number: the next line is the one an error should point at."""
    return sys._getframe(1).f_lineno


def line_of(marker: str) -> int:
    """The line of this file holding ``# <marker>``: where a traced op was written."""
    with open(__file__) as f:
        hits = [i for i, text in enumerate(f, 1) if text.rstrip().endswith(f"# <{marker}>")]
    assert len(hits) == 1, marker
    return hits[0]


def assert_user_line(error, line):
    """The message names this test file and the line of the failing call."""
    assert f"{THIS_FILE}:{line}" in str(error), str(error)


def assert_clean(error):
    """A graphc error, not NumPy's chained underneath it."""
    assert error.__cause__ is None
    assert error.__suppress_context__ or error.__context__ is None


# --------------------------------------------------------------------------- gather
def test_gather_out_of_range_eager():
    params = gnp.arange(3)
    with pytest.raises(InvalidArgumentError) as info:
        line = here() + 1
        gc.gather(params, [5])
    e = info.value
    assert isinstance(e, ValueError)
    assert "gather" in str(e) and "5" in str(e) and "[0, 3)" in str(e)
    assert_user_line(e, line)
    assert_clean(e)


def test_gather_negative_index_is_an_error():
    # TensorFlow's rule: indices must be in [0, n), no negative wrap-around.
    with pytest.raises(InvalidArgumentError, match="gather"):
        gc.gather(gc.constant([1, 2, 3]), [-1])


def test_gather_out_of_range_traced():
    @gc.function
    def f(x, i):
        return gc.gather(x, i)  # <gather>

    with pytest.raises(InvalidArgumentError) as info:
        f(gnp.arange(3), gnp.asarray([7]))
    e = info.value
    assert isinstance(e, ValueError) and "gather" in str(e) and "while executing" in str(e)
    assert_user_line(e, line_of("gather"))


def test_index_out_of_range():
    with pytest.raises(InvalidIndexError) as info:
        line = here() + 1
        gnp.ones(3)[5]
    assert isinstance(info.value, IndexError) and isinstance(info.value, ValueError)
    assert "out of bounds" in str(info.value)
    assert_user_line(info.value, line)
    with pytest.raises(InvalidArgumentError, match="take"):
        gnp.take(gnp.ones(3), [7])
    with pytest.raises(InvalidArgumentError, match="tensor_scatter_nd_update"):
        gc.tensor_scatter_nd_update(gnp.zeros(3), [[5]], [1.0])


# --------------------------------------------------------------------------- shapes
def test_incompatible_broadcasting_eager():
    with pytest.raises(InvalidArgumentError) as info:
        line = here() + 1
        gnp.ones([2, 3]) + gnp.ones([2])
    msg = str(info.value)
    assert "add" in msg and "broadcast" in msg and "[2, 3]" in msg
    assert_user_line(info.value, line)
    assert_clean(info.value)
    with pytest.raises(InvalidArgumentError, match="multiply"):
        gnp.multiply(np.ones(2), np.ones(3))


def test_incompatible_broadcasting_traced():
    @gc.function
    def f(x, y):
        return x - y  # <subtract>

    with pytest.raises(InvalidArgumentError) as info:
        f(gnp.ones([2]), gnp.ones([3]))
    msg = str(info.value)
    assert "subtract" in msg and "broadcast" in msg
    assert_user_line(info.value, line_of("subtract"))


def test_broadcasting_with_unknown_dims_fails_at_run_time():
    @gc.function(input_signature=[gc.TensorSpec([None], gc.float64),
                                 gc.TensorSpec([None], gc.float64)])
    def f(x, y):
        return x + y  # <add-unknown>

    np.testing.assert_array_equal(f(gnp.ones(2), gnp.ones(2)).numpy(), [2.0, 2.0])
    with pytest.raises(InvalidArgumentError) as info:
        f(gnp.ones(2), gnp.ones(3))
    assert "add" in str(info.value) and "while executing" in str(info.value)
    assert_user_line(info.value, line_of("add-unknown"))


def test_matmul_shape_mismatch():
    with pytest.raises(InvalidArgumentError) as info:
        line = here() + 1
        gnp.ones([2, 3]) @ gnp.ones([2, 3])
    assert "matmul" in str(info.value)
    assert_user_line(info.value, line)

    @gc.function
    def f(a, b):
        return gc.matmul(a, b)  # <matmul>

    with pytest.raises(InvalidArgumentError) as info:
        f(gnp.ones([2, 3]), gnp.ones([4, 2]))
    assert "matmul" in str(info.value) and "3" in str(info.value) and "4" in str(info.value)
    assert_user_line(info.value, line_of("matmul"))
    with pytest.raises(InvalidArgumentError, match="matmul"):
        gnp.matmul(gnp.ones(()), gnp.ones(2))  # scalars are not matrices


def test_bad_reshape():
    with pytest.raises(InvalidArgumentError) as info:
        line = here() + 1
        gnp.reshape(gnp.ones(6), (4, 2))
    assert "reshape" in str(info.value) and "6" in str(info.value)
    assert_user_line(info.value, line)
    with pytest.raises(InvalidArgumentError, match="reshape"):
        gnp.ones(6).reshape(-1, -1)

    @gc.function
    def f(x):
        return gnp.reshape(x, (4, 2))  # <reshape>

    with pytest.raises(InvalidArgumentError, match="reshape") as info:
        f(gnp.ones(6))
    assert_user_line(info.value, line_of("reshape"))


def test_other_shape_errors():
    with pytest.raises(InvalidArgumentError, match="concatenate"):
        gnp.concatenate([gnp.ones((2, 2)), gnp.ones((3, 3))])
    with pytest.raises(InvalidArgumentError, match="stack"):
        gnp.stack([gnp.ones(2), gnp.ones(3)])
    with pytest.raises(InvalidArgumentError, match="split"):
        gnp.split(gnp.ones(5), 2)
    with pytest.raises(InvalidArgumentError, match="squeeze"):
        gnp.squeeze(gnp.ones((2, 2)), 0)
    with pytest.raises(InvalidArgumentError, match="broadcast_to"):
        gnp.broadcast_to(gnp.ones(3), (2, 2))
    with pytest.raises(InvalidArgumentError, match="sum"):
        gnp.sum(gnp.ones(3), axis=2)
    with pytest.raises(InvalidArgumentError, match="transpose"):
        gnp.transpose(gnp.ones((2, 3)), (0, 0))
    with pytest.raises(InvalidArgumentError, match="max"):
        gnp.max(gnp.ones(0))  # empty reduction without identity
    with pytest.raises(ValueError, match="negative dimension"):
        gnp.zeros((2, -1))


# --------------------------------------------------------------------------- types
@pytest.mark.parametrize("call,words", [
    (lambda: gnp.add("a", 1), ["add", "str"]),
    (lambda: gnp.add(object(), 1), ["add", "object"]),
    (lambda: gnp.asarray("abc"), ["str", "numbers"]),
    (lambda: gc.constant(["a", "b"]), ["list", "numbers"]),
    (lambda: gnp.reshape(gnp.ones(6), "ab"), ["shape", "int"]),
    (lambda: gnp.ones(2.5), ["shape", "int"]),
    (lambda: gnp.sum(gnp.ones(3), axis=1.5), ["sum"]),
    (lambda: gnp.einsum(1, gnp.ones(2)), ["einsum", "subscripts"]),
    (lambda: gnp.ones(3)[1.5], ["float", "indices"]),
    (lambda: gnp.ones(2) + "x", ["Tensor", "str"]),
    (lambda: gnp.log(np.array(["x"])), ["log"]),
    (lambda: gnp.bitwise_and(gnp.ones(2), gnp.ones(2)), ["bitwise_and"]),
    (lambda: gc.gather(gnp.ones(3), [0.5]), ["gather", "integer"]),
])
def test_wrong_argument_types(call, words):
    with pytest.raises(TypeError) as info:
        call()
    for w in words:
        assert w in str(info.value), str(info.value)


def test_ragged_list():
    with pytest.raises(ValueError, match="ragged"):
        gnp.asarray([[1, 2], [3]])
    with pytest.raises(ValueError, match="ragged"):
        gc.constant([[1.0], [2.0, 3.0]])


@pytest.mark.parametrize("call", [
    lambda: gnp.ones(2, dtype="floaty"),
    lambda: gnp.asarray([1], dtype="floaty"),
    lambda: gc.constant(1, dtype="floaty"),
    lambda: gc.cast(gnp.ones(2), "floaty"),
    lambda: gnp.ones(2).astype("floaty"),
    lambda: gc.zeros([2], dtype="floaty"),
])
def test_bad_dtype_names(call):
    with pytest.raises(TypeError) as info:
        call()
    msg = str(info.value)
    assert "'floaty' is not a dtype" in msg and "gc.float32" in msg


def test_bad_promotion_mode():
    with pytest.raises(ValueError) as info:
        gc.config.set_dtype_promotion("bogus")
    assert "bogus" in str(info.value) and "numpy" in str(info.value)
    assert "strict" in str(info.value)
    assert gc.config.get_dtype_promotion() == "numpy"


def test_bad_arguments_to_creation_and_random():
    with pytest.raises(ValueError, match="step"):
        gnp.arange(0, 5, 0)
    with pytest.raises(ValueError, match="randint"):
        gnp.random.randint(5, 2)
    with pytest.raises(ValueError, match="maxval"):
        gc.random.uniform([2], dtype=gc.int32)
    # NumPy 2 clips with no bounds to a copy (np.clip(a) is np.positive(a)), and so does gnp
    np.testing.assert_array_equal(gnp.clip(gnp.ones(2)).numpy(), np.clip(np.ones(2)))
    with pytest.raises(ValueError, match="where"):
        gnp.where(gnp.ones(2) > 0, 1)


def test_weak_scalar_overflow():
    with pytest.raises(InvalidArgumentError) as info:
        line = here() + 1
        gnp.ones(2, gnp.int8) * 1000
    assert "multiply" in str(info.value) and "int8" in str(info.value)
    assert_user_line(info.value, line)


# --------------------------------------------------------------------------- symbolic values
def test_concrete_value_of_traced_tensor():
    @gc.function
    def f(x):
        return x.numpy()

    with pytest.raises(SymbolicTensorError) as info:
        f(gnp.ones(2))
    msg = str(info.value)
    assert isinstance(info.value, TypeError)
    assert ".numpy()" in msg and "symbolic" in msg and "gc.numpy_function" in msg
    assert THIS_FILE in msg


def test_bad_writes_raise_numpys_errors():
    t = gnp.ones(3)
    with pytest.raises(IndexError):
        t[5] = 0
    with pytest.raises(ValueError, match="could not broadcast"):
        t[:2] = np.ones(3)

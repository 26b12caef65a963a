"""gc.TensorArray on the interpreter: every method eagerly and traced, as the state of
tensor loops and ifs, its errors; and the AutographError for changing a Python list made
outside a tensor loop or branch (the case TensorArray replaces)."""

from __future__ import annotations

import numpy as np
import pytest

import graphc as gc
import graphc.numpy as gnp
from graphc.errors import AutographError, InvalidArgumentError


def _np(x):
    return x.numpy() if isinstance(x, gc.Tensor) else np.asarray(x)


def both(fn, *args):
    """``fn(*args)`` eagerly and as a gc.function: the same values; returns them."""
    eager = fn(*args)
    traced = gc.function(fn)(*args)
    for e, t in zip(eager if isinstance(eager, tuple) else (eager,),
                    traced if isinstance(traced, tuple) else (traced,)):
        np.testing.assert_array_equal(_np(e), _np(t))
        assert _np(e).dtype == _np(t).dtype
    return eager


# --------------------------------------------------------------------------- methods
def write_read_stack():
    ta = gc.TensorArray(gc.float32, size=0, dynamic_size=True)
    ta = ta.write(0, 10.0).write(1, 20.0).write(2, 30)
    return ta.read(1), ta.stack(), ta.size()


def test_write_read_stack_size():
    one, stacked, size = both(write_read_stack)
    assert _np(one) == np.float32(20)
    np.testing.assert_array_equal(_np(stacked), np.asarray([10, 20, 30], np.float32))
    assert _np(stacked).dtype == np.float32 and _np(size) == 3 and _np(size).dtype == np.int64


def unstack_gather_concat(x):
    ta = gc.TensorArray(gc.int64, size=3).unstack(x)
    return ta.gather([2, 0]), ta.concat(), ta.stack()


def test_unstack_gather_concat():
    x = gnp.asarray(np.arange(6).reshape(3, 2))
    gathered, joined, stacked = both(unstack_gather_concat, x)
    np.testing.assert_array_equal(_np(gathered), [[4, 5], [0, 1]])
    np.testing.assert_array_equal(_np(joined), np.arange(6))
    np.testing.assert_array_equal(_np(stacked), _np(x))


def scatter_unwritten_zeros():
    ta = gc.TensorArray(gc.float64, size=4, element_shape=(2,))
    ta = ta.scatter([3, 1], np.asarray([[1.0, 2.0], [3.0, 4.0]]))
    return ta.stack(), ta.read(0)


def test_scatter_and_unwritten_elements_read_as_zeros():
    stacked, unwritten = both(scatter_unwritten_zeros)
    np.testing.assert_array_equal(_np(stacked), [[0, 0], [3, 4], [0, 0], [1, 2]])
    np.testing.assert_array_equal(_np(unwritten), [0, 0])


def test_properties_and_functional_writes():
    ta = gc.TensorArray(gc.int32, size=2, element_shape=[3])
    assert ta.dtype == gc.int32 and ta.element_shape == (3,) and not ta.dynamic_size
    grown = gc.TensorArray(gc.int32, dynamic_size=True)
    assert grown.element_shape is None and grown.dynamic_size
    written = grown.write(0, np.ones((2, 2), np.int32))
    assert written.element_shape == (2, 2) and grown.element_shape is None  # unchanged
    assert _np(grown.size()) == 0 and _np(written.size()) == 1


def test_a_dynamic_array_grows_past_its_initial_size():
    ta = gc.TensorArray(gc.int64, size=2, dynamic_size=True)
    ta = ta.write(5, 7)
    np.testing.assert_array_equal(_np(ta.stack()), [0, 0, 0, 0, 0, 7])


# --------------------------------------------------------------------------- errors
def test_writing_past_a_fixed_size_raises_eagerly_and_in_a_graph():
    ta = gc.TensorArray(gc.float32, size=2)
    with pytest.raises(InvalidArgumentError, match="index 2 is out of bounds.*dynamic_size"):
        ta.write(2, 1.0)

    @gc.function
    def fill(n):
        t = gc.TensorArray(gc.float32, size=2)
        for i in gc.range(n):
            t = t.write(i, 1.0)
        return t.stack()

    np.testing.assert_array_equal(_np(fill(gnp.asarray(2))), [1, 1])
    with pytest.raises(InvalidArgumentError, match="out of bounds"):
        fill(gnp.asarray(3))


def test_reading_beyond_the_size_raises():
    ta = gc.TensorArray(gc.float32, size=0, dynamic_size=True).write(0, 1.0)
    with pytest.raises(InvalidArgumentError, match="cannot read TensorArray index 1"):
        ta.read(1)
    with pytest.raises(InvalidArgumentError, match="index -1"):
        ta.gather([0, -1])

    @gc.function
    def read_at(i):
        return gc.TensorArray(gc.float32, size=2, element_shape=()).read(i)

    assert _np(read_at(gnp.asarray(1))) == 0
    with pytest.raises(InvalidArgumentError, match="has size 2"):
        read_at(gnp.asarray(2))


def test_wrong_dtype_and_shape_are_refused():
    ta = gc.TensorArray(gc.int64, size=2, element_shape=(2,))
    with pytest.raises(TypeError, match="holds int64 but the value is float32.*gc.cast"):
        ta.write(0, gnp.ones(2, dtype=gc.float32))
    with pytest.raises(TypeError, match="cannot store"):
        ta.write(0, [0.5, 1.5])
    with pytest.raises(ValueError, match=r"elements of shape \(2,\) but the value has "
                                         r"elements of shape \(3,\)"):
        ta.write(0, [1, 2, 3])
    inferred = gc.TensorArray(gc.int64, size=2).write(0, [1, 2])
    with pytest.raises(ValueError, match="same shape"):
        inferred.write(1, 5)
    with pytest.raises(ValueError, match="leading dim"):
        ta.unstack(3)


def test_stack_without_an_element_shape_explains():
    with pytest.raises(ValueError, match="element shape is unknown.*element_shape="):
        gc.TensorArray(gc.float32, size=0, dynamic_size=True).stack()
    with pytest.raises(ValueError, match="size of a TensorArray must be an integer >= 0"):
        gc.TensorArray(gc.float32, size=-1)
    with pytest.raises(TypeError, match="needs a dtype"):
        gc.TensorArray(None)


# --------------------------------------------------------------------------- as state
def rows_times_index(x, n):
    ta = gc.TensorArray(gc.float64, size=0, dynamic_size=True)
    for i in gc.range(n):
        ta = ta.write(i, x[i] * gc.cast(i, gc.float64))
    return ta.stack(), ta.size()


@pytest.mark.parametrize("n", [0, 1, 3])
def test_tensor_for_loop_state_without_an_element_shape(n):
    x = np.arange(6.0).reshape(3, 2)
    stacked, size = gc.function(rows_times_index)(gnp.asarray(x), gnp.asarray(n))
    want = x[:n] * np.arange(n)[:, None]
    np.testing.assert_array_equal(_np(stacked), want.reshape(-1, 2) if n else
                                  np.zeros((0, 2)))
    assert _np(size) == n


def countdown(n):
    ta = gc.TensorArray(gc.int64, size=0, dynamic_size=True, element_shape=())
    k = 0
    while n > 0:
        ta = ta.write(k, n)
        n -= 1
        k += 1
    return ta.stack()


def test_tensor_while_loop_state():
    out = gc.function(countdown)(gnp.asarray(4))
    np.testing.assert_array_equal(_np(out), [4, 3, 2, 1])


def write_if(x, flag):
    ta = gc.TensorArray(gc.float64, size=0, dynamic_size=True)
    if flag > 0:
        ta = ta.write(0, x)
        ta = ta.write(1, x + 1)
    return ta.size(), ta.element_shape


@pytest.mark.parametrize("flag, size", [(1, 2), (0, 0)])
def test_tensor_if_state_first_write_in_one_branch(flag, size):
    got, shape = gc.function(write_if)(gnp.asarray([1.0, 2.0]), gnp.asarray(flag))
    assert _np(got) == size and shape == (2,)


def test_a_python_loop_writes_as_python():
    @gc.function
    def unrolled(x):
        ta = gc.TensorArray(gc.float64, size=3)
        for i in range(3):
            ta = ta.write(i, x * i)
        return ta.stack()

    np.testing.assert_array_equal(_np(unrolled(gnp.asarray(2.0))), [0, 2, 4])


# --------------------------------------------------------------------------- list errors
def appends_in_tensor_loop(n):
    out = []
    for i in gc.range(n):
        out.append(i)
    return out


def pops_in_tensor_loop(n):
    items = [1, 2, 3]
    total = 0
    for _ in gc.range(n):
        total += items.pop()
    return total


def extends_in_tensor_while(n):
    out = []
    while n > 0:
        out.extend([n])
        n -= 1
    return out


def inserts_in_tensor_if(x):
    out = [0]
    if x > 0:
        out.insert(0, x)
    return x


@pytest.mark.parametrize("fn, method, construct", [
    (appends_in_tensor_loop, "append", "for"), (pops_in_tensor_loop, "pop", "for"),
    (extends_in_tensor_while, "extend", "while"), (inserts_in_tensor_if, "insert", "if")])
def test_changing_an_outer_list_in_a_tensor_statement_is_refused(fn, method, construct):
    with pytest.raises(AutographError) as info:
        gc.function(fn)(gnp.asarray(2))
    text = str(info.value)
    assert f"list.{method}()" in text and f"the `{construct}` at" in text
    assert "test_tensor_array.py:" in text and "gc.TensorArray" in text
    if method != "pop":
        assert "ta = ta.write(i, x)" in text
    assert isinstance(info.value, ValueError)


def local_lists_in_tensor_loop(x, n):
    s = x[0] * 0
    for i in gc.range(n):
        parts = []
        parts.append(x[i])
        parts.extend([x[i] * 2])
        s = s + gc.stack(parts).sum()
        scratch = [1, 2]
        scratch.pop()
    return s


def test_lists_made_inside_the_body_stay_free():
    got = gc.function(local_lists_in_tensor_loop)(gnp.asarray([1.0, 2.0, 3.0]),
                                                  gnp.asarray(3))
    assert _np(got) == 18.0


def test_python_loops_keep_changing_lists_as_python():
    @gc.function
    def python_loop(x):
        out = []
        for i in range(3):
            out.append(x * i)
        out.pop(0)
        return gc.stack(out)

    np.testing.assert_array_equal(_np(python_loop(gnp.asarray(2.0))), [2, 4])

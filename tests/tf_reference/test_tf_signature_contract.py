"""``input_signature`` and trace keys, where graphc used to differ from TensorFlow 2.21
(issue 29, part 2): nested signatures, conversion of lists and defaults, parameters no
spec covers, ``.input_signature``, and the arguments a trace may be keyed by (sets and
weak references refused, NumPy subclasses keyed like arrays, unhashable objects held
weakly, ``copy.deepcopy`` of a variable).

The ``*_tensorflow`` tests run the same cases on TensorFlow when it is installed.
"""

from __future__ import annotations

import copy
import gc as python_gc
import weakref

import numpy as np
import pytest
from tfref import tensorflow, value

import graphc as gc

F32 = gc.float32


def _spec(shape, dtype=F32):
    return gc.TensorSpec(shape, dtype)


# --------------------------------------------------------------- input_signature
def test_extra_defaults_and_kwargs_keep_their_defaults():
    @gc.function(input_signature=[_spec([])])
    def f(a1, a4=4, **kw):
        return a1 + a4

    assert float(f(gc.constant(1.0))) == 5.0        # 1 + 4
    assert float(f.get_concrete_function()(gc.constant(2.0))) == 6.0
    with pytest.raises(TypeError, match="'a4' is not in the input_signature"):
        f(gc.constant(1.0), a4=5)                   # TensorFlow: "Can not cast 5"
    with pytest.raises(TypeError, match="'kw'"):
        f(gc.constant(1.0), extra=5)
    assert f.experimental_get_tracing_count() == 1


def test_a_parameter_without_spec_or_default_is_refused_when_decorating():
    with pytest.raises(TypeError, match="no spec for parameter 'b'"):
        gc.function(lambda a, b: a + b, input_signature=[_spec([])])


def test_a_methods_self_takes_no_spec():
    class Model:
        @gc.function(input_signature=[_spec([])])
        def apply(self, x):
            return x * 2.0

    assert float(Model().apply(3.0)) == 6.0


@pytest.mark.parametrize("first", ["numpy", "list"])
def test_lists_and_arrays_share_the_one_trace(first):
    @gc.function(input_signature=[_spec([2])])
    def f(a):
        return a * 2

    calls = [np.array([1.0, 2.0], np.float32), [1, 2]]
    if first == "list":
        calls.reverse()
    for arg in calls:
        out = f(arg)
        assert out.dtype == np.float32 and value(out).tolist() == [2.0, 4.0]
    assert f.experimental_get_tracing_count() == 1
    with pytest.raises(TypeError, match="does not match the input_signature"):
        f([1.0, 2.0, 3.0])                          # shape (3,) for a [2] spec
    with pytest.raises(TypeError, match="does not match the input_signature"):
        f(["a", "b"])


def test_nested_signatures_of_lists_and_dicts():
    @gc.function(input_signature=[[_spec([]), _spec([])], {"w": _spec([None])}])
    def f(pair, named):
        return (pair[0] + pair[1]) * named["w"]

    out = f([1.0, gc.constant(2.0)], {"w": [1, 2]})   # (1 + 2) * [1, 2]
    assert out.dtype == np.float32 and value(out).tolist() == [3.0, 6.0]
    f((3, 4), {"w": np.ones(5, np.float32)})          # a tuple fits a list spec
    assert f.experimental_get_tracing_count() == 1
    with pytest.raises(TypeError, match=r"'named\['w'\]'"):
        f([1.0, 2.0], {"w": np.ones((2, 2), np.float32)})
    with pytest.raises(TypeError, match="'pair'"):
        f([1.0], {"w": [1.0]})                        # one element for two specs
    cf = f.get_concrete_function()
    assert [s.shape for s in cf.structured_input_signature[0][0]] == [(), ()]


def test_defaults_of_covered_parameters_are_converted():
    @gc.function(input_signature=[_spec([]), _spec([], gc.int32)])
    def f(a, b=2):
        assert b.dtype == np.int32                    # a tensor, not the Python 2
        return a + gc.cast(b, F32)

    assert float(f(gc.constant(1.0))) == 3.0
    assert float(f(gc.constant(1.0), b=3)) == 4.0
    assert f.experimental_get_tracing_count() == 1


def test_input_signature_attribute():
    specs = [_spec([None, 3])]
    f = gc.function(lambda x: x, input_signature=specs)
    assert f.input_signature == tuple(specs)
    assert gc.function(lambda x: x).input_signature is None


def test_eager_calls_convert_as_traced_ones():
    @gc.function(input_signature=[[_spec([]), _spec([])]])
    def f(pair):
        assert all(isinstance(p, gc.Tensor) and p.dtype == np.float32 for p in pair)
        return pair[0] + pair[1]

    gc.config.run_functions_eagerly(True)
    try:
        assert float(f([1, 2])) == 3.0
    finally:
        gc.config.run_functions_eagerly(False)


def test_input_signature_tensorflow():
    tf = tensorflow()

    @tf.function(input_signature=[tf.TensorSpec([], tf.float32)])
    def f(a1, a4=4, **kw):
        return a1 + a4

    assert float(f(tf.constant(1.0))) == 5.0
    with pytest.raises(TypeError):
        f(tf.constant(1.0), a4=5)
    with pytest.raises(TypeError, match="missing type constraint"):
        tf.function(lambda a, b: a + b, input_signature=[tf.TensorSpec([], tf.float32)])

    @tf.function(input_signature=[[tf.TensorSpec([]), tf.TensorSpec([])],
                                  {"w": tf.TensorSpec([None])}])
    def g(pair, named):
        return (pair[0] + pair[1]) * named["w"]

    assert value(g([1.0, tf.constant(2.0)], {"w": [1, 2]})).tolist() == [3.0, 6.0]

    @tf.function(input_signature=[tf.TensorSpec([2])])
    def h(a):
        return a * 2

    h(np.array([1.0, 2.0], np.float32))
    assert value(h([1, 2])).dtype == np.float32
    assert h.experimental_get_tracing_count() == 1
    assert h.input_signature == (tf.TensorSpec([2]),)


# --------------------------------------------------------------- trace keys
def test_sets_and_weak_references_are_refused():
    f = gc.function(lambda x: 1.0)

    class Thing:
        pass

    thing = Thing()
    with pytest.raises(TypeError, match="cannot take a set"):
        f({1, 2})
    with pytest.raises(TypeError, match="cannot take a weak reference"):
        f(weakref.ref(thing))
    f(frozenset({1, 2}))                             # hashable: keyed by value
    assert f.experimental_get_tracing_count() == 1


def test_numpy_subclasses_key_like_arrays():
    class Tagged(np.ndarray):
        pass

    f = gc.function(lambda x: x * 2)
    for _ in range(3):
        out = f(np.arange(3.0).view(Tagged))         # a new instance each call
    assert value(out).tolist() == [0.0, 2.0, 4.0]
    assert f.experimental_get_tracing_count() == 1


def test_unhashable_objects_are_held_weakly():
    class Box:
        __hash__ = None

        def __init__(self, v):
            self.v = v

    f = gc.function(lambda x, box: x * box.v)
    box = Box(3.0)
    assert float(f(gc.constant(2.0), box)) == 6.0
    assert float(f(gc.constant(2.0), box)) == 6.0
    assert f.experimental_get_tracing_count() == 1   # one trace per object
    alive = weakref.ref(box)
    del box
    python_gc.collect()
    assert alive() is None                            # the trace did not keep it
    assert float(f(gc.constant(2.0), Box(5.0))) == 10.0  # a new object: its own trace
    assert len(f.concrete_functions()) == 1           # the dead object's trace is gone


def test_deepcopy_of_a_variable_is_a_new_variable():
    v = gc.Variable([1.0, 2.0], shape=(None,))
    w = copy.deepcopy(v)
    w.assign_add([1.0, 1.0])
    assert value(v).tolist() == [1.0, 2.0] and value(w).tolist() == [2.0, 3.0]
    assert w.shape == (None,) and w.dtype == np.float32 and w is not v
    both = copy.deepcopy({"a": v, "b": v})
    assert both["a"] is both["b"]                     # the memo keeps sharing


def test_trace_keys_tensorflow():
    tf = tensorflow()
    f = tf.function(lambda x: 1.0)

    class Thing:
        pass

    thing = Thing()
    with pytest.raises(TypeError):
        f({1, 2})
    with pytest.raises(TypeError):
        f(weakref.ref(thing))

    class Tagged(np.ndarray):
        pass

    g = tf.function(lambda x: x * 2)
    for _ in range(3):
        g(np.arange(3.0).view(Tagged))
    assert g.experimental_get_tracing_count() == 1
    v = tf.Variable([1.0, 2.0])
    w = copy.deepcopy(v)
    w.assign_add([1.0, 1.0])
    assert value(v).tolist() == [1.0, 2.0]

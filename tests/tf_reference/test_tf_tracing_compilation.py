"""TensorFlow 2.21's ``tracing_compilation_test.py``: when a call reuses a trace and when
it traces anew (tensors by dtype and shape, ``reduce_retracing``, Python values,
defaults, keyword order, NumPy arrays, variables and which of them alias), and how
``input_signature`` binds keyword and positional calls.

TensorFlow's file drives its private ``tracing_compilation`` module and counts the
entries of a ``FunctionCache``; here the same cases go through ``gc.function`` and count
traces with ``experimental_get_tracing_count()``.
"""

from __future__ import annotations

import copy
import functools

import attr
import numpy as np
import pytest
from tfref import tensorflow, value

import graphc as gc
from graphc.errors import RetracingWarning

F32 = gc.float32


def _count(f):
    return f.experimental_get_tracing_count()


# ---------------------------------------------------------------- shapes and dtypes
def test_reduce_retracing_relaxes_a_changed_dim():
    unknown = []

    @gc.function(reduce_retracing=True)
    def func(a):
        unknown.append(a.shape[0] is None)
        return a + 1

    func(gc.constant([]))
    func(gc.constant([1.0]))                        # relaxed to [None]
    func(gc.constant([1.0, 2.0]))                   # served by it
    assert unknown == [False, True] and _count(func) == 2
    for n in (3, 4):
        func(gc.ones([n]))
    assert _count(func) == 2


def test_reduce_retracing_inside_nested_arguments_keyed_by_a_python_value():
    seen = []

    @gc.function(reduce_retracing=True)
    def func(a_, b_=None):
        assert b_[0].shape == ()
        seen.append(b_[1].shape[0] is None)
        return b_[0] + 1

    b0 = gc.constant(1.0)
    for a, counts in (("hi", [1, 2, 2]), ("bye", [3, 4])):
        for n, want in zip((0, 1, 2), counts):
            func(a, b_=[b0, gc.ones([n])])
            assert _count(func) == want
    assert seen == [False, True, False, True]


@pytest.mark.parametrize("first, second", [
    (([[1.0]], gc.complex64), ([[1.0]], gc.complex128)),     # dtype
    (([[1.0]], gc.complex64), ([1.0], gc.complex64)),        # shape
    (([[1.0]], gc.complex64), ([1.0], gc.complex128)),       # both
])
def test_a_new_dtype_or_shape_traces_again(first, second):
    f = gc.function(lambda t: t + t)
    for values, dtype in (first, second):
        f(gc.constant(values, dtype=dtype))
    assert _count(f) == 2


def test_shapes_with_the_same_size_are_not_confused():
    f = gc.function(lambda t: t)
    f(gc.zeros([12, 1]))
    f(gc.zeros([1, 21]))
    assert _count(f) == 2
    again = gc.function(lambda t: f(t))
    again.get_concrete_function(gc.zeros([12, 1]))
    again.get_concrete_function(gc.zeros([1, 21]))
    assert _count(again) == 2


def test_a_spec_and_a_tensor_of_it_share_the_concrete_function():
    f = gc.function(lambda t: t)
    z = gc.zeros([2, 2])
    assert f.get_concrete_function(gc.TensorSpec([2, 2], F32)) is f.get_concrete_function(z)
    cached = f.get_concrete_function(gc.TensorSpec([None], gc.int32))
    assert f.get_concrete_function(gc.TensorSpec([None], gc.int32)) is cached
    a, b = f.get_concrete_function(gc.constant(2.0)), f.get_concrete_function(gc.constant(2.0))
    assert a is b


def test_traces_stay_few_for_alternating_shapes():
    f = gc.function(lambda x: x)
    with pytest.warns(RetracingWarning):            # TensorFlow logs its warning too
        for _ in range(5):
            for v in (3.0, 4.0, [[1.0, 2.0]], [[]], [[3.0, 4.0], [5.0, 6.0]],
                      [[3.0, 4.0], [5.0, 6.0], [7.0, 8.0]]):
                f(gc.constant(v))
    assert _count(f) == 5                           # one per shape: (), (1, 2), (1, 0), ...


def test_a_nested_call_reads_the_shape_at_run_time():
    func = gc.function(lambda x: gc.shape(x))
    calls = gc.function(lambda x: func(x), input_signature=[gc.TensorSpec([None, None], F32)])
    assert value(func(gc.zeros([1, 1]))).tolist() == [1, 1]
    assert value(func(gc.zeros([2, 2]))).tolist() == [2, 2]
    assert value(calls(gc.zeros([3, 3]))).tolist() == [3, 3]


# -------------------------------------------------------------------- Python values
def test_python_defaults_and_keyword_order():
    f = gc.function(lambda foo, bar=1, baz=2: None)
    for call, want in ((lambda: f(0, baz=20), 1), (lambda: f(1), 2), (lambda: f(foo=1), 2),
                       (lambda: f(1, 2, 3), 3), (lambda: f(1, bar=2, baz=3), 3),
                       (lambda: f(1, baz=3, bar=2), 3)):
        call()
        assert _count(f) == want


def test_a_dict_keyword_and_a_dict_argument_differ():
    f = gc.function(lambda *args, **kwargs: None)
    f(1, x=2)
    f(1, x=2)
    assert _count(f) == 1
    f(1, {"x": 2})
    assert _count(f) == 2


def test_tensors_by_position_and_by_keyword():
    f = gc.function(lambda a, b: b)
    a, b = gc.constant(2.0), gc.constant([1.0, 2.0])
    for out in (f(a, b), f(a=a, b=b), f(b=b, a=a), f(a, b=b)):
        assert value(out).tolist() == [1.0, 2.0]
    assert _count(f) == 1
    for out in (f(b, a), f(a=b, b=a), f(b=a, a=b)):
        assert float(out) == 2.0
    assert _count(f) == 2


def test_objects_with_equal_hashes_are_different_keys():
    class Foo:
        def __hash__(self):
            return 42

    f = gc.function(lambda foo: gc.constant([id(foo)]))
    f(Foo())
    f(Foo())
    assert _count(f) == 2


def test_numpy_dtypes_as_arguments():
    f = gc.function(lambda x, dtype: gc.constant(dtype(x)))
    for x, dtype in ((1, np.float32), (2, np.float32), (1, np.int32), (2, np.int32)):
        out = f(x, dtype)
        assert out.dtype == dtype and value(out) == x


def test_nested_lists_and_attrs_classes_are_keyed_by_structure():
    f = gc.function(lambda nested: nested)
    a, b, c = gc.constant(1.0), gc.constant(2.0), gc.constant(3.0)
    f([[a], b, c])
    f([[a, b], c])
    assert _count(f) == 2

    @attr.s
    class Holder:
        a = attr.ib()
        b = attr.ib()

    g = gc.function(lambda h: h)
    g(Holder(a, [b, c]))
    g(Holder(a, [b, c]))
    assert _count(g) == 1
    g(Holder([a, b], c))
    assert _count(g) == 2


# ----------------------------------------------------------------------- NumPy arrays
def test_numpy_arrays_are_tensors_keyed_by_dtype_and_shape():
    seen = []

    def f(x):
        seen.append(isinstance(x, gc.Tensor))
        return x

    defined = gc.function(f)
    rng = np.random.default_rng(0)
    defined(rng.random((2, 2), dtype=np.float32))
    defined(rng.random((2, 2), dtype=np.float32))   # other values: the same trace
    assert _count(defined) == 1
    assert float(defined(np.ones([], np.float32))) == 1.0
    assert float(defined(np.zeros([], np.float32))) == 0.0
    assert float(defined(gc.ones([]))) == 1.0 and float(defined(gc.zeros([]))) == 0.0
    assert _count(defined) == 2
    mutable = np.ones([], np.float32)
    assert float(defined(mutable)) == 1.0
    mutable.fill(0)
    assert float(defined(mutable)) == 0.0           # read at each call
    assert seen == [True, True]


def test_numpy_arrays_passed_by_keyword():
    def f(**kwargs):
        x = kwargs.pop("x")
        assert isinstance(x, gc.Tensor)
        return x

    defined = gc.function(f)
    defined(x=np.ones((2, 2)))
    defined(x=np.zeros((2, 2)))
    assert _count(defined) == 1
    assert float(defined(x=np.ones([]))) == 1.0 and float(defined(x=gc.zeros([]))) == 0.0


# --------------------------------------------------------------------------- variables
def test_variables_are_keyed_by_dtype_and_shape_and_aliasing_is_honoured():
    f = gc.function(lambda a, b, c: a + b + c)
    x, y, z = (gc.Variable(v) for v in (1.0, 2.0, 4.0))
    assert float(f(x, y, z)) == 7.0
    assert float(f(z, y, x)) == 7.0                 # still three distinct variables
    assert _count(f) == 1
    assert float(f(x, x, z)) == 6.0                 # 1 + 1 + 4: x passed twice
    assert float(f(z, y, y)) == 8.0
    g = gc.function(lambda a, b, c: a + b + c)
    g(x, y, z)
    g(copy.deepcopy(x), y, z)
    assert _count(g) == 1

    @gc.function
    def write_then_read(a, b):
        a.assign(10.0)
        return b.read_value()

    assert float(write_then_read(x, x)) == 10.0     # the write is seen through b
    assert float(write_then_read(y, z)) == 4.0


@pytest.mark.xfail(strict=True, reason="deliberate: a trace made with distinct variables "
                   "serves calls passing one variable twice (each parameter is its own "
                   "input, read and written in program order); TensorFlow traces each "
                   "pattern of aliasing anew (graphc/functions/variable_aliasing.py)")
def test_each_aliasing_pattern_of_variables_traces_anew():
    f = gc.function(lambda a, b, c: a + b + c)
    x, y, z = (gc.Variable(0.0) for _ in range(3))
    f(x, y, z)
    f(x, x, z)
    assert _count(f) == 2


def test_a_concrete_function_of_a_variable_takes_other_variables():
    @gc.function
    def bump(v):
        v.assign_add(1.0)
        return v.read_value()

    v = gc.Variable(0.0)
    cf = bump.get_concrete_function(v)
    assert float(cf(v)) == 1.0 and float(cf(v)) == 2.0
    w = gc.Variable(0.0)
    const = gc.function(lambda v: gc.constant(1.0)).get_concrete_function(v)
    assert float(const(v)) == 1.0 and float(const(w)) == 1.0


def test_an_integer_result_beside_the_loss_has_no_gradient():
    model, count = gc.Variable(1.0), gc.Variable(0)

    @gc.function
    def forward(x):
        count.assign_add(1)
        loss = 0.5 * gc.reduce_mean(gc.pow(x - model, 2))
        return loss, count

    with gc.GradientTape() as tape:
        loss, n = forward(gc.constant([7.0]))
    assert float(tape.gradient(loss, model)) == -6.0   # -(7 - 1)
    assert int(n) == 1


# --------------------------------------------------------------------- input_signature
def test_a_signature_serves_every_call_that_fits():
    def foo(a):
        assert a.shape == (2,)
        return a

    f = gc.function(foo, input_signature=[gc.TensorSpec([2], F32)])
    a = gc.ones([2])
    for out in (f(a), f.get_concrete_function()(a), f.get_concrete_function(a)(a),
                f.get_concrete_function(gc.TensorSpec([2], F32))(a)):
        assert value(out).tolist() == [1.0, 1.0]
    assert _count(f) == 1

    def bar(a):
        assert a.shape[0] == 2 and a.shape[1] is None
        return a

    g = gc.function(bar, input_signature=[gc.TensorSpec([2, None], F32)])
    assert value(g(gc.ones([2, 1]))).shape == (2, 1)
    assert value(g(gc.ones([2, 3]))).shape == (2, 3)
    assert _count(g) == 1


def test_lists_fit_a_rank_two_signature():
    func = gc.function(lambda a: gc.shape(a),
                       input_signature=[gc.TensorSpec([None, None], F32)])
    assert value(func([[0], [1.0], [1]])).tolist() == [3, 1]
    for bad in ([0.0, 1.0, 2.0], [["wrong dtype"]]):
        with pytest.raises(TypeError):
            func(bad)


@pytest.mark.xfail(strict=True, reason="deliberate: an array of another dtype is not cast "
                   "to an input_signature spec's dtype (int64 -> float32 here), as a "
                   "silent cast may lose precision (docs/tensorflow_differences.md)")
def test_an_integer_array_is_cast_to_a_float_signature():
    func = gc.function(lambda a: gc.shape(a),
                       input_signature=[gc.TensorSpec([None, None], F32)])
    assert value(func(np.array([[1, 1], [2, 2]]))).tolist() == [2, 2]


def test_nested_signatures_with_unknown_dims():
    @gc.function(input_signature=[[gc.TensorSpec([2, None], F32)] * 2,
                                  gc.TensorSpec([1], F32)])
    def foo(a, b):
        assert [x.shape for x in a] == [(2, None)] * 2 and b.shape == (1,)
        return [a, b]

    a, b, c = gc.ones([2, 3]), gc.ones([2, 5]), gc.ones([1])
    for args in (([gc.ones([2, 1])] * 2, c), ([a, b], c),
                 ([value(a).tolist(), value(b).tolist()], value(c).tolist())):
        (x, y), z = foo(*args)
        assert (value(x).tolist(), value(y).tolist(), value(z).tolist()) == tuple(
            np.asarray(v, np.float32).tolist() for v in (*args[0], args[1]))
    assert _count(foo) == 1

    bar = gc.function(lambda d: d, input_signature=[{
        "a": gc.TensorSpec([2, None], F32), "b": gc.TensorSpec([2, None], F32),
        "c": gc.TensorSpec([1], F32)}])
    out = bar({"a": value(a).tolist(), "b": value(a).tolist(), "c": [1.0]})
    assert sorted(out) == ["a", "b", "c"] and value(out["a"]).shape == (2, 3)


def test_signature_errors():
    with pytest.raises(TypeError):
        gc.function(lambda a, b: None, input_signature={"t1": gc.TensorSpec([], F32)})
    f = gc.function(lambda a, b: [a, b], input_signature=[[gc.TensorSpec([1], F32)] * 2] * 2)
    a = gc.ones([1])
    for args in (([a, a, a], [a]), ([a], [a, a, a])):
        with pytest.raises(TypeError):
            f(*args)
    f([a, a], [a, a])


def test_a_signature_binds_positional_and_keyword_calls():
    @gc.function(input_signature=[gc.TensorSpec([], F32), gc.TensorSpec([], gc.int64)])
    def foo(flt, integer):
        return flt, integer

    flt, integer = gc.constant(1.0), gc.constant(2, dtype=gc.int64)
    for out in (foo(flt, integer), foo(flt=flt, integer=integer),
                foo(integer=integer, flt=flt), foo(flt, integer=integer)):
        assert (float(out[0]), int(out[1])) == (1.0, 2)
    assert _count(foo) == 1

    def with_kwargs(a, b, **kwargs):
        return a, b

    cf = gc.function(with_kwargs, input_signature=[gc.TensorSpec([], F32),
                                                   gc.TensorSpec([], gc.int32)]
                     ).get_concrete_function()
    assert [float(t) for t in cf(gc.constant(5.0), gc.constant(5))] == [5.0, 5.0]


# --------------------------------------------------------------- functions as branches
def test_traced_functions_as_switch_case_branches():
    def fn3(x=3):
        return gc.ones([10]) * x

    branches = [lambda: gc.ones([10]), lambda: gc.ones([10]) * 2, fn3,
                functools.partial(fn3, x=4), functools.partial(fn3, 5)]
    branches = [gc.function(b).get_concrete_function() for b in branches]
    pick = gc.function(lambda i: gc.switch_case(i, branches))
    for i, want in ((0, 1.0), (1, 2.0), (2, 3.0), (3, 4.0), (4, 5.0), (22, 5.0)):
        assert value(pick(gc.constant(i))).tolist() == [want] * 10   # 22: the last one


# ----------------------------------------------------------------- argument names
def test_concrete_functions_called_by_parameter_name():
    fn = gc.function(lambda a, b: (a + b, a * b))
    fn(gc.ones([]), gc.ones([]))
    cf = fn.get_concrete_function(gc.TensorSpec([None], F32), gc.TensorSpec([], F32))
    for out in (cf(gc.constant([1.0]), gc.constant(2.0)),
                cf(a=gc.constant([1.0]), b=gc.constant(2.0))):
        assert [value(t).tolist() for t in out] == [[3.0], [2.0]]      # 1 + 2, 1 * 2

    def returns_dict(x, z=(1.0, 2.0), y=3.0):
        return {"alpha": x + y + z[0], "beta": x * y + z[1]}

    rd = gc.function(returns_dict)
    cd = rd.get_concrete_function(x=gc.TensorSpec([None], F32), y=gc.TensorSpec([], F32))
    assert set(cd.structured_outputs) == {"alpha", "beta"}
    out = cd(x=gc.constant([1.0]), y=gc.constant(3.0))
    assert (value(out["alpha"]).tolist(), value(out["beta"]).tolist()) == ([5.0], [5.0])


# -------------------------------------------------------------- TensorFlow witness
def test_tracing_compilation_tensorflow():
    tf = tensorflow()
    f = tf.function(lambda a, b, c: a + b + c)
    x, y, z = (tf.Variable(0.0) for _ in range(3))
    f(x, y, z)
    f(z, y, x)
    f(x, x, z)
    f(y, y, z)
    assert f.experimental_get_tracing_count() == 2
    fns = [lambda: tf.ones([2]), lambda: tf.ones([2]) * 2]
    assert value(tf.function(lambda i: tf.switch_case(i, fns))(tf.constant(22))).tolist() == [
        2.0, 2.0]
    g = tf.function(lambda nested: nested)
    for _ in range(5):
        for v in (3.0, 4.0, [[1.0, 2.0]], [[]], [[3.0, 4.0], [5.0, 6.0]]):
            g(tf.constant(v))
    assert g.experimental_get_tracing_count() < 13
    h = tf.function(lambda a: tf.shape(a), input_signature=[tf.TensorSpec([None, None])])
    assert value(h(np.array([[1, 1], [2, 2]]))).tolist() == [2, 2]

"""gc.numpy_function / gc.py_function: inputs, Tout, result checks, errors, graph shapes."""

import numpy as np
import pytest

import graphc as gc
import graphc.numpy as gnp
from graphc.errors import InvalidArgumentError

SQUARES = [[4.0, 9.0], [16.0, 25.0]]


@pytest.fixture(autouse=True)
def _eager_off():
    yield
    gc.run_functions_eagerly(False)


# ------------------------------------------------------------------ inputs and outputs
def test_numpy_function_gets_ndarrays_and_runs_every_call():
    seen = []

    def my_sqrt(x):
        seen.append(type(x))
        return np.sqrt(x)

    @gc.function
    def f(x):
        return gc.numpy_function(my_sqrt, [x], gc.float32)

    for _ in range(2):
        out = f(gc.constant(SQUARES))
        assert isinstance(out, gc.Tensor) and out.dtype == np.float32
        assert out.numpy().tolist() == [[2.0, 3.0], [4.0, 5.0]]
    assert seen == [np.ndarray, np.ndarray] and f.tracing_count == 1


def test_py_function_gets_eager_tensors():
    def mean(x):
        assert isinstance(x, gc.Tensor) and not x.is_symbolic
        return np.mean(x.numpy())

    @gc.function
    def f(x):
        return gc.py_function(mean, [x], gc.float32)

    assert f(gc.constant([1.0, 2.0, 6.0])).numpy() == 3.0


def test_numpy_function_inputs_are_read_only():
    def mutate(x):
        x[0] = 0
        return x

    @gc.function
    def f(x):
        return gc.numpy_function(mutate, [x * 1], gc.int32)

    with pytest.raises(ValueError, match="read-only"):
        f(gc.constant([1, 2]))


def test_outputs_have_unknown_shape_in_the_graph():
    @gc.function
    def f(x):
        y = gc.numpy_function(np.sqrt, [x], gc.float32)
        assert y.shape is None and y.dtype == np.float32
        return y

    concrete = f.get_concrete_function(gc.constant(SQUARES))
    assert concrete.output_shapes is None and concrete.output_dtypes == np.float32
    assert "f32[*]" in str(concrete.graph)


def test_tout_forms():
    def two(x):
        return x + 1, (x * 2).astype(np.int64)

    def nothing(x):
        return None

    @gc.function
    def f(x):
        a, b = gc.numpy_function(two, [x], [gc.float32, gc.int64])
        none = gc.numpy_function(nothing, [x], [])
        one = gc.numpy_function(lambda x: [x], [x], [gc.float32])
        return a, b, none, one

    a, b, none, one = f(gc.constant([1.0]))
    assert a.numpy().tolist() == [2.0] and b.dtype == np.int64 and none == []
    assert isinstance(one, list) and one[0].numpy().tolist() == [1.0]


def test_python_results_convert_into_tout():
    @gc.function
    def f(x):
        a = gc.numpy_function(lambda x: 3, [x], gc.float32)
        b = gc.py_function(lambda x: [1, 2], [x], gc.int64)
        return a, b

    a, b = f(gc.constant(1))
    assert a.dtype == np.float32 and a.numpy() == 3.0 and b.numpy().tolist() == [1, 2]


def test_inputs_of_every_kind_and_eager_mode():
    v = gc.Variable([1.0, 2.0])
    args = [gc.constant([1.0, 1.0]), np.array([2.0, 2.0], np.float32), v]

    def total(a, b, c):
        return (a + b + c).astype(np.float32)

    assert gc.numpy_function(total, args, gc.float32).numpy().tolist() == [4.0, 5.0]
    f = gc.function(lambda: gc.numpy_function(total, args, gc.float32))
    assert f().numpy().tolist() == [4.0, 5.0]
    v.assign([0.0, 0.0])  # the variable is read when the graph runs
    assert f().numpy().tolist() == [3.0, 3.0]
    assert gc.py_function(lambda t: t * 2, [gc.constant(2)], gc.int32).numpy() == 4


# ------------------------------------------------------------------ result checks
@pytest.mark.parametrize("func, tout, expected", [
    (lambda x: x.astype(np.float64), gc.float32,
     r"numpy_function 'bad_dtype': result 0 does not match Tout: expected float32, got "
     r"float64 array"),
    (lambda x: (x, x), [gc.float32], r"returned 2 value\(s\), but Tout lists 1: expected "
                                     r"\[float32\], got \[float32 array"),
    (lambda x: x, [gc.float32, gc.float32], r"returned 1 value\(s\), but Tout lists 2"),
    (lambda x: x, [], r"Tout=\[\] expects no results"),
    (lambda x: None, gc.float32, r"expected float32, got NoneType None"),
    (lambda x: "text", gc.float32, r"expected float32, got str"),
    (lambda x: 1.5, gc.int32, r"expected int32, got float 1.5"),
])
def test_tout_mismatch_messages(func, tout, expected):
    @gc.function
    def f(x):
        return gc.numpy_function(func, [x], tout, name="bad_dtype")

    with pytest.raises(InvalidArgumentError, match=expected):
        f(gc.constant([1.0]))
    with pytest.raises(InvalidArgumentError, match=expected):  # eager too
        gc.numpy_function(func, [gc.constant([1.0])], tout, name="bad_dtype")


def test_py_function_mismatch_names_the_function():
    def my_fn(x):
        return x.numpy().astype(np.int64)

    with pytest.raises(InvalidArgumentError, match="py_function 'my_fn'.*float32.*int64"):
        gc.function(lambda x: gc.py_function(my_fn, [x], gc.float32))(gc.constant([1.0]))


# ------------------------------------------------------------------ exceptions
class Custom(Exception):
    pass


def raise_custom(x):
    raise Custom("broken input")


@pytest.mark.parametrize("api", [gc.numpy_function, gc.py_function])
def test_exception_keeps_its_type_with_one_note(api):
    @gc.function
    def f(x):
        return api(raise_custom, [x], gc.float32)  # traced here

    with pytest.raises(Custom, match="broken input") as info:
        f(gc.constant(1.0))
    notes = info.value.__notes__
    assert len(notes) == 1
    assert "raise_custom" in notes[0] and api.__name__ in notes[0]
    assert "test_pyfunc.py:" in notes[0] and "traced at" in notes[0]


@pytest.mark.parametrize("error", [ValueError, TypeError, IndexError, ZeroDivisionError])
def test_builtin_exceptions_are_not_rewrapped(error):
    def boom(x):
        raise error("inside")

    f = gc.function(lambda x: gc.numpy_function(boom, [x], gc.float32))
    with pytest.raises(error) as info:
        f(gc.constant(1.0))
    assert type(info.value) is error and str(info.value) == "inside"


def test_eager_exception_note_names_the_call():
    with pytest.raises(Custom) as info:
        gc.numpy_function(raise_custom, [gc.constant(1.0)], gc.float32)
    (note,) = info.value.__notes__
    assert "numpy_function 'raise_custom'" in note and "test_pyfunc.py:" in note


# ------------------------------------------------------------------ stateful or not
def test_stateful_flag_selects_the_op():
    def graph_ops(stateful):
        f = gc.function(lambda x: gc.numpy_function(np.sqrt, [x], gc.float32,
                                                    stateful=stateful))
        node = f.get_concrete_function(gc.constant(4.0)).graph.operations[-1]
        return node.op

    pure, effect = graph_ops(False), graph_ops(True)
    assert not pure.stateful and pure.extra["no_fold"] and pure.extra["runs_user_code"]
    assert effect.stateful and effect.name == "numpy_function"
    f = gc.function(lambda x: gc.numpy_function(np.sqrt, [x], gc.float32, stateful=False))
    assert f(gc.constant(4.0)).numpy() == 2.0


def test_unhashable_bound_method_as_func():
    class Scaler:
        __hash__ = None

        def __init__(self, k):
            self.k = k

        def __call__(self, x):
            return x * self.k

        def scale(self, x):
            return x * self.k

    s = Scaler(3)
    f = gc.function(lambda x: gc.numpy_function(s.scale, [x], gc.int32)
                    + gc.numpy_function(s, [x], gc.int32))
    assert f(gc.constant(2)).numpy() == 12
    assert "<fn" in str(f.get_concrete_function(gc.constant(2)).graph)


def test_reshape_gives_a_known_shape_back():
    @gc.function
    def f(x):
        m = gc.numpy_function(lambda x: x * 2, [x], gc.float32)
        return gnp.reshape(m, (2, 2)) + x

    concrete = f.get_concrete_function(gc.constant(SQUARES))
    assert concrete.output_shapes == (2, 2)

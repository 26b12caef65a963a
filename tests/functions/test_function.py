"""gc.function: tracing, the trace cache and its keys, concrete functions, diagnostics."""

import dataclasses
import enum
import gc as pygc
import json
import warnings
from collections import namedtuple

import networkx as nx
import numpy as np
import pytest

import graphc as gc
import graphc.numpy as gnp
from graphc.errors import InvalidArgumentError, RetracingWarning, SymbolicTensorError


@pytest.fixture(autouse=True)
def _eager_off():
    yield
    gc.run_functions_eagerly(False)


# ------------------------------------------------------------------ seed scenarios
def a_regular_function(x, y, b):
    x = gc.matmul(x, y)
    return x + b


def test_regular_function_same_eager_and_traced():
    x1 = gc.constant([[1.0, 2.0]])
    y1 = gc.constant([[2.0], [3.0]])
    b1 = gc.constant(4.0)
    f = gc.function(a_regular_function)
    eager = a_regular_function(x1, y1, b1).numpy()
    traced = f(x1, y1, b1).numpy()
    assert eager == traced == np.float32(12.0)
    assert f(x1, y1, b1).dtype == np.float32


def inner_function(x, y, b):
    x = gc.matmul(x, y)
    return x + b


@gc.function
def outer_function(x):
    y = gc.constant([[2.0], [3.0]])
    b = gc.constant(4.0)
    return inner_function(x, y, b)


def test_outer_function_traces_inner_into_one_graph():
    out = outer_function(gc.constant([[1.0, 2.0]]))
    assert out.numpy().tolist() == [[12.0]]
    graph = outer_function.get_concrete_function(gc.constant([[1.0, 2.0]])).graph
    names = [n.name for n in graph.operations]
    assert "matmul" in names and "add" in names


def test_inner_gc_function_traces_into_outer_graph():
    @gc.function
    def inner(x):
        return x * 3.0

    @gc.function
    def outer(x):
        return inner(x) + 1.0

    assert outer(gc.constant(2.0)).numpy() == 7.0
    # inlined (no graph of its own), but counted as a trace, as TensorFlow counts it
    assert inner.tracing_count == 1 and inner.concrete_functions() == []
    ops = [n.name for n in outer.get_concrete_function(gc.constant(2.0)).graph.operations]
    assert "multiply" in ops and "add" in ops


@gc.function
def my_relu(x):
    return gc.maximum(0.0, x)


MY_RELU_SIGNATURES = """\
my_relu(x)
  Args:
    x: float32 Tensor, shape=()
  Returns:
    float32 Tensor, shape=()

my_relu(x=[1, -1])
  Returns:
    float32 Tensor, shape=(2,)

my_relu(x)
  Args:
    x: float32 Tensor, shape=(2,)
  Returns:
    float32 Tensor, shape=(2,)"""


def test_my_relu_three_concrete_functions():
    my_relu.clear_cache()
    start = my_relu.tracing_count
    assert my_relu(gc.constant(5.5)).numpy() == 5.5
    assert my_relu([1, -1]).numpy().tolist() == [1.0, 0.0]
    assert my_relu(gc.constant([3.0, -3.0])).numpy().tolist() == [3.0, 0.0]
    assert my_relu.tracing_count - start == 3
    my_relu(gc.constant(-2.5))
    my_relu([1, -1])
    my_relu(gc.constant([-1.0, 1.0]))
    assert my_relu.tracing_count - start == 3
    assert my_relu.experimental_get_tracing_count() == my_relu.tracing_count
    assert my_relu.pretty_printed_concrete_signatures() == MY_RELU_SIGNATURES


def test_python_side_effects_once_per_trace(capsys):
    @gc.function
    def get_MSE(y_true, y_pred):
        print("Calculating MSE!")
        sq_diff = gc.pow(y_true - y_pred, 2)
        return gc.reduce_mean(sq_diff)

    y_true = gc.constant([1, 2, 3, 4, 5], dtype=gc.int32)
    y_pred = gc.constant([5, 4, 3, 2, 1], dtype=gc.int32)
    for _ in range(3):
        error = get_MSE(y_true, y_pred)
    assert capsys.readouterr().out.count("Calculating MSE!") == 1
    assert error.numpy() == 8 and error.dtype == np.int32

    gc.run_functions_eagerly(True)
    assert gc.functions_run_eagerly()
    for _ in range(3):
        eager_error = get_MSE(y_true, y_pred)
    gc.run_functions_eagerly(False)
    assert capsys.readouterr().out.count("Calculating MSE!") == 3
    assert eager_error.numpy() == error.numpy()


def test_python_int_argument_retraces_per_value():
    @gc.function
    def scale(x, n):
        return x * n

    x = gc.constant([1.0, 2.0])
    for n in (2, 3, 3, 4):
        scale(x, n)
    assert scale.tracing_count == 3
    assert scale.retrace_reasons[1] == "argument 'n': Python int 2 -> Python int 3"
    assert "argument 'n': Python int 3 -> Python int 4" in scale.retrace_reasons[2]


def test_numpy_scalar_argument_retraces_per_value_and_says_so():
    @gc.function
    def scale(x, n):
        return x * n

    x = gc.constant([1.0, 2.0])
    scale(x, np.int32(2))
    np.testing.assert_array_equal(np.asarray(scale(x, np.int32(3))), [3.0, 6.0])
    assert scale.retrace_reasons[1] == "argument 'n': NumPy int32 2 -> NumPy int32 3"


def test_shape_change_reason():
    @gc.function
    def f(x):
        return x + 1

    f(gnp.zeros(4, dtype=gc.float32))
    f(gnp.zeros(8, dtype=gc.float32))
    assert f.retrace_reasons[-1] == "argument 'x': float32[4] -> float32[8]"


# ------------------------------------------------------------------ symbolic errors
@pytest.mark.parametrize("convert", [
    lambda t: t.numpy(), lambda t: float(t), lambda t: int(t), lambda t: bool(t),
    lambda t: np.asarray(t),
], ids=["numpy", "float", "int", "bool", "asarray"])
def test_concrete_value_of_symbolic_tensor_raises(convert):
    @gc.function(autograph=False)
    def f(x):
        y = x + 1
        return convert(y)

    with pytest.raises(SymbolicTensorError) as info:
        f(gc.constant(1.0))
    msg = str(info.value)
    assert "symbolic" in msg and "argument 'x'" in msg
    assert "test_function.py" in msg  # the user's line
    for hint in ("gc.numpy_function", "gc.py_function", "gc.print", "run_functions_eagerly"):
        assert hint in msg
    assert "decorate" not in msg
    assert isinstance(info.value, TypeError)


def test_len_of_unknown_dim_raises():
    @gc.function(input_signature=[gc.TensorSpec([None], gc.float32)], autograph=False)
    def f(x):
        return gc.constant(len(x))

    with pytest.raises(SymbolicTensorError, match="len"):
        f(gc.constant([1.0, 2.0]))


def test_len_of_known_dim_is_static():
    @gc.function
    def f(x):
        return x * len(x)

    assert f(gc.constant([1.0, 2.0])).numpy().tolist() == [2.0, 4.0]


# ------------------------------------------------------------------ input_signature
def test_input_signature_traces_once_and_checks():
    @gc.function(input_signature=[gc.TensorSpec(shape=[None, 3], dtype=gc.float32)])
    def f(x):
        return gnp.sum(x, axis=1)

    assert f(gnp.ones((2, 3), dtype=gc.float32)).numpy().tolist() == [3.0, 3.0]
    assert f(gnp.ones((5, 3), dtype=gc.float32)).shape == (5,)
    assert f.tracing_count == 1
    with pytest.raises(TypeError) as info:
        f(gnp.ones((2, 4), dtype=gc.float32))
    msg = str(info.value)
    assert "'x'" in msg and "(None, 3)" in msg and "(2, 4)" in msg
    with pytest.raises(TypeError, match="float64"):
        f(gnp.ones((2, 3)))
    concrete = f.get_concrete_function()
    assert concrete.structured_input_signature == (
        (gc.TensorSpec((None, 3), gc.float32, name="x"),), {})


def test_input_signature_accepts_python_lists():
    @gc.function(input_signature=[gc.TensorSpec([2], gc.float32)])
    def f(x):
        return x * 2

    assert f([1.0, 2.0]).numpy().tolist() == [2.0, 4.0]
    with pytest.raises(TypeError, match="'x'"):
        f(["a", "b"])


def test_input_signature_must_hold_specs():
    with pytest.raises(TypeError, match="TensorSpec"):
        gc.function(lambda x: x, input_signature=[3])


# ------------------------------------------------------------------ reduce_retracing
def test_reduce_retracing_generalizes_shapes():
    @gc.function(reduce_retracing=True)
    def f(x):
        return x * 2

    for n in (4, 8, 16, 3):
        assert f(gnp.ones(n, dtype=gc.float32)).shape == (n,)
    assert f.tracing_count == 2
    shapes = [c.structured_input_signature[0][0].shape for c in f.concrete_functions()]
    assert shapes == [(4,), (None,)]


# ------------------------------------------------------------------ retracing warning
def test_retracing_warning_names_the_argument():
    @gc.function
    def f(x, n):
        return x + n

    x = gc.constant(1.0)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for n in range(5):
            f(x, n)
    retrace = [w for w in caught if issubclass(w.category, RetracingWarning)]
    assert len(retrace) == 1
    msg = str(retrace[0].message)
    assert "argument 'n': Python int 3 -> Python int 4" in msg
    assert "input_signature" in msg and "test_function.py" in msg
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for n in range(5, 9):
            f(x, n)
        assert not [w for w in caught if issubclass(w.category, RetracingWarning)]
        f(x, 9)
        assert len([w for w in caught if issubclass(w.category, RetracingWarning)]) == 1


def test_no_warning_when_calls_are_cached():
    @gc.function
    def f(x):
        return x + 1

    with warnings.catch_warnings():
        warnings.simplefilter("error", RetracingWarning)
        for n in (1, 2, 3, 4):
            f(gnp.ones(n))
        for _ in range(20):
            f(gnp.ones(1))


def test_retrace_window_counts_calls_of_the_one_tensor_path():
    """Cached one-tensor calls skip the window's bookkeeping only while it holds no
    trace (one more cached call would change nothing): the warning still counts traces
    among the last 10 calls exactly."""
    @gc.function
    def f(x):
        return x + 1

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for n in range(1, 5):  # 4 traces
            f(gnp.ones(n))
        for _ in range(20):    # cached: the window forgets the traces, the path arms
            f(gnp.ones(4))
        assert f._one is not None
        for n in range(5, 9):  # 4 traces within 10 calls: no warning yet
            f(gnp.ones(n))
        assert not [w for w in caught if issubclass(w.category, RetracingWarning)]
        assert f._one is None  # disarmed while the window holds traces
        f(gnp.ones(9))         # the 5th within the window
        assert len([w for w in caught if issubclass(w.category, RetracingWarning)]) == 1


# ------------------------------------------------------------------ decorator forms, methods
def test_decorator_forms():
    def plain(x):
        return x + 1

    a = gc.function(plain)
    b = gc.function()(plain)

    @gc.function(name="named")
    def c(x):
        return x + 1

    for f in (a, b, c):
        assert isinstance(f, gc.Function)
        assert f(gc.constant(1)).numpy() == 2
    assert c.__name__ == "named"


def test_bad_backend_is_rejected():
    with pytest.raises(ValueError, match="backend"):
        gc.function(lambda x: x, backend="tpu")


class Model:
    def __init__(self, w):
        self.w = w

    @gc.function
    def apply(self, x):
        return x * self.w


def test_methods_get_per_instance_traces_and_do_not_leak():
    m1, m2 = Model(2.0), Model(3.0)
    x = gc.constant([1.0])
    assert m1.apply(x).numpy().tolist() == [2.0]
    assert m2.apply(x).numpy().tolist() == [3.0]
    assert m1.apply(x).numpy().tolist() == [2.0]
    assert m1.apply.tracing_count == 1 and m2.apply.tracing_count == 1
    import weakref

    ref = weakref.ref(m1)
    del m1
    pygc.collect()
    assert ref() is None


# ------------------------------------------------------------------ trace keys
Point = namedtuple("Point", "x y")


@dataclasses.dataclass
class Config:
    scale: float
    offset: object


class Color(enum.Enum):
    RED = 1
    BLUE = 2


def test_structures_and_python_values_in_keys():
    @gc.function
    def f(d, p, cfg, color, flag=True):
        out = d["a"] * p.x + p.y * cfg.scale + cfg.offset
        if color is Color.RED and flag:
            out = out + 100.0
        return {"out": out, "note": "ok", "pair": (out, 1)}

    d = {"a": gc.constant(2.0)}
    p = Point(gc.constant(3.0), gc.constant(1.0))
    res = f(d, p, Config(2.0, gc.constant(1.0)), Color.RED)
    assert res["out"].numpy() == 109.0
    assert res["note"] == "ok" and res["pair"][1] == 1
    assert res["pair"][0].numpy() == 109.0
    f(d, p, Config(2.0, gc.constant(1.0)), Color.RED)
    assert f.tracing_count == 1
    f(d, p, Config(2.0, gc.constant(1.0)), Color.BLUE)
    f(d, p, Config(3.0, gc.constant(1.0)), Color.BLUE)
    f(d, p, Config(3.0, gc.constant(1.0)), Color.BLUE, flag=False)
    assert f.tracing_count == 4
    assert "argument 'cfg'" in f.retrace_reasons[2]


def test_unhashable_objects_key_by_identity():
    class Box:
        __hash__ = None

        def __init__(self, v):
            self.v = v

    @gc.function
    def f(x, box):
        return x * box.v

    b1, b2 = Box(2.0), Box(2.0)
    f(gc.constant(1.0), b1)
    f(gc.constant(1.0), b1)
    f(gc.constant(1.0), b2)
    assert f.tracing_count == 2


def test_numpy_arrays_key_like_tensors():
    @gc.function
    def f(x):
        return x * 2

    assert f(np.ones(3)).numpy().tolist() == [2.0] * 3
    f(gnp.ones(3))
    assert f.tracing_count == 1


# ------------------------------------------------------------------ concrete functions
def test_concrete_function_inspection():
    @gc.function
    def f(x, y):
        return {"sum": x + y, "prod": x * y}

    cf = f.get_concrete_function(gc.TensorSpec([None], gc.float32), gc.constant([1.0]))
    graph = cf.graph
    assert [n.name for n in graph.operations] == ["add", "multiply"]
    assert len(graph.inputs) == 2 and len(graph.outputs) == 2
    text = str(graph)
    assert "add" in text and "f32[?]" in text
    json.dumps(graph.as_graph_def())
    assert isinstance(graph.to_networkx(), nx.DiGraph)
    assert graph.to_dot().startswith("digraph")
    assert cf.output_shapes == {"prod": (None,), "sum": (None,)}
    assert cf.output_dtypes == {"prod": np.float32, "sum": np.float32}
    out = cf(gc.constant([1.0, 2.0]), gc.constant([3.0]))
    assert out["sum"].numpy().tolist() == [4.0, 5.0]
    with pytest.raises(TypeError, match="does not match"):
        cf(gc.constant([1, 2]), gc.constant([3.0]))
    assert cf([1.0], gc.constant([3.0])).get("sum").numpy().tolist() == [4.0]  # converted
    with pytest.raises(TypeError, match="does not match"):
        cf([[1.0]], gc.constant([3.0]))  # rank 2 for a [None] spec


def test_single_output_shapes_are_bare():
    cf = my_relu.get_concrete_function(gc.constant([1.0, 2.0]))
    assert cf.output_shapes == (2,)
    assert cf.output_dtypes == np.float32


def test_returning_python_values_and_constants():
    @gc.function
    def f(x):
        return x, 3, "text", gc.constant(2.0), None

    out = f(gc.constant(1.0))
    assert out[1:3] == (3, "text") and out[4] is None
    assert out[3].numpy() == 2.0 and out[0].numpy() == 1.0
    assert isinstance(out[0], gc.Tensor) and not out[0].is_symbolic


def test_lru_limit_and_clear_caches(monkeypatch):
    from graphc.functions import function as function_module

    monkeypatch.setattr(function_module, "MAX_CONCRETE_FUNCTIONS", 3)

    @gc.function
    def f(x, n):
        return x + n

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RetracingWarning)
        for n in range(5):
            f(gc.constant(1), n)
    assert len(f.concrete_functions()) == 3
    gc.clear_caches()
    assert f.concrete_functions() == []
    f(gc.constant(1), 0)
    assert f.tracing_count == 6


def test_kernel_error_in_graph_names_the_op_and_line():
    @gc.function
    def f(x):
        return gc.gather(x, [5])

    with pytest.raises(InvalidArgumentError) as info:
        f(gc.constant([1.0, 2.0]))
    msg = str(info.value)
    assert "gather" in msg and "test_function.py" in msg


def test_tensor_escaping_its_trace_is_reported():
    leaked = []

    @gc.function
    def f(x):
        leaked.append(x * 2)
        return x

    f(gc.constant(1.0))
    with pytest.raises(SymbolicTensorError, match="outside the gc.function"):
        leaked[0] + 1


def test_tracing_errors_show_user_frames_not_graphc_internals(monkeypatch):
    import traceback

    def helper(x):
        return gc.reshape(x, [3, 5])  # bad reshape: raised while tracing

    @gc.function
    def f(x):
        return helper(x) + 1

    with pytest.raises(InvalidArgumentError) as info:
        f(gc.constant([1.0, 2.0]))
    files = [fr.filename for fr in traceback.extract_tb(info.value.__traceback__)]
    internal = [name for name in files if "/graphc/" in name and "/tests/" not in name]
    assert internal == []  # not even the re-raise in gc.function's __call__
    assert sum(name.endswith("test_function.py") for name in files) >= 2  # f and helper

    monkeypatch.setenv("GRAPHC_SHOW_INTERNAL_FRAMES", "1")
    f.clear_cache()
    with pytest.raises(InvalidArgumentError) as info:
        f(gc.constant([1.0, 2.0]))
    files = [fr.filename for fr in traceback.extract_tb(info.value.__traceback__)]
    assert len([n for n in files if "/graphc/" in n and "/tests/" not in n]) > 1


def test_ndarray_and_tensor_arguments_share_traces_on_the_fast_path():
    @gc.function
    def f(x, y):
        return x * y

    a = np.arange(3.0)
    f(a, a)
    f(gc.constant(a), a)              # same key: tensors and ndarrays are both tensors
    out = f(a + 1, a)                 # the fast path (last signature) with new values
    np.testing.assert_array_equal(np.asarray(out), (a + 1) * a)
    assert f.tracing_count == 1
    f(np.arange(4.0), np.arange(4.0))  # new shape: the fast path falls through to a trace
    f(a.astype(np.float32), a)         # new dtype
    assert f.tracing_count == 3
    np.testing.assert_array_equal(np.asarray(f(a[::-1], a)), a[::-1] * a)  # strided view


def test_numpy_scalar_after_zero_d_arrays_keys_safely():
    """A NumPy scalar argument's key compared with a 0-d array's key gives a plain
    bool (it used to raise NumPy's 'truth value of an empty array' error)."""
    f = gc.function(lambda a, b: a + b, backend="numpy", autograph=False)
    assert int(f(np.array(3), np.array(2))) == 5
    assert int(f(np.int64(3), np.int64(2))) == 5
    nan = np.float32("nan")
    assert np.isnan(float(f(nan, np.float32(1))))
    assert np.isnan(float(f(nan, np.float32(1))))  # NaN keys equal to themselves
    assert f.experimental_get_tracing_count() == 3

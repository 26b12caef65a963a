"""gc.Variable: eager use, capture by reference in graphs, arguments, shapes, creation rules."""

import numpy as np
import pytest

import graphc as gc
import graphc.numpy as gnp
from graphc.ir.verify import verify
from graphc.ops.state import RESOURCE


@pytest.fixture(autouse=True)
def _eager_off():
    yield
    gc.run_functions_eagerly(False)


# ------------------------------------------------------------------ eager
def test_eager_basics_and_tf_dtypes():
    v = gc.Variable(1.0)
    assert v.dtype == np.float32 and v.shape == () and v.name == "Variable"
    assert gc.Variable(3).dtype == np.int32
    assert gc.Variable(np.arange(3)).dtype == np.int64
    assert gc.Variable([1, 2], dtype=gc.float64).dtype == np.float64
    assert v.assign_add(2.0) is v
    assert v.numpy() == np.float32(3.0)
    v.assign_sub(1)
    v.assign(v * 4)
    assert v.read_value().numpy() == np.float32(8.0)
    assert "numpy=" in repr(v) and gc.Variable(1.0, name="w").name == "w"


def test_reads_are_snapshots():
    v = gc.Variable([1.0, 2.0])
    before = v.read_value()
    v.assign_add([1.0, 1.0])
    assert before.numpy().tolist() == [1.0, 2.0]
    assert v.numpy().tolist() == [2.0, 3.0]


def test_assign_copies_numpy_input():
    a = np.array([1.0, 2.0], np.float32)
    v = gc.Variable(a)
    a[0] = 100.0
    v.assign(a)
    a[1] = 100.0
    assert v.numpy().tolist() == [100.0, 2.0]


def test_usable_wherever_a_tensor_is():
    v = gc.Variable([1.0, -2.0, 3.0])
    assert (v + 1).numpy().tolist() == [2.0, -1.0, 4.0]
    assert (1 + v).numpy().tolist() == [2.0, -1.0, 4.0]
    assert isinstance(np.ones(3, np.float32) + v, gc.Tensor)
    assert (v > 0).numpy().tolist() == [True, False, True]
    assert (-v).numpy().tolist() == [-1.0, 2.0, -3.0]
    assert gnp.where(v > 0, v, 0).numpy().tolist() == [1.0, 0.0, 3.0]
    assert gc.reduce_sum(v).numpy() == 2.0
    assert v[1].numpy() == -2.0 and v.sum().numpy() == 2.0 and len(v) == 3
    assert np.asarray(v).tolist() == [1.0, -2.0, 3.0]
    assert float(gc.Variable(2.5)) == 2.5 and f"{gc.Variable(2.5):.1f}" == "2.5"
    m = gc.Variable(np.eye(2, dtype=np.float32))
    assert (m @ np.ones((2, 1), np.float32)).shape == (2, 1)
    q, r = divmod(gc.Variable(7), 2)
    assert (int(q), int(r)) == (3, 1) and [int(t) for t in divmod(9, gc.Variable(7))] == [1, 2]


@pytest.mark.parametrize("use", [
    lambda v: gnp.reshape(v, (3, 2)), lambda v: gnp.sum(v, axis=0), lambda v: v[:, 1],
    lambda v: gnp.concatenate([v, v]), lambda v: gnp.matmul(v, np.ones((3, 1), np.float32)),
    lambda v: gnp.clip(v, 1, 3), lambda v: v.astype(np.int32), lambda v: v.T,
    lambda v: gc.gather(v, [1]), lambda v: gc.shape(v), lambda v: gnp.where(v > 2, v, 0),
])
def test_usable_in_graphs_like_a_tensor(use):
    v = gc.Variable(np.arange(6, dtype=np.float32).reshape(2, 3))
    traced = gc.function(lambda: use(v))
    np.testing.assert_array_equal(traced().numpy(), use(v).numpy())
    v.assign_add(np.ones((2, 3), np.float32))  # read at run time, not at trace time
    np.testing.assert_array_equal(traced().numpy(), use(v).numpy())


def test_tensorflow_style_conversion_in_graphs():
    v = gc.Variable([1.0, 2.0])
    assert gc.function(lambda: gc.maximum(gc.convert_to_tensor(v), 1.5))().numpy().tolist() \
        == [1.5, 2.0]


def test_unhashable_and_ref():
    v = gc.Variable(1.0)
    with pytest.raises(TypeError):
        hash(v)
    assert {v.ref(): 1}[v.ref()] == 1 and v.ref().deref() is v


def test_inplace_operators_and_item_assignment_explain():
    v = gc.Variable([1.0, 2.0])
    with pytest.raises(RuntimeError, match="assign_add"):
        v += 1
    with pytest.raises(TypeError, match="tensor_scatter_nd_update"):
        v[0] = 3.0


# ------------------------------------------------------------------ shapes and dtypes
def test_assign_other_shape_raises_value_error():
    v = gc.Variable([1.0, 2.0])
    with pytest.raises(ValueError, match=r"shape \(2,\).*shape \(3,\).*shape=\(None,\)"):
        v.assign([1.0, 2.0, 3.0])
    with pytest.raises(ValueError, match="broadcast"):
        v.assign_add(np.ones((2, 2), np.float32))
    v.assign_add(1.0)  # a scalar broadcasts for add/sub
    assert v.numpy().tolist() == [2.0, 3.0]


def test_unknown_dims_allow_new_shapes_eager_and_traced():
    v = gc.Variable([1.0, 2.0], shape=(None,))
    assert v.shape == (None,)
    v.assign([1.0, 2.0, 3.0])
    assert v.numpy().shape == (3,)

    @gc.function
    def set_and_double(x):
        v.assign(x)
        return v.read_value() * 2

    assert set_and_double(gnp.ones(4, np.float32)).numpy().tolist() == [2.0] * 4
    assert set_and_double(gnp.ones(5, np.float32)).shape == (5,)
    graph = set_and_double.get_concrete_function(gnp.ones(4, np.float32)).graph
    assert "f32[?]" in str(graph)
    with pytest.raises(ValueError, match="rank"):
        v.assign(np.ones((2, 2), np.float32))


def test_traced_shape_mismatch_raises_value_error_at_trace_time():
    v = gc.Variable([1.0, 2.0])

    @gc.function
    def f(x):
        v.assign(x)

    with pytest.raises(ValueError, match=r"shape \(2,\).*shape \(4,\)"):
        f(gnp.ones(4, np.float32))


def test_unknown_dims_of_value_are_checked_at_run_time():
    v = gc.Variable([1.0, 2.0])

    @gc.function(input_signature=[gc.TensorSpec([None], gc.float32)])
    def f(x):
        v.assign(x)

    f(gnp.asarray([5.0, 6.0], np.float32))
    assert v.numpy().tolist() == [5.0, 6.0]
    with pytest.raises(ValueError, match=r"shape \(3,\)"):
        f(gnp.ones(3, np.float32))


def test_dtype_rules():
    v = gc.Variable(3)
    with pytest.raises(TypeError, match="int32.*float64"):
        v.assign(1.5)
    w = gc.Variable(1.0)
    w.assign(np.float64(2.5))  # same kind: cast, as NumPy's a[...] = b does
    assert w.numpy() == np.float32(2.5) and w.dtype == np.float32


def test_initial_value_shape_and_callable():
    assert gc.Variable(lambda: np.zeros(3)).shape == (3,)
    with pytest.raises(ValueError, match="does not fit"):
        gc.Variable([1.0, 2.0], shape=(3,))


# ------------------------------------------------------------------ graphs
def test_closure_capture_by_reference_no_retrace():
    v = gc.Variable(1.0)

    @gc.function
    def scale(x):
        v.assign(v * x)
        return v.read_value()

    assert scale(gc.constant(2.0)).numpy() == 2.0
    assert scale(gc.constant(2.0)).numpy() == 4.0
    v.assign(10.0)  # outside: seen by the next call
    assert scale(gc.constant(2.0)).numpy() == 20.0
    assert scale.tracing_count == 1
    graph = scale.get_concrete_function(gc.constant(2.0)).graph
    verify(graph)
    ops = [n.name for n in graph.operations]
    assert ops == ["variable", "read_variable", "multiply", "assign_variable", "read_variable"]


def test_variable_mutated_in_a_loop_of_calls():
    total = gc.Variable(0.0)
    count = gc.Variable(0)

    @gc.function
    def accumulate(x):
        total.assign_add(gc.reduce_sum(x))
        count.assign_add(1)

    for i in range(5):
        accumulate(gc.constant([float(i), 1.0]))
    assert total.numpy() == 15.0 and count.numpy() == 5
    assert accumulate.tracing_count == 1


def test_variable_argument_keyed_by_dtype_and_shape():
    @gc.function
    def add_to(var, x):
        var.assign_add(x)
        return var * 2

    a, b = gc.Variable([1.0, 2.0]), gc.Variable([5.0, 5.0])
    one = gc.constant([1.0, 1.0])
    assert add_to(a, one).numpy().tolist() == [4.0, 6.0]
    assert add_to(b, one).numpy().tolist() == [12.0, 12.0]
    assert add_to.tracing_count == 1  # one trace serves both variables
    assert a.numpy().tolist() == [2.0, 3.0] and b.numpy().tolist() == [6.0, 6.0]
    add_to(gc.Variable([1.0, 2.0, 3.0]), gc.constant([1.0, 1.0, 1.0]))
    assert add_to.tracing_count == 2
    concrete = add_to.get_concrete_function(a, one)
    assert concrete.graph.inputs[0].aval == RESOURCE
    assert "var: float32 gc.Variable, shape=(2,)" in concrete.pretty_printed_signature()
    assert concrete(b, one).numpy().tolist() == [14.0, 14.0]
    with pytest.raises(TypeError, match="does not match"):
        concrete(gc.Variable([1, 2]), one)


def test_tensor_and_variable_arguments_get_different_traces():
    @gc.function
    def double(x):
        return x * 2

    double(gc.constant([1.0, 2.0]))
    assert double(gc.Variable([1.0, 2.0])).numpy().tolist() == [2.0, 4.0]
    assert double.tracing_count == 2
    assert "gc.Variable float32[2]" in double.retrace_reasons[-1]


def test_variable_in_nested_structures_and_inner_functions():
    @gc.function
    def inner(var):
        var.assign_add(1.0)

    @gc.function
    def outer(state):
        inner(state["v"])
        return state["v"].read_value() + state["x"]

    v = gc.Variable(1.0)
    assert outer({"v": v, "x": gc.constant(1.0)}).numpy() == 3.0
    assert outer({"v": v, "x": gc.constant(1.0)}).numpy() == 4.0
    assert outer.tracing_count == 1


def test_eager_mode_matches_graph_mode():
    def body(v, x):
        v.assign_add(x)
        return v * 3

    for eager in (True, False):
        gc.run_functions_eagerly(eager)
        v = gc.Variable([1.0])
        f = gc.function(body)
        f(v, gc.constant([1.0]))
        assert f(v, gc.constant([1.0])).numpy().tolist() == [9.0]


# ------------------------------------------------------------------ creation rules
class Counter:
    def __init__(self):
        self.v = None

    @gc.function
    def __call__(self, x):
        if self.v is None:
            self.v = gc.Variable(gnp.zeros(3))  # a traced initial value: set on first run
        self.v.assign_add(x)
        return self.v.read_value()


def test_create_on_first_trace_guarded_by_none():
    c = Counter()
    assert c(gnp.ones(3)).numpy().tolist() == [1.0] * 3
    assert c(gnp.ones(3)).numpy().tolist() == [2.0] * 3
    assert c(gnp.ones(3, np.float32)).numpy().tolist() == [3.0] * 3  # retrace: no creation
    assert c.v.numpy().tolist() == [3.0] * 3


def test_creating_on_a_later_trace_explains_the_pattern():
    @gc.function
    def make(x):
        v = gc.Variable(1.0, name="weights")
        return v + x

    assert make(gc.constant(1.0)).numpy() == 2.0
    with pytest.raises(ValueError) as info:
        make(gc.constant([1.0, 2.0]))
    text = str(info.value)
    assert "'make'" in text and "'weights'" in text and "test_variables.py:" in text
    assert "2nd" in text and "outside" in text and "v = gc.Variable(...)" in text


def test_uninitialized_variable_read_explains():
    box = {}

    @gc.function
    def f(x):
        box["v"] = gc.Variable(x * 2)
        return x

    f.get_concrete_function(gc.constant(1.0))  # traced, never run
    with pytest.raises(ValueError, match="not initialized"):
        box["v"].numpy()
    f(gc.constant(1.0))
    assert box["v"].numpy() == 2.0

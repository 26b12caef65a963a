"""TensorFlow 2.21's ``polymorphic_function_test.py``, part 3: variables created inside
a function, gradients through nested and recursive functions, errors that must not
stick, and traced tensors leaked out of their trace. Part 4:
``test_tf_polymorphic_traces.py``.
"""

from __future__ import annotations

import pytest
from tfref import tensorflow, value

import graphc as gc
from graphc.errors import InvalidArgumentError

F32 = gc.float32


# --------------------------------------------------------- variables made on first call
def test_a_variable_made_on_the_first_call_only():
    state = []

    @gc.function
    def fn(x):
        if not state:
            state.append(gc.Variable(2.0))
        return state[0] * x

    assert float(fn(gc.constant(1.0))) == 2.0 and float(fn(gc.constant(3.0))) == 6.0
    holder = []

    @gc.function
    def read():
        if not holder:
            holder.append(gc.Variable(5.0))
        return holder[0].read_value()

    assert float(read.get_concrete_function()()) == 5.0 and float(read()) == 5.0


def test_variables_with_callable_and_input_dependent_initial_values():
    state = []

    @gc.function
    def pair(x):
        if not state:
            state.append(gc.Variable(lambda: 2.0))
            state.append(gc.Variable(lambda: 5.0))
        return state[0] * x, state[1] * x

    assert [float(t) for t in pair(gc.constant(1.0))] == [2.0, 5.0]
    made = []

    @gc.function
    def from_input(x):
        if not made:
            made.append(gc.Variable(2.0 * x))      # its value: 2 * the first x
        return made[0] * x

    assert float(from_input(gc.constant(1.0))) == 2.0
    assert float(from_input(gc.constant(3.0))) == 6.0   # 2 * 3: the variable stays 2


def test_each_instance_makes_its_own_variable():
    class Model:
        def __init__(self):
            self.var = None

        @gc.function
        def apply(self, x):
            if self.var is None:
                self.var = gc.Variable(2.0)
            return self.var * x

    m0 = Model()
    assert float(m0.apply(3.0)) == 6.0
    m0.var.assign(3.0)
    assert float(m0.apply(3.0)) == 9.0
    assert float(Model().apply(3.0)) == 6.0


def test_variables_made_inside_a_nested_call():
    holder = []

    @gc.function
    def add_var(x):
        if not holder:
            holder.append(gc.Variable([1.0, 2.0]))
            holder.append(gc.Variable(10.0))
        return holder[0] + holder[1] + x

    wrapper = gc.function(lambda x: add_var(x))
    assert value(wrapper(gc.constant(2.0))).tolist() == [13.0, 14.0]   # [1, 2] + 10 + 2
    holder[1].assign(11.0)
    assert value(wrapper(gc.constant(2.0))).tolist() == [14.0, 15.0]


def test_concrete_function_lists_variables_made_while_tracing():
    a, b, made = gc.Variable(1.0, trainable=False), gc.Variable(1.0), []

    @gc.function
    def f():
        if not made:
            made.append(gc.Variable(1.0))
        return a + b + made[0] + 1

    cf = f.get_concrete_function()
    assert {id(v) for v in cf.variables} == {id(a), id(b), id(made[0])}
    assert {id(v) for v in cf.trainable_variables} == {id(b), id(made[0])}
    assert float(cf()) == 4.0


# ------------------------------------------------------------------------- gradients
def test_gradients_of_variables_through_a_function():
    add = gc.function(lambda x, y: x + y ** 2)
    x, y = gc.Variable(3.0), gc.Variable(2.0)
    with gc.GradientTape() as tape:
        g = add(x, y)
    dy, dx = tape.gradient(g, [y, x])
    assert (float(dy), float(dx)) == (4.0, 1.0)     # 2 * y, 1


def test_nested_reduce_retracing_functions_that_write_their_argument():
    v = gc.Variable([1.0, 2.0])

    @gc.function(reduce_retracing=True)
    def inner(x):
        x.assign_add([2.0, 2.0])
        return x

    @gc.function(reduce_retracing=True)
    def outer(x):
        x.assign_add([1.0, 1.0])
        return inner(x)

    for want in ([4.0, 5.0], [7.0, 8.0]):           # + 3 each call
        with gc.GradientTape() as tape:
            y = outer(v)
        assert value(y).tolist() == want
        assert value(tape.gradient(y, v)).tolist() == [1.0, 1.0]


def test_gradient_through_a_gather_in_a_nested_function():
    summing = gc.function(lambda inputs: gc.reduce_sum(inputs, axis=1))

    @gc.function
    def gradients(inputs):
        with gc.GradientTape() as tape:
            tape.watch(inputs)
            hidden = gc.gather(summing(inputs), gc.constant([0]))
            loss = gc.reduce_mean(hidden)
        return tape.gradient(loss, inputs)

    assert value(gradients(gc.constant([[[1.0], [2.0]]]))).tolist() == [[[1.0], [1.0]]]


def test_variables_read_in_nested_calls_are_watched():
    v = gc.Variable(4.0)
    f = gc.function(lambda: v ** 2.0)
    g = gc.function(lambda: f())
    h = gc.function(lambda: g())
    for fn in (f, g, h):
        with gc.GradientTape() as tape:
            fn()
        assert tape.watched_variables() == (v,)


# ------------------------------------------------------------------------- recursion
def test_recursive_functions():
    @gc.function
    def countdown(n):
        if n > 0:
            return countdown(n - 1)
        return 1

    assert int(countdown(5)) == 1

    def factorial_times(n, x):
        return n * factorial_times(n - 1, x) if n > 0 else x

    for f in (gc.function(factorial_times), gc.function(lambda n, x: factorial_times(n, x))):
        x = gc.Variable(1.0)
        with gc.GradientTape() as tape:
            g = f(5, x)
        assert float(tape.gradient(g, x)) == 120.0  # 5!


def test_functions_that_call_each_other():
    @gc.function
    def one(n, x):
        return x if n <= 1 else n * two(n - 1, x)

    @gc.function
    def two(n, x):
        return 2 * x if n <= 1 else n * one(n - 1, x)

    x = gc.Variable(1.0)
    for f, want in ((one, 120.0), (two, 240.0)):    # 5 * 4 * 3 * 2 * x; the same * 2
        with gc.GradientTape() as tape:
            g = f(5, x)
        assert float(tape.gradient(g, x)) == want
    a = gc.function(lambda n: 1 if n <= 1 else b(n - 1))
    b = gc.function(lambda n: 2 if n <= 1 else a(n - 1))
    assert [int(a(5)), int(a(6)), int(b(5)), int(b(6))] == [1, 2, 2, 1]


def test_recursion_on_a_tensor_never_ends():
    @gc.function(autograph=False)
    def forever(n):
        return gc.cond(n > 0, lambda: forever(n - 1), lambda: 1)

    with pytest.raises(RecursionError):
        forever(gc.constant(5))


# -------------------------------------------------------------------------- errors
def test_a_failed_assert_does_not_stick():
    @gc.function
    def fail(i):
        gc.debugging.Assert(gc.equal(i, 0), ["ick"])

    fail(gc.constant(0))
    with pytest.raises(InvalidArgumentError):
        fail(gc.constant(1))
    fail(gc.constant(0))


def test_a_tensor_leaked_from_another_trace_raises_type_error():
    leaked = []

    @gc.function
    def keep(a):
        leaked.append(a)
        return a

    use = gc.function(lambda b: b + leaked[0])
    keep(gc.constant(1))
    with pytest.raises(TypeError, match="another gc.function"):
        use(gc.constant(2))


def test_a_python_list_grown_in_a_graph_loop_raises():
    @gc.function
    def f(inputs):
        outputs = []
        for t in gc.range(inputs.shape[0]):
            outputs.append(inputs[t])
        return outputs

    with pytest.raises(ValueError):                 # TensorFlow: InaccessibleTensorError
        f(gc.zeros((8, 4, 3)))


# -------------------------------------------------------------- TensorFlow witness
def test_state_and_traces_tensorflow():
    tf = tensorflow()
    made = []

    @tf.function
    def f(x):
        if not made:
            made.append(tf.Variable(2.0 * x))
        return made[0] * x

    assert float(f(tf.constant(1.0))) == 2.0 and float(f(tf.constant(3.0))) == 6.0
    assert f.experimental_get_tracing_count() == 2
    v = tf.Variable([1.0, 2.0])
    inner = tf.function(lambda x: x.assign_add([2.0, 2.0]), reduce_retracing=True)
    outer = tf.function(lambda x: inner(x.assign_add([1.0, 1.0])), reduce_retracing=True)
    with tf.GradientTape() as tape:
        y = outer(v)
    assert value(y).tolist() == [4.0, 5.0]
    assert value(tape.gradient(y, v)).tolist() == [1.0, 1.0]
    leaked = []
    keep = tf.function(lambda a: leaked.append(a) or a)
    keep(tf.constant(1))
    with pytest.raises(TypeError, match="out of scope"):
        tf.function(lambda b: b + leaked[0])(tf.constant(2))

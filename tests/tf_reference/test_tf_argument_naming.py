"""TensorFlow 2.21's ``eager/polymorphic_function/argument_naming_test.py`` ported: the
names a concrete function gives its inputs.

TensorFlow names each graph input (``cf.inputs[i].op.name``, its
``_user_specified_name`` attribute) after the spec's own name, else the parameter
(``x``; ``args_1`` for an element of ``*args``; the key for one of ``**kwargs``). graphc's
graph inputs carry no names; the same names are those of the ``gc.TensorSpec`` leaves of
``structured_input_signature``, which is what these tests read
(tests/tf_reference/README.md).
"""

from __future__ import annotations

import pytest
from tfref import tensorflow, value

import graphc as gc

F32 = gc.float32


def _spec(shape, dtype=F32, name=None):
    return gc.TensorSpec(shape, dtype, name)


def _input_names(cf):
    """The names of the tensor (and variable) leaves of ``cf``'s signature, in order."""
    return [s.name for s in gc.nest.flatten(cf.structured_input_signature)[0]
            if hasattr(s, "dtype")]


def _basic():
    @gc.function
    def fn(a, b):
        return a + b, a * b

    fn(gc.ones([]), gc.ones([]))
    return fn


def test_inputs_are_named_after_parameters():
    cf = _basic().get_concrete_function(_spec([None]), _spec([]))
    assert _input_names(cf) == ["a", "b"]
    assert len(cf.structured_outputs) == 2
    a, b = gc.constant([1.0]), gc.constant(2.0)
    for got in (cf(a, b), cf(a=a, b=b)):
        assert [value(t).tolist() for t in got] == [[3.0], [2.0]]


@pytest.mark.xfail(strict=True, reason="deliberate: a concrete function checks the shapes "
                   "of its inputs; TensorFlow 2.21's takes a scalar for a [None] spec "
                   "(any shape, in fact) and runs the graph on it")
def test_concrete_function_takes_a_scalar_for_a_vector_spec():
    cf = _basic().get_concrete_function(_spec([None]), _spec([]))
    assert [float(t) for t in cf(gc.constant(1.0), gc.constant(2.0))] == [3.0, 2.0]


def test_a_variable_input_is_named_after_its_parameter():
    cf = _basic().get_concrete_function(_spec([None]), gc.Variable(1.0))
    assert _input_names(cf) == ["a", "b"]
    assert len(cf.structured_outputs) == 2
    got = cf(gc.constant([1.0, 2.0]), gc.Variable(3.0))
    assert [value(t).tolist() for t in got] == [[4.0, 5.0], [3.0, 6.0]]


def test_spec_names_replace_parameter_names_python_values_are_not_inputs():
    @gc.function
    def fn(x, z=(1.0, 2.0), y=3.0):
        z1, z2 = z
        return {"alpha": x + y + z1, "beta": x * y + z2}

    fn(gc.ones([]))
    cf = fn.get_concrete_function(x=_spec([None]), y=_spec([]))
    assert _input_names(cf) == ["x", "y"]                     # z: Python numbers
    assert set(cf.structured_outputs) == {"alpha", "beta"}

    cf2 = fn.get_concrete_function(z=(_spec([None], name="z_first"),
                                      _spec([], name="z_second")),
                                   y=_spec([], name="custom"), x=4.0)
    assert _input_names(cf2) == ["z_first", "z_second", "custom"]
    got = cf2(x=4.0, z=(gc.ones([2]), gc.ones([])), y=gc.ones([]))
    # alpha = 4 + 1 + 1, beta = 4 * 1 + 1
    assert value(got["alpha"]).tolist() == [6.0, 6.0] and float(got["beta"]) == 5.0
    flat = cf2(z_first=gc.ones([2]), z_second=gc.ones([]), custom=gc.ones([]))
    assert value(flat["alpha"]).tolist() == [6.0, 6.0]

    cf3 = fn.get_concrete_function(_spec([], name="custom"),
                                   z=(_spec([None], name="z1"), _spec([], name="z2")),
                                   y=_spec([]))
    assert _input_names(cf3) == ["custom", "z1", "z2", "y"]
    got = cf3(custom=gc.ones([]), z1=gc.ones([2]), z2=gc.ones([]), y=gc.ones([]))
    # alpha = 1 + 1 + z1, beta = 1 * 1 + 1
    assert value(got["alpha"]).tolist() == [3.0, 3.0] and float(got["beta"]) == 2.0


def test_method_inputs_leave_out_self():
    class HasMethod:
        @gc.function
        def method(self, x):
            return x

    obj = HasMethod()
    HasMethod.method(obj, gc.ones([]))
    unbound = HasMethod.method.get_concrete_function(obj, _spec([]))
    assert _input_names(unbound) == ["x"]
    obj.method(gc.ones([]))
    assert _input_names(obj.method.get_concrete_function(_spec([]))) == ["x"]


def test_method_with_a_named_signature():
    class HasMethod:
        @gc.function(input_signature=(_spec(None, gc.float64, name="y"),))
        def method(self, x):
            hash(self)                                         # self is the instance
            return x

    obj = HasMethod()
    obj.method(gc.ones([], dtype=gc.float64))
    cf = obj.method.get_concrete_function()
    assert _input_names(cf) == ["y"]
    assert obj.method.get_concrete_function() is cf
    one = gc.ones([], dtype=gc.float64)
    assert float(cf(one)) == float(cf(y=one)) == float(cf(x=one)) == 1.0


def test_variadic_inputs():
    @gc.function
    def variadic_fn(x, *args, **kwargs):
        return x + gc.add_n(list(args) + list(kwargs.values()))

    variadic_fn(gc.ones([]), gc.ones([]))
    cf = variadic_fn.get_concrete_function(
        _spec([]), _spec(None, name="y"), _spec([]), _spec([], name="second_variadic"),
        z=_spec([]), zz=_spec([], name="cust"))
    assert _input_names(cf) == ["x", "y", "args_1", "second_variadic", "z", "cust"]
    args, kwargs = cf.structured_input_signature
    assert len(args) == 4 and set(kwargs) == {"z", "zz"}
    one = gc.ones([])
    assert float(cf(one, one, one, one, z=one, zz=one)) == 6.0


def test_variadic_inputs_of_a_signature():
    @gc.function(input_signature=(_spec(None), _spec(None, name="y"), _spec([]),
                                  _spec([], name="z")))
    def variadic_fn(x, *args):
        return x + gc.add_n(list(args))

    one = gc.ones([])
    assert float(variadic_fn(one, one, one, one)) == 4.0
    cf = variadic_fn.get_concrete_function()
    assert "variadic_fn" in cf.name
    assert _input_names(cf) == ["x", "y", "args_1", "z"]


def test_argument_naming_tensorflow():
    tf = tensorflow()

    @tf.function
    def variadic_fn(x, *args, **kwargs):
        return x + tf.add_n(list(args) + list(kwargs.values()))

    spec = tf.TensorSpec([])
    cf = variadic_fn.get_concrete_function(spec, tf.TensorSpec(None, name="y"), spec,
                                           tf.TensorSpec([], name="second_variadic"),
                                           z=spec, zz=tf.TensorSpec([], name="cust"))
    names = [s.name for s in tf.nest.flatten(cf.structured_input_signature)]
    assert names == ["x", "y", "args_1", "second_variadic", "z", "cust"]
    assert [t.name for t in cf.inputs] == [n + ":0" for n in names]
    basic = tf.function(lambda a, b: (a + b, a * b)).get_concrete_function(
        tf.TensorSpec([None]), tf.TensorSpec([]))
    assert [float(t) for t in basic(tf.constant(1.0), tf.constant(2.0))] == [3.0, 2.0]

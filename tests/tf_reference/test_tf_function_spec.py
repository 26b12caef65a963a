"""TensorFlow 2.21's ``eager/polymorphic_function/function_spec_test.py`` (the tests of
``function_type_utils``) ported to what a user sees: how a call binds to the Python
function's parameters with and without ``input_signature`` (required, optional, ``*args``,
keyword-only, methods bound and unbound, behind a ``functools.wraps`` decorator), which
parameters the specs cover, the defaults the others keep, and the
``structured_input_signature`` of the concrete function.

TensorFlow's file compares its internal ``FunctionSpec`` / ``FunctionType`` objects;
here each of its layouts is called (tests/tf_reference/README.md).
"""

from __future__ import annotations

import functools

import pytest
from tfref import tensorflow

import graphc as gc


def _spec(shape=None, name=None):
    return gc.TensorSpec(shape, gc.float32, name)


def _wrapping(func):
    """A decorator that keeps ``func``'s signature visible (``functools.wraps``)."""
    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        return func(*args, **kwargs)
    return wrapper


DECORATORS = pytest.mark.parametrize("decorator", [_wrapping, lambda f: f],
                                     ids=["wrapped", "plain"])
SIGNATURES = {"none": None, "three": (_spec(), _spec(), _spec()),
              "two": (_spec(), _spec()), "one": (_spec(),),
              "nested": ([_spec(), _spec()], _spec(), _spec())}


def _first(x):
    return x[0] + x[1] if isinstance(x, list) else x


def _names(cf):
    args, kwargs = cf.structured_input_signature
    return [getattr(s, "name", s) for s in gc.nest.flatten((args, kwargs))[0]]


def _call(f, *args, **kwargs):
    return float(gc.reduce_sum(f(*args, **kwargs)))


# --------------------------------------------------------------------- required only
@DECORATORS
@pytest.mark.parametrize("sig", ["none", "three", "nested"])
def test_required_parameters(decorator, sig):
    f = gc.function(decorator(lambda x, y, z: _first(x) + y + z),
                    input_signature=SIGNATURES[sig])
    a0 = [1.0, 2.0] if sig == "nested" else 1.0
    first = 3.0 if sig == "nested" else 1.0                   # 1 + 2, or 1
    assert _call(f, a0, 2.0, 3.0) == first + 5.0
    assert _call(f, a0, 2.0, z=5.0) == first + 7.0
    for args in ((a0, 2.0), (a0,), ()):
        with pytest.raises(TypeError, match="missing"):
            f(*args)
    if sig != "none":
        assert f.input_signature == SIGNATURES[sig]
        names = ["x_0", "x_1", "y", "z"] if sig == "nested" else ["x", "y", "z"]
        assert _names(f.get_concrete_function()) == names


@DECORATORS
@pytest.mark.parametrize("sig", ["two", "one"])
def test_required_parameters_need_a_spec_each(decorator, sig):
    with pytest.raises(TypeError, match="no spec for parameter"):
        gc.function(decorator(lambda x, y, z: x), input_signature=SIGNATURES[sig])


# --------------------------------------------------------------------- optional only
@pytest.mark.filterwarnings("ignore::graphc.errors.RetracingWarning")  # Python values
@DECORATORS
@pytest.mark.parametrize("sig", ["none", "three", "two", "one"])
def test_optional_parameters(decorator, sig):
    def foo(x=1, y=2, z=3):
        return x + y + z

    f = gc.function(decorator(foo), input_signature=SIGNATURES[sig])
    assert _call(f) == _call(f, 1.0) == _call(f, 1.0, 2.0) == _call(f, 1.0, 2.0, 3.0) == 6.0
    covered = {"none": 3, "three": 3, "two": 2, "one": 1}[sig]
    if covered == 3:
        assert _call(f, 1.0, 2.0, z=5.0) == 8.0
    else:
        with pytest.raises(TypeError, match="keeps its default 3"):
            f(1.0, 2.0, z=5.0)
    if sig != "none":
        # the defaults of the parameters left out stay Python values of the trace
        want = [["x", "y", "z"], ["x", "y", 3], ["x", 2, 3]][3 - covered]
        assert _names(f.get_concrete_function()) == want


def test_optional_list_parameter_with_a_number_default():
    f = gc.function(lambda x=1, y=2, z=3: _first(x) + y + z,
                    input_signature=SIGNATURES["nested"])
    assert _call(f, [1.0, 2.0]) == 8.0                        # (1 + 2) + 2 + 3
    with pytest.raises(TypeError):                            # 1 does not fit [spec, spec]
        f()


def test_an_equal_python_value_for_an_uncovered_default_is_the_default():
    seen = []

    def foo(x, y, z=3):
        seen.append(z)
        return x + y + z

    f = gc.function(foo, input_signature=SIGNATURES["two"])
    assert _call(f, 1.0, 2.0, 3.0) == _call(f, 1.0, 2.0, z=3) == 6.0
    assert seen == [3] and type(seen[0]) is int               # traced once, with 3 itself
    g = gc.function(lambda x, y=1: x + y, input_signature=SIGNATURES["one"])
    assert _call(g, 1.0, True) == _call(g, 1.0, 1.0) == 2.0   # True == 1.0 == 1
    for other in (5.0, "3", gc.constant(3.0)):
        with pytest.raises(TypeError, match="keeps its default"):
            f(1.0, 2.0, other)


# -------------------------------------------------------------- required and optional
@DECORATORS
@pytest.mark.parametrize("sig", ["none", "three", "two"])
def test_required_and_optional_parameters(decorator, sig):
    f = gc.function(decorator(lambda x, y, z=3: x + y + z), input_signature=SIGNATURES[sig])
    assert _call(f, 1.0, 2.0) == _call(f, 1.0, 2.0, 3.0) == 6.0
    with pytest.raises(TypeError, match="missing"):
        f(1.0)
    if sig == "two":
        assert _names(f.get_concrete_function()) == ["x", "y", 3]
        with pytest.raises(TypeError):
            f(1.0, 2.0, 5.0)


# ---------------------------------------------------------------------------- *args
@DECORATORS
@pytest.mark.parametrize("sig", ["three", "one", "nested"])
def test_varargs_specs_are_its_elements(decorator, sig):
    def foo(*my_var_args):
        return gc.add_n([_first(a) for a in my_var_args])

    f = gc.function(decorator(foo), input_signature=SIGNATURES[sig])
    n = len(SIGNATURES[sig])
    args = ([1.0, 2.0], 2.0, 3.0) if sig == "nested" else (1.0, 2.0, 3.0)[:n]
    assert _call(f, *args) == {"three": 6.0, "one": 1.0, "nested": 8.0}[sig]
    for wrong in (args[:-1], args + (4.0,)):
        with pytest.raises(TypeError):
            f(*wrong)
    names = {"three": ["my_var_args_0", "my_var_args_1", "my_var_args_2"],
             "one": ["my_var_args_0"],
             "nested": ["my_var_args_0_0", "my_var_args_0_1", "my_var_args_1",
                        "my_var_args_2"]}[sig]
    cf = f.get_concrete_function()
    assert _names(cf) == names and len(cf.structured_input_signature[0]) == len(names[:n])


def test_varargs_without_signature_take_any_count():
    f = gc.function(lambda *my_var_args: gc.add_n(list(my_var_args)))
    assert _call(f, 1.0) == 1.0 and _call(f, 1.0, 2.0, 3.0) == 6.0
    with pytest.raises(TypeError, match="unexpected keyword"):
        f(1.0, z=5.0)


# -------------------------------------------------------------------- keyword-only
@DECORATORS
def test_keyword_only_parameter(decorator):
    f = gc.function(decorator(lambda x, y, *, z=3: x + y + z))
    assert _call(f, 1.0, 2.0) == 6.0 and _call(f, 1.0, 2.0, z=5.0) == 8.0
    with pytest.raises(TypeError, match="positional"):
        f(1.0, 2.0, 3.0)
    cf = f.get_concrete_function(_spec(), _spec(), z=_spec())
    assert cf.structured_input_signature == ((_spec(name="x"), _spec(name="y")),
                                             {"z": _spec(name="z")})


@DECORATORS
def test_keyword_only_parameter_keeps_its_default_under_a_signature(decorator):
    f = gc.function(decorator(lambda x, y, *, z=3: x + y + z),
                    input_signature=SIGNATURES["two"])
    assert _call(f, 1.0, 2.0) == 6.0
    assert f.get_concrete_function().structured_input_signature == (
        (_spec(name="x"), _spec(name="y")), {"z": 3})
    with pytest.raises(TypeError, match="keeps its default 3"):
        f(1.0, 2.0, z=5.0)


@DECORATORS
@pytest.mark.parametrize("sig", ["three", "nested"])
def test_a_spec_for_a_keyword_only_parameter_is_refused(decorator, sig):
    # TensorFlow takes the signature, then every call fails ("too many positional
    # arguments"); graphc refuses it when decorating. Both raise TypeError.
    with pytest.raises(TypeError):
        f = gc.function(decorator(lambda x, y, *, z=3: _first(x) + y + z),
                        input_signature=SIGNATURES[sig])
        f(1.0, 2.0, z=5.0)


# -------------------------------------------------------------------------- methods
METHOD_SIGS = {"none": None, "two": (_spec(), _spec()), "one": (_spec(),),
               "nested": ([_spec(), _spec()], _spec())}


@DECORATORS
@pytest.mark.parametrize("sig", list(METHOD_SIGS))
@pytest.mark.parametrize("how", ["internal", "external", "unbound"])
def test_methods_self_takes_no_spec(decorator, sig, how):
    class MyClass:
        def foo(self, x, y=1):
            return _first(x) + y

    if how == "internal":           # decorated in the class body
        MyClass.foo = gc.function(decorator(MyClass.foo), input_signature=METHOD_SIGS[sig])
    obj = MyClass()
    f = {"internal": lambda *a: obj.foo(*a),
         "external": gc.function(decorator(obj.foo), input_signature=METHOD_SIGS[sig]),
         "unbound": functools.partial(gc.function(decorator(MyClass.foo),
                                                  input_signature=METHOD_SIGS[sig]), obj),
         }[how]
    a0 = [1.0, 2.0] if sig == "nested" else 1.0
    base = 3.0 if sig == "nested" else 1.0
    assert _call(f, a0) == _call(f, a0, 1.0) == base + 1.0
    if sig == "one":                                    # y keeps its default 1
        with pytest.raises(TypeError, match="keeps its default 1"):
            f(a0, 2.0)
    else:
        assert _call(f, a0, 2.0) == base + 2.0


def test_function_spec_tensorflow():
    tf = tensorflow()
    spec = tf.TensorSpec(None)
    f = tf.function(lambda x, y, z=3: x + y + z, input_signature=[spec, spec])
    assert float(f(1.0, 2.0, 3.0)) == 6.0             # equal to the default: accepted
    with pytest.raises(TypeError):
        f(1.0, 2.0, 5.0)
    kw = tf.function(lambda x, y, *, z=3: x + y + z)
    cf = kw.get_concrete_function(spec, spec, z=spec)
    assert set(cf.structured_input_signature[1]) == {"z"}
    va = tf.function(lambda *my_var_args: tf.add_n(list(my_var_args)),
                     input_signature=[spec])
    (one,), _ = va.get_concrete_function().structured_input_signature
    assert one.name == "my_var_args_0"

"""``to_code``, ``to_graph``, ``do_not_convert`` and which functions get converted."""

import numpy as np
import pytest

import graphc as gc
import graphc.numpy as gnp
from graphc import autograph
from graphc.autograph import api, do_not_convert, to_code, to_graph
from graphc.errors import SymbolicTensorError


def relu(x):
    if x > 0:
        return x
    return 0


def test_to_code_is_readable_python():
    code = to_code(relu)
    assert code.startswith("def relu(x):")
    assert "ag__.if_stmt(x > 0, if_body, else_body, get_state, set_state" in code
    compile(code, "<to_code>", "exec")  # valid Python
    assert to_code(gc.function(relu)) == code  # a gc.function: its Python function


def test_to_code_of_loop_shows_state_variables():
    def count(n):
        i = 0
        while i < n:
            i += 1
        return i

    code = to_code(count)
    assert "nonlocal i" in code and "ag__.while_stmt(loop_test, loop_body" in code
    assert "('i',)" in code


def test_to_graph_runs_python_values_as_python():
    conv = to_graph(relu)
    assert conv(3) == 3 and conv(-3) == 0
    assert conv.__name__ == "relu" and conv.__wrapped__ is not None


def test_conversion_is_cached():
    assert to_graph(relu) is to_graph(relu)
    assert api.converted(relu) is api.converted(relu)
    assert api._entry(relu) is api._entry(relu)


def test_package_exports():
    assert autograph.to_code is to_code and autograph.to_graph is to_graph
    assert autograph.do_not_convert is do_not_convert


@do_not_convert
def opted_out(x):
    if x > 0:
        return x
    return -x


def test_do_not_convert():
    assert to_graph(opted_out) is opted_out
    with pytest.raises(SymbolicTensorError):
        gc.function(opted_out)(gc.constant(1))

    @do_not_convert()
    def also_opted_out(x):
        return x

    assert to_graph(also_opted_out) is also_opted_out


def test_library_functions_are_not_converted():
    for fn in (np.sum, gnp.sum, gc.reduce_sum, print, len, abs, np.linalg.norm):
        assert api.converted(fn) is fn


def test_do_not_convert_inside_converted_code():
    def outer(x):
        return opted_out(x)

    with pytest.raises(SymbolicTensorError):
        gc.function(outer)(gc.constant(1))
    assert gc.function(outer)(3) == 3


def test_inner_gc_function_keeps_its_own_autograph_setting():
    inner = gc.function(relu, autograph=False)

    @gc.function
    def outer(x):
        return inner(x)

    with pytest.raises(SymbolicTensorError):
        outer(gc.constant(1))


def test_closures_stay_live_and_defaults_are_kept():
    scale = 2

    def f(x, offset=1, *, extra=0):
        if x > 0:
            return x * scale + offset + extra
        return offset

    conv = to_graph(f)
    assert conv(3) == 7 and conv(3, extra=10) == 17
    scale = 10  # noqa: F841 - read through the closure cell
    assert conv(3) == 31
    assert gc.function(f)(gnp.asarray(3)).numpy() == 31


def test_recursion_unrolls_on_python_values():
    def power(x, n):
        if n == 0:
            return 1
        return x * power(x, n - 1)

    assert gc.function(power)(gnp.asarray(2.0), 5).numpy() == 32.0


def test_generated_names_do_not_clash_with_user_names():
    def f(x):
        if_body = 1
        get_state = 2
        ag__ = 3
        if x > 0:
            y = x + if_body + get_state + ag__
        else:
            y = x
        return y

    assert gc.function(f)(gnp.asarray(1)).numpy() == 7
    assert "ag___1" in to_code(f)


def test_decorated_wrapper_converts_through():
    import functools

    def deco(fn):
        @functools.wraps(fn)
        def wrapper(*args):
            return fn(*args)
        return wrapper

    @deco
    def g(x):
        if x > 0:
            return x
        return -x

    assert gc.function(g)(gnp.asarray(-4)).numpy() == 4


def test_try_and_with_blocks_keep_working():
    import contextlib

    def f(x):
        with contextlib.nullcontext():
            y = x * 2
        try:
            z = y + 1
        except ValueError:
            z = y
        if z > 0:
            z = z * 10
        return z

    assert gc.function(f)(gnp.asarray(1)).numpy() == 30
    assert to_graph(f)(1) == 30


def test_generators_run_unconverted():
    def gen(n):
        for i in range(n):
            yield i

    assert api.converted(gen) is gen

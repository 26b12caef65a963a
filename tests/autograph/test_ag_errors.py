"""Every AutoGraph error path: the message names the variable, the file and the line."""

import inspect
import traceback
import warnings

import pytest

import graphc as gc
import graphc.numpy as gnp
from graphc.autograph import AutographWarning, to_graph
from graphc.autograph import loops as ag_loops
from graphc.errors import AutographError, InvalidArgumentError, SymbolicTensorError
from graphc.ops.control import flow as control

FILE = __file__


def line_of(fn, text: str) -> int:
    """The line number in this file of the first line of ``fn`` containing ``text``."""
    lines, start = inspect.getsourcelines(fn)
    for i, line in enumerate(lines):
        if text in line:
            return start + i
    raise AssertionError(f"{text!r} not in {fn.__name__}")


def defined_in_one_branch(x):
    if x > 0:
        y = x * 2
    return y


def test_variable_defined_in_one_branch():
    with pytest.raises(AutographError) as e:
        gc.function(defined_in_one_branch)(gc.constant(1))
    msg = str(e.value)
    assert "variable 'y'" in msg and "true branch" in msg and "not in the false branch" in msg
    assert f"{FILE}:{line_of(defined_in_one_branch, 'if x > 0')}" in msg


def test_variable_in_one_branch_is_fine_when_not_used_after():
    def f(x):
        if x > 0:
            tmp = x * 2
            x = tmp + 1
        return x

    assert gc.function(f)(gc.constant(3)).numpy() == 7


def dtype_changes(x):
    s = x
    while s < 10:
        s = s * 1.5
    return s


def test_loop_variable_changing_dtype():
    with pytest.raises(AutographError) as e:
        gc.function(dtype_changes)(gc.constant(1))
    msg = str(e.value)
    assert "variable 's'" in msg and "int32" in msg and "float64" in msg
    assert f"{FILE}:{line_of(dtype_changes, 'while s < 10')}" in msg


def first_defined_in_loop(n):
    i = 0
    while i < n:
        last = i
        i += 1
    return last


def test_loop_creates_a_variable_like_tensorflow():
    """A tensor first assigned inside a tensor loop starts from zeros of the dtype and
    shape the body gives it; a loop that ran zero times raises at run time."""
    f = gc.function(first_defined_in_loop)
    assert int(f(gc.constant(3))) == 2
    with pytest.raises(InvalidArgumentError) as e:
        f(gc.constant(0))
    msg = str(e.value)
    assert "must iterate at least once to initialize variable 'last'" in msg
    assert f"{FILE}:{line_of(first_defined_in_loop, 'while i < n')}" in msg


def first_defined_as_object(n):
    i = 0
    while i < n:
        last = object()
        i += 1
    return last


def test_loop_variable_first_defined_inside_loop_as_python_object():
    with pytest.raises(AutographError) as e:
        gc.function(first_defined_as_object)(gc.constant(3))
    msg = str(e.value)
    assert "variable 'last'" in msg and "first defined inside the loop" in msg
    assert f"{FILE}:{line_of(first_defined_as_object, 'while i < n')}" in msg


def changes_rank(x):
    while gc.size(x) < 10:
        x = gc.stack([x, x])
    return x


def test_loop_variable_changing_rank():
    with pytest.raises(AutographError, match=r"variable 'x' has shape \(2,\) before the loop "
                                             r"but \(2, 2\) after one iteration"):
        gc.function(changes_rank)(gc.constant([1.0, 2.0]))


def python_value_changes(n):
    label = "start"
    i = 0
    while i < n:
        label = label + "!"
        i += 1
    return i, label


def test_python_value_changing_in_tensor_loop():
    with pytest.raises(AutographError, match=r"variable 'label' is Python str 'start' before "
                                             r"the loop and Python str 'start!' after"):
        gc.function(python_value_changes)(gc.constant(3))


def vector_condition(x):
    if x > 0:
        x = -x
    return x


def test_non_scalar_condition():
    with pytest.raises(AutographError, match=r"condition of the `if` at .*must be a scalar"):
        gc.function(vector_condition)(gc.constant([1.0, -1.0]))


def branch_types_differ(x):
    if x > 0:
        y = x
    else:
        y = None
    return y


def test_tensor_and_none_in_branches():
    with pytest.raises(AutographError,
                       match=r"variable 'y' is None in the false branch but i32\[\] tensor"):
        gc.function(branch_types_differ)(gc.constant(1))


def float_in_int_branch(x):
    if x > 0:
        y = x
    else:
        y = 1.5
    return y


def test_python_float_does_not_fit_int_branch():
    with pytest.raises(AutographError, match=r"variable 'y' is i32\[\].*Python float 1.5"):
        gc.function(float_in_int_branch)(gc.constant(1))


# ------------------------------------------------------------------ functional forms
def test_cond_dtype_mismatch_names_branch_output_and_dtypes():
    @gc.function
    def f(x):
        return control.cond(x > 0, lambda: (x, x), lambda: (x, gc.cast(x, gc.float32)))

    with pytest.raises(AutographError) as e:
        f(gc.constant(1))
    msg = str(e.value)
    assert "gc.cond" in msg and "output 1" in msg and "true_fn" in msg and "false_fn" in msg
    assert "int32" in msg and "float32" in msg and "shape ()" in msg


def test_cond_rank_mismatch():
    @gc.function
    def f(x):
        return control.cond(x[0] > 0, lambda: x, lambda: x[0])

    with pytest.raises(AutographError, match=r"output 0 is f32\[2\] .* but f32\[\]"):
        f(gc.constant([1.0, 2.0]))


def test_cond_structure_mismatch():
    @gc.function
    def f(x):
        return control.cond(x > 0, lambda: (x, x), lambda: x)

    with pytest.raises(AutographError, match=r"true_fn returns a tuple of 2 \(t, t\) but "
                                             r"the false_fn returns i32\[\] tensor"):
        f(gc.constant(1))


def test_while_loop_body_structure_mismatch():
    @gc.function
    def f(x):
        return control.while_loop(lambda a, b: a < 3, lambda a, b: (a + 1,), [x, x])

    with pytest.raises((AutographError, ValueError, TypeError)):
        f(gc.constant(1))


def test_while_loop_dtype_mismatch():
    @gc.function
    def f(x):
        return control.while_loop(lambda v: v < 3, lambda v: gc.cast(v, gc.float32) + 1, [x])

    with pytest.raises(AutographError, match=r"loop variable 0 has dtype int32 before the "
                                             r"loop but float32 after one iteration"):
        f(gc.constant(1))


def test_switch_case_index_must_be_integer():
    @gc.function
    def f(x):
        return control.switch_case(x, [lambda: x, lambda: x])

    with pytest.raises(TypeError, match="branch_index must be an integer scalar"):
        f(gc.constant(1.0))


# ------------------------------------------------------------------ where errors point
def raises_inside(x):
    y = x * 2
    if y > 0:
        z = gnp.reshape(y, (3, 3))
    else:
        z = y
    return z


def test_errors_point_at_the_user_line_and_hide_graphc_frames(monkeypatch):
    monkeypatch.delenv("GRAPHC_SHOW_INTERNAL_FRAMES", raising=False)
    with pytest.raises(Exception) as e:
        gc.function(raises_inside)(gc.constant(1.0))
    frames = traceback.extract_tb(e.value.__traceback__)
    assert frames[-1].filename == FILE
    assert frames[-1].lineno == line_of(raises_inside, "gnp.reshape")
    assert f"{FILE}:{line_of(raises_inside, 'gnp.reshape')}" in str(e.value)
    # below the converted function's entry only the user's own frames remain
    assert not any("/graphc/ops/" in f.filename or "/graphc/autograph/" in f.filename
                   or "/graphc/core/" in f.filename for f in frames)


def test_internal_frames_shown_on_request(monkeypatch):
    monkeypatch.setenv("GRAPHC_SHOW_INTERNAL_FRAMES", "1")
    with pytest.raises(Exception) as e:
        gc.function(raises_inside)(gc.constant(1.0))
    frames = traceback.extract_tb(e.value.__traceback__)
    assert any("/graphc/autograph/api.py" in f.filename for f in frames)  # ag__.call


def asserts_positive(x):
    assert x > 0, "x must be positive"
    return x


def test_assert_on_tensor_is_a_graph_assertion():
    f = gc.function(asserts_positive)
    assert f(gc.constant(2)).numpy() == 2
    with pytest.raises(InvalidArgumentError, match="x must be positive"):
        f(gc.constant(-2))
    assert f.tracing_count == 1
    with pytest.raises(AssertionError, match="x must be positive"):
        to_graph(asserts_positive)(-1)  # Python values: a Python assert


def test_autograph_off_raises_symbolic_tensor_error():
    with pytest.raises(SymbolicTensorError):
        gc.function(defined_in_one_branch, autograph=False)(gc.constant(1))


# ------------------------------------------------------------------ warnings
def test_source_unavailable_warns_once_and_runs_unconverted():
    ns = {}
    exec("def dyn(x):\n    if x > 0:\n        return x\n    return -x\n", {}, ns)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert to_graph(ns["dyn"]) is ns["dyn"]
        assert to_graph(ns["dyn"]) is ns["dyn"]
        with pytest.raises(SymbolicTensorError):
            gc.function(ns["dyn"])(gc.constant(1))
    messages = [str(w.message) for w in caught if issubclass(w.category, AutographWarning)]
    assert len(messages) == 1
    assert "source code is not available" in messages[0] and "exec()" in messages[0]
    assert gc.function(ns["dyn"])(3) == 3  # Python values still work unconverted


def long_python_loop(x):
    seen = []
    for _ in range(150):
        x = x + 1
        seen.append(1)  # a Python side effect per iteration: the loop must unroll
    return x


def test_unrolling_a_long_python_loop_warns_once():
    ag_loops._warned_unroll.clear()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        gc.function(long_python_loop)(gc.constant(0))
        gc.function(long_python_loop)(gc.constant(0.0))
    hits = [str(w.message) for w in caught if "unrolling a Python loop" in str(w.message)]
    assert len(hits) == 1
    assert "gc.range" in hits[0]
    assert f"{FILE}:{line_of(long_python_loop, 'for _ in range(150)')}" in hits[0]


def tensor_break_in_python_loop(x):
    total = 0
    for k in [1, 2, 3, 4]:
        if total + k > x:
            break
        total += k
    return total


def test_tensor_break_inside_python_loop_is_predicated():
    f = gc.function(tensor_break_in_python_loop)
    for x in (0, 3, 5, 100):
        assert f(gnp.asarray(x)).numpy() == tensor_break_in_python_loop(x)
    assert f.tracing_count == 1

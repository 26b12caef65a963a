"""NumPy's floating-point warnings from the interpreter point at the user's line that
traced the op, and follow the user's ``np.seterr`` settings (core/fp_errors.py)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import graphc as gc
import graphc.numpy as gnp


@gc.function(backend="numpy")
def overflowing(x):
    y = gnp.exp(x)  # the line the warning names
    return y * 2.0


@gc.function(backend="numpy")
def in_a_loop(x):
    i = gc.constant(0)
    while i < 2:
        x = x * 1e200  # overflows on the second trip
        i += 1
    return x


def _caught(fn, *args):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = fn(*args)
    return out, [w for w in caught if w.category is RuntimeWarning]


def _line_of(fn, text):
    import inspect

    lines, start = inspect.getsourcelines(fn.python_function if hasattr(
        fn, "python_function") else fn)
    return start + next(i for i, ln in enumerate(lines) if text in ln)


def test_warning_names_the_op_and_the_users_line():
    out, caught = _caught(overflowing, np.array([1000.0, 1.0]))
    assert np.isinf(out[0]) and out[1] == 2 * np.e
    assert [str(w.message) for w in caught] == ["overflow encountered in exp"]
    assert caught[0].filename == __file__
    assert caught[0].lineno == _line_of(overflowing, "gnp.exp(x)")
    assert np.geterrcall() is None  # the caller's NumPy state is back


def test_inside_a_loop_body_the_body_line_is_named():
    _out, caught = _caught(in_a_loop, np.array([1e200]))
    assert [str(w.message) for w in caught] == ["overflow encountered in multiply"]
    assert (caught[0].filename, caught[0].lineno) == (__file__,
                                                      _line_of(in_a_loop, "x * 1e200"))


def test_the_users_numpy_settings_are_kept():
    with np.errstate(over="ignore"):
        _out, caught = _caught(overflowing, np.array([1000.0]))
    assert caught == []
    with np.errstate(over="raise"), pytest.raises(gc.errors.InvalidArgumentError,
                                                  match="overflow encountered in exp") as e:
        overflowing(np.array([1000.0]))
    # the user's op and line; not the fusion pass's node that ran it
    assert f"test_fp_warnings.py:{_line_of(overflowing, 'gnp.exp(x)')}" in str(e.value)
    assert not getattr(e.value, "__notes__", None)

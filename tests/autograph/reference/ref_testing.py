"""Helpers for the AutoGraph reference tests (cases modelled on TensorFlow's suite).

A case is a function, its arguments as Python values, and a *kind* per argument saying
how the argument reaches the ``gc.function``:

* ``py``: as the Python value itself (control flow on it stays Python);
* ``t``: as a tensor by NumPy's rules (``ag_testing.as_tensor``: int64, float64, bool;
  an empty list as int64, as the TensorFlow tests make integer tensors);
* ``np``: as a NumPy array (for the plain-Python reference too);
* ``i32``: as an int32 tensor;
* ``range`` / ``gcrange``: ``range(v)`` / ``gc.range(v)`` (a Python ``range`` for the
  plain-Python reference in both cases);
* ``fresh``: ``v`` is a factory called anew for every run (a ``gc.Variable``);
* ``tlist``: a Python list of tensors (one per element of ``v``);
* ``pair``: ``v`` is ``(for_python, for_graphc)``, e.g. ``(range, gc.range)``.

``check`` runs the plain function on the Python values (the expected result, stdout and
exception) and compares it with the ``gc.function`` and with the converted function run
eagerly, on the converted arguments. ``expect_error`` checks that graphc refuses a case
that TensorFlow refuses.
"""

from __future__ import annotations

import contextlib
import io
import itertools
import os
import warnings

import numpy as np
import pytest
from ag_testing import as_tensor

import graphc as gc
import graphc.numpy as gnp
from graphc.autograph import to_graph


def _to_graphc(value, kind):
    if kind == "py":
        return value
    if kind == "t":
        if isinstance(value, np.ndarray):
            return gnp.asarray(value)
        if isinstance(value, list) and np.asarray(value).size == 0:
            return gnp.asarray(value, dtype=gc.int64)  # empty lists of ints, as TF's tests
        return as_tensor(value)
    if kind == "np":
        return np.asarray(value)
    if kind == "i32":
        return gnp.asarray(value, dtype=gc.int32)
    if kind == "range":
        return range(value)
    if kind == "gcrange":
        return gc.range(value)
    if kind == "fresh":
        return value()
    if kind == "tlist":  # each element as kind "t" (an empty list: int64, as TF's tests)
        return [_to_graphc(v, "t") for v in value]
    if kind == "pair":
        return value[1]
    raise ValueError(kind)


def _to_python(value, kind):
    if kind == "np":
        return np.asarray(value)
    if kind in ("range", "gcrange"):
        return range(value)
    if kind == "fresh":
        return value()
    if kind == "pair":
        return value[0]
    return value


def _kinds(args, kinds):
    if isinstance(kinds, str):
        kinds = (kinds,) * len(args)
    assert len(kinds) == len(args), (args, kinds)
    return kinds


def _run(fn, args):
    """(result, stdout, exception) of ``fn(*args)``."""
    out = io.StringIO()
    result = err = None
    with contextlib.redirect_stdout(out), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            result = fn(*args)
        except Exception as e:  # noqa: BLE001  (compared with the other side's)
            err = e
    return result, out.getvalue(), err


def _plain(x):
    """Results as plain values: tensors and variables as NumPy, containers recursively."""
    if isinstance(x, gc.Variable):
        return x.numpy()
    if isinstance(x, gc.Tensor):
        return x.numpy()
    if isinstance(x, dict):
        return {k: _plain(v) for k, v in x.items()}
    if isinstance(x, tuple) and hasattr(x, "_fields"):
        return type(x)(*(_plain(v) for v in x))
    if isinstance(x, list | tuple):
        return type(x)(_plain(v) for v in x)
    return x


def same(got, want, what=""):
    """Deep comparison of a graphc result with the plain-Python one (values, structure)."""
    got, want = _plain(got), _plain(want)
    if isinstance(want, dict):
        assert isinstance(got, dict) and set(got) == set(want), (what, got, want)
        for k in want:
            same(got[k], want[k], f"{what}[{k!r}]")
        return
    if isinstance(want, list) and isinstance(got, np.ndarray):
        want = np.asarray(want)  # a list argument returned as is: a tensor in graphc
    elif isinstance(want, list | tuple):
        assert isinstance(got, list | tuple) and len(got) == len(want), (what, got, want)
        if hasattr(want, "_fields"):
            assert getattr(got, "_fields", None) == want._fields, (what, got, want)
        for i, (g, w) in enumerate(zip(got, want)):
            same(g, w, f"{what}[{i}]")
        return
    if want is None or isinstance(want, str):
        assert got == want, (what, got, want)
        return
    if isinstance(got, list | tuple | dict) or got is None or isinstance(got, str):
        raise AssertionError((what, got, want))
    g, w = np.asarray(got), np.asarray(want)
    assert g.shape == w.shape, (what, g, w)
    np.testing.assert_allclose(g.astype(np.float64), w.astype(np.float64), rtol=1e-9,
                               atol=1e-12, err_msg=what)


def check(fn, args=(), kinds="py", *, eager=True, stdout=True, reference=None):
    """``gc.function(fn)`` (and the converted ``fn`` run eagerly) on ``args`` converted
    by ``kinds`` gives what plain Python gives on the Python values: the same result, the
    same printed output, or an exception where Python raises one. ``reference``: a plain
    Python function to run instead of ``fn`` for the expected result (when ``fn`` uses a
    graphc API that has no eager Python meaning of its own, e.g. ``gc.TensorArray``)."""
    args = tuple(args)
    kinds = _kinds(args, kinds)
    want, want_out, want_err = _run(reference or fn,
                                    [_to_python(a, k) for a, k in zip(args, kinds)])
    runs = [("gc.function", gc.function(fn))]
    if eager:
        runs.append(("converted, eager", to_graph(fn)))
    for what, f in runs:
        got, got_out, got_err = _run(f, [_to_graphc(a, k) for a, k in zip(args, kinds)])
        label = f"{fn.__name__}{args} kinds={kinds}: {what}"
        if want_err is not None:
            assert got_err is not None, (f"{label}: Python raised {want_err!r}, "
                                         f"graphc returned {got!r}")
            continue
        if got_err is not None:
            raise got_err
        same(got, want, label)
        if stdout and what == "gc.function":
            assert got_out == want_out, (label, got_out, want_out)


def expect_error(fn, args=(), kinds="py", types=(Exception,), match=None, *,
                 message=True):
    """``gc.function(fn)`` refuses the case (TensorFlow raises there): an exception of
    ``types`` whose message matches ``match`` (and is not empty, unless ``message`` is
    False: Python's own bare ``AssertionError``)."""
    args = tuple(args)
    kinds = _kinds(args, kinds)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(types, match=match) as info:
            result = gc.function(fn)(*[_to_graphc(a, k) for a, k in zip(args, kinds)])
            _plain(result)  # a value read from the graph raises here when it runs
    log = os.environ.get("REF_ERROR_LOG")  # the error types the README table lists
    if log:
        with open(log, "a") as f:
            f.write(f"{fn.__name__}{args} {kinds}: {type(info.value).__name__}: "
                    f"{' '.join(str(info.value).split())[:160]}\n")
    empty = f"{type(info.value).__name__} with an empty message"
    assert str(info.value).strip() or not message, empty
    return info.value


def case_id(value):
    if callable(value) and hasattr(value, "__name__"):
        return value.__name__
    if isinstance(value, tuple):
        return "(" + ",".join(case_id(v) for v in value) + ")"
    if isinstance(value, str):
        return value
    return repr(value).replace(" ", "")


def params(rows, xfails=None):
    """``pytest.param`` per row (a tuple), with an id from its values; rows whose id is a
    key of ``xfails`` (or matched by one of its predicates) get a strict xfail."""
    xfails = xfails or {}
    out = []
    for row in rows:
        pid = "-".join(case_id(v) for v in row)
        reason = xfails.get(pid)
        if reason is None:
            for key, r in xfails.items():
                if callable(key) and key(pid):
                    reason = r
                    break
        marks = [pytest.mark.xfail(strict=True, reason=reason)] if reason else []
        out.append(pytest.param(*row, id=pid, marks=marks))
    return out


def product(*axes):
    return list(itertools.product(*axes))

"""``assert_transformed``: the AutoGraph test oracle.

A case is a plain Python function and several argument tuples of Python values. For each
tuple the result of the plain function on those values is the expected one, and these
must all agree with it (value and, for tensors, dtype kind):

* the plain function run eagerly on ``gc.Tensor`` arguments;
* the ``gc.function`` traced on tensor arguments (control flow staged as graph ops, one
  trace for all tuples of the same dtypes and shapes);
* the ``gc.function`` traced on the Python values (control flow stays Python);
* the converted function (``to_graph``) run eagerly on the Python values and on eager
  tensors (converted code behaves like the original outside a trace).
"""

from __future__ import annotations

import warnings

import numpy as np

import graphc as gc
import graphc.numpy as gnp
from graphc.autograph import to_graph


def as_tensor(v):
    """Python values to tensors by NumPy's rules (ints int64, floats float64)."""
    if isinstance(v, bool | int | float | list):
        return gnp.asarray(v)
    return v


def _value(x):
    if isinstance(x, gc.Tensor):
        return x.numpy()
    if isinstance(x, list | tuple):
        return type(x)(_value(v) for v in x)
    return x


def _same(got, want, what):
    got, want = _value(got), _value(want)
    if isinstance(want, list | tuple):
        assert isinstance(got, list | tuple) and len(got) == len(want), (what, got, want)
        for g, w in zip(got, want):
            _same(g, w, what)
        return
    if want is None:
        assert got is None, (what, got)
        return
    np.testing.assert_allclose(np.asarray(got, dtype=np.float64),
                               np.asarray(want, dtype=np.float64), rtol=1e-9, atol=1e-12,
                               err_msg=what)


def assert_transformed(fn, inputs, *, graph_ops=None):
    """Check ``fn`` on every argument tuple in ``inputs`` four ways (module docstring).

    ``graph_ops``: op names the tensor trace must contain (e.g. ``{"while_loop"}``), to
    prove the control flow was staged rather than unrolled.
    """
    traced = gc.function(fn)
    converted = to_graph(fn)
    for args in inputs:
        args = args if isinstance(args, tuple) else (args,)
        want = fn(*args)
        tensors = [as_tensor(a) for a in args]
        _same(fn(*tensors), want, f"{fn.__name__}{args}: eager on tensors")
        _same(traced(*tensors), want, f"{fn.__name__}{args}: gc.function on tensors")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # retracing / unrolling: Python args on purpose
            _same(gc.function(fn)(*args), want, f"{fn.__name__}{args}: gc.function on Python")
        _same(converted(*args), want, f"{fn.__name__}{args}: converted, eager Python")
        _same(converted(*tensors), want, f"{fn.__name__}{args}: converted, eager tensors")
    if graph_ops:
        args = inputs[0] if isinstance(inputs[0], tuple) else (inputs[0],)
        graph = traced.get_concrete_function(*[as_tensor(a) for a in args]).graph
        assert set(graph_ops) <= op_names(graph), (graph_ops, str(graph))
    return traced


def op_names(graph) -> set:
    """Every op name in ``graph`` and its subgraphs."""
    names = set()
    for node in graph.nodes:
        names.add(node.op.name)
        for sub in node.subgraphs():
            names |= op_names(sub)
    return names

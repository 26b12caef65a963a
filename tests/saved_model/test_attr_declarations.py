"""Every op declares its attrs' kinds (``OpDef.attrs``), and the declarations are true.

A registry walk traces every op (the op registry's samples, one ``bind`` each, plus the
small graphs of ``corpus.py`` for control flow, variables, effects, callbacks, TensorArrays
and saving loops) and checks every node's attrs against its op's declaration: each attr
declared, each value of its declared kind. Attr values that can be saved also survive the
attr table unchanged (the table's leaves are the kinds' leaves).
"""

from __future__ import annotations

import inspect
import pathlib
import sys

import numpy as np
import pytest

import graphc  # noqa: F401  (registers every op)
from graphc.core import attr_types as at
from graphc.core.registry import all_ops, bind
from graphc.core.tensor import _symbolic
from graphc.core.trace import TraceContext
from graphc.ir.graph import Aval, ConstArray, Graph
from graphc.saved_model import schema

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "ops"))
from corpus import CORPUS, traced  # noqa: E402
from test_registry import SAMPLES  # noqa: E402


def _walk(graph, out):
    for node in graph.nodes:
        out.append(node)
        for sub in node.subgraphs():
            _walk(sub, out)


@pytest.fixture(scope="module")
def nodes():
    """Every node of every sample and corpus trace (optimized graphs too: fused ops)."""
    out = []
    for name, samples in SAMPLES.items():
        for args, attrs in samples:
            with TraceContext("t") as ctx:
                syms = [_symbolic(ctx.new_input(Aval(a.shape, a.dtype))) for a in args]
                res = bind(all_ops()[name], *syms, **attrs)
            res = res if isinstance(res, list) else [res]
            _walk(ctx.finish([r._sym for r in res]), out)
    for name in CORPUS:
        fn, _ = traced(name)
        for cf in fn.concrete_functions():
            _walk(cf.graph, out)
            _walk(cf.optimized_graph, out)
    return out


def test_every_registered_op_is_traced(nodes):
    missing = set(all_ops()) - {n.op.name for n in nodes}
    assert not missing, f"ops no sample or corpus graph traces: {sorted(missing)}"


def test_every_op_declares_kinds_its_functions_take():
    for name, op in all_ops().items():
        assert isinstance(op.attrs, dict), f"op {name!r} declares no attrs= (use {{}})"
        for key, kind in op.attrs.items():
            assert isinstance(kind, at.AttrType), f"{name}.{key}: {kind!r} is not a kind"
            params = []
            for fn in (op.infer, op.ref):
                try:
                    params.append(inspect.signature(fn).parameters)
                except (TypeError, ValueError):
                    params.append(None)
            takes = [p is None or key in p or any(v.kind == v.VAR_KEYWORD for v in p.values())
                     for p in params]
            assert all(takes), f"op {name!r} declares attr {key!r} its infer/ref do not take"


def test_every_traced_attr_is_declared_and_of_its_kind(nodes):
    bad = []
    for node in nodes:
        declared = node.op.attrs
        for key, value in node.attrs.items():
            if key not in declared:
                bad.append(f"{node.op.name}: attr {key!r} not declared")
            elif not declared[key].accepts(value):
                bad.append(f"{node.op.name}: attr {key}={value!r:.60} is not "
                           f"{declared[key].name}")
    assert not bad, "\n".join(sorted(set(bad)))


def test_saveable_attr_values_survive_the_table(nodes):
    refs = schema.Refs(None, {}, {})
    checked = 0
    for node in nodes:
        for key, value in node.attrs.items():
            kind = node.op.attrs[key]
            if _holds(value, (Graph, ConstArray)) or node.op.name == "variable" \
                    or kind is at.PYOBJ or node.op.name.endswith("function"):
                continue
            back = schema.decode_attr(schema.encode_attr(value, refs, key), schema.NO_REFS,
                                      key)
            assert back == value and type(back) is type(value), (node.op.name, key, value)
            assert kind.accepts(back)
            checked += 1
    assert checked > 200


def _holds(value, types) -> bool:
    if type(value) in (tuple, list):
        return any(_holds(v, types) for v in value)
    return isinstance(value, types)


def test_attr_table_entries_are_the_leaf_kinds():
    assert set(schema.ENCODERS) == {k.name for k in at.LEAVES}


@pytest.mark.parametrize("kind, good, bad", [
    (at.AXES, [None, 0, -1, (0, 2)], [True, 1.0, [0], (0, None), "0"]),
    (at.SHAPE, [(), (2, None)], [[2], (2.0,), None, (True,)]),
    (at.DTYPE, [np.dtype("float32")], ["float32", None]),
    (at.NUMBER, [True, 1, 1.5, 1j], [None, "1", (1,)]),
    (at.NEST, [(("int", 2), ("slice", None, 1, None))], [[1], ([1],), (ConstArray(np.ones(1)),)]),
    (at.PYOBJ, [print, object()], [None, 1, "s", (print,)]),
    (at.GRAPHS, [()], [(None,), []]),
])
def test_kinds_accept_what_they_say(kind, good, bad):
    assert all(kind.accepts(v) for v in good), kind.name
    assert not any(kind.accepts(v) for v in bad), kind.name

"""A registry walk over every op with a batching rule (``OpDef.batch``).

For each sample of tests/ops/test_registry.py and each operand in turn (then all of them
at once), the operand is given a batch of three examples (the sample, its values
reversed, the sample again), with the batch axis first and, for operands of rank >= 1,
also last; the rule's result (batch axis moved to 0) must equal ``ref`` applied example by
example and stacked: values, dtype and shape. The rule runs eagerly and traced (the
traced graph on the reference interpreter). A rule may decline a case
(``NotImplemented``: gc.vectorized_map then loops); each op must cover at least one.
"""

from __future__ import annotations

import pathlib
import sys

import numpy as np
import pytest

import graphc  # noqa: F401  (loads every op module)
from graphc.core.interpreter import run_graph
from graphc.core.registry import all_ops
from graphc.core.tensor import Tensor, _eager, _symbolic
from graphc.core.trace import TraceContext, freeze
from graphc.ir.graph import Aval

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "ops"))
from test_registry import SAMPLES  # noqa: E402

BATCHED = sorted(name for name, op in all_ops().items() if op.batch is not None)
N = 3


def _examples(a):
    return [a, np.flip(a).copy() if a.ndim else a, a]


def _cases(args):
    """``(positions batched, batch axis for each)`` to try for one sample."""
    n = len(args)
    sets = [[i] for i in range(n)] + ([list(range(n))] if n > 1 else [])
    for batched in sets:
        yield batched, {i: 0 for i in batched}
        if all(args[i].ndim >= 1 for i in batched):
            yield batched, {i: args[i].ndim for i in batched}


def _want(op, args, attrs, batched):
    outs = []
    for k in range(N):
        call = [(_examples(a)[k] if i in batched else a) for i, a in enumerate(args)]
        out = op.ref(*call, **attrs)
        outs.append(out if op.multiple_results else [out])
    return [np.stack([np.asarray(o[j]) for o in outs]) for j in range(len(outs[0]))]


def _operands(args, axes):
    ops, dims = [], []
    for i, a in enumerate(args):
        if i in axes:
            stacked = np.stack(_examples(a), axis=axes[i])
            ops.append(stacked)
            dims.append(axes[i])
        else:
            ops.append(a)
            dims.append(None)
    return ops, dims


def _front(x, d):
    return np.moveaxis(np.asarray(x), d, 0)


def _check(name, got, dims, want, how):
    got = got if isinstance(got, list) else [got]
    dims = dims if isinstance(dims, list) else [dims]
    assert len(got) == len(want), f"{name} ({how}): {len(got)} outputs"
    for g, d, w in zip(got, dims, want):
        # d None: a result the same for every example (shape's)
        g = np.broadcast_to(g, w.shape) if d is None else _front(g, d)
        assert g.dtype == w.dtype, f"{name} ({how}): dtype {g.dtype}, want {w.dtype}"
        assert g.shape == w.shape, f"{name} ({how}): shape {g.shape}, want {w.shape}"
        np.testing.assert_array_equal(g, w, err_msg=f"{name} ({how})")


@pytest.mark.parametrize("name", BATCHED)
def test_batch_rule_matches_the_per_example_loop(name):
    op = all_ops()[name]
    covered = 0
    for args, attrs in {**SAMPLES, **CONTROL}[name]:
        attrs = {k: freeze(v) for k, v in attrs.items()}
        for batched, axes in _cases(args):
            want = _want(op, args, attrs, batched)
            operands, dims = _operands(args, axes)
            how = f"attrs {attrs}, batched {axes}"
            result = op.batch([_eager(x) for x in operands], dims, **attrs)
            if result is NotImplemented:
                continue
            covered += 1
            got, out_dims = result
            got = [t.numpy() for t in got] if isinstance(got, list) else got.numpy()
            _check(name, got, out_dims, want, how + ", eager")
            with TraceContext("t") as ctx:
                syms = [_symbolic(ctx.new_input(Aval(x.shape, x.dtype))) for x in operands]
                outs, out_dims = op.batch(syms, dims, **attrs)
            listed = outs if isinstance(outs, list) else [outs]
            for t, w, d in zip(listed, want, out_dims if isinstance(out_dims, list)
                               else [out_dims]):
                assert isinstance(t, Tensor) and (tuple(t.shape) == w.shape[1:] if d is None
                                                  else tuple(np.moveaxis(np.empty(t.shape),
                                                             d, 0).shape) == w.shape
                                                  ), f"{name}: {how}, traced shape"
            ran = run_graph(ctx.finish([t._sym for t in listed]), operands)
            _check(name, list(ran) if isinstance(outs, list) else ran[0], out_dims, want,
                   how + ", traced")
    assert covered, f"{name}: the rule declined every sample"


def test_the_families_have_rules():
    for name in ("add", "exp", "where", "cast", "clip", "sum", "argmax", "cumsum",
                 "matmul", "reshape", "transpose", "expand_dims", "squeeze",
                 "broadcast_to", "concatenate", "stack", "getitem", "sort"):
        assert name in BATCHED, name


def _control_samples():
    """cond / switch_case / while_loop nodes taken from small traced functions."""
    import graphc as gc

    def node_of(fn, *specs):
        graph = gc.function(fn).get_concrete_function(*specs).graph
        return next(n for n in graph.nodes if n.op.name in ("cond", "switch_case",
                                                             "while_loop"))

    f64 = gc.TensorSpec([3], gc.float64)
    cond = node_of(lambda p, x: gc.cond(p, lambda: x * 2.0, lambda: x - 1.0),
                   gc.TensorSpec([], gc.bool), f64)
    switch = node_of(lambda i, x: gc.switch_case(i, [lambda: x, lambda: -x]),
                     gc.TensorSpec([], gc.int32), f64)
    loop = node_of(lambda x: gc.while_loop(lambda s: s[0] < 5.0, lambda s: s + 1.5, x), f64)
    x = np.array([1.0, -2.0, 3.0])
    return {"cond": [([np.array(True), x], dict(cond.attrs)),
                     ([np.array(False), x], dict(cond.attrs))],
            "switch_case": [([np.array(1, np.int32), x], dict(switch.attrs))],
            "while_loop": [([x], dict(loop.attrs))]}


CONTROL = _control_samples()  # the op registry's samples of these live elsewhere
# indices that stay in range when _examples flips them (the registry's samples do not)
CONTROL["tensor_scatter_nd_update"] = [
    ([np.arange(5, dtype=np.float32), np.array([[1], [3]]), np.array([9, 10], np.float32)],
     {}),
    ([np.arange(6).reshape(2, 3), np.array([[0, 1], [1, 0]]), np.array([7, 8])], {}),
    ([np.zeros((3, 2), np.int32), np.array([[2], [0]], np.int32),
      np.array([[1, 2], [3, 4]], np.int32)], {}),
]

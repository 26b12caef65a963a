"""TensorFlow's top-level loop and gradient helpers: ``gc.scan``, ``gc.foldl``,
``gc.foldr``, ``gc.hessians``, ``gc.recompute_grad`` and ``gc.Module``.

``scan``/``foldl``/``foldr`` are, as ``gc.map_fn``, a Python loop eagerly and one
``while_loop`` node while tracing (the running value a loop variable; ``scan``'s
results written into ``gc.TensorArray``s, stacked after the loop), so they compile,
differentiate and batch as ``while_loop`` does.
"""

from __future__ import annotations

import functools
import re

import numpy as np

from graphc import nest, source_info
from graphc.autograph.api import converted
from graphc.core import trace
from graphc.ops import shape as shape_ops
from graphc.ops.control.flow import while_loop
from graphc.ops.join import stack
from graphc.ops.tensor_array.array import TensorArray
from graphc.ops.tf_api_shapes import tensor
from graphc.transforms.graph_gradients import gradients
from graphc.transforms.map_fn import leaves_of
from graphc.variables import Variable


def _loop(fn, elems, initializer, reverse, collect, what):
    leaves, td, n = leaves_of(elems, what)
    if trace.active():
        fn = converted(fn)

    def elem(i):
        return nest.unflatten(td, [x[i] for x in leaves])

    def step(acc, i):
        out = fn(acc, elem(i))
        flat, otd = nest.flatten(out)
        if otd != acc_td:
            raise ValueError(f"{what}{source_info.where()}: fn returned {out!r:.80}, whose "
                             f"structure differs from the initializer's")
        return [tensor(v) for v in flat]

    if initializer is None:
        if isinstance(n, int) and n == 0:
            raise ValueError(f"{what}: elems must not be empty when no initializer is given")
        first = (n - 1) if reverse else 0
        acc0 = elem(first)
    else:
        first = None
        acc0 = initializer
    acc_leaves, acc_td = nest.flatten(acc0)
    acc_leaves = [tensor(v) for v in acc_leaves]
    if not trace.active():
        return _eager(step, acc_leaves, acc_td, int(n), first, reverse, collect)
    return _traced(step, acc_leaves, acc_td, n, first, reverse, collect)


def _eager(step, acc, acc_td, n, first, reverse, collect):
    order = list(range(n - 1, -1, -1) if reverse else range(n))
    outs = {}
    if first is not None:
        order.remove(first)
        outs[first] = acc
    for i in order:
        acc = step(nest.unflatten(acc_td, acc), i)
        outs[i] = acc
    if not collect:
        return nest.unflatten(acc_td, acc)
    if not outs:
        return nest.unflatten(acc_td, [shape_ops.reshape(a[None], (0,) + a.shape)[:0]
                                       for a in acc])
    rows = [outs[i] for i in range(n)]
    return nest.unflatten(acc_td, [stack([r[k] for r in rows]) for k in range(len(acc))])


def _traced(step, acc, acc_td, n, first, reverse, collect):
    arrays = [TensorArray(a.dtype, size=n, element_shape=tuple(a.shape)) for a in acc]
    if first is not None and collect:
        arrays = [ta.write(first, a) for ta, a in zip(arrays, acc)]
    skip = 0 if first is None else 1
    k = len(acc)
    if reverse:
        start = np.asarray(-1, np.int64) + n - skip
    else:
        start = np.asarray(skip, np.int64)

    def cond(i, *state):
        return i >= 0 if reverse else i < n

    def body(i, *state):
        new = step(nest.unflatten(acc_td, list(state[:k])), i)
        new = [v if v.dtype == a.dtype else v.astype(a.dtype) for v, a in zip(new, acc)]
        tas = [ta.write(i, v) for ta, v in zip(state[k:], new)] if collect else []
        return (i - 1 if reverse else i + 1, *new, *tas)

    final = while_loop(cond, body, (start, *acc, *(arrays if collect else [])))
    if collect:
        return nest.unflatten(acc_td, [ta.stack() for ta in final[1 + k:]])
    return nest.unflatten(acc_td, list(final[1:1 + k]))


def scan(fn, elems, initializer=None, parallel_iterations=10, back_prop=True,
         swap_memory=False, infer_shape=True, reverse=False, name=None):
    """``tf.scan``: ``a = fn(a, x)`` for each slice ``x`` of ``elems`` along dim 0
    (from the end with ``reverse``), starting from ``initializer`` (default: the first
    slice, which is then also the first result); the values of ``a`` stacked, in
    ``elems``' order."""
    return _loop(fn, elems, initializer, reverse, True, "gc.scan")


def foldl(fn, elems, initializer=None, parallel_iterations=10, back_prop=True,
          swap_memory=False, name=None):
    """``tf.foldl``: ``a = fn(a, x)`` over the slices of ``elems`` from the first;
    the final ``a`` (``initializer`` defaults to the first slice)."""
    return _loop(fn, elems, initializer, False, False, "gc.foldl")


def foldr(fn, elems, initializer=None, parallel_iterations=10, back_prop=True,
          swap_memory=False, name=None):
    """``tf.foldr``: as :func:`foldl`, from the last slice to the first."""
    return _loop(fn, elems, initializer, True, False, "gc.foldr")


# --------------------------------------------------------------------------- gradients
def hessians(ys, xs, gate_gradients=False, aggregation_method=None,
             colocate_gradients_with_ops=True, name="hessians"):
    """``tf.hessians``: for each ``x`` in ``xs``, the second derivatives of
    ``sum(ys)``, shaped ``x.shape + x.shape``; inside ``gc.function`` only, as
    ``gc.gradients`` (each ``x`` needs a static size)."""
    xs_list = list(xs) if isinstance(xs, list | tuple) else [xs]
    out = []
    for x in xs_list:
        (g,) = gradients(ys, [x])
        if x.shape is None or None in x.shape:
            raise ValueError("hessians: each x needs a static shape")
        size = int(np.prod(x.shape, dtype=np.int64))
        flat = shape_ops.reshape(g, (-1,))
        rows = [gradients(flat[j], [x])[0] for j in range(size)]
        rows = [shape_ops.reshape(r if r is not None else x * 0, (-1,)) for r in rows]
        out.append(shape_ops.reshape(stack(rows), tuple(x.shape) * 2))
    return out


def recompute_grad(f):
    """``tf.recompute_grad``: ``f`` with the same values and gradients. graphc keeps
    the forward values for the backward pass (no recomputation: the memory saving is
    not made; docs/tf_api.md)."""
    @functools.wraps(f)
    def inner(*args, **kwargs):
        return f(*args, **kwargs)

    return inner


# --------------------------------------------------------------------------- Module
def _snake(name):
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


class _NameScope:
    def __init__(self, name):
        self.name = name + "/"

    def __enter__(self):
        return self.name

    def __exit__(self, *exc):
        return False


class Module:
    """``tf.Module``: a container whose ``variables``, ``trainable_variables`` and
    ``submodules`` are found by walking its attributes (lists, tuples and dicts
    included), in attribute-name order."""

    def __init__(self, name=None):
        if name is None:
            name = _snake(type(self).__name__)
        elif not re.fullmatch(r"[A-Za-z_][\w.\-]*", name):
            raise ValueError(f"{name!r} is not a valid module name.")
        self._name = name
        self._scope_name = name

    @property
    def name(self):
        """The module's name (default: the class name in snake_case)."""
        return self._name

    @property
    def name_scope(self):
        """A context manager naming the module's scope (graphc keeps no op names)."""
        return _NameScope(self._scope_name)

    def _walk(self, keep, descend_modules=True):
        seen, found = {id(self)}, []

        def visit(value):
            if id(value) in seen:
                return
            if isinstance(value, Variable | Module):
                seen.add(id(value))
                if keep(value):
                    found.append(value)
                if isinstance(value, Module) and descend_modules:
                    visit_attrs(value)
            elif isinstance(value, dict):
                seen.add(id(value))
                for k in sorted(value, key=str):
                    visit(value[k])
            elif isinstance(value, list | tuple):
                seen.add(id(value))
                for v in value:
                    visit(v)

        def visit_attrs(module):
            for key in sorted(vars(module)):
                visit(vars(module)[key])

        visit_attrs(self)
        return tuple(found)

    @property
    def variables(self):
        """Every ``gc.Variable`` of this module and its submodules."""
        return self._walk(lambda v: isinstance(v, Variable))

    @property
    def trainable_variables(self):
        """The variables created with ``trainable=True``."""
        return self._walk(lambda v: isinstance(v, Variable) and v.trainable)

    @property
    def non_trainable_variables(self):
        """The variables created with ``trainable=False``."""
        return self._walk(lambda v: isinstance(v, Variable) and not v.trainable)

    @property
    def submodules(self):
        """Every module reachable from this one's attributes."""
        return self._walk(lambda v: isinstance(v, Module))

    @classmethod
    def with_name_scope(cls, method):
        """Decorator for methods (TensorFlow enters the module's name scope; graphc
        keeps no op names, so it is the method itself)."""
        return method


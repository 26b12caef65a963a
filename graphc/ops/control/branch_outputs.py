"""How the outputs of traced branches become one output of a ``cond``/``switch_case``:
one leaf at a time, the dtype and shape every branch agrees on (or a clear error naming
the variable, the branches and the user's line); Python values that agree stay Python
values; weak values and numbers promote as NEP 50 does. Used by
``trace.stage_branches``."""

from __future__ import annotations

import numpy as np

from graphc.core import weak
from graphc.dtypes import numpy_literal
from graphc.errors import AutographError
from graphc.ir import graph as ir
from graphc.ops.control.values import (
    Undefined,
    UndefinedReturnValue,
    _is_number,
    _is_tensorish,
    _join_all,
    _same_python,
    _shape_text,
    aval_of,
    describe,
    join_shapes,
    probing,
)


def unify_leaf(leaves, i, site):
    """``None`` if the leaf stays a Python value, else the output ``Aval``."""
    undefined = [k for k, v in enumerate(leaves) if isinstance(v, Undefined)]
    if undefined and len(undefined) < len(leaves):
        k = undefined[0]
        defined = [site.labels[j] for j in range(len(leaves)) if j not in undefined]
        raise AutographError(
            f"{site.leaf_name(i)} is defined in the {' and '.join(defined)} of "
            f"{site.construct} but not in the {site.labels[k]}, and it is used after it; "
            f"define it before the statement (e.g. give it an initial value) or in every "
            f"branch")
    live = [v for v in leaves if not isinstance(v, UndefinedReturnValue)]
    if not live or (len(live) == len(leaves) and not any(map(_is_tensorish, live))
                    and _same_python(live)):
        return None
    tensors = [(k, v) for k, v in enumerate(leaves) if _is_tensorish(v) and not weak.is_weak(v)]
    weak_values = [v for v in leaves if weak.is_weak(v)]
    for k, v in enumerate(leaves):
        if not (_is_tensorish(v) or _is_number(v) or isinstance(v, UndefinedReturnValue)):
            other = next((j for j, w in enumerate(leaves) if w is not v), 0)
            raise AutographError(
                f"{site.construct}: {site.leaf_name(i)} is {describe(v)} in the "
                f"{site.labels[k]} but {describe(leaves[other])} in the "
                f"{site.labels[other]}; on a tensor condition every branch must give a "
                f"tensor (or the same Python value)")
    if not tensors:  # numbers and weak values only: a weak result
        shape = _join_all([aval_of(v).shape for v in weak_values]) if weak_values else ()
        return ir.Aval(shape, np.result_type(*[
            aval_of(v).dtype if weak.is_weak(v) else numpy_literal(v) for v in live]))
    k0, first = tensors[0]
    a0 = aval_of(first)
    if probing():  # dtypes under a probe are provisional: promote instead of failing
        a0 = ir.Aval(a0.shape, np.result_type(*[aval_of(v).dtype for _, v in tensors]))
    shape = a0.shape
    for k, v in tensors[1:]:
        a = aval_of(v)
        joined = join_shapes(shape, a.shape)
        if (a.dtype != a0.dtype and not probing()) or joined is None:
            raise AutographError(
                f"{site.construct}: {site.leaf_name(i)} is {a0} ({a0.dtype.name}, shape "
                f"{_shape_text(a0.shape)}) in the {site.labels[k0]} but {a} "
                f"({a.dtype.name}, shape {_shape_text(a.shape)}) in the {site.labels[k]}; "
                "branches must agree on dtype and rank (cast with gc.cast or reshape)")
        shape = joined
    for v in weak_values:  # a weak value takes the tensors' dtype, as a number would
        a = aval_of(v)
        kind = weak.python_kind(a.dtype)
        joined = join_shapes(shape, a.shape)
        if np.result_type(a0.dtype, kind) != a0.dtype or joined is None:
            raise AutographError(
                f"{site.construct}: {site.leaf_name(i)} is {a0} ({a0.dtype.name}) on one "
                f"side but a {a.dtype.name} value computed from Python numbers on another, "
                "which does not fit that dtype and shape; cast it with gc.cast")
        shape = joined
    for k, v in enumerate(leaves):
        if probing() and _is_number(v):
            a0 = ir.Aval(shape, np.result_type(a0.dtype, v))
        if _is_number(v) and (np.result_type(a0.dtype, v) != a0.dtype or shape != ()):
            raise AutographError(
                f"{site.construct}: {site.leaf_name(i)} is {a0} ({a0.dtype.name}, shape "
                f"{_shape_text(a0.shape)}) in the {site.labels[k0]} but Python "
                f"{type(v).__name__} {v!r} in the {site.labels[k]}, which does not fit "
                "that dtype and shape; make both sides tensors of one dtype and rank")
    return ir.Aval(shape, a0.dtype)

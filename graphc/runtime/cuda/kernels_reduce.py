"""Reductions as CUDA kernels: one block per output element, a tree in shared memory.

``sum prod mean max min any all`` over any axes (``keepdims``, ``dtype=``) and ``argmax
argmin`` (axis or None): block ``o`` (grid-stride over the outputs) computes output ``o``.
Its threads stride over the reduced elements (``r = t, t + B, ...``), each folding into
its own accumulator in the accumulation dtype (the result's: NumPy's for ``sum`` of ints
is int64, ``mean`` of ints float64), then the block folds the ``B`` partial results in
shared memory in ``log2(B)`` halving steps. Input offsets are literal-stride sums of the
kept coordinates (from ``o``) and the reduced ones (from ``r``), so any axis set works
without a transpose. Floats are summed in a different order than NumPy's pairwise sum
(results agree to rounding); ``max``/``min`` propagate NaN and ``argmax``/``argmin`` pick
the first NaN and the first of equal values, as NumPy does.
"""

from __future__ import annotations

import math

import numpy as np

from graphc.runtime.cuda.lowering import DVal, emitter, numba_type, settings, strides
from graphc.runtime.scalar_templates import Unsupported, cast, literal

BLOCK_MAX = 256

_COMBINE = {
    "sum": "({a} + {b})", "mean": "({a} + {b})", "prod": "({a} * {b})",
    "max": "({a} if ({a} >= {b} or {a} != {a}) else {b})",
    "min": "({a} if ({a} <= {b} or {a} != {a}) else {b})",
    "any": "({a} | {b})", "all": "({a} & {b})",
}


def _axes(attrs, ndim) -> tuple:
    axis = attrs.get("axis")
    if axis is None:
        return tuple(range(ndim))
    axes = axis if isinstance(axis, tuple | list) else (axis,)
    return tuple(sorted(a % ndim for a in axes)) if ndim else ()


def offset_expr(shape, dims, var) -> str:
    """The input offset of the ``dims`` coordinates unravelled from flat ``var``."""
    st = strides(shape)
    sizes = [shape[d] for d in dims]
    terms = []
    for j, d in enumerate(dims):
        if shape[d] == 1:
            continue
        inner = math.prod(sizes[j + 1:])
        c = var if inner == 1 else f"({var} // {inner})"
        if j > 0:
            c = f"({c} % {shape[d]})"
        terms.append(c if st[d] == 1 else f"{c} * {st[d]}")
    return " + ".join(terms) or "0"


def _identity(name, acc) -> str:
    if name in ("sum", "mean", "any"):
        return literal(0, acc)
    if name in ("prod", "all"):
        return literal(1, acc)
    if acc.kind == "f":
        return literal(-np.inf if name == "max" else np.inf, acc)
    info = np.iinfo(acc)
    return literal(info.min if name == "max" else info.max, acc)


def _block(nred: int) -> int:
    return min(BLOCK_MAX, 1 << max(0, (nred - 1).bit_length()))


def _kernel(g, x: DVal, axes, out_aval, outs, init_lines, fold_lines, tree_lines, store,
            shared) -> list[DVal]:
    """The common skeleton: ``shared`` = [(name, dtype)], the fold bodies per thread
    element and per tree step, ``store`` writes ``o0[o]`` from slot 0."""
    kept = [d for d in range(len(x.shape)) if d not in axes]
    nout, nred = math.prod(x.shape[d] for d in kept), math.prod(x.shape[d] for d in axes)
    block = _block(nred)
    body = [f"{n} = cuda.shared.array({block}, numba.{numba_type(dt)})" for n, dt in shared]
    body += ["t = cuda.threadIdx.x", "o = cuda.blockIdx.x", f"while o < {nout}:",
             f"    base = {offset_expr(x.shape, kept, 'o')}"]
    body += ["    " + ln for ln in init_lines]
    body += ["    r = t", f"    while r < {nred}:",
             f"        v = a0[base + {offset_expr(x.shape, axes, 'r')}]"]
    body += ["        " + ln for ln in fold_lines]
    body += [f"        r += {block}"]
    body += ["    " + ln for ln in tree_lines]
    body += ["    if t == 0:", f"        {store}", "    cuda.syncthreads()",
             "    o += cuda.gridDim.x"]
    val = g.alloc(outs[0], out_aval)
    if nout:
        k = g.kernel(["a0", "o0"], [x.aval.dtype, out_aval.dtype], body,
                     min(nout, settings.max_grid), block)
        g.line(f"{k}({x.name}, {outs[0]})")
    return [val]


def _tree(step: list[str]) -> list[str]:
    """Halving steps over the shared slots (``step`` folds slot ``t + s`` into ``t``)."""
    return ["cuda.syncthreads()", "s = cuda.blockDim.x // 2", "while s > 0:",
            "    if t < s:", *("        " + ln for ln in step), "    cuda.syncthreads()",
            "    s //= 2"]


@emitter("sum", "prod", "mean", "max", "min", "any", "all")
def _reduce(g, node, ins, outs):
    name, x = node.op.name, ins[0]
    out = node.outputs[0].aval
    axes = _axes(node.attrs, len(x.shape))
    nred = math.prod(x.shape[d] for d in axes)
    if nred == 0 and name in ("max", "min"):
        raise Unsupported(f"{name} of an empty axis (NumPy raises)")
    logical = name in ("any", "all")
    acc = np.dtype(np.int32) if logical or out.dtype == np.bool_ else out.dtype
    elem = "np.int32(v != 0)" if logical else cast("v", acc)
    comb = _COMBINE[name]
    init = [f"acc = {_identity(name, acc)}"]
    fold = [f"acc = {comb.format(a='acc', b=elem)}"]
    tree = ["sh[t] = acc", *_tree([f"sh[t] = {comb.format(a='sh[t]', b='sh[t + s]')}"])]
    res = "sh[0]"
    if name == "mean":
        res = f"(sh[0] / {literal(max(nred, 1), acc)})" if nred else literal(np.nan, acc)
    store = f"o0[o] = {cast(res, out.dtype)}"
    return _kernel(g, x, axes, out, outs, init, fold, tree, store, [("sh", acc)])


@emitter("argmax", "argmin")
def _argreduce(g, node, ins, outs):
    x = ins[0]
    axes = _axes(node.attrs, len(x.shape))
    if math.prod(x.shape[d] for d in axes) == 0:
        raise Unsupported(f"{node.op.name} of an empty axis (NumPy raises)")
    op = ">" if node.op.name == "argmax" else "<"
    vt = np.dtype(np.int32) if x.aval.dtype == np.bool_ else x.aval.dtype
    init = [f"acc = {_identity('max' if op == '>' else 'min', vt)}", "ai = -1"]
    fold = [f"v = {cast('v', vt)}",
            f"if ai < 0 or (acc == acc and (v != v or v {op} acc)):",
            "    acc = v", "    ai = r"]
    step = ["va = sh[t]", "vb = sh[t + s]", "ia = si[t]", "ib = si[t + s]",
            "if ib >= 0:",
            "    if ia < 0:", "        take = True",
            "    elif va != va:", "        take = vb != vb and ib < ia",
            "    elif vb != vb:", "        take = True",
            "    else:", f"        take = vb {op} va or (vb == va and ib < ia)",
            "    if take:", "        sh[t] = vb", "        si[t] = ib"]
    tree = ["sh[t] = acc", "si[t] = ai", *_tree(step)]
    return _kernel(g, x, axes, node.outputs[0].aval, outs, init, fold, tree, "o0[o] = si[0]",
                   [("sh", vt), ("si", np.dtype(np.int64))])



@emitter("std", "var")
def _moments(g, node, ins, outs):
    """Two tree reductions in one kernel per output, as NumPy computes them: the mean,
    then the sum of squared deviations from it, over ``n - ddof`` (std: its sqrt)."""
    x, out = ins[0], node.outputs[0].aval
    axes = _axes(node.attrs, len(x.shape))
    nred = math.prod(x.shape[d] for d in axes)
    if nred == 0 or out.dtype.kind != "f":
        raise Unsupported(f"{node.op.name} of an empty axis or with a {out.dtype} result")
    acc = out.dtype
    elem = cast("v", acc)
    tree = _tree(["sh[t] = sh[t] + sh[t + s]"])
    fold = [f"acc = acc + {elem}"]
    # first pass: the mean, broadcast to every thread through slot 0
    init = [f"acc = {literal(0, acc)}", "r = t", f"while r < {nred}:",
            f"    v = a0[base + {offset_expr(x.shape, axes, 'r')}]",
            *("    " + ln for ln in fold), f"    r += {_block(nred)}",
            "sh[t] = acc", *tree, f"mean = sh[0] / {literal(nred, acc)}", "cuda.syncthreads()",
            f"acc = {literal(0, acc)}"]
    fold2 = [f"d = {elem} - mean", f"acc = acc + {cast('d * d', acc)}"]
    res = f"(sh[0] / {literal(nred - node.attrs.get('ddof', 0), acc)})"
    if node.op.name == "std":
        res = f"np.sqrt({res})"
    return _kernel(g, x, axes, out, outs, init, fold2, ["sh[t] = acc", *tree],
                   f"o0[o] = {cast(res, out.dtype)}", [("sh", acc)])

"""Gradient rules of the ops of ``linalg.py``: ``matmul``, the contractions (``einsum``
and what reduces to it: ``tensordot``, ``inner``, ``dot``), ``outer``, ``vdot`` and
``trace``; the end of this module attaches them to the ops.

The cotangent of an einsum operand is itself one einsum: the cotangent and the other
operands, contracted to the operand's labels. Two cases need extra operands, both
constants: a label repeated within the operand (``ii->i``: its diagonal) becomes one
label per position tied by an identity matrix, and a label found in no other operand
nor in the output (summed away: ``ij->i``) comes back through a vector of ones, which
broadcasts the cotangent along it. ``...`` is spelled out with letters first; an
ellipsis dim of size 1 that broadcasts against a larger one gets a label of its own, so
its cotangent is summed over the broadcast.
"""

from __future__ import annotations

import string

from graphc.ops import linalg
from graphc.ops.creation import eye, ones
from graphc.ops.elementwise import MULTIPLY, _want
from graphc.ops.shape import expand_dims, moveaxis, reshape, squeeze, swapaxes


def matmul_grad(cts, args, outs, **_):
    """1-D operands act as a row (left) or a column (right); batch dims the operands
    broadcast are summed back by the walk."""
    x, y = args
    g = cts[0]
    x_vec, y_vec = len(x.shape) == 1, len(y.shape) == 1
    X = expand_dims(x, 0) if x_vec else x
    Y = expand_dims(y, -1) if y_vec else y
    if x_vec:
        g = expand_dims(g, -2 if not y_vec else 0)
    if y_vec:
        g = expand_dims(g, -1)
    gx = gy = None
    if _want(x):
        gx = linalg.matmul(g, swapaxes(Y, -1, -2))
        if x_vec:
            gx = squeeze(gx, -2)
    if _want(y):
        gy = linalg.matmul(swapaxes(X, -1, -2), g)
        if y_vec:
            gy = squeeze(gy, -1)
    return gx, gy


def dot_grad(cts, args, outs, **_):
    x, y = args
    if x.shape == () or y.shape == ():  # a scalar times an array
        return MULTIPLY.grad(cts, args, outs)
    if len(y.shape) <= 2:
        return matmul_grad(cts, args, outs)
    return dot_nd_grad(cts, args, outs)


def parse_einsum(subscripts, shapes):
    """``(terms, out)``: each operand's labels and the output's, as lists of letters,
    with ``...`` spelled out and the implicit output made explicit."""
    spec = subscripts.replace(" ", "")
    ins, arrow, out = spec.partition("->")
    terms = ins.split(",")
    fresh = iter(c for c in string.ascii_letters if c not in spec)
    ranks = [len(s) - (len(t) - 3) for t, s in zip(terms, shapes) if "..." in t]
    n_ell = max(ranks, default=0)
    ell = [next(fresh) for _ in range(n_ell)]
    ell_dims = [1] * n_ell  # the broadcast size of each ellipsis position
    for t, s in zip(terms, shapes):
        if "..." in t:
            pre, post = t.split("...")
            part = s[len(pre):len(s) - len(post)]
            for p, d in enumerate(part):
                q = n_ell - len(part) + p
                ell_dims[q] = d if d != 1 else ell_dims[q]
    labelled = []
    for t, s in zip(terms, shapes):
        if "..." not in t:
            labelled.append(list(t))
            continue
        pre, post = t.split("...")
        part = s[len(pre):len(s) - len(post)]
        mid = [next(fresh) if d == 1 and ell_dims[n_ell - len(part) + p] != 1
               else ell[n_ell - len(part) + p] for p, d in enumerate(part)]
        labelled.append(list(pre) + mid + list(post))
    if not arrow:
        flat = ins.replace("...", "").replace(",", "")
        out = ("..." if n_ell else "") + "".join(
            sorted(c for c in set(flat) if flat.count(c) == 1))
    out_labels = []
    for c in out.split("...")[0] if "..." in out else out:
        out_labels.append(c)
    if "..." in out:
        out_labels += ell + list(out.split("...")[1])
    return labelled, out_labels


def einsum_operand_grad(ct, operands, terms, out, k):
    """The cotangent of ``operands[k]`` (see the module doc)."""
    x = operands[k]
    sizes = dict(zip(terms[k], x.shape))
    fresh = iter(c for c in string.ascii_letters
                 if c not in set(out).union(*map(set, terms)))
    target, extra_terms, extra_ops = [], [], []
    others = set(out).union(*[set(t) for j, t in enumerate(terms) if j != k])
    for label in terms[k]:
        n = sizes[label]
        if label in target:  # a diagonal: a new label, tied to the first by an identity
            tie = next(fresh)
            target.append(tie)
            extra_terms.append(label + tie)
            extra_ops.append(eye(_known(n), dtype=ct.dtype))
            continue
        target.append(label)
        if label not in others:  # summed away: broadcast the cotangent along it
            extra_terms.append(label)
            extra_ops.append(ones((_known(n),), dtype=ct.dtype))
    ins = ["".join(out)] + ["".join(t) for j, t in enumerate(terms) if j != k] + extra_terms
    ops = [ct] + [o for j, o in enumerate(operands) if j != k] + extra_ops
    return linalg.einsum(",".join(ins) + "->" + "".join(target), *ops)


def _known(n):
    if n is None:
        raise NotImplementedError("this einsum gradient needs the operand's dims while "
                                  "tracing (a diagonal or a summed-away label of unknown "
                                  "size)")
    return n


def einsum_grad(cts, args, outs, subscripts):
    terms, out = parse_einsum(subscripts, [tuple(a.shape) for a in args])
    return tuple(einsum_operand_grad(cts[0], args, terms, out, k) if _want(a) else None
                 for k, a in enumerate(args))


def _tensordot_subscripts(na, nb, axes):
    if isinstance(axes, int):
        axes_a, axes_b = list(range(na - axes, na)), list(range(axes))
    else:
        axes_a, axes_b = (list(x) if isinstance(x, tuple | list) else [x] for x in axes)
    axes_a = [x % na for x in axes_a]
    axes_b = [x % nb for x in axes_b]
    letters = iter(string.ascii_letters)
    ta = [next(letters) for _ in range(na)]
    tb = [next(letters) for _ in range(nb)]
    for i, j in zip(axes_a, axes_b):
        tb[j] = ta[i]
    out = [c for i, c in enumerate(ta) if i not in axes_a]
    out += [c for j, c in enumerate(tb) if j not in axes_b]
    return f"{''.join(ta)},{''.join(tb)}->{''.join(out)}"


def tensordot_grad(cts, args, outs, axes=2):
    a, b = args
    spec = _tensordot_subscripts(len(a.shape), len(b.shape), axes)
    return einsum_grad(cts, args, outs, spec)


def inner_grad(cts, args, outs):
    a, b = args
    if not a.shape or not b.shape:  # a scalar multiplies
        return MULTIPLY.grad(cts, args, outs)
    return tensordot_grad(cts, args, outs, axes=((len(a.shape) - 1,), (len(b.shape) - 1,)))


def dot_nd_grad(cts, args, outs):
    """``dot`` with a right operand of rank 3 or more: a's last axis against b's
    second-to-last."""
    a, b = args
    return tensordot_grad(cts, args, outs, axes=((len(a.shape) - 1,), (len(b.shape) - 2,)))


def outer_grad(cts, args, outs):
    a, b = args
    g = cts[0]
    return (reshape(linalg.matmul(g, reshape(b, (-1,))), tuple(a.shape))
            if _want(a) else None,
            reshape(linalg.matmul(reshape(a, (-1,)), g), tuple(b.shape))
            if _want(b) else None)


def vdot_grad(cts, args, outs):
    """The sum of the flattened products (real operands: graphc has no complex
    conjugate op yet, which complex ones would need)."""
    a, b = args
    g = cts[0]
    return (g * reshape(b, tuple(a.shape)) if _want(a) else None,
            g * reshape(a, tuple(b.shape)) if _want(b) else None)


def trace_grad(cts, args, outs, offset=0, axis1=0, axis2=1):
    """The cotangent placed on the diagonal ``offset`` of the (axis1, axis2) planes."""
    x = args[0]
    nd = len(x.shape)
    a1, a2 = axis1 % nd, axis2 % nd
    n, m = _known(x.shape[a1]), _known(x.shape[a2])
    diagonal = eye(n, m, k=offset, dtype=cts[0].dtype)
    g = expand_dims(expand_dims(cts[0], -1), -1) * diagonal
    return (moveaxis(g, (-2, -1), (a1, a2)),)


linalg.MATMUL.grad = matmul_grad
linalg.DOT.grad = dot_grad
linalg.EINSUM.grad = einsum_grad
linalg.TENSORDOT.grad = tensordot_grad
linalg.INNER.grad = inner_grad
linalg.OUTER.grad = outer_grad
linalg.VDOT.grad = vdot_grad
linalg.TRACE.grad = trace_grad

"""``einsum`` and ``trace`` on the CUDA backend: one thread per output element, loops over
the summed letters (the diagonal, for ``trace``).

Each output element's letters come from its coordinates; the summed letters (those not
in the output) are nested ``for`` loops with literal bounds; each operand is read at the
literal-stride sum of its letters' coordinates (a letter repeated in one operand reads
its diagonal), the product and the running sum are cast to the result dtype. Simple
and general (any number of operands and letters); a contraction that is a plain matmul
is better written as one (``tensordot``/``matmul`` use the tiled kernel).
"""

from __future__ import annotations

import math

from graphc.runtime.cuda.kernels_elementwise import coord_lines
from graphc.runtime.cuda.lowering import emitter, grid_stride, strides
from graphc.runtime.scalar_templates import Unsupported, cast, literal


def _parse(subscripts: str, n_operands: int):
    spec = subscripts.replace(" ", "")
    if "." in spec:
        raise Unsupported("einsum with an ellipsis")
    ins, _, out = spec.partition("->")
    terms = ins.split(",")
    if len(terms) != n_operands:
        raise Unsupported("einsum subscripts do not match the operands")
    if "->" not in spec:  # implicit output: the letters used once, sorted
        letters = "".join(terms)
        out = "".join(sorted(c for c in set(letters) if letters.count(c) == 1))
    return terms, out


@emitter("einsum")
def _einsum(g, node, ins, outs):
    out = node.outputs[0].aval
    if out.dtype.kind not in "iuf":
        raise Unsupported(f"einsum with a {out.dtype} result")
    terms, out_letters = _parse(node.attrs["subscripts"], len(ins))
    size = {}
    for term, x in zip(terms, ins):
        for c, n in zip(term, x.shape):
            size[c] = n
    summed = sorted(set("".join(terms)) - set(out_letters))
    n_out = math.prod(out.shape)
    body = [*coord_lines(out.shape, {d for d, n in enumerate(out.shape) if n > 1})]
    body += [f"e_{c} = c{d}" if out.shape[d] > 1 else f"e_{c} = 0"
             for d, c in enumerate(out_letters)]  # e_<letter>: no clash with i, st, ...
    body.append(f"acc = {literal(0, out.dtype)}")
    depth = ""
    for c in summed:
        body.append(f"{depth}for e_{c} in range({size[c]}):")
        depth += "    "
    factors = []
    for k, (term, x) in enumerate(zip(terms, ins)):
        off = " + ".join(f"e_{c} * {s}" for c, s, n in zip(term, strides(x.shape), x.shape)
                         if n > 1) or "0"
        factors.append(cast(f"a{k}[{off}]", out.dtype))
    body.append(f"{depth}acc = {cast('acc + ' + ' * '.join(factors), out.dtype)}")
    body.append("o0[i] = acc")
    return [grid_stride(g, n_out, body, ins, outs[0], out)]


@emitter("trace")
def _trace(g, node, ins, outs):
    """One thread per output element summing its (offset) diagonal in the result dtype."""
    x, out = ins[0], node.outputs[0].aval
    nd = len(x.shape)
    a1, a2 = node.attrs.get("axis1", 0) % nd, node.attrs.get("axis2", 1) % nd
    off = node.attrs.get("offset", 0)
    n1, n2 = x.shape[a1], x.shape[a2]
    length = max(0, min(n1, n2 - off) if off >= 0 else min(n1 + off, n2))
    start = off * strides(x.shape)[a2] if off >= 0 else -off * strides(x.shape)[a1]
    st = strides(x.shape)
    rest = [d for d in range(nd) if d not in (a1, a2)]
    n_out = math.prod(out.shape)
    base = " + ".join(f"c{k} * {st[d]}" for k, d in enumerate(rest) if x.shape[d] > 1) or "0"
    elem = cast(f"a0[{start} + {base} + j * {st[a1] + st[a2]}]", out.dtype)
    body = [*coord_lines(out.shape, {k for k, n in enumerate(out.shape) if n > 1}),
            f"acc = {literal(0, out.dtype)}", f"for j in range({length}):",
            f"    acc = {cast('acc + ' + elem, out.dtype)}", "o0[i] = acc"]
    return [grid_stride(g, n_out, body, [x], outs[0], out)]

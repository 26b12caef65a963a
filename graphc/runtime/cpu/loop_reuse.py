"""A ``while_loop``'s state buffers reused across iterations (``docs/runtime.md``).

A staged loop whose body makes each iteration's state in a fresh array (a stencil step
``u = concatenate([u[:1], f(u), u[-1:]])``, an update ``x = 0.5 * (x + a / x)``)
allocated one array per slot per iteration and dropped the previous one. Here the
array the body made two iterations ago, dead by then, is the buffer of the next one:
after the body, ``spare, prev = prev, made`` (``made`` this iteration's new state,
``prev`` last iteration's), and the allocation that makes the slot's next value takes
``spare`` when it has the shape wanted (``loops._allocate``, ``kernels_join``). Two
buffers then alternate, as a hand-written ping-pong loop's do.

A slot qualifies (:func:`slots`) when, with every carried array taken as the loop's own,
the body's result for it is one fresh buffer (an allocating op's whole result, shared
with no other result) and no result of the body may share the slot's incoming buffer
(a view of the old state carried on would still read it). The first iterations
allocate (``spare`` starts as an empty array); the initial value, which the loop does
not own, is never written.
"""

from __future__ import annotations

from graphc.runtime.cpu.kernels import Val, np_type
from graphc.runtime.cpu.ownership import Ownership, allocates, is_array


def slots(body, skip) -> list[int]:
    """The state slots of a ``while_loop`` whose buffers can be reused (above); ``skip``:
    slots kept otherwise (written in place, carried as scalars)."""
    n = len(body.outputs)
    arrays = [k for k in range(n) if is_array(body.outputs[k]) and k not in skip
              and is_array(body.inputs[k])]
    if not arrays:
        return []
    plan = Ownership(body, frozenset(k for k in range(n) if is_array(body.inputs[k])))
    made = {v.id: node for node in body.nodes for v in node.outputs}
    roots = [plan.roots(v) if is_array(v) else frozenset() for v in body.outputs]
    out = []
    for k in arrays:
        mine = roots[k]
        maker = made.get(body.outputs[k].id)
        if maker is None or not allocates(maker.op) or len(mine) != 1 \
                or next(iter(mine))[0] != "node":
            continue
        if any(mine & r for j, r in enumerate(roots) if j != k):
            continue  # the same buffer carried in another slot too
        if any(("in", k) in r for r in roots):
            continue  # a result shares the incoming buffer: still read after the body
        out.append(k)
    return out


def start(g, slot_avals) -> dict:
    """Before the loop: ``spare`` and ``prev`` variables per slot (empty arrays of the
    slot's type); returns slot -> (spare, prev, index of the first of those lines)."""
    names = {}
    for k, aval in slot_avals.items():
        spare, prev = g.tmp("spare"), g.tmp("prev")
        empty = f"np.empty({(0,) * len(aval.shape)}, {np_type(aval.dtype)})"
        names[k] = (spare, prev, len(g.lines))
        g.line(f"{spare} = {empty}")
        g.line(f"{prev} = {spare}")
    return names


def take(g, value: str, target: str, shape: str, dtype) -> bool:
    """At the allocation of ``target``, the buffer of the value named ``value``:
    ``target = spare`` when that value is a slot's next value that may reuse a buffer
    and ``spare`` has ``shape``, else a new array; False (nothing emitted) when it is no
    such value."""
    spare = g.reuse.pop(value, None)
    if spare is None:
        return False
    g.line(f"if {spare}.shape == {shape}:")
    g.line(f"    {target} = {spare}")
    g.line("else:")
    g.line(f"    {target} = np.empty({shape}, {np_type(dtype)})")
    g.reused[value] = spare
    return True


def bound(g, outs, avals) -> list:
    """The names an elementwise loop writing ``outs`` must take as arguments when it is
    made a function of its own (:func:`outlined`): the spare an output's buffer may be,
    or the output itself where it is a view of such a buffer (a ``concatenate`` part)."""
    extra = []
    for o, aval in zip(outs, avals):
        if o in g.reused:
            extra.append(Val(g.reused[o] or o, aval))
    return extra


def outlined(g, outs) -> bool:
    """Whether a loop writing ``outs`` must be a function of its own: LLVM did not
    vectorize a loop writing a buffer chosen from two (spare or new) inside the loop
    that carries them (Newton's update: 4.2x slower), and did as a function of its
    own, with a run-time overlap check."""
    return any(o in g.reused for o in outs)


def rotate(g, names: dict, results) -> None:
    """After the body: ``spare, prev = prev, made`` for each slot whose allocation took the
    spare (``results``: the body's output Vals); the other slots' variables are dropped
    (their next value was made by an op that allocates by itself, ``np.concatenate``)."""
    unused = []
    for k, (spare, prev, at) in names.items():
        made = results[k].name
        if made in g.reused:
            g.line(f"{spare}, {prev} = {prev}, {made}")
        else:
            unused.append(at)
    for at in sorted(unused, reverse=True):
        del g.lines[at:at + 2]

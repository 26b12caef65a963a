"""What a graph that is not wholly compiled tells its user, in the user's terms.

Some ops run in Python by design, as documented with them (``gc.numpy_function``,
``gc.py_function``, ``gc.print``, ``gc.random``, ``gc.debugging`` checks: the op declares
``extra["python_side"]``, its public name). They, and what only follows from them (a
value of unknown rank a ``numpy_function`` returned, variable reads and writes kept in
Python to stay in order with those effects, a ``cond`` holding a ``gc.print``), are not
fallbacks: ``explain()`` lists them and nothing warns. Any other op that stays in Python
should have compiled: one :class:`FallbackWarning` per ``gc.function`` names it by its
public name, the user's ``file:line`` where it was traced, why and what to do.

``classify(graph, blocked)`` turns the code generator's ``(node, reason)`` pairs into
:class:`Item` s; ``warning_text`` and ``explain_lines`` render them.

Shared by both backends (the Numba CPU one in ``runtime/cpu/``, the CUDA one in
``runtime/cuda/``): this module owns the reporting of nodes that do not run compiled, the
wording of those reasons the report keys on (:data:`VARIABLE_ARGUMENT`) and the mapping of
a Numba compile failure back to the user's op and line (:func:`compile_failure`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from graphc import errors, source_info
from graphc.ir.printer import node_signature

STATE_OPS = frozenset({"variable", "read_variable", "assign_variable"})

# Why a variable passed as an argument (a resource input) keeps its reads and writes in
# Python: the program holds the variables it closes over as function-wide locals, and an
# argument's variable is known only at call time. The advice below keys on it.
VARIABLE_ARGUMENT = "a gc.Variable passed as an argument (only captured variables compile)"

# why a variable op is in Python when another effect is (cpu/codegen, cpu/kernels_state)
_KEPT_IN_ORDER = ("stateful op", "variables run in Python when another effect")


@dataclass
class Item:
    """One node that runs in Python: ``kind`` is ``"python"`` (by design), ``"follows"``
    (only because of a ``"python"`` one) or ``"fallback"`` (it should have compiled)."""

    name: str     # the public name (``gc.print``) or the op's name
    where: str    # the user's file:line it was traced at ("" when unknown)
    why: str      # the code generator's reason, without IR
    kind: str

    def line(self) -> str:
        at = f" at {self.where}" if self.where else ""
        return f"{self.name}{at}: {self.why}"


def public_name(op) -> str:
    return op.extra.get("python_side") or op.extra.get("public") or op.name


def describe(node) -> str:
    """How a message names ``node``: its public name; a fused loop by the ops it runs."""
    if node.op.extra.get("named_by_body"):
        names = [describe(n) for g in node.subgraphs() for n in g.nodes]
        return ", ".join(dict.fromkeys(names)) + " (fused)"
    return public_name(node.op)


def _is_python_side(node) -> bool:
    if node.op.extra.get("python_side"):
        return True
    return any(_is_python_side(n) for g in node.subgraphs() for n in g.nodes)


def _python_side_inside(node) -> str:
    for g in node.subgraphs():
        for n in g.nodes:
            if n.op.extra.get("python_side"):
                return describe(n) + (f" at {n.src}" if n.src else "")
            if n.subgraphs() and _is_python_side(n):
                return _python_side_inside(n)
    return "a Python-side op"


def _signatures(graph, out: dict) -> dict:
    """IR signature text -> node, for ``graph`` and every nested subgraph."""
    for node in graph.nodes:
        out[node_signature(graph, node)] = node
        for sub in node.subgraphs():
            _signatures(sub, out)
    return out


def _innermost(reason: str, node, sigs: dict):
    """The node a reason is really about (inside control flow: the innermost one named)
    and the reason text without IR signatures or the ``(traced at ...)`` suffix."""
    best, at = node, -1
    for sig, n in sigs.items():
        i = reason.rfind(sig + ": ")
        if i > at:
            best, at = n, i + len(sig) + 2
    why = reason[at:] if at >= 0 else reason
    why = re.sub(r" \(traced at [^)]*\)", "", why).split("; ")[0]
    return best, why.strip()


def classify(graph, blocked) -> list[Item]:
    """``blocked``: ``(node, reason)`` pairs of ``graph``'s top-level nodes."""
    sigs = _signatures(graph, {})
    python_values: set = set()
    items = []
    for node, reason in blocked:
        inner, why = _innermost(reason, node, sigs)
        why = why.replace(f"{inner.op.name}'s ", "its ")  # no internal op names
        if describe(inner) != inner.op.name:
            why = re.sub(rf"\b{re.escape(inner.op.name)}\b", "the op", why)
        if _is_python_side(node):
            kind = "python"
        elif "unknown" in why and any(v.id in python_values for v in node.inputs):
            kind = "follows"
        elif node.op.name in STATE_OPS and why.startswith(_KEPT_IN_ORDER):
            kind = "follows"  # kept in Python only to stay in order with other effects
        else:
            kind = "fallback"
        if kind != "fallback":
            python_values.update(v.id for v in node.outputs)
        if kind == "python" and node.op.extra.get("python_side"):
            why = "a Python-side op, run by the interpreter on every call"
        elif kind == "python":
            inner = node  # a cond/loop: name it, and the Python-side op it holds
            why = f"holds {_python_side_inside(node)}, so it runs in Python"
        elif kind == "follows":
            why = f"runs in Python with the Python-side ops ({why})"
        items.append(Item(describe(inner), inner.src or node.src or "", why, kind))
    if not any(i.kind == "python" for i in items):  # nothing to follow: all should compile
        for i in items:
            if i.kind == "follows" and i.name in STATE_OPS:
                i.kind = "fallback"
    return items


def _advice(items) -> str:
    whys = " ".join(i.why for i in items)
    if "Numba could not compile" in whys:
        return ("This is a graphc bug: please report it with the generated source; "
                "backend='numpy' runs the function without it meanwhile")
    if "unknown" in whys:
        return ("Give the values known shapes (a gc.TensorSpec with every dim, or "
                "gnp.reshape to a static shape before the op)")
    if "it has effects" in whys and "the whole graph runs on the host" in whys:  # CUDA
        return ("Keep variable updates, prints and random draws out of the function you "
                "run on the GPU, or call it under gc.device('cpu:0')")
    if VARIABLE_ARGUMENT in whys:
        return ("Use the variable from the function's enclosing scope (a global, a closure "
                "or an attribute of self) instead of passing it as an argument: the "
                "variables a function captures compile into its program")
    if "dtype" in whys:
        return "Cast to a dtype the Numba backend compiles (float32/float64, ints, bool)"
    return "Rewrite the op with ones that compile, or pass backend='numpy' to gc.function"


def warning_text(fn_name: str, items, segments: bool) -> str | None:
    """The one warning for a function's fallbacks, or None when every Python node is
    there by design."""
    bad = [i for i in items if i.kind == "fallback"]
    if not bad:
        return None
    how = ("runs these ops in Python, between compiled parts, because they did not "
           "compile" if segments else
           "runs on the NumPy interpreter because these ops did not compile")
    listing = "; ".join(i.line() for i in bad)
    return (f"gc.function {fn_name!r} {how}: {listing}. "
            f"{_advice(bad)}. fn.explain(...) shows how each trace runs; "
            "jit_compile=True raises instead.")


def explain_lines(items) -> list[str]:
    """``explain()``'s lines for the nodes that run in Python."""
    lines = []
    for title, kinds in (("runs in Python by design", ("python", "follows")),
                         ("not compiled (falls back to Python)", ("fallback",))):
        chosen = [i for i in items if i.kind in kinds]
        if chosen:
            lines.append(title + ":")
            lines += [f"  - {i.line()}" for i in chosen]
    return lines


class Reason(str):
    """A reason string that also carries its :class:`Item` (a compile failure mapped
    back to the op and line it came from)."""

    item: Item


def items_for(graph, blocked, reasons, program) -> list[Item]:
    """Every reason a graph is not compiled as :class:`Item` s: the blocked nodes
    classified, then reasons about the whole program."""
    items = classify(graph, blocked)
    seen = {r for _n, r in blocked}
    for r in reasons:
        if r not in seen:
            items.append(getattr(r, "item", None) or Item("the program", "", r, "fallback"))
    return items


def report(fn_name, items, strict, warned: set, segments: bool) -> None:
    """Raise (``strict``: ``FallbackError`` naming every Python node) or warn once per
    new fallback in ``warned`` (shared by one ``gc.function``'s traces)."""
    if strict:
        raise errors.FallbackError(
            f"gc.function {fn_name!r} cannot be compiled wholly (jit_compile=True): "
            + "; ".join(i.line() for i in items))
    fresh = [i for i in items if i.kind == "fallback"
             and (fn_name, i.name, i.where) not in warned]
    text = warning_text(fn_name, fresh, segments)
    if text is None:
        return
    warned.update((fn_name, i.name, i.where) for i in fresh)
    at = _site(fresh[0].where) if source_info.user_frame(1) is None else None
    errors.warn(text, errors.FallbackWarning, at=at)


def _site(where: str):
    """``"file.py:12"`` -> ``("file.py", 12)`` (a warning issued off the user's thread)."""
    file, _, line = where.rpartition(":")
    return (file, int(line)) if file and line.isdigit() else None


def compile_failure(error, graph, program, source_path) -> Reason:
    """Numba refused the generated program (a typing error, say): the reason, in the
    user's terms, names the op whose generated statements Numba stopped at and the line
    it was traced at, with Numba's own message shortened (the generated source stays in
    ``source_path`` for a bug report)."""
    text = re.sub(r"\x1b\[[0-9;]*m", "", str(error))  # Numba's terminal colours
    node = None
    for m in re.finditer(r'File "([^"]+)", line (\d+)', text):
        if not source_info.is_internal(m.group(1)):
            node = node or _node_at(graph, program.source, int(m.group(2)))
    lines = [ln.strip() for ln in text.strip().splitlines() if ln.strip()]
    keep = [i for i, ln in enumerate(lines) if not ln.startswith(("Failed in", "- Resol"))]
    short = lines[keep[0]] if keep else (lines[0] if lines else "")
    if short.endswith(":") and keep and keep[0] + 1 < len(lines):
        short += " " + lines[keep[0] + 1]  # "... found for signature:" and the signature
    why = (f"Numba could not compile it ({type(error).__name__}: {short[:200]}; "
           f"generated source: {source_path})")
    item = (Item(describe(node), node.src or "", why, "fallback") if node else
            Item("the program", "", why, "fallback"))
    reason = Reason(item.line())
    reason.item = item
    return reason


def _node_at(graph, source: str, lineno: int):
    """The node whose generated statements hold line ``lineno`` of ``source``: the
    nearest ``# <signature>`` comment above it (codegen writes one per node)."""
    sigs = _signatures(graph, {})
    text = source.splitlines()[:lineno]
    for ln in reversed(text):
        ln = ln.strip()
        if ln.startswith("# ") and ln[2:] in sigs:
            return sigs[ln[2:]]
    return None

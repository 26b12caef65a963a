"""A plan's steps as one straight-line Python function: the interpreter's fast path.

A loop over step tuples pays ~0.3 us per node for unpacking, branching on the call shape
and indexing the frame list; for small arrays that is as much as NumPy's own work. So
each plan is also written out once as Python source, one line per step, values in local
variables named by their slots (``v7`` is ``%7``), and compiled with :func:`compile`:

    def run(args):
        v0, v1, = args
        v3 = R0(v0, v2); v3 = v3 if type(v3) is ND else AS(v3); del v0
        v4 = R1(v3, v1, out=...)
        return [v4]

``R<i>`` is step ``i``'s op ``ref`` and ``A<i>`` its attrs, bound in the function's
globals with the preset constants (``v2`` above: a global, never assigned). Nothing of
the user's reaches the source but slot numbers, so no user text is ever evaluated.

Line ``FIRST_LINE + i`` is step ``i``: :func:`failed_step` finds the step that raised
from the traceback, and the function's globals carry ``__graphc_step_at__`` for
:mod:`fp_errors` to find the node that set off a NumPy warning from a frame's line.
The file name lies inside the package, so tracebacks hide these frames as graphc's own.
"""

from __future__ import annotations

import os

import numpy as np

#: the file name of every generated plan function (inside the package: an internal frame)
PLAN_FILE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "<interpreter plan>")
FIRST_LINE = 3  # line 1: def, line 2: unpack the arguments, then one line per step


def generate(steps, n_inputs: int, preset, out_slots):
    """The plan's function ``run(args) -> list`` (see the module docstring)."""
    names = {"ND": np.ndarray, "AS": np.asarray, "STEPS": steps, "__builtins__": {
        "type": type}}
    for slot, value in preset:
        names[f"v{slot}"] = value
    unpack = "".join(f"v{i}, " for i in range(n_inputs))
    lines = ["def run(args):", f"    {unpack}= args" if n_inputs else "    pass"]
    for i, step in enumerate(steps):
        names[f"R{i}"] = step.ref
        operands = [f"v{s}" for s in step.ins]
        if step.array_out:
            operands.append("out=...")
        elif step.attrs:
            names[f"A{i}"] = step.attrs
            operands.append(f"**A{i}")
        call = f"R{i}({', '.join(operands)})"
        if step.multiple and step.outs:
            targets = "".join(f"v{s}, " for s in step.outs)
            code = [f"{targets}= [x if type(x) is ND else AS(x) for x in {call}]"]
        elif step.outs and not step.multiple:
            out = f"v{step.outs[0]}"
            code = [f"{out} = {call}"]
            if not step.array_out:  # ufuncs on 0-d arrays return NumPy scalars: keep arrays
                code.append(f"{out} = {out} if type({out}) is ND else AS({out})")
        else:  # no data outputs (a print): the result, whatever it is, is dropped
            code = [call]
        if step.free:
            code.append("del " + ", ".join(f"v{s}" for s in step.free))
        lines.append("    " + "; ".join(code))
    lines.append("    return [" + ", ".join(f"v{s}" for s in out_slots) + "]")
    names["__graphc_step_at__"] = lambda line: _step_at(steps, line)
    source = "\n".join(lines) + "\n"
    exec(compile(source, PLAN_FILE, "exec"), names)  # slot numbers and names only
    return names["run"]


def _step_at(steps, line: int):
    i = line - FIRST_LINE
    return steps[i] if 0 <= i < len(steps) else None


def failed_step(run, error: BaseException):
    """``(step, inputs)`` of the step of ``run`` that raised ``error``, or None when the
    error did not come from a step (the arguments did not unpack, say)."""
    tb = error.__traceback__
    while tb is not None and tb.tb_frame.f_code is not run.__code__:
        tb = tb.tb_next
    if tb is None:
        return None
    frame = tb.tb_frame
    step = frame.f_globals["__graphc_step_at__"](tb.tb_lineno)
    if step is None:
        return None
    local, names = frame.f_locals, frame.f_globals
    return step, [local.get(f"v{s}", names.get(f"v{s}")) for s in step.ins]

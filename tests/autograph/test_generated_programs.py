"""Random programs (``program_gen.programs``) agree with plain Python under gc.function.

Each generated function runs as plain Python on int arguments, then as ``gc.function``
on int64 tensors (control flow staged as ``cond``/``while_loop``), on the Python ints
(control flow stays Python) and on a mix of both; every result must equal plain
Python's exactly. This is the oracle for AutoGraph's state handling: a name assigned in
one traced branch or loop body that leaks into another changes the result.

Deterministic by default (a few hundred fixed examples); ``GRAPHC_HYPOTHESIS_SCALE=20``
runs 20x as many random ones to hunt for new bugs.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import tempfile

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, example, given, settings
from hypothesis import strategies as st
from program_gen import programs

import graphc as gc
import graphc.numpy as gnp

SCALE = int(os.environ.get("GRAPHC_HYPOTHESIS_SCALE", "1"))
SETTINGS = settings(max_examples=200 * SCALE, deadline=None, derandomize=SCALE == 1,
                    database=None,
                    suppress_health_check=[HealthCheck.too_slow,
                                           HealthCheck.filter_too_much,
                                           HealthCheck.data_too_large])
ARGUMENTS = [(0, 0, 0), (1, 0, 2), (0, 1, -1), (3, 2, 1), (-2, 5, 3)]
_dir = tempfile.mkdtemp(prefix="graphc-generated-")


def load(source: str):
    """Import ``source`` from a real file, so AutoGraph can read it like user code."""
    digest = hashlib.sha256(source.encode()).hexdigest()[:16]
    path = os.path.join(_dir, f"generated_{digest}.py")  # the same name on a replay
    with open(path, "w", encoding="utf-8") as f:
        f.write(source)
    spec = importlib.util.spec_from_file_location(os.path.basename(path)[:-3], path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.prog


def plain(result) -> tuple:
    return tuple(int(np.asarray(v)) for v in result)


def check(source: str, in_hypothesis: bool = True) -> None:
    prog = load(source)
    expected = [prog(*args) for args in ARGUMENTS]
    small = all(abs(v) < 2 ** 40 for r in expected for v in r)  # int64 never overflows
    if in_hypothesis:
        assume(small)
    assert small, source
    fn = gc.function(prog)
    for args, want in zip(ARGUMENTS, expected):
        tensors = tuple(gnp.asarray(np.int64(v)) for v in args)
        mixed = (tensors[0], args[1], tensors[2])
        for label, call in (("tensor", tensors), ("python", args), ("mixed", mixed)):
            got = plain(fn(*call))
            assert got == want, (f"{label} arguments {args}: gc.function gave {got}, "
                                 f"Python {want}\n{source}")


SUCCESSIVE_IF_ELSES = """\
def prog(a, b, c):
    x = 0
    y = 0
    z = 0
    if y < a:
        x = x * 10 + y
        y += 1
    else:
        x = x * 11 + y
        y += 2
    y = 0
    if y < b:
        x = x * 10 + y
        y += 1
    else:
        x = x * 11 + y
        y += 2
    return (x, y, z, 0, 0)
"""

LOOP_TEMP = """\
def prog(a, b, c):
    x = a
    y = 0
    z = 0
    for j in range(b % 4):
        if x > 1:
            z = x
            x -= 1
        else:
            z = 7
            y += z
        z = 0
    return (x, y, z, 0, 0)
"""


@pytest.mark.filterwarnings("ignore::graphc.errors.RetracingWarning")
@SETTINGS
@given(programs())
@example(SUCCESSIVE_IF_ELSES)
@example(LOOP_TEMP)
def test_generated_program_matches_python(source):
    check(source)


@pytest.mark.filterwarnings("ignore::graphc.errors.RetracingWarning")
@pytest.mark.parametrize("source", [SUCCESSIVE_IF_ELSES, LOOP_TEMP],
                         ids=["successive_if_elses", "loop_temp"])
def test_branch_state_regressions(source):
    """The issue's reproducer: ``y`` (dead after the ``if``) changed by the traced true
    branch must not be seen by the false branch's trace."""
    check(source, in_hypothesis=False)


@settings(SETTINGS, max_examples=5)
@given(st.data())
def test_generator_writes_valid_python(data):
    source = data.draw(programs())
    compile(source, "<generated>", "exec")
    assert source.startswith("def prog(a, b, c):")

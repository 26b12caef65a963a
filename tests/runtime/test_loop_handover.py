"""On-stack replacement (``runtime/cpu/loop_handover.py``): a long ``while_loop`` running
on the interpreter continues in a compiled program of the loop alone, from the state it
reached, with NumPy's results; short loops and loops with effects never ask."""

import numpy as np
import pytest

import graphc as gc
import graphc.numpy as gnp
from graphc.ops.control import flow
from graphc.runtime.cpu import loop_handover, numba_cpu


@pytest.fixture
def lazy(monkeypatch, session_cache_dir):
    """The default lazy policy, and each loop program waited for as soon as it is queued
    (so the handover happens at the first iteration after the request, every time)."""
    monkeypatch.setenv("GRAPHC_CACHE_DIR", session_cache_dir)
    monkeypatch.setattr(numba_cpu.settings, "mode", "lazy")
    build = loop_handover._build

    def build_and_wait(cond, body):
        executor = build(cond, body)
        if executor is not None:
            assert executor.wait(timeout=600), executor.reasons
        return executor

    monkeypatch.setattr(loop_handover, "_build", build_and_wait)


def relax(x, n):
    i = 0
    while i < n:
        x = x * 0.5 + gnp.sin(x) * 0.25 + i * 1e-3
        i += 1
    return x, i


def relax_numpy(x, n):
    for i in range(n):
        x = x * 0.5 + np.sin(x) * 0.25 + i * 1e-3
    return x, n


def test_a_long_loop_called_once_finishes_compiled_with_numpys_result(lazy):
    before = loop_handover.handovers
    x = np.linspace(-1.0, 1.0, 7)
    n = flow.HANDOVER_AFTER * 3
    got = gc.function(relax)(x, np.array(n))
    assert loop_handover.handovers == before + 1
    want = relax_numpy(x, n)
    np.testing.assert_allclose(got[0].numpy(), want[0], rtol=1e-13)
    assert int(got[1]) == n


def test_a_short_loop_never_asks_for_a_program(lazy):
    before = loop_handover.handovers
    f = gc.function(relax)
    x = np.linspace(-1.0, 1.0, 5)
    got = f(x, np.array(flow.HANDOVER_AFTER - 1))
    np.testing.assert_allclose(got[0].numpy(), relax_numpy(x, flow.HANDOVER_AFTER - 1)[0],
                               rtol=1e-13)
    assert loop_handover.handovers == before
    body = [n for n in f.get_concrete_function(x, np.array(3)).graph.nodes
            if n.op.name == "while_loop"][0].attrs["body"]
    assert body not in loop_handover._programs


def test_a_loop_with_effects_stays_on_the_interpreter(lazy):
    v = gc.Variable(0.0)

    @gc.function
    def count(n):
        i = 0
        while i < n:
            v.assign_add(1.0)
            i += 1
        return i

    before = loop_handover.handovers
    assert int(count(np.array(flow.HANDOVER_AFTER * 2))) == flow.HANDOVER_AFTER * 2
    assert float(v.numpy()) == flow.HANDOVER_AFTER * 2
    assert loop_handover.handovers == before


def test_the_policy_off_never_compiles(lazy, monkeypatch):
    monkeypatch.setattr(numba_cpu.settings, "mode", "off")
    before = loop_handover.handovers
    x = np.linspace(-1.0, 1.0, 3)
    got = gc.function(relax)(x, np.array(flow.HANDOVER_AFTER * 2))
    np.testing.assert_allclose(got[0].numpy(), relax_numpy(x, flow.HANDOVER_AFTER * 2)[0],
                               rtol=1e-13)
    assert loop_handover.handovers == before

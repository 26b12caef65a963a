"""AutoGraph's templates fill their holes (``NAME``, ``BODY``, ``TEST``, ...) in the
template only: user code spliced into a hole keeps its own names, even names written
like holes, and is walked once (graphc/autograph/templates.py)."""

import numpy as np

import graphc as gc
from graphc.autograph import templates


def uses_hole_names(x):
    NAME = 2.0  # noqa: N806 - spelled like a template hole on purpose
    BODY = 1.0  # noqa: N806
    for _ in gc.range(3):
        if x.sum() > 0:
            x = x * NAME + BODY
    return x


def python_twin(x):
    for _ in range(3):
        if x.sum() > 0:
            x = x * 2.0 + 1.0
    return x


def test_user_names_spelled_like_holes_are_kept():
    x = np.array([1.0, 2.0])
    np.testing.assert_array_equal(gc.function(uses_hole_names)(x).numpy(), python_twin(x))


def nested(x):
    for i in gc.range(2):
        for j in gc.range(2):
            if x.sum() > 0:
                for k in gc.range(2):
                    if x.sum() < 1e6:
                        x = x + i + j + k
    return x


def test_spliced_code_is_walked_once(monkeypatch):
    visits = [0]
    visit = templates._Filler.visit

    def counting(self, node):
        visits[0] += 1
        return visit(self, node)

    monkeypatch.setattr(templates._Filler, "visit", counting)
    got = gc.function(nested)(np.zeros(2))
    np.testing.assert_array_equal(got.numpy(), np.full(2, 0.0))  # sum() > 0 never holds
    # each template statement is visited once: a few hundred visits, not thousands (the
    # old walk visited every spliced block again at each enclosing level: 3960 here)
    assert visits[0] < 400, visits[0]

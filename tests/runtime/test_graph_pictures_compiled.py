"""The HTML report of a function Numba compiled: the compile time and how it runs."""

import numpy as np
import pytest

import graphc as gc

pytestmark = pytest.mark.usefixtures("eager_compile")


def test_report_shows_compile_time_and_compiled_runtime():
    @gc.function(name="twice_exp")
    def f(x):
        return gc.exp(x * 2.0)

    x = np.arange(4, dtype=np.float32)
    np.testing.assert_allclose(f(x), np.exp(x * 2.0), rtol=1e-6)
    concrete = f.get_concrete_function(x)
    assert concrete.runtime.backend == "numba" and concrete.runtime.compile_seconds > 0
    text = f.explain(format="html")
    assert "<th>Numba compile</th><td>" in text
    assert f"{concrete.runtime.compile_seconds * 1e3:.1f} ms ({concrete.runtime.origin})" \
        in text
    assert ">compiled</th><td>" in text and "backend: numba" in text
    assert "compiling is off" not in text
    assert "fallback to Python</th><td>0 node(s)" in text

"""What a user sees (issue 18): TensorFlow's spellings, warnings only for real fallbacks,
in user terms, each attributed to the user's own file and line."""

import warnings

import numpy as np
import pytest

import graphc as gc
import graphc.numpy as gnp
from graphc.errors import FallbackWarning, RetracingWarning, VectorizationWarning
from graphc.runtime.cpu import numba_cpu

HERE = __file__


def line_of(marker: str) -> int:
    """The line of this file holding ``marker`` (so tests name lines without numbers)."""
    with open(HERE) as f:
        for i, text in enumerate(f, 1):
            if marker in text and "line_of(" not in text:
                return i
    raise AssertionError(marker)


@pytest.fixture
def generating(monkeypatch):
    """Programs are generated (so fallbacks are found) but never compiled."""
    monkeypatch.setattr(numba_cpu.settings, "mode", "lazy")
    monkeypatch.setattr(numba_cpu.settings, "compile_after", 10**9)


def of(record, category):
    return [w for w in record if issubclass(w.category, category)]


# ------------------------------------------------------------------ TensorFlow spellings
def test_config_run_functions_eagerly_is_tensorflows_spelling():
    calls = []

    @gc.function
    def f(x):
        calls.append(1)  # a Python side effect: once per trace, or every call eagerly
        return x + 1

    x = np.ones(2)
    try:
        gc.config.run_functions_eagerly(True)
        assert gc.config.functions_run_eagerly() and gc.functions_run_eagerly()
        f(x), f(x)
        assert len(calls) == 2 and f.tracing_count == 0
        gc.config.run_functions_eagerly(False)
        assert not gc.config.functions_run_eagerly() and not gc.functions_run_eagerly()
        f(x), f(x)
        assert len(calls) == 3 and f.tracing_count == 1
        gc.run_functions_eagerly(True)  # the top-level name sets the same switch
        assert gc.config.functions_run_eagerly()
    finally:
        gc.run_functions_eagerly(False)
    with pytest.raises(TypeError, match="True or False"):
        gc.config.run_functions_eagerly("yes")


# ------------------------------------------------------------------ fallback policy
def test_documented_python_side_ops_do_not_warn(generating):
    @gc.function
    def f(x):
        y = gc.numpy_function(np.sqrt, [x], gc.float32)  # marker: numpy_function
        z = gc.py_function(lambda t: t * 2, [x], gc.float32)
        gc.print("x:", x)
        r = gc.random.uniform([3])
        return y * 2.0, z, gnp.sum(r) + gnp.sum(x)

    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        for n in range(1, 5):  # four shapes, four traces: still nothing
            f(np.ones(n, np.float32))
    assert not of(record, FallbackWarning), [str(w.message) for w in record]
    text = f.explain(np.ones(2, np.float32))
    assert "runs in Python by design:" in text
    assert f"gc.numpy_function at {HERE}:{line_of('marker: numpy_function')}" in text
    for name in ("gc.py_function", "gc.print", "gc.random.uniform"):
        assert f"  - {name} at {HERE}:" in text, name
    # the multiply of numpy_function's unknown-rank result only follows from it
    assert "runs in Python with the Python-side ops (operand of unknown rank)" in text


def test_an_op_that_should_compile_warns_once_in_user_terms(generating):
    @gc.function
    def half(x):
        return gc.cast(x, gc.float16) * 2  # marker: float16 cast

    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        for n in range(1, 4):
            half(np.ones(n, np.float32))  # marker: half call
    mine = of(record, FallbackWarning)
    assert len(mine) == 1, [str(w.message) for w in mine]  # once per function
    msg = str(mine[0].message)
    assert msg.startswith("gc.function 'half' runs on the NumPy interpreter")
    # the cast (fused with the multiply into one loop by the passes) and the user's line
    assert f"cast, multiply (fused) at {HERE}:{line_of('marker: float16 cast')}: " in msg
    assert "float16" in msg and "Cast to a dtype the Numba backend compiles" in msg
    for raw in ("%", "ag__", "!t", "<locals>"):  # no IR, no AutoGraph names
        assert raw not in msg, raw
    assert mine[0].filename == HERE and mine[0].lineno == line_of("marker: half call")


def test_a_variable_passed_as_an_argument_says_to_capture_it(generating):
    """TensorFlow code often passes a variable as an argument: its reads and writes run
    in Python here, and the warning says why and how to compile them (it said 'input 0
    has dtype object ... Cast to a dtype')."""
    v = gc.Variable(np.ones(3))

    @gc.function
    def step(var, x):
        var.assign_add(x)  # marker: assign to an argument variable
        return var.read_value() * 2

    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        out = step(v, np.ones(3))
    np.testing.assert_array_equal(out.numpy(), [4.0] * 3)
    (w,) = of(record, FallbackWarning)
    msg = str(w.message)
    assert f"assign_variable at {HERE}:{line_of('marker: assign to an argument')}" in msg
    assert "a gc.Variable passed as an argument" in msg
    assert "instead of passing it as an argument" in msg
    assert "dtype object" not in msg and "Cast to a dtype" not in msg


def test_a_fallback_inside_a_branch_is_named_by_its_own_op_and_line(generating):
    @gc.function
    def branchy(x):
        if gnp.sum(x) > 0:
            y = gc.cast(gc.cast(x, gc.float16) * 2, gc.float32)  # marker: branch cast
        else:
            y = x
        return y

    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        branchy(np.ones(3, np.float32))
    mine = of(record, FallbackWarning)
    assert len(mine) == 1
    msg = str(mine[0].message)
    assert f"(fused) at {HERE}:{line_of('marker: branch cast')}: " in msg
    for raw in ("%", "fused_elementwise", "cond_", "ag__"):
        assert raw not in msg, raw


# ------------------------------------------------------------------ where warnings point
def test_retracing_warning_points_at_the_call():
    @gc.function
    def g(n):
        return gc.constant(1.0) * n

    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        for n in range(6):
            g(n)  # marker: retrace call
    mine = of(record, RetracingWarning)
    assert len(mine) == 1
    assert mine[0].filename == HERE and mine[0].lineno == line_of("marker: retrace call")


def test_vectorization_warning_points_at_the_call():
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        gc.vectorized_map(lambda x: gnp.vdot(x, x), np.ones((3, 2)))  # marker: vmap
    mine = of(record, VectorizationWarning)
    assert len(mine) == 1
    assert mine[0].filename == HERE and mine[0].lineno == line_of("marker: vmap")


def test_unrolled_loop_warning_points_at_the_loop():
    @gc.function(unroll=True)  # a long loop would be staged by default
    def unrolled(x):
        for _ in range(150):  # marker: unrolled loop
            x = x + 1.0
        return x

    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        unrolled(np.ones(1))
    mine = [w for w in record if "unrolling a Python loop" in str(w.message)]
    assert len(mine) == 1
    assert mine[0].filename == HERE
    assert mine[0].lineno in (line_of("marker: unrolled loop"),
                              line_of("marker: unrolled loop") + 1)


def test_autograph_warning_points_at_the_call():
    from graphc.autograph import AutographWarning

    namespace = {}
    exec("def made_by_exec(x):\n    return x + 1\n", {}, namespace)  # no source to read
    fn = gc.function(namespace["made_by_exec"])
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        fn(np.ones(2))  # marker: exec call
    mine = of(record, AutographWarning)
    assert len(mine) == 1
    assert mine[0].filename == HERE and mine[0].lineno == line_of("marker: exec call")


def test_jacobian_vectorization_warning_points_at_the_call(monkeypatch):
    from graphc.core import registry

    monkeypatch.setattr(registry.get("matmul"), "batch", None)  # force the per-row passes
    w = np.arange(6.0).reshape(3, 2)
    x = gc.constant(np.ones((2, 3)))
    with gc.GradientTape() as tape:
        tape.watch(x)
        y = gc.matmul(x, w)
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        tape.jacobian(y, x)  # marker: jacobian call
    mine = of(record, VectorizationWarning)
    assert len(mine) == 1
    assert mine[0].filename == HERE and mine[0].lineno == line_of("marker: jacobian call")


def test_cache_warning_points_at_the_call(tmp_path, monkeypatch):
    import os

    from graphc.runtime.cpu import cache_entry, cache_files

    base = tmp_path / "open"
    base.mkdir()
    os.chmod(base, 0o777)  # writable by others: not used, and said so
    monkeypatch.setenv("GRAPHC_CACHE_DIR", str(base))
    monkeypatch.setattr(cache_files, "_warned", set())
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        cache_entry.disk_usable()  # marker: cache call
    mine = of(record, cache_files.CacheWarning)
    assert len(mine) == 1
    assert mine[0].filename == HERE and mine[0].lineno == line_of("marker: cache call")


# ------------------------------------------------------------------ run-time errors
def _frames(error):
    import traceback

    files = [f.filename for f in traceback.extract_tb(error.__traceback__)]
    return [f for f in files if "/graphc/" in f and "/tests/" not in f], files


@gc.function(input_signature=[gc.TensorSpec([3], gc.float32)])
def _signed(x):
    return x + 1


@gc.function
def _index(x, i):
    return x[i]


@gc.function
def _loop_index(x, n):
    i, total = gc.constant(0), gc.constant(0.0, gc.float64)
    while i < n:
        total += x[i]  # out of range once i reaches 3
        i += 1
    return total


RUNTIME_ERRORS = {
    "input_signature": (lambda: _signed(np.ones(4, np.float32)), TypeError),
    "index": (lambda: _index(np.ones(3), gc.constant(7)), IndexError),
    "inside a while": (lambda: _loop_index(np.ones(3), gc.constant(5)), IndexError),
}


@pytest.mark.parametrize("case", sorted(RUNTIME_ERRORS))
def test_run_time_errors_hide_graphc_frames(case, monkeypatch):
    call, error = RUNTIME_ERRORS[case]
    monkeypatch.delenv("GRAPHC_SHOW_INTERNAL_FRAMES", raising=False)
    with pytest.raises(error) as info:
        call()
    internal, files = _frames(info.value)
    assert len(internal) <= 1, files  # only the re-raise in gc.function's __call__
    assert files[0] == HERE  # the user's call is where it starts
    monkeypatch.setenv("GRAPHC_SHOW_INTERNAL_FRAMES", "1")  # the same switch shows them
    with pytest.raises(error) as info:
        call()
    assert len(_frames(info.value)[0]) > 1


def test_concrete_function_call_errors_hide_graphc_frames():
    concrete = _index.get_concrete_function(np.ones(3), gc.constant(1))
    with pytest.raises(IndexError) as info:
        concrete(np.ones(3), gc.constant(9))
    assert len(_frames(info.value)[0]) <= 1


# ------------------------------------------------------------------ inspection
def test_signatures_are_listed_in_trace_order():
    @gc.function
    def double(x):
        return x * 2

    for n in (1, 2, 3):
        double(np.ones(n))
    double(np.ones(1))  # most recently used now: still listed first
    text = double.pretty_printed_concrete_signatures()
    shapes = [ln.split("shape=")[1] for ln in text.splitlines() if "x: float64" in ln]
    assert shapes == ["(1,)", "(2,)", "(3,)"], text
    assert [c.trace_number for c in double.concrete_functions()] == [1, 2, 3]


def test_explain_while_compiling_says_so(monkeypatch):
    import threading

    monkeypatch.setattr(numba_cpu.settings, "mode", "lazy")
    monkeypatch.setattr(numba_cpu.settings, "compile_after", 1)
    monkeypatch.setattr(numba_cpu.settings, "worker", False)  # compile in this process
    monkeypatch.setattr(numba_cpu.cache, "lookup", lambda key: None)  # neither in memory
    monkeypatch.setattr(numba_cpu, "_on_disk", lambda key: False)       # nor on disk yet
    gate = threading.Event()
    original = numba_cpu.Executor._compile_in_thread

    def held(self):  # the background compile waits until the test has looked
        gate.wait(30)
        original(self)

    monkeypatch.setattr(numba_cpu.Executor, "_compile_in_thread", held)

    @gc.function
    def add_one(x):
        return x + 1.0

    x = np.ones(2)
    try:
        add_one(x)
        text = add_one.explain(x)
    finally:
        gate.set()
    assert "backend: compiling in the background" in text
    assert "backend: numpy" not in text
    add_one.get_concrete_function(x).runtime.wait(60)


# ------------------------------------------------------------------ Numba typing errors
def test_numba_typing_error_names_the_op_and_the_user_line(monkeypatch, tmp_path):
    """A kernel that Numba cannot type (a graphc bug, simulated by an emitter that adds a
    string to an array) reaches the user as the op and the line they wrote, not as
    Numba's traceback over generated code; the call still runs on the interpreter."""
    from graphc.runtime.cpu import kernels
    from graphc.runtime.cpu.kernels import Val

    def ill_typed(g, node, ins, outs):
        g.line(f"{outs[0]} = np.cumsum({ins[0].name}) + 'not a number'")
        return [Val(outs[0], node.outputs[0].aval)]

    monkeypatch.setitem(kernels.EMITTERS, "cumsum", ill_typed)
    monkeypatch.setattr(numba_cpu.settings, "mode", "eager")
    monkeypatch.setenv("GRAPHC_CACHE_DIR", str(tmp_path))  # never reuse a real program

    @gc.function
    def running(x):
        y = gnp.cumsum(x)  # marker: cumsum
        return y * 2.0

    x = np.arange(4.0)
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        out = running(x)  # marker: running call
    np.testing.assert_array_equal(out.numpy(), np.cumsum(x) * 2.0)
    mine = of(record, FallbackWarning)
    assert len(mine) == 1, [str(w.message) for w in record]
    msg = str(mine[0].message)
    assert f"cumsum at {HERE}:{line_of('marker: cumsum')}: Numba could not compile it" in msg
    assert "TypingError" in msg and "generated source:" in msg
    assert "Traceback" not in msg and "File \"" not in msg
    assert mine[0].filename == HERE and mine[0].lineno == line_of("marker: running call")


# ------------------------------------------------------------------ compile logging
def test_compiles_are_logged_and_a_large_graph_says_why(monkeypatch, caplog):
    import logging

    from graphc.runtime.cpu import compile_log

    monkeypatch.setattr(numba_cpu.settings, "mode", "eager")
    monkeypatch.setattr(numba_cpu.cache, "lookup", lambda key: None)  # not in memory
    monkeypatch.setattr(compile_log, "LARGE_GRAPH_OPS", 16)  # "large" for a tiny test

    @gc.function
    def unrolled(x):
        for k in range(10):
            x = x * 0.5 + float(k)  # marker: unrolled body
        return x

    caplog.set_level(logging.INFO, logger="graphc")
    x = np.ones(2)
    np.testing.assert_allclose(unrolled(x).numpy(),
                               unrolled.python_function(x), rtol=1e-12)
    records = [r for r in caplog.records if r.name == "graphc"]
    text = [r.getMessage() for r in records]
    start = [t for t in text if t.startswith("compiling gc.function 'unrolled': ")]
    assert len(start) == 1 and " ops, " in start[0] and "lines of generated code" in start[0]
    done = [t for t in text if t.startswith("gc.function 'unrolled' compiled in ")]
    assert len(done) == 1 and " s (" in done[0]
    large = [r for r in records if r.levelno == logging.WARNING]
    assert len(large) == 1  # once
    msg = large[0].getMessage()
    assert msg.startswith("gc.function 'unrolled' is a large graph (")
    assert f"traced at {HERE}:{line_of('marker: unrolled body')}" in msg
    assert "Python loop AutoGraph unrolled" in msg and "gc.range(n)" in msg


def test_tensorflow_names_in_the_docs_exist():
    """Every graphc name the "Spelled as in TensorFlow" table of
    docs/tensorflow_differences.md promises resolves (the audit stays true)."""
    import os
    import re

    path = os.path.join(os.path.dirname(os.path.dirname(HERE)), "docs",
                        "tensorflow_differences.md")
    with open(path) as f:
        text = f.read()
    table = text.split("## Spelled as in TensorFlow")[1].split("\n## ")[0]
    names = set()
    for row in table.splitlines()[3:]:
        names.update(re.findall(r"`((?:gc|gnp)\.[\w.]+)`", row.split("|")[2]))
    assert len(names) > 50
    roots = {"gc": gc, "gnp": gnp}
    for name in sorted(names):
        root, *path_ = name.split(".")
        obj = roots[root]
        for part in path_:
            assert hasattr(obj, part), name
            obj = getattr(obj, part)


def test_executing_eagerly_and_autograph_experimental():
    seen = []

    @gc.function
    def f(x):
        seen.append(gc.executing_eagerly())
        return x

    f(np.ones(1))
    assert seen == [False] and gc.executing_eagerly()
    assert gc.autograph.experimental.do_not_convert is gc.autograph.do_not_convert

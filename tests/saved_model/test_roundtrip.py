"""gc.saved_model round trips: save, load (here and in a fresh process), compare."""

import json
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import graphc as gc
from graphc.errors import SavedModelError


def _x(*shape, dtype=np.float32, seed=0):
    return np.random.default_rng(seed).standard_normal(shape).astype(dtype)


def test_arithmetic_round_trip(tmp_path):
    @gc.function
    def f(x, y):
        return gc.reduce_sum(x * y + 1.5, axis=0), x - y

    a, b = _x(3, 4), _x(3, 4, seed=1)
    want = f(a, b)
    gc.saved_model.save(f, tmp_path)
    m = gc.saved_model.load(tmp_path)
    got = m.f(a, b)
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g.numpy(), w.numpy())
    assert set(os.listdir(tmp_path)) == {"graph.json", "constants.npz", "variables.npz",
                                         "manifest.json"}


def test_control_flow_from_autograph(tmp_path):
    @gc.function
    def f(x):
        if gc.reduce_sum(x) > 0:
            y = x * 2.0
        else:
            y = -x
        i = gc.constant(0)
        while i < 3:
            y = y + 1.0
            i += 1
        return y

    pos, neg = np.abs(_x(5)), -np.abs(_x(5))
    f(pos)
    gc.saved_model.save(f, tmp_path)
    m = gc.saved_model.load(tmp_path)
    np.testing.assert_allclose(m.f(pos).numpy(), pos * 2 + 3)
    np.testing.assert_allclose(m.f(neg).numpy(), -neg + 3)
    ops = {n["op"] for g in json.loads((tmp_path / "graph.json").read_text())["graphs"]
           for n in g["nodes"]}
    assert {"cond", "while_loop"} <= ops


def test_variables_load_as_gc_variables(tmp_path):
    v = gc.Variable([1.0, 2.0], name="w")

    @gc.function
    def step(x):
        v.assign_add(x)
        return v.read_value() * 2.0

    step(np.ones(2, np.float32))
    gc.saved_model.save(step, tmp_path)
    m = gc.saved_model.load(tmp_path)
    (w,) = m.variables
    assert isinstance(w, gc.Variable) and w.name == "w"
    np.testing.assert_array_equal(w.numpy(), [2.0, 3.0])
    np.testing.assert_array_equal(m.step(np.ones(2, np.float32)).numpy(), [6.0, 8.0])
    np.testing.assert_array_equal(w.numpy(), [3.0, 4.0])
    np.testing.assert_array_equal(v.numpy(), [2.0, 3.0])  # the original is untouched


def test_module_with_methods_and_variables(tmp_path):
    class Model:
        def __init__(self):
            self.scale = gc.Variable(3.0)

        @gc.function(input_signature=[gc.TensorSpec([None], gc.float32)])
        def apply(self, x):
            return x * self.scale

    model = Model()
    gc.saved_model.save(model, tmp_path)
    m = gc.saved_model.load(tmp_path)
    assert isinstance(m.scale, gc.Variable)
    np.testing.assert_array_equal(m.apply(np.ones(4, np.float32)).numpy(), [3.0] * 4)


def test_module_call_method_is_saved_and_loaded_object_is_callable(tmp_path):
    """``@gc.function def __call__`` on a module (tf.Module's usual form) is saved, and
    the loaded object is callable; errors of the call show the user's frames."""
    class Dense:
        def __init__(self):
            self.w = gc.Variable(np.arange(3, dtype=np.float32))

        @gc.function(input_signature=[gc.TensorSpec([None, 3], gc.float32)])
        def __call__(self, x):
            return x @ self.w

    gc.saved_model.save(Dense(), tmp_path)
    m = gc.saved_model.load(tmp_path)
    x = _x(2, 3)
    np.testing.assert_allclose(m(x).numpy(), x @ np.arange(3, dtype=np.float32), rtol=1e-6)
    np.testing.assert_allclose(m.functions["__call__"](x).numpy(), m(x).numpy())
    with pytest.raises(TypeError, match="matches no saved signature"):
        m(_x(2, 4))


def test_sub_objects_are_saved_and_load_as_objects(tmp_path):
    """A model holding layers (tf.Module's submodules): each layer's functions and
    variables load on a sub-object of the same name, ``m.l1.w``; a layer held by two
    attributes loads under both, sharing its variables; a reference cycle is not followed."""
    class Dense:
        def __init__(self, n, scale):
            self.w = gc.Variable(np.full(n, scale, np.float32))
            self.config = {"n": n}  # not an object to walk

        @gc.function(input_signature=[gc.TensorSpec([None, 2], gc.float32)])
        def __call__(self, x):
            return x * self.w

    class Model:
        def __init__(self):
            self.l1, self.l2 = Dense(2, 2.0), Dense(2, 3.0)
            self.same = self.l1
            self.l2.parent = self  # a cycle
            self.bias = gc.Variable(np.float32(1.0))

        @gc.function(input_signature=[gc.TensorSpec([None, 2], gc.float32)])
        def apply(self, x):
            return self.l2(self.l1(x)) + self.bias

    gc.saved_model.save(Model(), tmp_path)
    m = gc.saved_model.load(tmp_path)
    x = _x(3, 2)
    np.testing.assert_allclose(m.apply(x).numpy(), x * 6 + 1, rtol=1e-6)
    np.testing.assert_allclose(m.l1(x).numpy(), x * 2, rtol=1e-6)  # callable sub-object
    np.testing.assert_array_equal(m.l2.w.numpy(), [3.0, 3.0])
    assert isinstance(m.l1.w, gc.Variable) and m.l1.variables == [m.l1.w]
    assert m.same.w is m.l1.w and isinstance(m.bias, gc.Variable)
    assert "l1.__call__" in m.functions and not hasattr(m.l1, "config")
    assert not hasattr(m.l2, "parent")
    m.l1.w.assign(np.float32([1.0, 1.0]))  # a loaded variable the loaded graphs read
    np.testing.assert_allclose(m.apply(x).numpy(), x * 3 + 1, rtol=1e-6)


def test_multiple_signatures_and_none_dims(tmp_path):
    @gc.function(input_signature=[gc.TensorSpec([None, 2], gc.float32)])
    def f(x):
        return gc.reduce_sum(x, axis=1)

    @gc.function
    def g(x):
        return x + 1

    g(np.arange(3, dtype=np.int64))
    g(np.ones((2, 2), np.float64))
    gc.saved_model.save(None, tmp_path, signatures={"rows": f, "inc": g})
    m = gc.saved_model.load(tmp_path)
    assert sorted(m.signatures) == ["inc_0", "inc_1", "rows"]
    for n in (1, 5, 17):  # None dims serve every matching shape
        x = _x(n, 2)
        np.testing.assert_allclose(m.f(x).numpy(), x.sum(1), rtol=1e-6)
    np.testing.assert_array_equal(m.g(np.arange(3, dtype=np.int64)).numpy(), [1, 2, 3])
    np.testing.assert_array_equal(m.g(np.ones((2, 2))).numpy(), np.full((2, 2), 2.0))
    with pytest.raises(TypeError, match="matches no saved signature"):
        m.f(_x(3, 3))


def test_load_in_fresh_process_without_the_source(tmp_path):
    src = tmp_path / "defining_module_xyz.py"
    src.write_text(textwrap.dedent("""
        import numpy as np, graphc as gc
        @gc.function
        def h(x):
            y = x
            for _ in gc.range(3):
                y = y * 2.0
            return gc.sqrt(gc.abs(y))
        h(np.arange(4, dtype=np.float32))
        gc.saved_model.save(h, SAVE_DIR)
    """))
    out = tmp_path / "saved"
    code = src.read_text().replace("SAVE_DIR", repr(str(out)))
    subprocess.run([sys.executable, "-c", code], check=True)
    src.unlink()
    check = textwrap.dedent(f"""
        import sys, numpy as np, graphc as gc
        m = gc.saved_model.load({str(out)!r})
        assert not any("defining_module" in k for k in sys.modules)
        got = m.h(np.arange(4, dtype=np.float32)).numpy()
        np.testing.assert_allclose(got, np.sqrt(np.arange(4) * 8.0), rtol=1e-6)
        print("ok")
    """)
    res = subprocess.run([sys.executable, "-c", check], capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    assert res.stdout.strip() == "ok"


def test_python_callbacks_refuse_to_save(tmp_path):
    @gc.function
    def f(x):
        return gc.numpy_function(np.sin, [x], gc.float32)

    f(_x(3))
    with pytest.raises(SavedModelError, match=r"numpy_function \(traced at .*"
                       r"test_roundtrip\.py:\d+\)"):
        gc.saved_model.save(f, tmp_path)


def test_untraced_function_refuses_to_save(tmp_path):
    @gc.function
    def f(x):
        return x

    with pytest.raises(SavedModelError, match="has not been traced"):
        gc.saved_model.save(f, tmp_path)


def test_loaded_function_compiles_and_hits_the_program_cache(tmp_path):
    """The original compiles (Numba) in one process; a fresh process that loads the saved
    graph runs the same program, read from the disk cache instead of compiled again."""
    prelude = textwrap.dedent(f"""
        import numpy as np, graphc as gc
        from graphc.runtime.cpu import numba_cpu
        numba_cpu.settings.mode = "eager"
        x = np.linspace(-1.0, 1.0, 6).astype(np.float32)
        path = {str(tmp_path / "saved")!r}
    """)
    save = prelude + textwrap.dedent("""
        @gc.function
        def f(x):
            return gc.sqrt(gc.exp(x * 2.0) + 1.0)
        f(x)
        ex = f.get_concrete_function(x).runtime
        gc.saved_model.save(f, path)
        print(ex.backend, ex.origin)
    """)
    load = prelude + textwrap.dedent("""
        m = gc.saved_model.load(path)
        got = m.f(x).numpy()
        np.testing.assert_allclose(got, np.sqrt(np.exp(x * 2.0) + 1.0), rtol=1e-6)
        ex = m.signatures["f"].runtime
        print(ex.backend, ex.origin)
    """)
    env = {**os.environ, "GRAPHC_CACHE_DIR": str(tmp_path / "cache")}
    for code, want in ((save, "numba compiled"), (load, "numba disk")):
        res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                             env=env, timeout=300)
        assert res.returncode == 0, res.stderr[-2000:]
        assert res.stdout.strip().splitlines()[-1] == want

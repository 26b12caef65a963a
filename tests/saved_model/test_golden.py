"""Golden saved directories (``golden/<version>/<case>``, written by make_golden.py) keep
loading and computing what NumPy computes, in every later graphc of their major version."""

import json
import pathlib

import numpy as np
import pytest

import graphc as gc
from graphc.saved_model import schema

GOLDEN = pathlib.Path(__file__).resolve().parent / "golden"
DIRS = sorted(p for p in GOLDEN.glob("*/*") if p.is_dir())


def _rows(*shape, seed=0, dtype=np.float32):
    return np.random.default_rng(seed).standard_normal(shape).astype(dtype)


def check_control_flow(m):
    for x in (np.abs(_rows(4)), -np.abs(_rows(3, seed=1)), np.zeros(0, np.float32)):
        for i in (0, 1, 2, 7):
            y = x * 2.0 if x.sum() > 0 else -x
            y = [y + 1.0, y * y, y - 3.0][min(i, 2)] + 1.5
            for k in range(2):
                y = y * 0.5 + k
            got = m.f(x, np.array(i, np.int32)).numpy()
            np.testing.assert_allclose(got, y, rtol=1e-6, err_msg=f"i={i}")


def check_variables(m):
    assert isinstance(m.total, gc.Variable) and isinstance(m.scale, gc.Variable)
    assert m.total.trainable and not m.scale.trainable
    np.testing.assert_array_equal(m.total.numpy(), np.zeros(3))
    x = np.array([1.0, 2.0, -0.5], np.float32)
    np.testing.assert_array_equal(m.add(x).numpy(), 2 * x)
    np.testing.assert_array_equal(m.add(x).numpy(), 4 * x)
    m.scale.assign(-1.0)
    np.testing.assert_array_equal(m.add(x).numpy(), 3 * x)


def check_two_signatures(m):
    assert sorted(m.signatures) == ["norms", "power"]
    a = _rows(2, 3, dtype=np.float64)
    np.testing.assert_allclose(m.norms(a).numpy(), np.sqrt((a * a).sum(1)), rtol=1e-12)
    x = np.arange(4, dtype=np.int64)
    out = m.power(x)
    assert out["k"] == 3
    np.testing.assert_array_equal(out["value"].numpy(), x ** 3)
    with pytest.raises(TypeError, match="matches no saved signature"):
        m.power(x, k=2)


def check_none_dims(m):
    for shape in ((1, 1), (3, 5), (6, 2), (4, 1)):
        a = _rows(*shape)
        mean, top, twice = m.stats(a)
        np.testing.assert_allclose(mean.numpy(), a.mean(0), rtol=1e-6)
        assert top.numpy() == a.max()
        np.testing.assert_array_equal(twice.numpy(), a.T * 2)


def check_loop_gradient(m):
    x = np.array([0.3, -1.2, 2.0, 0.0])
    ys = [x]
    for _ in range(3):
        ys.append(np.sqrt(ys[-1] ** 2 + 1.0))
    want, chain = np.zeros_like(x), np.ones_like(x)
    for i in range(3):
        chain = chain * ys[i] / ys[i + 1]
        want += chain
    np.testing.assert_allclose(m.grad(x).numpy(), want, rtol=1e-12)


def check_tensor_array(m):
    x = np.array([2.0, -1.0, 0.5], np.float32)
    for n in (1, 4):
        want = np.stack([x ** k for k in range(n)])
        np.testing.assert_allclose(m.powers(x, np.array(n, np.int32)).numpy(), want)


CHECKS = {name[len("check_"):]: f for name, f in globals().items()
          if name.startswith("check_")}


def test_golden_directories_exist_for_this_version():
    version = f"{schema.VERSION[0]}.{schema.VERSION[1]}"
    assert {p.name for p in (GOLDEN / version).iterdir()} == set(CHECKS), (
        f"run: python tests/saved_model/make_golden.py (no golden/{version} yet)")


@pytest.mark.parametrize("path", DIRS, ids=[f"{p.parent.name}/{p.name}" for p in DIRS])
def test_golden_directory_loads_and_computes(path):
    version = json.loads((path / "manifest.json").read_text())["version"]
    assert version[0] == schema.VERSION[0], "another major version: move it out of golden/"
    CHECKS[path.name](gc.saved_model.load(path))

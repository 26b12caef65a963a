"""docs/tensorflow_differences.md, "NumPy scalars widen float32 models": what it says,
checked eagerly and traced (a float64 NumPy scalar widens float32; ``np.float32(...)``
and Python floats keep float32; strict promotion raises)."""

import pathlib

import numpy as np
import pytest

import graphc as gc

DOC = pathlib.Path(__file__).resolve().parents[1] / "docs" / "tensorflow_differences.md"


@pytest.fixture(autouse=True)
def _default_promotion():
    yield
    gc.config.set_dtype_promotion("numpy")


def test_the_section_is_there():
    text = DOC.read_text()
    assert "### NumPy scalars widen float32 models" in text
    assert "np.float32(...)" in text and "float(...)" in text


@gc.function
def scaled(w, s):
    return w * s


def test_documented_dtypes_eagerly_and_traced():
    w = gc.constant([1.0, 2.0])
    scale = np.mean(np.array([0.5, 1.5]))
    assert w.dtype == np.float32 and type(scale) is np.float64
    for f in (lambda a, b: a * b, scaled):
        assert f(w, scale).dtype == np.float64
        assert f(w, np.float32(scale)).dtype == np.float32
        assert f(w, float(scale)).dtype == np.float32


def test_strict_promotion_raises_on_the_float64_scalar():
    gc.config.set_dtype_promotion("strict")
    with pytest.raises(TypeError, match="mixed dtypes float32 and float64"):
        gc.constant([1.0, 2.0]) * np.float64(0.5)

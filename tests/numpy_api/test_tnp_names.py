"""tf.experimental.numpy's / jax.numpy's names NumPy 2 dropped or never had: the dtype
aliases ``float_``/``complex_`` (float64/complex128) and ``tnp.flatten(a, order)``."""

import pathlib

import numpy as np
import pytest

import graphc as gc
import graphc.numpy as gnp


def test_dtype_aliases():
    assert gnp.float_ is np.float64 and gnp.complex_ is np.complex128
    assert gnp.zeros(2, dtype=gnp.float_).dtype == np.float64
    assert gnp.asarray([1, 2]).astype(gnp.complex_).dtype == np.complex128
    assert gnp.dtype(gnp.float_) == np.dtype("float64")


def test_bfloat16_is_absent():
    assert not hasattr(gnp, "bfloat16")  # docs/numpy_api.md: NumPy has no bfloat16
    docs = (pathlib.Path(__file__).resolve().parents[2] / "docs/numpy_api.md").read_text()
    assert "`bfloat16`" in docs


_NONE = object()


def _missing(listname):
    path = pathlib.Path(__file__).resolve().parents[3] / "shared/api_targets" / listname
    if not path.exists():  # the lists live beside the repository in the work tree
        return None
    missing = []
    for name in path.read_text().splitlines()[1:]:
        obj = gnp
        for part in name.strip().split("."):
            obj = getattr(obj, part, _NONE)
        if name.strip() and obj is _NONE:
            missing.append(name.strip())
    return missing


def test_coverage_of_the_tnp_and_jnp_lists():
    assert _missing("tf.experimental.numpy.txt") in (None, [])
    assert _missing("jax.numpy.txt") in (None, ["bfloat16"])


A = np.arange(24, dtype=np.float32).reshape(2, 3, 4)


@pytest.mark.parametrize("order,want", [("C", A.ravel()), ("A", A.ravel()), ("K", A.ravel()),
                                        ("F", A.flatten("F"))])
def test_flatten(order, want):
    for got in (gnp.flatten(A, order), gc.function(lambda a: gnp.flatten(a, order))(A)):
        assert got.dtype == np.float32 and got.shape == (24,)
        np.testing.assert_array_equal(got.numpy(), want)
    np.testing.assert_array_equal(gnp.flatten(7).numpy(), [7])
    np.testing.assert_array_equal(gnp.flatten([[1, 2], [3, 4]], "F").numpy(), [1, 3, 2, 4])


def test_flatten_unknown_shape_gradient_and_errors():
    f = gc.function(lambda a: gnp.flatten(a, "F"),
                    input_signature=[gc.TensorSpec([None, None], gc.float64)])
    m = np.arange(6.0).reshape(3, 2)
    np.testing.assert_array_equal(f(m).numpy(), m.flatten("F"))
    x = gnp.asarray(m)
    w = np.arange(6.0)
    with gc.GradientTape() as tape:
        tape.watch(x)
        y = gnp.sum(gnp.flatten(x, "F") * w)
    np.testing.assert_array_equal(tape.gradient(y, x).numpy(), w.reshape(2, 3).T)
    with pytest.raises(ValueError, match="order can only be C, A, K, or F"):
        gnp.flatten(m, "X")

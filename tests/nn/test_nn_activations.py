"""gc.nn's activations against NumPy formulas written here, eagerly and traced; the
choices that differ from a plain composition (relu's gradient at 0, relu6's at 6, finite
gradients of elu/selu/log1mexp where a branch would overflow); the TensorFlow/JAX
spelling differences; and the erf op (values against math.erf, dtypes, gradient against
finite differences, batching against a loop)."""

import math

import numpy as np
import pytest
from nn_helpers import check_grad, grad, same, traced

import graphc as gc

X = np.array([-30.0, -3.0, -1.0, -0.25, 0.0, 0.5, 1.0, 2.0, 6.0, 7.5, 40.0])


def _sig(x):
    return 1 / (1 + np.exp(-x))


def _softplus(x):
    return np.logaddexp(0, x)


ALPHA, SCALE = 1.6732632423543772848170429916717, 1.0507009873554804934193349852946
ERF = np.vectorize(math.erf)
ORACLES = {
    "relu": lambda x: np.maximum(x, 0),
    "relu6": lambda x: np.minimum(np.maximum(x, 0), 6),
    "elu": lambda x: np.where(x > 0, x, np.expm1(np.minimum(x, 0))),
    "selu": lambda x: SCALE * np.where(x > 0, x, ALPHA * np.expm1(np.minimum(x, 0))),
    "gelu": lambda x: 0.5 * x * (1 + ERF(x / np.sqrt(2))),
    "silu": lambda x: x * _sig(x),
    "swish": lambda x: x * _sig(x),
    "sigmoid": _sig,
    "tanh": np.tanh,
    "softplus": _softplus,
    "softsign": lambda x: x / (1 + np.abs(x)),
    "soft_sign": lambda x: x / (1 + np.abs(x)),
    "leaky_relu": lambda x: np.where(x > 0, x, 0.2 * x),
    "log_sigmoid": lambda x: -_softplus(-x),
    "hard_sigmoid": lambda x: np.clip(x + 3, 0, 6) / 6,
    "hard_silu": lambda x: x * np.clip(x + 3, 0, 6) / 6,
    "hard_swish": lambda x: x * np.clip(x + 3, 0, 6) / 6,
    "hard_tanh": lambda x: np.clip(x, -1, 1),
    "celu": lambda x: np.maximum(x, 0) + np.minimum(np.expm1(np.minimum(x, 0)), 0),
    "sparse_plus": lambda x: np.where(x <= -1, 0, np.where(x >= 1, x, (x + 1) ** 2 / 4)),
    "sparse_sigmoid": lambda x: np.clip(x + 1, 0, 2) / 2,
    "squareplus": lambda x: (x + np.sqrt(x * x + 4)) / 2,
    "mish": lambda x: x * np.tanh(_softplus(x)),
    "identity": lambda x: x,
}


@pytest.mark.parametrize("name", sorted(ORACLES))
def test_activation_values(name):
    fn = getattr(gc.nn, name)
    want = ORACLES[name](X)
    same(fn(X), want, rtol=1e-13, atol=1e-300)
    same(traced(fn, X), want, rtol=1e-13, atol=1e-300)
    x32 = X.astype(np.float32)
    got = fn(x32)
    assert got.dtype == np.float32
    same(got, ORACLES[name](x32.astype(np.float64)), rtol=2e-6, atol=1e-6)


def test_python_lists_are_float32():
    assert gc.nn.relu([-1.0, 2.0]).dtype == np.float32
    assert gc.nn.gelu([1.0]).dtype == np.float32
    assert gc.nn.leaky_relu([-1, 2]).dtype == np.float32  # ints: cast, as TensorFlow


@pytest.mark.parametrize("name", ["elu", "selu", "gelu", "silu", "softplus", "softsign",
                                  "log_sigmoid", "celu", "mish", "squareplus"])
def test_smooth_gradients_match_finite_differences(name):
    x = np.array([-2.5, -0.7, 0.3, 1.9])
    check_grad(getattr(gc.nn, name), x)


def test_kinks_and_overflow_gradients():
    g, w = grad(gc.nn.relu, np.array([-1.0, 0.0, 2.0]))
    same(g, w * [0, 0, 1])
    g, w = grad(gc.nn.relu6, np.array([0.0, 3.0, 6.0, 7.0]))
    same(g, w * [0, 1, 0, 0])
    for fn in (gc.nn.elu, gc.nn.selu, gc.nn.celu, gc.nn.softplus, gc.nn.log_sigmoid):
        g, _ = grad(fn, np.array([-800.0, 800.0]))
        assert np.all(np.isfinite(g)), fn.__name__
    assert np.isnan(gc.nn.relu(np.array([np.nan])).numpy()[0])


def test_gelu_approximate_and_jax_spellings():
    x = np.linspace(-3, 3, 7)
    approx = 0.5 * x * (1 + np.tanh(np.sqrt(2 / np.pi) * (x + 0.044715 * x ** 3)))
    same(gc.nn.gelu(x, approximate=True), approx)
    same(gc.nn.gelu(x, True), approx)
    same(gc.nn.leaky_relu(x, negative_slope=0.01), np.where(x > 0, x, 0.01 * x))
    same(gc.nn.leaky_relu(x, alpha=0.3), np.where(x > 0, x, 0.3 * x))
    same(gc.nn.elu(x, alpha=2.0), np.where(x > 0, x, 2 * np.expm1(np.minimum(x, 0))))
    same(gc.nn.silu(x, beta=2.0), x * _sig(2 * x))
    same(gc.nn.celu(x, alpha=0.5), np.where(x > 0, x, 0.5 * np.expm1(np.minimum(x, 0) / 0.5)))
    same(gc.nn.squareplus(x, b=1), (x + np.sqrt(x * x + 1)) / 2)


def test_crelu_glu_log1mexp():
    x = np.array([[1.0, -2.0, 3.0, -0.5]])
    same(gc.nn.crelu(x), np.concatenate([np.maximum(x, 0), np.maximum(-x, 0)], -1))
    same(gc.nn.crelu(x, axis=0), np.concatenate([np.maximum(x, 0), np.maximum(-x, 0)], 0))
    same(gc.nn.glu(x), x[:, :2] * _sig(x[:, 2:]))
    same(gc.nn.glu(x.T, axis=0), x.T[:2] * _sig(x.T[2:]))
    with pytest.raises(ValueError, match="even"):
        gc.nn.glu(np.ones((2, 3)))
    t = np.array([1e-8, 0.1, 0.69, 0.7, 5.0, 50.0])
    same(gc.nn.log1mexp(t), np.where(t < np.log(2), np.log(-np.expm1(-t)),
                                      np.log1p(-np.exp(-t))), rtol=1e-14)
    check_grad(gc.nn.log1mexp, np.array([0.05, 0.6, 0.8, 3.0]))


# --------------------------------------------------------------------------- erf op
def test_erf_values_and_dtypes():
    from graphc.ops.special_erf import erf

    x = np.array([-np.inf, -3.0, -0.5, -0.0, 0.0, 1e-20, 0.5, 2.0, 6.0, np.inf, np.nan])
    same(erf(x), ERF(x), rtol=2e-16)
    same(gc.function(erf)(x), ERF(x), rtol=2e-16)
    assert erf(x.astype(np.float32)).dtype == np.float32
    assert erf(x.astype(np.float16)).dtype == np.float16
    assert erf(np.arange(3, dtype=np.int32)).dtype == np.float64
    with pytest.raises(TypeError, match="erf"):
        erf(np.ones(2, np.complex128))


def test_erf_gradient_and_batching():
    from graphc.ops.special_erf import erf

    x = np.array([[-1.5, 0.2, 0.9], [2.0, -0.3, 0.0]])
    check_grad(erf, x)
    g, w = grad(erf, x)
    same(g, w * 2 / np.sqrt(np.pi) * np.exp(-x * x), rtol=1e-14)
    batched = gc.vectorized_map(lambda r: erf(r) * r, x)
    same(batched, np.stack([ERF(r) * r for r in x]), rtol=1e-15)

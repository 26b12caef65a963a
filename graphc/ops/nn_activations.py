"""Activation functions of ``gc.nn`` (TensorFlow's ``tf.nn`` and JAX's ``jax.nn``), each a
composition of elementwise ops (no op of its own: gradients, batching, fusion and the
compiled kernels are those of the ops used).

Where ``tf.nn`` and ``jax.nn`` share a name the signature accepts both spellings and
TensorFlow's defaults win (``gelu(approximate=False)``, ``leaky_relu(alpha=0.2)``;
JAX's ``negative_slope=`` keyword is accepted too). Branches of a ``where`` never see an
argument that would overflow (``expm1(min(x, 0))``), so gradients stay finite. Python
numbers and lists become TensorFlow's literal dtypes (float32, int32); integer tensors
are promoted as ``graphc.numpy``'s ufuncs promote them where a float is needed.
"""

from __future__ import annotations

import numpy as np

from graphc.core.registry import bind
from graphc.ops import elementwise as _ew
from graphc.ops.convert import convert_to_tensor
from graphc.ops.join import concatenate, split
from graphc.ops.special_erf import ERF
from graphc.ops.ufuncs import where

_SQRT_2_OVER_PI = float(np.sqrt(2.0 / np.pi))
_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_SCALE = 1.0507009873554804934193349852946
_LN2 = float(np.log(2.0))


def _t(x):
    return convert_to_tensor(x)


def _exp(x):
    return bind(_ew.EXP, x)


def _expm1(x):
    return bind(_ew.EXPM1, x)


def _log1p(x):
    return bind(_ew.LOG1P, x)


def _tanh(x):
    return bind(_ew.TANH, x)


def _min0(x):
    return bind(_ew.MINIMUM, x, 0)


# --------------------------------------------------------------------------- rectifiers
def relu(features, name=None):
    """``tf.nn.relu`` / ``jax.nn.relu``: ``max(x, 0)``; the gradient at 0 is 0, NaN stays
    NaN."""
    x = _t(features)
    return where(x <= 0, np.zeros((), x.dtype), x)


def relu6(features, name=None):
    """``tf.nn.relu6`` / ``jax.nn.relu6``: ``min(max(x, 0), 6)``; gradient 1 strictly
    inside (0, 6)."""
    x = _t(features)
    return where(x <= 0, np.zeros((), x.dtype), where(x >= 6, np.full((), 6, x.dtype), x))


def crelu(features, axis=-1, name=None):
    """``tf.nn.crelu``: ``concat([relu(x), relu(-x)], axis)``."""
    x = _t(features)
    return concatenate([relu(x), relu(-x)], axis=axis)


def leaky_relu(features, alpha=0.2, name=None, *, negative_slope=None):
    """``tf.nn.leaky_relu(features, alpha=0.2)``: ``x`` where ``x > 0``, else
    ``alpha * x`` (integer features are cast to float32, as TensorFlow does).
    ``jax.nn.leaky_relu``'s ``negative_slope=`` keyword is accepted (its default there
    is 0.01; here the default is TensorFlow's 0.2)."""
    if negative_slope is not None:
        alpha = negative_slope
    x = _t(features)
    if x.dtype.kind in "iub":
        x = bind(_ew.CAST, x, dtype=np.dtype(np.float32))
    if isinstance(alpha, np.ndarray):
        alpha = alpha.item()
    return where(x > 0, x, x * alpha)


def elu(features, alpha=1.0, name=None):
    """``tf.nn.elu(features)`` / ``jax.nn.elu(x, alpha=1.0)``: ``x`` where ``x > 0``,
    else ``alpha * (exp(x) - 1)``."""
    x = _t(features)
    return where(x > 0, x, alpha * _expm1(_min0(x)))


def selu(features, name=None):
    """``tf.nn.selu`` / ``jax.nn.selu``: ``scale * elu(x, alpha)`` with the
    self-normalizing constants (alpha ~ 1.6733, scale ~ 1.0507)."""
    x = _t(features)
    return _SELU_SCALE * where(x > 0, x, _SELU_ALPHA * _expm1(_min0(x)))


def celu(x, alpha=1.0):
    """``jax.nn.celu``: ``max(x, 0) + alpha * min(exp(x / alpha) - 1, 0)``."""
    x = _t(x)
    return where(x > 0, x, alpha * _expm1(_min0(x) / alpha))


# --------------------------------------------------------------------------- smooth
def sigmoid(x, name=None):
    """``tf.nn.sigmoid`` / ``jax.nn.sigmoid``: ``1 / (1 + exp(-x))``."""
    return bind(_ew.SIGMOID, _t(x))


def tanh(x, name=None):
    """``tf.nn.tanh`` / ``jax.nn.tanh``: the hyperbolic tangent."""
    return _tanh(_t(x))


def softplus(features, name=None):
    """``tf.nn.softplus`` / ``jax.nn.softplus``: ``log(1 + exp(x))``, computed without
    overflow."""
    return bind(_ew.SOFTPLUS, _t(features))


def softsign(features, name=None):
    """``tf.nn.softsign``: ``x / (1 + |x|)``."""
    x = _t(features)
    return x / (1 + bind(_ew.ABSOLUTE, x))


def soft_sign(x):
    """``jax.nn.soft_sign``: ``x / (1 + |x|)``."""
    return softsign(x)


def log_sigmoid(x, name=None):
    """``tf.math.log_sigmoid`` / ``jax.nn.log_sigmoid``: ``-softplus(-x)``."""
    return -bind(_ew.SOFTPLUS, -_t(x))


def silu(features, beta=1.0, name=None):
    """``tf.nn.silu(features, beta=1.0)`` / ``jax.nn.silu``: ``x * sigmoid(beta * x)``."""
    x = _t(features)
    return x * bind(_ew.SIGMOID, x * beta if beta != 1.0 else x)


def swish(features, beta=1.0, name=None):
    """``tf.nn.swish`` / ``jax.nn.swish``: the same as :func:`silu`."""
    return silu(features, beta)


def gelu(features, approximate=False, name=None):
    """``tf.nn.gelu(features, approximate=False)`` / ``jax.nn.gelu(x, approximate)``:
    ``x * Phi(x)``, exactly with ``erf`` or, with ``approximate=True``, by
    ``0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x**3)))``. The default is TensorFlow's
    (exact); ``jax.nn.gelu`` defaults to the approximation."""
    x = _t(features)
    if approximate:
        return 0.5 * x * (1 + _tanh(_SQRT_2_OVER_PI * (x + 0.044715 * x * x * x)))
    return 0.5 * x * (1 + bind(ERF, x * float(1 / np.sqrt(2.0))))


def mish(x):
    """``jax.nn.mish``: ``x * tanh(softplus(x))``."""
    x = _t(x)
    return x * _tanh(bind(_ew.SOFTPLUS, x))


def squareplus(x, b=4):
    """``jax.nn.squareplus``: ``(x + sqrt(x**2 + b)) / 2``."""
    x = _t(x)
    return (x + bind(_ew.SQRT, x * x + b)) / 2


# --------------------------------------------------------------------------- piecewise
def hard_sigmoid(x):
    """``jax.nn.hard_sigmoid``: ``relu6(x + 3) / 6``."""
    return relu6(_t(x) + 3.0) / 6.0


def hard_silu(x):
    """``jax.nn.hard_silu``: ``x * hard_sigmoid(x)``."""
    x = _t(x)
    return x * hard_sigmoid(x)


def hard_swish(x):
    """``jax.nn.hard_swish``: the same as :func:`hard_silu`."""
    return hard_silu(x)


def hard_tanh(x):
    """``jax.nn.hard_tanh``: ``-1`` below -1, ``1`` above 1, ``x`` between."""
    x = _t(x)
    one = np.ones((), x.dtype)
    return where(x > 1, one, where(x < -1, -one, x))


def sparse_plus(x):
    """``jax.nn.sparse_plus``: 0 for ``x <= -1``, ``x`` for ``x >= 1``, ``(x + 1)**2 / 4``
    between."""
    x = _t(x)
    mid = (x + 1) * (x + 1) / 4
    return where(x <= -1, np.zeros((), mid.dtype), where(x >= 1, x, mid))


def sparse_sigmoid(x):
    """``jax.nn.sparse_sigmoid``: 0 for ``x <= -1``, 1 for ``x >= 1``, ``(x + 1) / 2``
    between (the derivative of :func:`sparse_plus`)."""
    x = _t(x)
    mid = (x + 1) / 2
    return where(x <= -1, np.zeros((), mid.dtype), where(x >= 1, np.ones((), mid.dtype), mid))


def log1mexp(x):
    """``jax.nn.log1mexp``: ``log(1 - exp(-x))`` for ``x > 0``, accurate near 0 and for
    large ``x`` (``log(-expm1(-x))`` below ``log 2``, ``log1p(-exp(-x))`` above)."""
    x = _t(x)
    small = x < _LN2
    xs = where(small, x, 1.0)  # each branch sees only the inputs it is accurate for
    xl = where(small, 1.0, x)
    return where(small, bind(_ew.LOG, -_expm1(-xs)), _log1p(-_exp(-xl)))


def glu(x, axis=-1):
    """``jax.nn.glu``: the first half of ``x`` along ``axis`` times the sigmoid of the
    second half; that dimension must be even."""
    x = _t(x)
    n = x.shape[axis]
    if n is None or n % 2:
        raise ValueError(f"glu: axis {axis} must have an even, known size (got {n})")
    a, b = split(x, 2, axis=axis)
    return a * bind(_ew.SIGMOID, b)


def identity(x):
    """``jax.nn.identity``: returns ``x`` (as a tensor)."""
    return _t(x)

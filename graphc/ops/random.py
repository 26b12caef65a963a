"""Random ops: stateful, so never folded or merged, and drawn afresh on every call.

State: one global ``numpy.random.Generator`` (reset by ``gc.random.set_seed``, and by
``gnp.random.seed`` with an int or None), plus one generator per op-level ``seed`` derived from
``(global seed, op seed)``, so with seeds set, sequences are reproducible across runs, and
repeated calls still give new values (TensorFlow's semantics).
``gnp.random``'s legacy functions draw NumPy's legacy stream instead: a global
``numpy.random.RandomState`` read by ``random_draw`` ops (docs/random.md).
"""

from __future__ import annotations

import operator

import numpy as np

from graphc.core import contexts
from graphc.core.attr_types import DTYPE, NUMBER, OPT_INT, SHAPE
from graphc.core.registry import NOT_DIFFERENTIABLE, OpDef, bind, register
from graphc.core.tensor import Tensor
from graphc.ir.graph import Aval
from graphc.ops import shape_args
from graphc.ops.random_draw import RngRef, draw, reseed


class _RngState:
    """The generators; made on first use (``numpy.random`` costs ~8 ms to import, which
    ``import graphc`` need not pay)."""

    def __init__(self):
        self.global_seed = None
        self.generator = None  # made by get(None) from global_seed
        self.op_generators: dict = {}

    def reset(self, seed):
        self.global_seed = None if seed is None else operator.index(seed)
        self.generator = None
        self.op_generators.clear()

    def get(self, op_seed):
        if op_seed is None:
            if self.generator is None:
                self.generator = np.random.default_rng(self.global_seed)
            return self.generator
        gen = self.op_generators.get(op_seed)
        if gen is None:
            base = 0 if self.global_seed is None else self.global_seed
            gen = np.random.default_rng([base, op_seed])
            self.op_generators[op_seed] = gen
        return gen


_rng = _RngState()


def set_seed(seed) -> None:
    """Seed graphc's random ops (``tf.random.set_seed`` / ``np.random.seed``)."""
    _rng.reset(seed)


def _run_shape(shape_operand, shape, what):
    """The draw's shape: the attr, or (a shape known only at run time) the operand's."""
    return shape_args.dims(shape_operand[0], shape, what) if shape_operand else shape


def _uniform_ref(*shape_operand, shape, dtype, low, high, seed):
    shape = _run_shape(shape_operand, shape, "gc.random.uniform")
    gen = _rng.get(seed)
    if dtype.kind in "iu":
        return gen.integers(low, high, size=shape, dtype=dtype)
    return gen.uniform(low, high, size=shape).astype(dtype, copy=False)


def _normal_ref(*shape_operand, shape, dtype, loc, scale, seed):
    shape = _run_shape(shape_operand, shape, "gc.random.normal")
    return _rng.get(seed).normal(loc, scale, size=shape).astype(dtype, copy=False)


def _infer(*shape_operand, shape, dtype, **attrs):
    return Aval(shape, dtype)


# uniform values in [low, high) (integers for integer dtypes); with an operand (a 1-D
# int64 tensor) the shape is read from it at run time and ``shape`` is its template,
# as for ``full``; random_normal takes the same optional shape operand
RANDOM_UNIFORM = register(OpDef(
    name="random_uniform",
    attrs={"shape": SHAPE, "dtype": DTYPE, "low": NUMBER, "high": NUMBER, "seed": OPT_INT},
    infer=_infer, ref=_uniform_ref, stateful=True,
    extra={"python_side": "gc.random.uniform"},
))
RANDOM_NORMAL = register(OpDef(
    name="random_normal",
    attrs={"shape": SHAPE, "dtype": DTYPE, "loc": NUMBER, "scale": NUMBER, "seed": OPT_INT},
    infer=_infer, ref=_normal_ref, stateful=True,
    extra={"python_side": "gc.random.normal"},
))


def _shape(size, what):
    """``(template, operands)``: a static shape, or a shape tensor read at run time (the
    template holds the dims known while tracing, as for ``gnp.zeros``)."""
    if size is None:
        return (), ()
    template, operand = shape_args.shape_arg(size, what)
    if any(d is not None and d < 0 for d in template or ()):
        raise ValueError(f"{what}: negative dimension in shape {template}")
    return template, (() if operand is None else (operand,))


def _number(v, name):
    if hasattr(v, "numpy"):
        v = v.numpy()
    if isinstance(v, np.ndarray | np.generic):
        if np.ndim(v):
            raise ValueError(f"{name} must be a scalar, got shape {np.shape(v)}")
        v = v.item()
    if not isinstance(v, int | float):
        raise TypeError(f"{name} must be a Python or NumPy number, got {type(v).__name__}")
    return v


def _uniform(shape, low, high, dtype, seed):
    template, operands = _shape(shape, "random.uniform")
    return bind(RANDOM_UNIFORM, *operands, shape=template, dtype=np.dtype(dtype),
                low=_number(low, "low"), high=_number(high, "high"),
                seed=None if seed is None else operator.index(seed))


def _normal(shape, loc, scale, dtype, seed):
    template, operands = _shape(shape, "random.normal")
    return bind(RANDOM_NORMAL, *operands, shape=template, dtype=np.dtype(dtype),
                loc=_number(loc, "mean"), scale=_number(scale, "stddev"),
                seed=None if seed is None else operator.index(seed))


# ------------------------------------------------------------------ gc.random (TensorFlow)
def uniform(shape, minval=0, maxval=None, dtype=np.float32, seed=None, name=None):
    """``tf.random.uniform``: float32 in ``[minval, maxval)`` (maxval defaults to 1)."""
    dtype = np.dtype(dtype)
    if maxval is None:
        if dtype.kind in "iu":
            raise ValueError("random.uniform: integer dtypes need maxval")
        maxval = 1
    return _uniform(shape, minval, maxval, dtype, seed)


def normal(shape, mean=0.0, stddev=1.0, dtype=np.float32, seed=None, name=None):
    """``tf.random.normal``: float32 normal values."""
    return _normal(shape, mean, stddev, dtype, seed)


# ------------------------------------------------------------------ gnp.random (NumPy)
class _LegacyMethods:
    """A ``numpy.random.RandomState`` under the Generator method names that the
    ``random_draw`` op calls (graphc/ops/random_methods.py): NumPy's legacy streams."""

    def __init__(self, state):
        self.state = state

    def random(self, size=None):
        return self.state.random_sample(size)

    def standard_normal(self, size=None):
        return self.state.standard_normal(size)

    def uniform(self, low, high, size=None):
        return self.state.uniform(low, high, size)

    def normal(self, loc, scale, size=None):
        return self.state.normal(loc, scale, size)

    def poisson(self, lam, size=None):
        return self.state.poisson(lam, size)

    def integers(self, low, high, size=None, dtype=np.int64):
        return self.state.randint(low, high, size=size, dtype=dtype)


class LegacyRng(RngRef):
    """NumPy's global legacy state (``np.random.seed``'s ``RandomState``), held by
    reference: eager draws and every call of a graph advance it."""

    def __init__(self):
        self.methods = None

    def generator(self):
        if self.methods is None:
            self.methods = _LegacyMethods(np.random.RandomState())
        return self.methods

    def reseed(self, how, seed):
        seed = None if how == "entropy" else np.asarray(seed)
        if seed is not None and seed.ndim == 0:
            seed = int(seed)
        self.methods = _LegacyMethods(np.random.RandomState(seed))

    def __repr__(self):
        return "<gnp.random legacy state (RandomState)>"


_LEGACY = LegacyRng()  # the one global legacy state


def _legacy_draw(method, params, size, what, **kw):
    if isinstance(size, int | np.integer):
        size = (int(size),)
    return draw(_LEGACY, method, params, size, what, **kw)


def _dims(shape, what):
    """``rand``/``randn``'s dims: ints (or one shape tensor), none for a 0-d draw."""
    if not shape:
        return None
    if len(shape) == 1 and not isinstance(shape[0], int | np.integer):
        return shape[0]
    return tuple(operator.index(d) for d in shape)


class NumpyRandom:
    """``gnp.random``: NumPy's legacy global-state functions (``np.random.seed``,
    ``rand``, ``randn``, ``random``, ``standard_normal``, ``uniform``, ``normal``,
    ``poisson``, ``randint``), drawing NumPy's own legacy stream: after
    ``gnp.random.seed(s)`` the numbers equal NumPy's after ``np.random.seed(s)``
    (docs/random.md), eagerly and inside ``gc.function``; plus ``default_rng``."""

    @staticmethod
    def seed(seed=None):
        """``np.random.seed``: reset the legacy state as ``np.random.RandomState(seed)``
        (an int in ``[0, 2**32)``, a sequence of such, or None for OS entropy); inside
        ``gc.function`` on every call, in program order. Also resets ``gc.random``'s
        global state with an int or None, as ``tf.experimental.numpy.random.seed``
        does (``gc.random.set_seed``)."""
        if not isinstance(seed, Tensor):
            np.random.RandomState(seed)  # NumPy's checks and errors, now
        if seed is None or isinstance(seed, int | np.integer):
            set_seed(seed)
        if not contexts.active():
            _LEGACY.reseed("entropy" if seed is None else "numpy", seed)
        elif seed is None:
            reseed(_LEGACY, "entropy", np.int64(0))
        else:
            reseed(_LEGACY, "numpy", seed)

    @staticmethod
    def rand(*shape):
        """``np.random.rand(d0, d1, ...)``: uniform ``[0, 1)`` float64 of those dims
        (a 0-d tensor with none)."""
        return _legacy_draw("random", (), _dims(shape, "rand"), "random.rand")

    @staticmethod
    def randn(*shape):
        """``np.random.randn(d0, d1, ...)``: standard normal float64 of those dims."""
        return _legacy_draw("standard_normal", (), _dims(shape, "randn"), "random.randn")

    @staticmethod
    def random(size=None):
        """``np.random.random``: uniform ``[0, 1)`` float64 of shape ``size``."""
        return _legacy_draw("random", (), size, "random.random")

    @staticmethod
    def random_sample(size=None):
        """``np.random.random_sample``: the same as ``random``."""
        return _legacy_draw("random", (), size, "random.random_sample")

    @staticmethod
    def standard_normal(size=None):
        """``np.random.standard_normal``: standard normal float64 of shape ``size``."""
        return _legacy_draw("standard_normal", (), size, "random.standard_normal")

    @staticmethod
    def uniform(low=0.0, high=1.0, size=None):
        """``np.random.uniform``: float64 in ``[low, high)`` (array-like bounds
        broadcast)."""
        return _legacy_draw("uniform", (low, high), size, "random.uniform")

    @staticmethod
    def normal(loc=0.0, scale=1.0, size=None):
        """``np.random.normal``: float64 of mean ``loc`` and standard deviation
        ``scale``."""
        return _legacy_draw("normal", (loc, scale), size, "random.normal")

    @staticmethod
    def poisson(lam=1.0, size=None):
        """``np.random.poisson``: int64 Poisson counts of mean ``lam`` (>= 0)."""
        return _legacy_draw("poisson", (lam,), size, "random.poisson")

    @staticmethod
    def randint(low, high=None, size=None, dtype=int):
        """``np.random.randint``: integers in ``[low, high)`` (``[0, low)`` when
        ``high`` is None) of ``dtype`` (int64 by default)."""
        if high is None:
            low, high = 0, low
        if all(isinstance(v, int | float | np.integer | np.floating) for v in (low, high)) \
                and high <= low:
            raise ValueError(f"randint: low >= high (low={low}, high={high})")
        return _legacy_draw("integers", (low, high), size, "random.randint",
                            dtype=np.dtype(dtype))

    @staticmethod
    def default_rng(seed=None):
        """``np.random.default_rng``: a Generator with NumPy's methods (eagerly NumPy's
        numbers for the same seed; graphc/ops/random_numpy.py, docs/random.md)."""
        from graphc.ops.random_numpy import default_rng  # deferred: it builds on this module

        return default_rng(seed)

    @property
    def Generator(self):  # noqa: N802 (NumPy's class name)
        """The class of ``default_rng()``'s Generators."""
        from graphc.ops.random_numpy import Generator  # deferred: it builds on this module

        return Generator


numpy_random = NumpyRandom()


# --------------------------------------------------------------------------- gradients
# A draw depends on no tensor value: nothing to differentiate.
RANDOM_UNIFORM.grad = RANDOM_NORMAL.grad = NOT_DIFFERENTIABLE


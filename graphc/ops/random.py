"""Random ops: stateful, so never folded or merged, and drawn afresh on every call.

State: one global ``numpy.random.Generator`` (reset by ``gc.random.set_seed`` /
``gnp.random.seed``), plus one generator per op-level ``seed`` derived from
``(global seed, op seed)``, so with seeds set, sequences are reproducible across runs, and
repeated calls still give new values (TensorFlow's semantics).
"""

from __future__ import annotations

import operator

import numpy as np

from graphc.core.attr_types import DTYPE, NUMBER, OPT_INT, SHAPE
from graphc.core.registry import NOT_DIFFERENTIABLE, OpDef, bind, register
from graphc.ir.graph import Aval
from graphc.ops import shape_args


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
class NumpyRandom:
    """``gnp.random``: NumPy-style random functions (float64 unless said otherwise)."""

    @staticmethod
    def seed(seed=None):
        """``np.random.seed``."""
        set_seed(seed)

    @staticmethod
    def rand(*shape):
        """Uniform ``[0, 1)`` float64 of the given dims."""
        return _uniform(shape, 0.0, 1.0, np.float64, None)

    @staticmethod
    def randn(*shape):
        """Standard normal float64 of the given dims."""
        return _normal(shape, 0.0, 1.0, np.float64, None)

    @staticmethod
    def uniform(low=0.0, high=1.0, size=None):
        """``np.random.uniform``."""
        return _uniform(size, low, high, np.float64, None)

    @staticmethod
    def normal(loc=0.0, scale=1.0, size=None):
        """``np.random.normal``."""
        return _normal(size, loc, scale, np.float64, None)

    @staticmethod
    def randint(low, high=None, size=None, dtype=np.int64):
        """``np.random.randint``: integers in ``[low, high)``."""
        if high is None:
            low, high = 0, low
        if _number(high, "high") <= _number(low, "low"):
            raise ValueError(f"randint: low ({low}) must be less than high ({high})")
        return _uniform(size, low, high, np.dtype(dtype), None)


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

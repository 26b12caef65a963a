"""Tensor's Python operators (``+ - * / // % ** @``, comparisons, ``& | ^ << >>``, unary), each
bound to one registered op through the eager fast paths of ``registry.py``, and their
in-place forms (``+=`` ...: ``graphc/ops/inplace.py``)."""

from __future__ import annotations

import numpy as np

from graphc.core import trace
from graphc.core.registry import fast_binary, fast_unary
from graphc.core.tensor import _operand
from graphc.ops import elementwise as ew
from graphc.ops import inplace, ufuncs
from graphc.ops.convert import asarray
from graphc.ops.linalg import matmul as _matmul
from graphc.ops.shape_args import holds_symbolic


def _packed(other):
    """A list or tuple holding traced tensors (``[j] + i`` while tracing) stacked into
    one tensor, as NumPy's ``asarray`` builds it eagerly (TensorFlow packs it too);
    anything else as it is."""
    if (type(other) is list or type(other) is tuple) and trace.active() \
            and holds_symbolic(other):
        return asarray(other)
    return other


def install_operators(Tensor) -> None:  # noqa: N803 - the class being set up
    """Attach arithmetic/comparison operators; each binds one registered op."""

    def binary(op, reflected=False):
        call = fast_binary(op)
        if reflected:
            def method(self, other):
                if type(other) is not Tensor:
                    if not _operand(other):
                        return NotImplemented
                    other = _packed(other)
                return call(other, self)
        else:
            def method(self, other):
                if type(other) is not Tensor:
                    if not _operand(other):
                        return NotImplemented
                    other = _packed(other)
                return call(self, other)
        return method

    table = {
        "add": ew.ADD, "sub": ew.SUBTRACT, "mul": ew.MULTIPLY, "truediv": ew.TRUE_DIVIDE,
        "floordiv": ew.FLOOR_DIVIDE, "mod": ew.REMAINDER, "pow": ew.POWER,
        "and": ew.BITWISE_AND, "or": ew.BITWISE_OR, "xor": ew.BITWISE_XOR,
        "lshift": ew.LEFT_SHIFT, "rshift": ew.RIGHT_SHIFT,
    }
    symbols = {"add": "+", "sub": "-", "mul": "*", "truediv": "/", "floordiv": "//",
               "mod": "%", "pow": "**", "and": "&", "or": "|", "xor": "^", "lshift": "<<",
               "rshift": ">>"}
    for name, op in table.items():
        setattr(Tensor, f"__{name}__", binary(op))
        setattr(Tensor, f"__r{name}__", binary(op, reflected=True))
        setattr(Tensor, f"__i{name}__", inplace.operator(fast_binary(op), op.name,
                                                         symbols[name]))
    power = Tensor.__pow__

    def pow_(self, other):
        # ndarray's ``a ** 2`` is np.square(a), which differs from np.power(a, 2) in one
        # case: for bools it gives int8, not int64
        if type(other) is int and other == 2 and self.dtype == np.bool_:
            return ufuncs.square(self)
        return power(self, other)

    Tensor.__pow__ = pow_
    for name, op in {"eq": ew.EQUAL, "ne": ew.NOT_EQUAL, "lt": ew.LESS,
                     "le": ew.LESS_EQUAL, "gt": ew.GREATER, "ge": ew.GREATER_EQUAL}.items():
        setattr(Tensor, f"__{name}__", binary(op))

    def matmul(self, other):
        return _matmul(self, other)

    def rmatmul(self, other):
        return _matmul(other, self)

    def divmod_(self, other):  # NumPy's divmod: floor_divide and remainder of the pair
        if type(other) is not Tensor and not _operand(other):
            return NotImplemented
        return ufuncs.floor_divide(self, other), ufuncs.remainder(self, other)

    def rdivmod(self, other):
        if type(other) is not Tensor and not _operand(other):
            return NotImplemented
        return ufuncs.floor_divide(other, self), ufuncs.remainder(other, self)

    Tensor.__matmul__ = matmul
    Tensor.__rmatmul__ = rmatmul
    Tensor.__imatmul__ = inplace.operator(_matmul, "matmul", "@")
    Tensor.__divmod__ = divmod_
    Tensor.__rdivmod__ = rdivmod
    Tensor.__neg__ = fast_unary(ew.NEGATIVE)
    Tensor.__pos__ = fast_unary(ew.POSITIVE)
    Tensor.__abs__ = fast_unary(ew.ABSOLUTE)
    Tensor.__invert__ = fast_unary(ew.INVERT)

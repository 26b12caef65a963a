"""The user-facing error for an exception an op's implementation raised: the op, its
operands' dtypes and shapes, and the user's line (used by ``bind``, eager placement and
the interpreter)."""

from __future__ import annotations

import numpy as np

from graphc.errors import InvalidArgumentError, InvalidIndexError, SymbolicTensorError


def kernel_error(op, error: Exception, arrays, where: str) -> Exception:
    """Wrap an exception raised by an op's implementation into a user-facing error."""
    shapes = ", ".join(_describe(a) for a in arrays)
    text = f"{op.name}({shapes}): {error}{where}"
    if isinstance(error, (InvalidArgumentError, SymbolicTensorError)):
        return error
    if op.extra.get("runs_user_code"):  # numpy_function etc.: the user's own exception
        return error
    if isinstance(error, TypeError):
        return TypeError(text)
    if isinstance(error, IndexError):
        return InvalidIndexError(text)
    if isinstance(error, (ValueError, IndexError, ArithmeticError)):
        return InvalidArgumentError(text)
    return error


def _describe(a) -> str:
    if isinstance(a, np.ndarray):
        return f"{a.dtype}{list(a.shape)}"
    return type(a).__name__

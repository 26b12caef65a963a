"""``TensorSpec``: the shape (``None`` dims allowed) and dtype a tensor argument must have.

Used by ``input_signature``, ``gc.vectorized_map``/``map_fn`` (the example's spec), the
saved-graph signatures and the CUDA executor's shape checks.
"""

from __future__ import annotations

import numpy as np

from graphc.dtypes import as_dtype


class TensorSpec:
    """Describes a tensor argument: ``shape`` (``None`` dims allowed), ``dtype``, ``name``.

    >>> gc.TensorSpec(shape=[None, 3], dtype=gc.float32)
    TensorSpec(shape=(None, 3), dtype=float32, name=None)
    """

    __slots__ = ("shape", "dtype", "name")

    def __init__(self, shape, dtype=np.float32, name=None):
        self.shape = None if shape is None else tuple(
            None if d is None else int(d) for d in shape)
        self.dtype = as_dtype(dtype)
        self.name = name

    @classmethod
    def from_tensor(cls, t, name=None):
        return cls(t.shape, t.dtype, name)

    def is_compatible_with(self, value) -> bool:
        """True if ``value`` (a tensor, array or spec) fits this spec."""
        shape, dtype = value.shape, value.dtype
        return dtype == self.dtype and shape_compatible(self.shape, shape)

    def __eq__(self, other):
        return (isinstance(other, TensorSpec) and self.shape == other.shape
                and self.dtype == other.dtype and self.name == other.name)

    def __hash__(self):
        return hash((self.shape, self.dtype, self.name))

    def __repr__(self):
        return f"TensorSpec(shape={self.shape}, dtype={self.dtype.name}, name={self.name!r})"


def shape_compatible(spec_shape, shape) -> bool:
    if spec_shape is None:
        return True
    if shape is None or len(spec_shape) != len(shape):
        return False
    return all(a is None or a == b for a, b in zip(spec_shape, shape))

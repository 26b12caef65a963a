"""The Array API standard's inspection names on ``graphc.numpy``:
``__array_api_version__`` and ``__array_namespace_info__()`` (capabilities, devices,
default device, dtypes, default dtypes). ``t.__array_namespace__()`` (ops/tensor_methods)
returns ``graphc.numpy``, which holds the standard's functions (docs/numpy_api.md).
"""

from __future__ import annotations

import numpy as np

from graphc import config
from graphc.core import device_names, device_scope

# NumPy 2.4's functions follow 2025.12 where it differs from 2024.12 (meshgrid and
# broadcast_arrays return tuples; broadcast_shapes, isin, linalg.eig are present)
__array_api_version__ = "2025.12"

_KINDS = {
    "bool": ("bool",),
    "signed integer": ("int8", "int16", "int32", "int64"),
    "unsigned integer": ("uint8", "uint16", "uint32", "uint64"),
    "real floating": ("float32", "float64"),
    "complex floating": ("complex64", "complex128"),
}
_KINDS["integral"] = _KINDS["signed integer"] + _KINDS["unsigned integer"]
_KINDS["numeric"] = _KINDS["integral"] + _KINDS["real floating"] + _KINDS["complex floating"]
_ALL = _KINDS["bool"] + _KINDS["numeric"]


class __array_namespace_info__:  # noqa: N801 - the standard's name
    """``gnp.__array_namespace_info__()``: what ``graphc.numpy`` supports, as the Array
    API standard's inspection object (NumPy's, with graphc's devices: ``"cpu:0"`` and
    each ``"cuda:N"`` present).

    >>> info = gnp.__array_namespace_info__()
    >>> info.default_device(), info.default_dtypes()["integral"]
    ('cpu:0', dtype('int64'))
    """

    __module__ = "graphc.numpy"

    def capabilities(self):
        """The optional features: boolean indexing and data-dependent output shapes
        (``nonzero``, ``unique_*``, masks) work, eagerly and while tracing (unknown dims);
        at most 64 dimensions, NumPy's limit."""
        return {"boolean indexing": True, "data-dependent shapes": True,
                "max dimensions": 64}

    def default_device(self):
        """Where new tensors go: the innermost ``gc.device`` scope's device, else
        ``"cpu:0"``."""
        return device_scope.current() or device_names.CPU

    def devices(self):
        """Every device, a tuple (the standard's 2025.12 type): ``"cpu:0"`` first, then
        ``"cuda:0"``, ... (those present)."""
        return tuple(device_names.short_names())

    def default_dtypes(self, *, device=None):
        """The default dtypes: float64 for real floating (float32 under
        ``gnp.experimental_enable_numpy_behavior(prefer_float32=True)``), complex128
        (complex64), int64 for integral and indexing."""
        _check_device(device)
        f32 = config.state.prefer_float32
        return {"real floating": np.dtype(np.float32 if f32 else np.float64),
                "complex floating": np.dtype(np.complex64 if f32 else np.complex128),
                "integral": np.dtype(np.int64), "indexing": np.dtype(np.int64)}

    def dtypes(self, *, device=None, kind=None):
        """The standard's dtypes supported, by name: all for ``kind=None``, else those of
        ``kind`` (a kind name as ``isdtype`` takes, or a tuple of them)."""
        _check_device(device)
        if kind is None:
            names = _ALL
        else:
            kinds = kind if isinstance(kind, tuple) else (kind,)
            wanted = set()
            for k in kinds:
                if not isinstance(k, str) or k not in _KINDS:
                    raise ValueError(f"unsupported kind: {k!r}")
                wanted.update(_KINDS[k])
            names = tuple(n for n in _ALL if n in wanted)
        return {n: np.dtype(n) for n in names}


def _check_device(device):
    if device is not None:
        device_names.resolve(device, "__array_namespace_info__")


__all__ = ["__array_api_version__", "__array_namespace_info__"]

"""Every switch and environment variable graphc reads, in one place.

Public surface (re-exported as ``gc.config``):

* ``set_dtype_promotion("numpy" | "strict")`` / ``get_dtype_promotion()``
* ``run_functions_eagerly(bool)`` / ``functions_run_eagerly()`` (TensorFlow's spelling
  of ``gc.run_functions_eagerly``; both names set the same switch)
* ``optimizer.set_options({...})`` / ``optimizer.get_options()``
* ``list_devices()``, ``list_physical_devices(device_type=None)``,
  ``list_logical_devices(device_type=None)`` (docs/devices.md)

Environment variables (read here and nowhere else):

* ``GRAPHC_CACHE_DIR``  where compiled programs are cached on disk (a private directory).
* ``GRAPHC_CHECK=1``    run the IR verifier after every pass.
* ``GRAPHC_SHOW_INTERNAL_FRAMES=1``  keep graphc's own frames in tracebacks.
* ``GRAPHC_JIT=lazy|eager|off``  when the Numba backend compiles a graph.
"""

from __future__ import annotations

import os

_PROMOTION_MODES = ("numpy", "strict")


class _State:
    """Mutable global settings. One instance, ``state``; read it, do not copy it."""

    __slots__ = ("dtype_promotion", "prefer_float32", "run_functions_eagerly", "optimizer",
                 "optimizer_version")

    def __init__(self):
        self.dtype_promotion = "numpy"
        self.prefer_float32 = False
        self.run_functions_eagerly = False
        self.optimizer = {
            "constant_folding": True,
            "cse": True,
            "arithmetic_simplification": True,
            "pruning": True,
            "fusion": True,
        }
        self.optimizer_version = 0  # bumped by set_options: executors rebuild lazily


state = _State()


def run_functions_eagerly(run_eagerly: bool) -> None:
    """Make every ``gc.function`` call run its Python function directly, untraced
    (``tf.config.run_functions_eagerly``): Python side effects and ``print`` happen on
    every call and a debugger steps through your code. ``False`` traces again.

    >>> gc.config.run_functions_eagerly(True)    # debug
    >>> gc.config.run_functions_eagerly(False)   # back to graphs
    """
    if not isinstance(run_eagerly, bool | int):
        raise TypeError(f"run_functions_eagerly expects True or False, got {run_eagerly!r}")
    state.run_functions_eagerly = bool(run_eagerly)


def functions_run_eagerly() -> bool:
    """True while ``run_functions_eagerly(True)`` is in effect
    (``tf.config.functions_run_eagerly``)."""
    return state.run_functions_eagerly


def set_dtype_promotion(mode: str) -> None:
    """Choose how mixed-dtype tensor operations behave.

    ``"numpy"`` (default) promotes like NumPy 2 (NEP 50): ``int32 + float32 -> float64``.
    ``"strict"`` raises ``TypeError`` on mixed tensor dtypes, as TensorFlow does; Python
    scalars stay weak and are still accepted (``float32_tensor * 2.0`` works).

    >>> gc.config.set_dtype_promotion("strict")
    """
    if mode not in _PROMOTION_MODES:
        raise ValueError(
            f"set_dtype_promotion: unknown mode {mode!r}; use one of {_PROMOTION_MODES}"
        )
    state.dtype_promotion = mode


def get_dtype_promotion() -> str:
    """Return the current promotion mode, ``"numpy"`` or ``"strict"``."""
    return state.dtype_promotion


class _Optimizer:
    """``gc.config.optimizer``: switches for the graph pass pipeline."""

    def set_options(self, options: dict) -> None:
        """Switch passes on or off, e.g. ``set_options({"constant_folding": False})``."""
        unknown = sorted(set(options) - set(state.optimizer))
        if unknown:
            raise ValueError(
                f"optimizer.set_options: unknown option(s) {unknown}; "
                f"known options are {sorted(state.optimizer)}"
            )
        for key, value in options.items():
            if not isinstance(value, bool):
                raise TypeError(f"optimizer option {key!r} must be True or False, got {value!r}")
            state.optimizer[key] = value
        state.optimizer_version += 1

    def get_options(self) -> dict:
        """Return a copy of the pass switches."""
        return dict(state.optimizer)


optimizer = _Optimizer()


def cache_dir() -> str:
    """Directory for on-disk compiled programs (``GRAPHC_CACHE_DIR`` overrides).

    It must be yours and private (graphc creates it with mode 0700): a directory other
    users own or can write is not used at all and programs compile in memory instead
    (see "The cache's security model and limits" in docs/runtime.md)."""
    env = os.environ.get("GRAPHC_CACHE_DIR")
    if env:
        return env
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "graphc")


def check_passes() -> bool:
    """True when ``GRAPHC_CHECK=1``: verify the IR after every pass."""
    return os.environ.get("GRAPHC_CHECK", "") not in ("", "0")


def show_internal_frames() -> bool:
    """True when ``GRAPHC_SHOW_INTERNAL_FRAMES=1``: do not hide graphc frames."""
    return os.environ.get("GRAPHC_SHOW_INTERNAL_FRAMES", "") not in ("", "0")


def jit_mode() -> str:
    """The Numba compile policy from ``GRAPHC_JIT``: ``lazy`` (default: compile a graph in
    the background once it has run twice), ``eager`` (compile on the first call) or
    ``off`` (always the NumPy interpreter)."""
    mode = os.environ.get("GRAPHC_JIT", "lazy") or "lazy"
    if mode not in ("lazy", "eager", "off"):
        raise ValueError(f"GRAPHC_JIT={mode!r}: use 'lazy', 'eager' or 'off'")
    return mode


def list_devices() -> list[str]:
    """Short names of the devices graphc can place work on, e.g. ``["cpu:0", "cuda:0"]``
    (pass one to ``gc.device``)."""
    from graphc.core import device_names as names

    return names.short_names()


def list_physical_devices(device_type=None) -> list:
    """TensorFlow's ``tf.config.list_physical_devices``: ``PhysicalDevice(name=
    "/physical_device:GPU:0", device_type="GPU")`` objects, only ``device_type``'s
    (``"CPU"``, ``"GPU"``; ``None``: all).

    >>> gc.config.list_physical_devices("CPU")
    [PhysicalDevice(name='/physical_device:CPU:0', device_type='CPU')]
    """
    from graphc.core import device_names as names

    return [names.PhysicalDevice(f"/physical_device:{names.tf_index(d)}",
                                 names.device_type_of(d)) for d in _listed(device_type)]


def list_logical_devices(device_type=None) -> list:
    """TensorFlow's ``tf.config.list_logical_devices``: ``LogicalDevice(name=
    "/device:GPU:0", device_type="GPU")`` objects (pass one to ``gc.device``), only
    ``device_type``'s (``"CPU"``, ``"GPU"``; ``None``: all)."""
    from graphc.core import device_names as names

    return [names.LogicalDevice(f"/device:{names.tf_index(d)}", names.device_type_of(d))
            for d in _listed(device_type)]


def _listed(device_type) -> list[str]:
    from graphc.core import device_names as names

    kinds = names.device_types(device_type)
    return [d for d in names.short_names() if d.partition(":")[0] in kinds]

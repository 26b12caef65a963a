"""Every switch and environment variable graphc reads, in one place.

Public surface (re-exported as ``gc.config``):

* ``set_dtype_promotion("numpy" | "strict")`` / ``get_dtype_promotion()``
* ``run_functions_eagerly(bool)`` / ``functions_run_eagerly()`` (TensorFlow's spelling
  of ``gc.run_functions_eagerly``; both names set the same switch)
* ``optimizer.set_options({...})`` / ``optimizer.get_options()``
* ``list_devices()``, ``list_physical_devices(device_type=None)``,
  ``list_logical_devices(device_type=None)`` (docs/devices.md): defined with the device
  names in ``graphc/core/device_names.py`` (they need the devices, a layer above this
  one) and added to this namespace by the face, ``graphc/__init__.py``

Environment variables (read here and nowhere else):

* ``GRAPHC_CACHE_DIR``  where compiled programs are cached on disk (a private directory).
* ``GRAPHC_CHECK=1``    run the IR verifier after every pass.
* ``GRAPHC_SHOW_INTERNAL_FRAMES=1``  keep graphc's own frames in tracebacks.
* ``GRAPHC_JIT=lazy|eager|off``  when the Numba backend compiles a graph.
* ``GRAPHC_COMPILE_WORKER=0``  lazy compiles run in a thread of this process, not in a
  compile worker process.
* ``GRAPHC_NATIVE_LOAD=0``  programs on disk load through Numba, not linked from their
  machine code.
* ``GRAPHC_PARALLEL=0``  generated loops never use ``numba.prange``.
* Numba's own, read where graphc must agree with Numba: ``NUMBA_CACHE_DIR``,
  ``NUMBA_THREADING_LAYER``, ``NUMBA_NUM_THREADS``; and OpenMP's ``OMP_WAIT_POLICY`` /
  ``GOMP_SPINCOUNT`` (graphc sets ``OMP_WAIT_POLICY=PASSIVE`` only when neither is set).
"""

from __future__ import annotations

import os

_PROMOTION_MODES = ("numpy", "strict")


class _State:
    """Mutable global settings. One instance, ``state``; read it, do not copy it."""

    __slots__ = ("dtype_promotion", "prefer_float32", "run_functions_eagerly", "optimizer",
                 "optimizer_version", "unroll_limit", "unroll_ops")

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
        self.unroll_limit = 16  # Python range loops longer than this are staged
        self.unroll_ops = 64  # ... and shorter ones whose unrolled graph would pass this


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


def set_loop_unroll_limit(iterations: int, ops: int | None = None) -> None:
    """While tracing, a ``for`` over a Python ``range`` of more than ``iterations``
    iterations runs as one graph loop (its index a traced integer) instead of being
    unrolled, when its body has no Python side effects (default 16; per function:
    ``gc.function(unroll=...)``). A shorter loop is staged too when unrolling it would
    add more than ``ops`` ops to the graph (default 64; its first iteration, traced
    unrolled, gives the count per iteration): big unrolled graphs compile slowly.
    Traces made before keep their loops.

    >>> gc.config.set_loop_unroll_limit(1000, ops=10_000)
    """
    for name, value in (("iterations", iterations), ("ops", ops)):
        if value is None and name == "ops":
            continue
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise ValueError(f"set_loop_unroll_limit expects a non-negative int for "
                             f"{name}, got {value!r}")
    state.unroll_limit = iterations
    if ops is not None:
        state.unroll_ops = ops


def get_loop_unroll_limit() -> int:
    """The iteration count above which Python ``range`` loops are staged."""
    return state.unroll_limit


def get_loop_unroll_ops() -> int:
    """The op count above which a shorter Python ``range`` loop is staged rather than
    unrolled (see :func:`set_loop_unroll_limit`)."""
    return state.unroll_ops


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


# --- the compiled runtime's environment (graphc/runtime/): read here, nowhere else ---


def compile_worker_enabled() -> bool:
    """False when ``GRAPHC_COMPILE_WORKER=0`` (or empty): background compiles run in a
    thread of this process instead of a worker process (docs/runtime.md)."""
    return os.environ.get("GRAPHC_COMPILE_WORKER", "1") not in ("", "0")


def native_load_enabled() -> bool:
    """False when ``GRAPHC_NATIVE_LOAD=0`` (or empty): programs on disk are always loaded
    through Numba, never linked from their saved machine code."""
    return os.environ.get("GRAPHC_NATIVE_LOAD", "1") not in ("", "0")


def parallel_loops_enabled() -> bool:
    """False when ``GRAPHC_PARALLEL=0``: generated loops never use ``numba.prange``."""
    return os.environ.get("GRAPHC_PARALLEL", "1") != "0"


def numba_cache_dir() -> str:
    """Numba's ``NUMBA_CACHE_DIR`` ("" when unset): where Numba would cache programs
    instead of beside graphc's checked entries (graphc then does not let it)."""
    return os.environ.get("NUMBA_CACHE_DIR", "")


def numba_threading_layer(default: str) -> str:
    """Numba's ``NUMBA_THREADING_LAYER``, or ``default`` when unset."""
    return os.environ.get("NUMBA_THREADING_LAYER", default)


def numba_num_threads() -> int | None:
    """Numba's ``NUMBA_NUM_THREADS`` as a positive int, None when unset or not one."""
    value = os.environ.get("NUMBA_NUM_THREADS", "").strip()
    return int(value) if value.isdigit() and int(value) > 0 else None


def use_cache_dir(path: str) -> None:
    """Make :func:`cache_dir` return ``path`` in this process and its children (sets
    ``GRAPHC_CACHE_DIR``; the compile worker uses its parent's directory this way)."""
    os.environ["GRAPHC_CACHE_DIR"] = path


def openmp_wait_policy_set() -> bool:
    """True when the user chose how idle OpenMP threads wait (``OMP_WAIT_POLICY`` or
    ``GOMP_SPINCOUNT`` set): graphc then leaves it alone."""
    return bool({"OMP_WAIT_POLICY", "GOMP_SPINCOUNT"} & set(os.environ))


def set_openmp_passive(passive: bool) -> None:
    """Set ``OMP_WAIT_POLICY=PASSIVE`` (OpenMP reads it when a threading layer's library
    loads) or remove it again; only for a window graphc opened itself
    (``runtime/cpu/thread_layer.passive_openmp``)."""
    if passive:
        os.environ["OMP_WAIT_POLICY"] = "PASSIVE"
    else:
        os.environ.pop("OMP_WAIT_POLICY", None)


def experimental_enable_numpy_behavior(prefer_float32=False, dtype_conversion_mode=None):
    """``gnp.experimental_enable_numpy_behavior``: choose the dtype of Python floats where
    no tensor fixes it.

    ``prefer_float32=True``: ``gnp.asarray(1.)`` and ``gnp.add(1., 2.)`` give float32;
    ``False`` (the default) restores NumPy's float64. Promotion stays NEP 50 either way.
    """
    state.prefer_float32 = bool(prefer_float32)

"""Compile a generated program's kernels to PTX without a GPU (``numba.cuda.compile_ptx``).

This type-checks and lowers the real code path (the simulator only interprets Python):
NVVM comes from NVIDIA's pip packages (``nvidia-nvvm``, ``nvidia-cuda-nvrtc``), found by
numba-cuda through ``cuda-pathfinder``. Run it in a process where the simulator is off.

numba-cuda compiles a device function (a ``numba.njit`` helper or an ``overload`` that a
kernel calls) for the *current device's* compute capability, and asks the driver which
device that is; with no GPU :func:`compile_kernels` answers with the requested ``cc``
while it compiles (the kernel itself is compiled for ``cc`` by ``compile_ptx``).
"""

from __future__ import annotations

import contextlib

from graphc.runtime.cuda import devmath


class _Recorded:
    """A kernel function as the PTX compiler sees it: ``k[grid, block]`` is a no-op."""

    def __init__(self, fn, sig):
        self.fn, self.sig = fn, sig

    def __getitem__(self, config):
        return self


def compile_kernels(program, cc=(9, 0), seen=None, only=None) -> dict:
    """``{kernel name: ptx text}`` for every kernel of ``program`` (a
    :class:`~graphc.runtime.cuda.codegen.Program`); raises numba's error for the first
    kernel that does not compile. ``seen``: a set of kernel texts already compiled (by
    an earlier call), skipped here and updated; ``only``: the names to compile (default
    all)."""
    import numba  # deferred: imports Numba
    from numba import cuda  # deferred: imports numba.cuda

    recorded: dict = {}

    def kernel(sig):
        def deco(fn):
            recorded[fn.__name__] = _Recorded(fn, sig)
            return recorded[fn.__name__]
        return deco

    ns = {"cuda": cuda, "numba": numba, "_kernel": kernel, **devmath.namespaces(False)}
    source = program.source.split("\ndef program(")[0]  # the kernels, not the host code
    exec(compile(source, "<graphc-cuda-ptx>", "exec"), ns)  # noqa: S102 - generated code
    texts = _kernel_texts(source)
    out = {}
    with _device_cc(cc):
        for name, sig in program.kernels:
            if only is not None and name not in only:
                continue
            if seen is not None:
                if texts[name] in seen:
                    continue
                seen.add(texts[name])
            rec = recorded[name]
            ptx, _ = cuda.compile_ptx(rec.fn, sig, cc=cc)
            out[name] = ptx
    return out


def _kernel_texts(source) -> dict:
    """``{kernel name: its text with the name taken out}`` (identical kernels of different
    graphs compare equal)."""
    out = {}
    for block in source.split("@_kernel(")[1:]:
        name = block.split("def ", 1)[1].split("(", 1)[0]
        out[name] = block.replace(name, "k").replace("K" + name[1:], "K")
    return out


@contextlib.contextmanager
def _device_cc(cc):
    from numba.cuda import dispatcher  # deferred: imports numba.cuda

    class _Device:
        compute_capability = cc

    real = dispatcher.get_current_device
    dispatcher.get_current_device = lambda: _Device()
    try:
        yield
    finally:
        dispatcher.get_current_device = real

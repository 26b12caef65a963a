"""Where a ``gc.function`` call runs: one executor per device and trace.

The eager rules (which device an op or a new tensor goes to, copies between devices)
are in :mod:`graphc.core.placement`; a call follows the same ones (docs/devices.md): it
runs on the scope's device, else on its device tensor arguments' device, and host
arguments are copied in at the graph's edge.
"""

from __future__ import annotations

from graphc.config import state
from graphc.core import device_names as names
from graphc.core import device_scope as scope
from graphc.core.device_tensor import DeviceTensor, index
from graphc.core.placement import CPU, placed
from graphc.errors import DeviceError
from graphc.functions.call_checks import variable_guard


def run_call(concrete, device: str, arrays) -> list:
    """One call of a ``ConcreteFunction`` on ``device``: its executor there (built once
    per device and optimizer options: a CPU and a GPU call never share one) on the
    inputs (device tensors' arrays; host arrays are copied in), outputs left there."""
    run = _executors(concrete, device)[0]
    outs = run([a._dev if type(a) is DeviceTensor else a for a in arrays])
    return [placed(o, device) for o in outs]


def runtime_text(concrete) -> str:
    """``fn.explain``'s section for each accelerator ``concrete`` runs on (those it ran
    on, and the calling thread's scope)."""
    devices = list(concrete._device_executors)
    current = scope.current()
    if current not in (None, CPU) and current not in devices:
        devices.append(current)
    return "".join(f"\n\n=== runtime on {d} ===\n" + _executors(concrete, d)[1].explain()
                   for d in devices)


def _executors(concrete, device: str):
    """``(run, executor)`` of ``concrete`` on ``device``: ``run`` is the backend's
    executor, wrapped to hold the locks of the variables the graph writes."""
    version = state.optimizer_version
    hit = concrete._device_executors.get(device)
    if hit is None or hit[0] != version:
        with concrete._lock:  # built by one thread; others wait for it
            hit = concrete._device_executors.get(device)
            if hit is None or hit[0] != version:
                hit = concrete._device_executors[device] = (
                    version, *_build(concrete, device))
    return hit[1:]


def _build(concrete, device: str):
    function = concrete._function
    if function._backend == "numpy":
        raise DeviceError(
            f"gc.function {function.__name__!r} was made with backend='numpy' (NumPy's "
            f"reference interpreter, CPU only) but is called on {device}: drop backend= "
            "to run it there, or call it outside the gc.device scope with host tensors")
    graph = concrete.optimized_graph
    # jit_compile=True: the backend raises FallbackError for nodes without a kernel
    executor = names.cuda_backend().executor_for(graph, index(device),
                                       strict=bool(function._jit_compile))
    return variable_guard(graph)(executor), executor

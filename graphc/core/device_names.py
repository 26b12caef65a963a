"""Device names: reading every accepted spelling, and which devices exist.

graphc names a device by its short form, ``"cpu:0"`` or ``"cuda:N"``. ``resolve`` reads
that and TensorFlow's spellings (``"/device:CPU:0"``, ``"/GPU:0"``, ``"GPU:0"``,
``"/job:localhost/replica:0/task:0/device:GPU:0"``, any letter case) and objects with a
``.name`` (``LogicalDevice``, TensorFlow's own included), and checks that the device
exists. GPUs are counted by the CUDA backend (``hooks.cuda_backend``: imported only when
asked).
"""

from __future__ import annotations

from typing import NamedTuple

from graphc.core import hooks
from graphc.errors import DeviceError

CPU = "cpu:0"
SPELLINGS = ("'cpu:0'", "'cuda:0'", "'GPU:0'", "'/GPU:0'", "'/device:CPU:0'",
             "'/job:localhost/replica:0/task:0/device:GPU:0'",
             "a LogicalDevice from gc.config.list_logical_devices()")
_KINDS = {"cpu": "cpu", "gpu": "cuda", "cuda": "cuda"}
_TYPES = {"cpu": "CPU", "cuda": "GPU"}  # short kind -> TensorFlow's device_type


class LogicalDevice(NamedTuple):
    """A device as ``gc.config.list_logical_devices()`` lists it (TensorFlow's shape):
    ``name`` like ``"/device:GPU:0"``, ``device_type`` ``"CPU"`` or ``"GPU"``. Pass it to
    ``gc.device``."""

    name: str
    device_type: str


class PhysicalDevice(NamedTuple):
    """A device as ``gc.config.list_physical_devices()`` lists it: ``name`` like
    ``"/physical_device:GPU:0"``, ``device_type`` ``"CPU"`` or ``"GPU"``."""

    name: str
    device_type: str


def gpu_count() -> int:
    """How many CUDA GPUs graphc can use (0 without numba-cuda or a GPU; the simulator,
    ``NUMBA_ENABLE_CUDASIM=1``, counts as one)."""
    cuda = cuda_backend()
    return cuda.gpu_count() if cuda.available() else 0


def cuda_backend():
    """The ``graphc.runtime.cuda`` module (imported on first use: it imports Numba's
    CUDA target only when asked for a GPU), through the hook the face fills."""
    return hooks.cuda_backend()


def short_names() -> list[str]:
    """Every device that exists, short names, the CPU first."""
    return [CPU] + [f"cuda:{i}" for i in range(gpu_count())]


def device_types(device_type) -> tuple:
    """The short kinds a ``device_type`` filter selects (``None``: all)."""
    if device_type is None:
        return ("cpu", "cuda")
    if not isinstance(device_type, str):
        raise TypeError(f"device_type must be a string like 'GPU' or 'CPU' or None, got "
                        f"{device_type!r}")
    key = device_type.lower()
    if key == "tpu":
        return ()  # TensorFlow's other kind: graphc has none, so nothing is listed
    if key not in _KINDS:
        raise ValueError(f"unknown device_type {device_type!r}: use 'CPU', 'GPU' (or "
                         "'cuda'), 'TPU' or None for all")
    return (_KINDS[key],)


def device_type_of(short: str) -> str:
    """TensorFlow's ``device_type`` (``"CPU"``/``"GPU"``) of a short name."""
    return _TYPES[short.partition(":")[0]]


def tf_index(short: str) -> str:
    """``"cuda:1"`` -> ``"GPU:1"``, the tail of TensorFlow's names."""
    kind, _, index = short.partition(":")
    return f"{_TYPES[kind]}:{index}"


def resolve(name, what: str = "gc.device") -> str:
    """The short name of an existing device spelled ``name``; ``DeviceError`` when the
    spelling is unknown or the device does not exist (naming the ones that do)."""
    short = parse(name, what)
    if short == CPU:
        return short
    existing = short_names()
    if short not in existing:
        raise DeviceError(_missing_message(name, short, existing, what))
    return short


def parse(name, what: str = "gc.device") -> str:
    """The short name for ``name`` without checking that the device exists."""
    given = name
    if not isinstance(name, str):
        inner = getattr(name, "name", None)
        if not isinstance(inner, str):
            raise TypeError(f"{what}: a device is named by a string like 'cuda:0' or a "
                            f"LogicalDevice, got {type(name).__name__} {name!r}")
        name = inner
    text = name.strip()
    parts = text.split("/")
    if text.startswith("/"):
        parts = parts[1:]
    found = None
    for part in parts:
        key, _, rest = part.partition(":")
        key = key.lower()
        if key == "job" and rest == "localhost" or key in ("replica", "task") and rest == "0":
            continue  # TensorFlow's one-process prefix
        if key in ("device", "physical_device"):
            part = rest
        short = _device_part(part)
        if short is None or found is not None:
            raise DeviceError(_unknown_message(given, part, what))
        found = short
    if found is None:
        raise DeviceError(_unknown_message(given, text, what))
    return found


def _device_part(part: str):
    """``"GPU:0"``/``"cuda"``/``"cpu:0"`` -> a short name; None if it is not one."""
    kind, sep, index = part.partition(":")
    kind = _KINDS.get(kind.lower())
    if kind is None or (sep and not index.isdigit()):
        return None
    return f"{kind}:{int(index) if index else 0}"


def _unknown_message(given, part, what) -> str:
    return (f"{what}({given!r}): cannot read the device name at {part!r}. Spellings that "
            f"work: {', '.join(SPELLINGS)}; devices here: {', '.join(short_names())}")


def _missing_message(given, short, existing, what) -> str:
    count = len(existing) - 1
    if short.startswith("cpu"):
        why = "graphc has one CPU device, cpu:0 (its programs use every core)"
    elif count:
        why = f"this machine has {count} CUDA GPU{'s' if count > 1 else ''}"
    else:
        why = ("graphc found no CUDA GPU (numba-cuda not installed, or no GPU and driver "
               "visible). Install graphc[cuda] on a machine with a GPU, or set "
               "NUMBA_ENABLE_CUDASIM=1 before importing graphc to use Numba's CUDA "
               "simulator")
    return (f"{what}({given!r}): there is no device {short}: {why}. Devices that exist: "
            f"{', '.join(existing)}")


# ------------------------------------- gc.config.list_*devices (the face puts them in gc.config)
def list_devices() -> list[str]:
    """Short names of the devices graphc can place work on, e.g. ``["cpu:0", "cuda:0"]``
    (pass one to ``gc.device``)."""
    return short_names()


def list_physical_devices(device_type=None) -> list:
    """TensorFlow's ``tf.config.list_physical_devices``: ``PhysicalDevice(name=
    "/physical_device:GPU:0", device_type="GPU")`` objects, only ``device_type``'s
    (``"CPU"``, ``"GPU"``; ``None``: all).

    >>> gc.config.list_physical_devices("CPU")
    [PhysicalDevice(name='/physical_device:CPU:0', device_type='CPU')]
    """
    return [PhysicalDevice(f"/physical_device:{tf_index(d)}", device_type_of(d))
            for d in _listed(device_type)]


def list_logical_devices(device_type=None) -> list:
    """TensorFlow's ``tf.config.list_logical_devices``: ``LogicalDevice(name=
    "/device:GPU:0", device_type="GPU")`` objects (pass one to ``gc.device``), only
    ``device_type``'s (``"CPU"``, ``"GPU"``; ``None``: all)."""
    return [LogicalDevice(f"/device:{tf_index(d)}", device_type_of(d))
            for d in _listed(device_type)]


def _listed(device_type) -> list[str]:
    kinds = device_types(device_type)
    return [d for d in short_names() if d.partition(":")[0] in kinds]

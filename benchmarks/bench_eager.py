"""Table "eager": one eager ``graphc.numpy`` op next to NumPy's own call on the same data.

graphc runs on ``gc.Tensor`` inputs wrapping the very arrays NumPy gets, so the difference
is graphc's per-op overhead: argument handling in ``core/registry.py:bind``, weak-scalar
resolution, and wrapping the result in a ``Tensor``.
"""

from __future__ import annotations

import numpy as np

import graphc.numpy as gnp
from benchmarks.runner import (
    fmt_delta,
    fmt_ratio,
    fmt_time,
    measure,
    optional_frameworks,
    render_table,
    yes_no,
)

TINY_OVERHEAD_NS = 2_000  # tiny arrays: at most 2 µs above NumPy
LARGE_RATIO = 1.05  # large arrays: within 5 % of NumPy

# (op, number of operands, tiny shape, large shape)
WORKLOADS = (
    ("add", 2, (4,), (1_000_000,)),
    ("exp", 1, (4,), (1_000_000,)),
    ("matmul", 2, (2, 2), (300, 300)),
)


def _label(op, shape):
    return f"{op} f64[{','.join(map(str, shape))}]"


def _framework_case(label, mod, op, arrays):
    """The same op in TensorFlow or JAX (eager, synchronous) on copies of the data."""
    if label == "TF":
        fn = {"add": mod.math.add, "exp": mod.math.exp, "matmul": mod.linalg.matmul}[op]
        return fn, tuple(mod.constant(a) for a in arrays)
    import jax.numpy as jnp

    f = getattr(jnp, op)
    return (lambda *a: f(*a).block_until_ready()), tuple(jnp.asarray(a) for a in arrays)


def run(settings) -> str:
    rng = np.random.default_rng(0)
    frameworks = optional_frameworks()
    header = ["workload", "NumPy", "graphc", "overhead", "ratio", "target", "met?",
              *frameworks]
    rows = []
    for size in ("tiny", "large"):
        for op, nin, tiny_shape, large_shape in WORKLOADS:
            shape = tiny_shape if size == "tiny" else large_shape
            arrays = tuple(rng.standard_normal(shape) for _ in range(nin))
            tensors = tuple(gnp.asarray(a) for a in arrays)
            cases = {"NumPy": (getattr(np, op), arrays), "graphc": (getattr(gnp, op), tensors)}
            for label, mod in frameworks.items():
                cases[label] = _framework_case(label, mod, op, arrays)
            t = measure(cases, settings)
            overhead, ratio = t["graphc"] - t["NumPy"], t["graphc"] / t["NumPy"]
            if size == "tiny":
                target = f"overhead ≤ {fmt_time(TINY_OVERHEAD_NS)}"
                ok = overhead <= TINY_OVERHEAD_NS
            else:
                target = f"ratio ≤ {LARGE_RATIO:.2f}x"
                ok = ratio <= LARGE_RATIO
            rows.append([_label(op, shape), fmt_time(t["NumPy"]), fmt_time(t["graphc"]),
                         fmt_delta(overhead), fmt_ratio(ratio), target, yes_no(ok),
                         *(fmt_time(t[k]) for k in frameworks)])
    notes = (
        "graphc = gnp.<op>(gc.Tensor inputs); NumPy = np.<op>(ndarray inputs), same data",
        "overhead = graphc - NumPy per call; ratio = graphc / NumPy",
        "large matmul is 300x300 (not 1000x1000) to keep the run short",
    ) + (("TF / JAX: the same eager op (JAX waits with block_until_ready; float32 unless "
          "jax_enable_x64)",) if frameworks else ())
    return render_table("eager: graphc.numpy op overhead vs NumPy", header, rows, notes)

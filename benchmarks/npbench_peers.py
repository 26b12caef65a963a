"""NPBench's own Numba and JAX versions of a kernel: the peers table ``npbench`` times
graphc against.

Next to each ``<module>_numpy.py`` an NPBench checkout holds ``<module>_numba_n.py``
(``numba.jit(nopython=True, parallel=False, fastmath=True)``) and ``<module>_jax.py``
(mostly ``jax.jit``, x64 on). Each peer is loaded from that file as it is, run once on
fresh arguments (its compile), checked against NumPy's outputs, and then timed
interleaved with the compiled graphc kernel, so each ratio graphc/peer comes from one
run of the two side by side.

Arguments are made the way NPBench's frameworks make them: Numba gets NumPy copies like
the NumPy kernel; JAX gets ``jax.numpy.array`` copies and its calls end with
``jax.block_until_ready``. Each is checked against NumPy first (``_checked``).

A peer that is missing, fails to load or run, or disagrees with NumPy gets no time: its
row says why (``record["peers"][label]`` is then ``{"error": ...}``).
"""

from __future__ import annotations

import importlib.util
import statistics
from pathlib import Path
from time import perf_counter

import numpy as np

# label: file postfix after "<module>_", and the framework the file imports
PEERS = {"Numba": "numba_n", "JAX": "jax"}
FRAMEWORKS = {"Numba": "numba", "JAX": "jax"}


def installed() -> list[str]:
    """The peers whose framework imports here."""
    return [p for p in PEERS if importlib.util.find_spec(FRAMEWORKS[p]) is not None]


def peer_file(kernel, label: str) -> Path:
    return kernel.folder / f"{kernel.module}_{PEERS[label]}.py"


class Peer:
    """One loaded peer: ``call(args)`` runs it to completion; ``make_args(data)`` makes
    fresh arguments; ``outputs(result, args)`` lists what it produced as the harness's
    ``outputs`` does for NumPy."""

    def __init__(self, harness, kernel, label: str):
        self.harness, self.kernel, self.label = harness, kernel, label
        if label == "JAX":
            import jax
            import jax.numpy as jnp

            jax.config.update("jax_enable_x64", True)  # as NPBench's JAX framework does
            self._jax, self._copy = jax, jnp.array
        module = harness.load_module(peer_file(kernel, label),
                                     f"_npbench_{PEERS[label]}_{kernel.name}")
        self.fn = getattr(module, kernel.func)

    def make_args(self, data: dict) -> list:
        if self.label != "JAX":
            return self.harness.call_args(self.kernel, data)
        return [self._copy(data[a]) if a in self.kernel.array_args else data[a]
                for a in self.kernel.input_args]

    def call(self, args):
        out = self.fn(*args)
        return self._jax.block_until_ready(out) if self.label == "JAX" else out

    def outputs(self, result, args) -> list:
        """Labelled returned values and array arguments (the harness's ``outputs``); JAX's
        returned values alone (its arguments are immutable copies)."""
        outputs = self.harness.outputs(self.kernel, result, args)
        if self.label == "JAX":
            return [(label, v) for label, v in outputs if label.startswith("return")]
        return outputs


def _checked(harness, kernel, peer: Peer, data: dict, ref: list, entry: dict) -> float:
    """Run ``peer`` once (its compile) and check it; seconds of that first call.

    Numba: returned values paired by position (as NPBench's ``utilities.validate`` pairs
    them: some versions return less than NumPy's), every array argument by name. JAX: its
    kernels return new arrays in an order of their own (what NumPy returns or writes into
    its arguments), so each value JAX returns must equal one of NumPy's outputs (``ref``:
    returned values and every array argument after the call). ``entry["checked"]``:
    outputs compared."""
    args = peer.make_args(data)
    t0 = perf_counter()
    result = peer.call(args)
    first = perf_counter() - t0
    got = peer.outputs(result, args)

    def same(r, v):
        return harness.compare(r, np.asarray(v), kernel.rtol, kernel.atol, kernel.norm_error)

    if peer.label == "JAX":
        bad = [label for label, v in got if not any(same(r, v) for _, r in ref)]
        entry["checked"] = len(got)
    else:
        returns = [(label, r) for label, r in ref if label.startswith("return")]
        got_returns = [v for label, v in got if label.startswith("return")]
        arrays, got_by_name = ref[len(returns):], dict(got)
        pairs = list(zip(returns, got_returns)) + [((a, r), got_by_name[a]) for a, r in arrays]
        bad = [label for (label, r), v in pairs if not same(r, v)]
        entry["checked"] = len(pairs)
    if bad:
        raise ValueError(f"differs from NumPy in {', '.join(bad)}")
    return first


def time_against(harness, kernel, data: dict, graphc_fn, peer: Peer, reps: int,
                 budget_s: float) -> tuple[float, float]:
    """Median seconds per call of graphc and of ``peer``, interleaved (see
    ``harness.steady_times``)."""
    times = harness.interleaved_times(
        {"graphc": (graphc_fn, lambda: harness.call_args(kernel, data)),
         "peer": (peer.call, lambda: [peer.make_args(data)])}, reps, budget_s)
    return statistics.median(times["graphc"]), statistics.median(times["peer"])


def run_peers(harness, kernel, data: dict, ref: list, graphc_fn, record: dict, report,
              reps: int, budget_s: float, labels=tuple(PEERS)) -> None:
    """Fill ``record["peers"][label]`` for each peer: ``first_s`` (its first call, compile
    included), ``s`` (its steady time) and ``graphc_s`` (graphc's, measured beside it), or
    ``error``. ``report(record)`` after each peer, so a killed run keeps the ones done."""
    record.setdefault("peers", {})
    for label in labels:
        entry = record["peers"][label] = {"stage": "load"}
        report(record)
        try:
            if not peer_file(kernel, label).exists():
                raise FileNotFoundError(f"no {peer_file(kernel, label).name}")
            peer = Peer(harness, kernel, label)
            entry["stage"] = "first"
            report(record)
            entry["first_s"] = _checked(harness, kernel, peer, data, ref, entry)
            entry["stage"] = "timing"
            report(record)
            entry["graphc_s"], entry["s"] = time_against(
                harness, kernel, data, graphc_fn, peer, reps, budget_s)
            entry["stage"] = "done"
        except Exception as e:  # noqa: BLE001 - a peer's failure is a cell of the table
            entry.update(harness.error_record(e))
        report(record)


# --------------------------------------------------------------------------- the table's cells
def peer_header(labels) -> list[str]:
    return [*labels, *(f"graphc/{label}" for label in labels)]


def peer_cells(record: dict, labels, fmt_time, fmt_ratio) -> list[str]:
    """The peers' steady times (or why there is none) and graphc's ratio to each."""
    times, ratios = [], []
    for label in labels:
        entry = record.get("peers", {}).get(label)
        if entry is None:
            times.append("")
            ratios.append("")
        elif "s" in entry:
            times.append(fmt_time(entry["s"] * 1e9))
            ratios.append(fmt_ratio(entry["graphc_s"] / entry["s"]))
        else:
            times.append(entry.get("error", "?"))
            ratios.append("")
    return times + ratios


def peer_notes(records: list[dict], labels, geomean, fmt_ratio) -> list[str]:
    """Geometric means of graphc/peer, and the peers that failed and why."""
    notes = []
    for label in labels:
        entries = [(r["kernel"], r.get("peers", {}).get(label)) for r in records]
        timed = [e["graphc_s"] / e["s"] for _, e in entries if e and "s" in e and e["s"] > 0]
        if timed:
            notes.append(f"steady-state geometric mean graphc/{label} (NPBench's "
                         f"_{PEERS[label]} files) over {len(timed)} kernels: "
                         f"{fmt_ratio(geomean(timed))}")
        failed = [f"{name} ({e.get('error')}: {e.get('message', '')[:60]})"
                  for name, e in entries if e and "s" not in e]
        if failed:
            notes.append(f"{label} not timed: {'; '.join(failed)}")
        unchecked = [name for name, e in entries if e and "s" in e and not e.get("checked")]
        if unchecked:
            notes.append(f"{label} timed with nothing it returns or writes compared: "
                         f"{', '.join(unchecked)}")
    return notes

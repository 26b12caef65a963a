"""Write the golden saved directories of this graphc's format version.

    python tests/saved_model/make_golden.py            # from the repository root

writes ``tests/saved_model/golden/<major>.<minor>/<case>/`` for every case below.
``test_golden.py`` loads every directory under ``golden/`` (every version ever written)
and checks the results against NumPy. A version's directories are written once, when
that version is new, and never regenerated afterwards: they pin what that version wrote,
and every later graphc of the same major version must keep loading them
(docs/saved_model.md, version policy). The script refuses to overwrite an existing
version unless given ``--overwrite`` (for a format still being developed, before release).

Source locations in the graphs are made relative to the repository root (the files hold
no machine path); the manifest's digests are recomputed after that rewrite.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import pathlib
import shutil
import sys

import numpy as np

import graphc as gc
from graphc.saved_model import schema

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parents[1]


def control_flow(path):
    """``if`` on a sum, ``switch_case`` on an index, ``while`` and ``for`` on tensors."""
    @gc.function(input_signature=[gc.TensorSpec([None], gc.float32),
                                  gc.TensorSpec([], gc.int32)])
    def f(x, i):
        if gc.reduce_sum(x) > 0:
            y = x * 2.0
        else:
            y = -x
        y = gc.switch_case(i, [lambda: y + 1.0, lambda: y * y, lambda: y - 3.0])
        n = gc.constant(0)
        while n < 3:
            y = y + 0.5
            n += 1
        for k in gc.range(2):
            y = y * 0.5 + gc.cast(k, gc.float32)
        return y

    gc.saved_model.save(f, path)


class Counter:
    """Variables on an object: ``total`` accumulates, ``scale`` multiplies."""

    def __init__(self):
        self.total = gc.Variable(np.zeros(3, np.float32), name="total")
        self.scale = gc.Variable(2.0, name="scale", trainable=False)

    @gc.function(input_signature=[gc.TensorSpec([3], gc.float32)])
    def add(self, x):
        self.total.assign_add(x * self.scale)
        return self.total.read_value()


def variables(path):
    gc.saved_model.save(Counter(), path)


def two_signatures(path):
    """Two named signatures of two functions, one with a Python-valued argument."""
    @gc.function(input_signature=[gc.TensorSpec([2, 3], gc.float64)])
    def norms(m):
        return gc.sqrt(gc.reduce_sum(m * m, axis=1))

    @gc.function
    def power(x, k=3):
        return {"value": x ** k, "k": k}

    power(np.arange(4, dtype=np.int64))
    gc.saved_model.save(None, path, signatures={"norms": norms, "power": power})


def none_dims(path):
    """A ``[None, None]`` signature: every matrix shape is served after loading."""
    @gc.function(input_signature=[gc.TensorSpec([None, None], gc.float32)])
    def stats(m):
        return gc.reduce_mean(m, axis=0), gc.reduce_max(m), gc.transpose(m) * 2.0

    gc.saved_model.save(stats, path)


def loop_gradient(path):
    """A gradient through a tensor loop (the saving loop's stacks)."""
    @gc.function(input_signature=[gc.TensorSpec([None], gc.float64)])
    def grad(x):
        with gc.GradientTape() as tape:
            tape.watch(x)
            y = x
            total = gc.reduce_sum(x) * 0.0
            for _ in gc.range(3):
                y = gc.sqrt(y * y + 1.0)
                total = total + gc.reduce_sum(y)
        return tape.gradient(total, x)

    gc.saved_model.save(grad, path)


def tensor_array(path):
    """A TensorArray grown in a loop of a run-time trip count, stacked."""
    @gc.function(input_signature=[gc.TensorSpec([None], gc.float32),
                                  gc.TensorSpec([], gc.int32)])
    def powers(x, n):
        ta = gc.TensorArray(gc.float32, size=0, dynamic_size=True)
        y = x * 0.0 + 1.0
        for i in gc.range(n):
            ta = ta.write(i, y)
            y = y * x
        return ta.stack()

    gc.saved_model.save(powers, path)


CASES = {f.__name__: f for f in (control_flow, variables, two_signatures, none_dims,
                                 loop_gradient, tensor_array)}


def _relative_sources(path):
    doc = json.loads((path / "graph.json").read_text())
    prefix = str(ROOT) + "/"
    for g in doc["graphs"]:
        for node in g["nodes"]:
            if isinstance(node["src"], str) and node["src"].startswith(prefix):
                node["src"] = node["src"][len(prefix):]
    data = json.dumps(doc, indent=1, allow_nan=False).encode()
    (path / "graph.json").write_bytes(data)
    manifest = json.loads((path / "manifest.json").read_text())
    manifest["files"]["graph.json"] = {"sha256": hashlib.sha256(data).hexdigest(),
                                       "size": len(data)}
    (path / "manifest.json").write_text(json.dumps(manifest, indent=1))


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--overwrite", action="store_true",
                        help="replace this version's directories (unreleased formats only)")
    args = parser.parse_args(argv)
    out = HERE / "golden" / f"{schema.VERSION[0]}.{schema.VERSION[1]}"
    if out.exists():
        if not args.overwrite:
            print(f"{out.relative_to(ROOT)} exists: golden directories of a version are "
                  "never regenerated (--overwrite for an unreleased format)", file=sys.stderr)
            return 2
        shutil.rmtree(out)
    for name, make in CASES.items():
        make(out / name)
        _relative_sources(out / name)
        gc.saved_model.load(out / name)  # what was written loads
        print(f"wrote {(out / name).relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

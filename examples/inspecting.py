"""Inspecting a gc.function: its traces, the optimizer's report, pictures of its graphs and
one HTML page with all of it (docs/inspecting.md).

    python examples/inspecting.py [report.html]

(Named ``inspecting.py``, not ``inspect.py``: a script named like a standard-library
module would be imported in its place by everything the script imports.)
"""

import os
import sys
import tempfile

import numpy as np

import graphc as gc
import graphc.numpy as gnp


def clipped_norm(x):
    return np.minimum(np.linalg.norm(x), 10.0).astype(np.float32)


@gc.function
def smooth(x, steps):
    """A few smoothing steps; the scale comes from NumPy code run in Python."""
    if gc.reduce_sum(x) > 0:
        y = x * 2.0
    else:
        y = -x
    i = 0
    while i < steps:
        y = 0.5 * (y + gnp.concatenate([y[-1:], y[:-1]])) + 0.0 * 3.0
        i += 1
    scale = gc.numpy_function(clipped_norm, [y], gc.float32)
    gc.print("scale:", scale)
    return y / gc.reshape(scale, [])


def main():
    out_dir = tempfile.mkdtemp(prefix="graphc-report-")
    path = sys.argv[1] if len(sys.argv) > 1 else os.path.join(out_dir, "smooth.html")
    for n in (4, 4, 6):  # two traces: float32[4] and float32[6]
        smooth(np.linspace(-1.0, 2.0, n, dtype=np.float32), gc.constant(3))

    print(smooth.pretty_printed_concrete_signatures())
    print("traced", smooth.experimental_get_tracing_count(), "times:",
          smooth.retrace_reasons)

    concrete = smooth.get_concrete_function(np.ones(4, np.float32), gc.constant(3))
    svg_path = os.path.join(out_dir, "smooth_graph.svg")
    with open(svg_path, "w", encoding="utf-8") as f:
        f.write(concrete.graph.to_svg())  # Graphviz when installed, else graphc's layout
    print("picture of the traced graph:", svg_path)

    smooth.explain(np.ones(4, np.float32), gc.constant(3))  # the text form, printed
    html = smooth.explain(format="html", path=path)  # every trace, one page
    print(f"report ({len(html) // 1024} KiB):", path)

    gc.config.run_functions_eagerly(True)  # debugging: the Python function runs as written
    try:
        print("eager:", smooth(np.ones(4, np.float32), gc.constant(1)))
    finally:
        gc.config.run_functions_eagerly(False)


if __name__ == "__main__":
    main()

"""What the optimization passes do to a traced function, shown with ``explain``.

Run ``python examples/optimizations.py``. For each example it prints the traced graph,
the pass report (what was folded, simplified, merged, pruned and fused, with the
rule or reason) and the optimized graph that runs. In ``showcase`` every pass fires:

* constant folding: ``2.0 + 3.0``, the static ``x.shape[0] > 2`` and so the whole
  ``if`` (AutoGraph makes it a ``cond``, whose constant predicate inlines one branch);
* arithmetic simplification: ``x * 1``, ``-(-y)``, a transpose of a transpose;
* CSE: ``gc.exp(y)`` computed twice;
* pruning: an unused ``gather`` that would fail (non-strict execution), a loop variable
  nobody reads;
* fusion: the elementwise chain ``exp, *, +, sqrt`` becomes one node.

``benchmarks/bench_passes.py`` reports op counts before and after for ``EXAMPLES``.
"""

from __future__ import annotations

import numpy as np

import graphc as gc


def showcase(x):
    y = x * 1.0                                    # simplified: mul(x, 1) -> x
    scale = gc.constant(2.0) + gc.constant(3.0)    # folded to 5.0
    if gc.shape(x)[0] > 2:                         # static: the cond folds away
        y = -(-y)                                  # simplified: neg(neg(x)) -> x
    else:
        y = y - 1.0
    a = gc.exp(y) * scale
    b = gc.exp(y) * scale                          # merged with a (CSE)
    gc.gather(x, [7])                              # pruned: would fail, x has 4 elements
    m = gc.reshape(a + b, (2, 2))
    m = gc.transpose(gc.transpose(m))              # simplified: a transpose of a transpose
    total, unused, i = gc.zeros((2, 2)), gc.zeros((2, 2)), gc.constant(0)
    while i < 3:                                   # a tensor loop (AutoGraph)
        total = total + gc.sqrt(m)
        unused = unused + 1.0                      # a loop variable nobody reads: dropped
        i += 1
    return total


def unused_return_graph(x):
    gc.gather(x, [1])   # unused: pruned, so no error even when len(x) == 1
    return x


def layer_norm(x, gamma, beta):
    mean = gc.reduce_mean(x, axis=-1, keepdims=True)
    centered = x - mean
    var = gc.reduce_mean(centered * centered, axis=-1, keepdims=True)
    return centered / gc.sqrt(var + 1e-5) * gamma + beta   # one fused loop


def _f32(*shape):
    return gc.constant(np.arange(np.prod(shape), dtype=np.float32).reshape(shape) / 7)


# (name, function, example arguments)
EXAMPLES = [
    ("showcase", showcase, (_f32(4),)),
    ("unused_return_graph", unused_return_graph, (_f32(1),)),
    ("layer_norm", layer_norm, (_f32(8, 16), _f32(16), _f32(16))),
]


def main() -> None:
    for name, fn, args in EXAMPLES:
        gc.function(fn).explain(*args)
        print()
    # Non-strict execution: the unused gather is pruned, so it never runs and never raises.
    x = gc.constant([5.0])
    print(f"unused_return_graph({x.numpy()}) ->", gc.function(unused_return_graph)(x).numpy())


if __name__ == "__main__":
    main()

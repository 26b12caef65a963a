"""Data-dependent control flow: Python ``while``/``if`` on tensors become graph ops.

AutoGraph rewrites the loop and the branch below into ``gc.while_loop`` and ``gc.cond``
calls, so one traced graph serves every input: the trip count depends on the data.

Run: ``python examples/control_flow.py``
"""

import graphc as gc
import graphc.numpy as gnp
from graphc.autograph import to_code


@gc.function
def collatz_steps(n):
    """How many Collatz steps take ``n`` to 1 (a data-dependent trip count)."""
    steps = 0
    while n != 1:
        if n % 2 == 0:
            n = n // 2
        else:
            n = 3 * n + 1
        steps += 1
    return steps


@gc.function
def clipped_sqrt(a):
    """Newton's method on a whole vector, then a branch on a reduced value."""
    x = gnp.maximum(a, 1.0)
    while gnp.max(gnp.abs(x * x - a)) >= 1e-9:
        x = 0.5 * (x + a / x)
    if gnp.max(x) > 10.0:
        x = x / gnp.max(x) * 10.0
    return x


def main():
    for n in (6, 27, 837799):
        steps = collatz_steps(gnp.asarray(n))  # int64: 837799 climbs past 2**31
        print(f"collatz_steps({n}) = {int(steps.numpy())}")
    print("traces:", collatz_steps.tracing_count)  # one graph for every n

    print("\nclipped_sqrt([4, 9, 400]) =", clipped_sqrt(gnp.asarray([4.0, 9.0, 400.0])))

    print("\n--- the converted source (gc.autograph.to_code) ---")
    print(to_code(collatz_steps))
    print("\n--- the traced graph ---")
    print(collatz_steps.get_concrete_function(gnp.asarray(27)).graph)


if __name__ == "__main__":
    main()

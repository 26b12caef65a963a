"""gc.function calls and eager ops on the (simulated) GPU from several threads at once:
each thread's results equal NumPy's (the simulator runs one launch at a time)."""

from concurrent.futures import ThreadPoolExecutor

import numpy as np

import graphc as gc
import graphc.numpy as gnp


@gc.function
def row_norms(x):
    return gnp.sqrt(gnp.sum(x * x, axis=-1)) + 1.0


def _work(k):
    x = np.full((2, 3), float(k), np.float32)
    with gc.device("cuda:0"):
        out = row_norms(x)
        eager = gnp.exp(gc.constant(x)) - 1.0
    return x, out.device, out.numpy(), eager.numpy()


def test_threads_calling_on_the_gpu():
    with ThreadPoolExecutor(max_workers=4) as pool:
        results = list(pool.map(_work, range(4)))  # re-raises a thread's error here
    for x, device, out, eager in results:
        assert device == "cuda:0"
        np.testing.assert_allclose(out, np.sqrt((x * x).sum(-1)) + 1.0, rtol=1e-6)
        np.testing.assert_allclose(eager, np.exp(x) - 1.0, rtol=1e-6)

"""gc.function calls and eager ops on the (simulated) GPU from several threads at once:
each thread's results equal NumPy's (the simulator runs one launch at a time)."""

import threading

import numpy as np

import graphc as gc
import graphc.numpy as gnp


@gc.function
def row_norms(x):
    return gnp.sqrt(gnp.sum(x * x, axis=-1)) + 1.0


def test_threads_calling_on_the_gpu():
    results, errors = {}, []

    def work(k):
        try:
            x = np.full((2, 3), float(k), np.float32)
            with gc.device("cuda:0"):
                out = row_norms(x)
                eager = gnp.exp(gc.constant(x)) - 1.0
            results[k] = (out.device, out.numpy(), eager.numpy())
        except Exception as e:  # noqa: BLE001 - reported below
            errors.append(e)

    threads = [threading.Thread(target=work, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors
    for k, (device, out, eager) in results.items():
        x = np.full((2, 3), float(k), np.float32)
        assert device == "cuda:0"
        np.testing.assert_allclose(out, np.sqrt((x * x).sum(-1)) + 1.0, rtol=1e-6)
        np.testing.assert_allclose(eager, np.exp(x) - 1.0, rtol=1e-6)

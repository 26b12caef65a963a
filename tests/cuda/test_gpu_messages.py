"""What a user sees when a gc.function on the (simulated) GPU runs wholly on the host:
the warning names the op by its public name and the user's line, never graphc's IR."""

import warnings

import numpy as np

import graphc as gc
import graphc.numpy as gnp

COUNTER = gc.Variable(np.zeros(3, np.float32))


@gc.function
def accumulate(x):
    COUNTER.assign_add(x)  # the line the warning points at
    return gnp.sum(COUNTER * 2.0)


def test_a_graph_with_effects_warns_in_the_users_terms():
    x = np.array([1.0, 2.0, np.nan], np.float32)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with gc.device("cuda:0"):
            out = accumulate(x)
    assert out.device == "cuda:0"
    np.testing.assert_array_equal(out.numpy(), np.float32(np.nan))
    np.testing.assert_array_equal(COUNTER.numpy(), x)
    texts = [str(w.message) for w in caught if issubclass(w.category, gc.errors.FallbackWarning)]
    assert len(texts) == 1, texts
    (text,) = texts
    assert "%" not in text and "ref=" not in text, text
    assert "test_gpu_messages.py:16" in text, text
    assert "on the host" in text and "gc.device('cpu:0')" in text, text
    with gc.device("cuda:0"):
        explained = accumulate.explain(x)
    how = explained.split("traced graph ===")[0]  # how it runs comes first, then graphs
    assert "%" not in how.split("runs")[-1] and "test_gpu_messages.py:16" in how


@gc.function
def doubled_rows(x):
    arr = gc.TensorArray(gc.float32, size=0, dynamic_size=True)
    for i in gc.range(gc.shape(x)[0]):
        arr = arr.write(i, x[i] * 2.0)
    return arr.stack()


def test_a_data_dependent_shape_gets_shape_advice():
    x = np.arange(3, dtype=np.float32)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with gc.device("cuda:0"):
            out = doubled_rows(x)
    np.testing.assert_array_equal(out.numpy(), x * 2)
    (text,) = [str(w.message) for w in caught
               if issubclass(w.category, gc.errors.FallbackWarning)]
    assert "test_gpu_messages.py:44" in text and "known shapes" in text, text
    assert "variable updates" not in text and "%" not in text, text


def test_numba_cudas_grid_size_warning_is_off_unless_asked_for(monkeypatch):
    """graphc sizes grids from its arrays: numba-cuda's "Grid size 1 will likely result in
    GPU under-utilization" on a small array is no mistake of the user's (and points into
    numba-cuda), so loading numba.cuda turns it off; the user's own variable wins."""
    from numba.cuda.core import config

    from graphc.runtime.cuda import target

    target.cuda()
    assert config.CUDA_LOW_OCCUPANCY_WARNINGS == 0
    monkeypatch.setattr(config, "CUDA_LOW_OCCUPANCY_WARNINGS", 1)
    monkeypatch.setenv("NUMBA_CUDA_LOW_OCCUPANCY_WARNINGS", "1")
    target._quiet_occupancy_warnings()
    assert config.CUDA_LOW_OCCUPANCY_WARNINGS == 1
    monkeypatch.delenv("NUMBA_CUDA_LOW_OCCUPANCY_WARNINGS")
    target._quiet_occupancy_warnings()
    assert config.CUDA_LOW_OCCUPANCY_WARNINGS == 0
    # numba-cuda's compiler re-reads its config when a NUMBA_* variable changed (the
    # warning is back on): graphc's next use of numba.cuda turns it off again
    config.CUDA_LOW_OCCUPANCY_WARNINGS = 1
    target.cuda()
    assert config.CUDA_LOW_OCCUPANCY_WARNINGS == 0

"""On a 2-worker dask.distributed LocalCluster (worker processes, and threads in this
process): results equal the NumPy run, each worker builds each graph once, and the task
graph holds nothing but data and graph JSON."""

import io
import pickle

import dask.array as da
import numpy as np
import pytest
from distributed import Client, LocalCluster

import graphc as gc
from graphc.dask import programs

RNG = np.random.default_rng(1)
X = RNG.standard_normal((64, 12)).astype(np.float32)
W = RNG.standard_normal(12).astype(np.float32)


@gc.function
def score(x, w):
    y = gc.maximum(x * w + 0.5, 0.0)
    for _ in gc.range(3):  # a per-block tensor loop
        y = y * 0.5 + 1.0
    return y


@gc.function
def stats_(x):
    return (gc.reduce_sum(x), gc.reduce_mean(x * x, axis=0), gc.reduce_min(x, axis=1),
            gc.numpy.std(x, axis=0))


@pytest.fixture(scope="module", params=["processes", "threads"])
def client(request):
    cluster = LocalCluster(n_workers=2, threads_per_worker=1,
                           processes=request.param == "processes",
                           dashboard_address=None, silence_logs=40)
    with cluster, Client(cluster) as c:
        c.processes = request.param == "processes"
        yield c


def test_elementwise_broadcast_loop_equals_numpy(client):
    y = score(da.from_array(X, chunks=(16, 12)), W)
    np.testing.assert_allclose(client.compute(y).result(), score(X, W).numpy(), rtol=1e-6)


def test_reductions_all_axes_and_one_axis_equal_numpy(client):
    outs = stats_(da.from_array(X, chunks=(8, 6)))
    got = client.compute(list(outs), sync=True)
    for g, w in zip(got, stats_(X)):
        np.testing.assert_allclose(g, w.numpy(), rtol=1e-5)


def test_each_worker_builds_each_graph_once(client):
    y = score(da.from_array(X, chunks=(4, 12)), W)  # 16 blocks
    for _ in range(2):
        client.compute(y, sync=True)
    per_worker = client.run(programs.stats)
    assert len(per_worker) == 2
    ran = [s for s in per_worker.values() if s]
    assert ran and all(set(s.values()) == {1} for s in ran)
    if client.processes:  # worker processes compile their block programs
        backends = client.run(programs.backends)
        assert any("numba" in b.values() for b in backends.values())


class _Recorder(pickle.Pickler):
    """Pickles like the standard pickler (no closures, no lambdas) and records every
    graphc object and every function it references."""

    def __init__(self, f):
        super().__init__(f, protocol=5)
        self.graphc, self.functions = [], set()

    def reducer_override(self, obj):
        if type(obj).__module__.startswith("graphc"):
            self.graphc.append(obj)
        if callable(obj) and hasattr(obj, "__qualname__") and hasattr(obj, "__module__"):
            self.functions.add(f"{obj.__module__}.{obj.__qualname__}")
        return NotImplemented


def test_task_graph_holds_only_data_and_graph_json():
    y = stats_(da.from_array(X, chunks=(8, 6)))[1] + score(da.from_array(X, chunks=(8, 6)), W)
    tasks = dict(y.__dask_graph__())
    rec = _Recorder(io.BytesIO())
    rec.dump(tasks)  # the standard pickler: a closure or lambda would fail here
    assert rec.graphc and all(type(o) is programs.GraphProgram for o in rec.graphc)
    for program in rec.graphc:
        make, (text, arrays, compiled, single) = program.__reduce__()
        assert make is programs._from_wire
        assert isinstance(text, str) and text.startswith('{"format":"graphc.dask.graph"')
        assert all(type(a) is np.ndarray for a in arrays.values())
    graphc_functions = {f for f in rec.functions if f.startswith("graphc")}
    assert graphc_functions <= {"graphc.dask.programs._from_wire",
                                "graphc.dask.stages._identity"}
    restored = pickle.loads(pickle.dumps(tasks))
    assert len(restored) == len(tasks)


def test_tampered_graph_json_is_refused():
    program = programs.GraphProgram(score.get_concrete_function(X, W).optimized_graph)
    make, (text, arrays, compiled, single) = program.__reduce__()
    bad = make(text.replace('"op":"maximum"', '"op":"os.system"'), arrays, compiled, single)
    with pytest.raises(gc.errors.SavedModelError, match="not a registered graphc op"):
        bad(X, W)

"""Round trips in a fresh process without the source (``roundtrip.py``), batched: every
example script's graphs (the first call of each), the corpus graphs, random AutoGraph
programs of the generated-programs test and the every-pass pipeline graph are saved,
then loaded and called in one subprocess that imports only NumPy and graphc."""

import pathlib
import sys

import numpy as np
import pytest
from corpus import CALLBACKS, CORPUS, traced
from hypothesis import HealthCheck, given, settings
from roundtrip import Recorder, check_in_fresh_process, record_scripts_in_subprocess

import graphc as gc

TESTS = pathlib.Path(__file__).resolve().parents[1]
# Not run here: dask_scale_out needs Dask workers (issue 19's tests ship its graphs);
# compiled_runtime's jit_compile=True forces a 4 s Numba compile, and its graph (a loop of
# gradient steps) is the kind training.py's train_step already covers.
SKIP = {"dask_scale_out", "compiled_runtime"}
EXAMPLES = sorted(p for p in (TESTS.parent / "examples").glob("*.py") if p.stem not in SKIP)
N_PROGRAMS = 8

sys.path[:0] = [str(TESTS / "autograph"), str(TESTS / "passes")]
from program_gen import programs  # noqa: E402
from test_generated_programs import ARGUMENTS, load  # noqa: E402
from test_pipeline import every_pass  # noqa: E402


def _program_sources(n):
    sources = []

    @settings(max_examples=n, derandomize=True, database=None, deadline=None,
              suppress_health_check=list(HealthCheck))
    @given(programs())
    def collect(source):
        sources.append(source)

    collect()
    return list(dict.fromkeys(sources))  # first occurrence of each, in order


def _small(prog) -> bool:
    return all(abs(v) < 2 ** 40 for args in ARGUMENTS for v in prog(*args))


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    root = tmp_path_factory.mktemp("roundtrips")
    rec = Recorder(root)
    for name in sorted(set(CORPUS) - CALLBACKS):
        fn, args = traced(name)
        rec.case(f"corpus_{name}", fn, [args, args])  # twice: variables carry state
    rec.case("every_pass", gc.function(every_pass), [(np.arange(4, dtype=np.float32),)])
    progs = [p for p in map(load, _program_sources(N_PROGRAMS)) if _small(p)]
    for k, prog in enumerate(progs):
        calls = [tuple(np.array(v, np.int64) for v in args) for args in ARGUMENTS]
        rec.case(f"program_{k}", gc.function(prog), calls)
    examples = record_scripts_in_subprocess(root, EXAMPLES)
    names = rec.names + examples["names"]
    return {"programs": len(progs), "examples": examples, "names": names,
            "check": check_in_fresh_process(root, names)}


def test_every_saved_graph_computes_the_same_in_a_fresh_process(report):
    assert report["check"]["checked"] == len(report["names"])
    assert report["check"]["failures"] == []
    assert report["programs"] >= N_PROGRAMS // 2


def test_every_example_graph_round_trips_or_holds_a_python_callback(report):
    recorded = {n.rsplit("_", 1)[0] for n in report["examples"]["names"]}
    refused = report["examples"]["skipped"]
    # every example with a gc.function is covered; the only refusals are callbacks
    holders = {p.stem for p in EXAMPLES if "gc.function" in p.read_text()}
    assert holders <= recorded | {n.rsplit("_", 1)[0] for n in refused}
    assert len(report["examples"]["names"]) >= 14
    for name, why in refused.items():
        assert "calls back into Python, which a saved graph cannot hold" in why, (name, why)

"""graphc benchmarks: plain-text tables of graphc next to NumPy, measured in one run.

``python -m benchmarks [TABLE ...] [--quick]``; see ``benchmarks/README.md``. Each table
module has ``run(settings) -> str``; ``TABLES`` maps table names to those modules.
"""

TABLES = {
    "eager": "benchmarks.bench_eager",
    "function": "benchmarks.bench_function",
    "passes": "benchmarks.bench_passes",
    "control": "benchmarks.bench_control",
    "autodiff": "benchmarks.bench_autodiff",
    "numba": "benchmarks.bench_numba",
    "latency": "benchmarks.bench_latency",
    "warmup": "benchmarks.bench_warmup",
    "load": "benchmarks.bench_load",
    "vectorize": "benchmarks.bench_vectorize",
    "dask": "benchmarks.bench_dask",
    "cuda": "benchmarks.cuda_table",
    "npbench": "benchmarks.bench_npbench",
    "tensor_array": "benchmarks.bench_tensor_array",
    "programs": "benchmarks.bench_programs",
    "first_tier": "benchmarks.bench_first_tier",
    "call_once": "benchmarks.bench_call_once",
}

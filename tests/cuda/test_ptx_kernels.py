"""Every kernel the CUDA tests generate, compiled to PTX for compute capability 9.0.

The simulator interprets kernels as Python; this compiles the real code path (typing,
lowering, NVVM) with ``numba.cuda.compile_ptx`` and NVIDIA's NVVM from its pip package,
no GPU needed. It runs in a child process without ``NUMBA_ENABLE_CUDASIM`` (the
simulator replaces numba.cuda for the whole process). The graphs are the registry
walk's (test_backend_registry.graphs) and the other backend tests' (their ``graphs()``).
"""

from __future__ import annotations

import os
import pathlib
import subprocess
import sys

HERE = pathlib.Path(__file__).resolve().parent

CHILD = r"""
import importlib, sys
sys.path.insert(0, {here!r})
from graphc.runtime.cuda import codegen, ptx
seen, count = set(), 0  # identical kernels compile once
at = 0  # this child compiles kernels number part, part + parts, ... of all graphs
for mod in {modules!r}:
    for graph, *_ in importlib.import_module(mod).graphs():
        program = codegen.generate(graph)
        assert program.whole_host is None and not program.host_nodes, program.reasons
        assert program.kernels, graph.name
        mine = {{n for i, (n, _s) in enumerate(program.kernels) if (at + i) % {parts} == {part}}}
        at += len(program.kernels)
        out = ptx.compile_kernels(program, cc=(9, 0), seen=seen, only=mine)
        for name, text in out.items():
            assert ".target sm_90" in text and ".entry" in text, (graph.name, name)
            # a call NVVM left unresolved (an LLVM intrinsic it cannot lower, such as
            # llvm.ldexp) makes the GPU's PTX assembler reject the whole module
            externs = [ln for ln in text.splitlines() if ln.startswith(".extern .func")]
            assert not externs, (graph.name, name, externs)
        count += len(out)
print("compiled", count, "kernels")
"""

MODULES = ["test_backend_registry", "test_backend_executor", "test_backend_reduce",
           "test_backend_control"]


# Two child processes, each compiling every other graph's kernels (numba's typing and
# lowering, ~0.2-0.4 s a kernel, is most of this test's time; CI has two cores).
PARTS = 2


def test_every_generated_kernel_compiles_to_ptx():
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_ENABLE_CUDASIM"}
    env["PYTHONPATH"] = os.pathsep.join(
        [str(HERE.parents[1]), str(HERE.parent / "ops")] + sys.path[:0]
        + ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else []))
    procs = [subprocess.Popen(
        [sys.executable, "-c", CHILD.format(here=str(HERE), modules=MODULES, part=part,
                                            parts=PARTS)],
        env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        for part in range(PARTS)]
    for proc in procs:
        out, err = proc.communicate(timeout=600)
        assert proc.returncode == 0, out[-3000:] + err[-6000:]
        assert "compiled" in out

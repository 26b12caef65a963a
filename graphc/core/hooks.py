"""Hooks: the few places where the core and the ops call a layer above them.

graphc is layered (docs/architecture.md): a module imports only its own layer and the
ones below it. A lower layer that must reach up (``bind`` notifying a recording
``GradientTape``, a control-flow op's gradient rule running the gradient walk over its
branches, an eager op asking the CUDA backend to run it) calls a slot declared here.
The face (``graphc/__init__.py``, the composition root) fills every slot once, when
``graphc`` is imported; nothing else assigns them. A slot is read when it is called,
never copied at import, and the hot paths guard each call with one truth test of a plain
list (``tapes``), so an eager op that no tape watches pays nothing more.

Slots hold ``None`` until the face fills them: code below the face that runs before
``import graphc`` has finished never calls one.
"""

from __future__ import annotations

# ------------------------------------------------------------------ gradient tapes
# transforms/tape.py: the GradientTapes recording now, in any thread. Its own list, kept
# here so ``bind`` can test it without importing the transforms layer.
tapes: list = []
#: ``record_bind(bind_now, op, args, attrs)``: run ``bind_now(op, args, attrs)`` and record
#: it on the calling thread's tapes (transforms/tape.py)
record_bind = None
#: ``record_node(op, inputs, outputs, attrs)``: record a node traced by hand
record_node = None
#: ``on_variable_read(variable, tensor)``: a tape may watch the variable just read
on_variable_read = None
#: ``GradientTape``: the tape class, for rules that differentiate a body of their own
#: (fused groups, ``py_function``)
gradient_tape = None
#: ``unrecorded()``: a context in which the calling thread's tapes record nothing
unrecorded = None
#: ``rename_on_tapes(before, after, allowed=None)``: the calling thread's tapes name
#: ``after`` where they named ``before`` (an in-place write under a tape: ops/inplace.py)
rename_on_tapes = None
#: ``view_family_on_tapes(t)``: ``(root, path, views)``: what the tapes of this thread
#: recorded about the eager ``t`` as a view, and the views of its root
view_family_on_tapes = None

# ------------------------------------------------------------------ graph transforms
#: the reverse-mode walk over a graph (transforms/graph_vjp.py: ``vjp``, ``inline``,
#: ``placeholders``, ``wants``, ``variables_read``), for the control-flow ops' rules
graph_vjp = None
#: ``batch_graph(graph, args, dims, size=None) -> [(value, dim)]``: the batching walk
#: (transforms/batching.py), for the control-flow ops' batching rules
batch_graph = None

# ------------------------------------------------------------------ backends
#: ``cuda_backend()``: the CUDA backend module (graphc.runtime.cuda), imported on first use
cuda_backend = None
#: ``loop_handover(cond, body) -> finish or None``: a long ``while_loop`` on the
#: interpreter asks for its compiled program; ``finish(state) -> results or None`` runs
#: the rest of the loop compiled once ready (runtime/cpu/loop_handover.py)
loop_handover = None

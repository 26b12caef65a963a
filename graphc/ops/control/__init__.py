"""Functional control flow: the ``cond``/``switch_case``/``while_loop`` ops (``flow``),
tracing their subgraphs (``trace``, ``loop``, ``branch_outputs``, ``values``,
``staged_lists``) and their gradient and batching rules (``grad``, ``batch``), which
attach themselves to the ops."""

"""The compiled runtime (layer "compile"): the backends and what they share.

Shared by both backends, here: the per-op scalar templates (``scalar_templates``), the
vectorized math and the Numba helpers compiled code calls (``vmath*``,
``numba_helpers*``), a fused group flattened into loop steps (``fused_groups``) and the
reporting of nodes that do not run compiled (``fallback``). ``cpu/`` is the Numba CPU
backend, ``cuda/`` the numba.cuda one; each owns its lowering table, and neither imports
the other.
"""

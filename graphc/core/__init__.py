"""Layer 3, the core: ``Tensor``, the trace-context stack, ``OpDef``/``register``/``bind``,
attr kinds, shape arithmetic, the reference interpreter, device names and scopes, and the
hooks (``hooks``) through which it calls the layers above it."""

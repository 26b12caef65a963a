"""``gc.TensorArray`` (``array``) and the ops behind it (``ops``)."""

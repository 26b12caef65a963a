"""``gc.TensorArray`` (``array``), the ops behind it (``ops``) and their gradient rules
(``grad``)."""

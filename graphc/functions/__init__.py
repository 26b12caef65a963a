"""Layer 8: ``gc.function`` (``function``), its traces (``concrete``), trace keys and
``TensorSpec`` (``signature``), the trace cache, replay, ``explain`` and the HTML report,
and device placement of calls and eager work (``placement``)."""

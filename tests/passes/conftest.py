"""Every pass test runs with the verifier on after each pass (GRAPHC_CHECK=1)."""

import pytest


@pytest.fixture(autouse=True)
def _check_passes(monkeypatch):
    monkeypatch.setenv("GRAPHC_CHECK", "1")

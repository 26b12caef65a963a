"""Graphviz's ``dot``, when it is installed: found on ``PATH`` at each call, run on
``graph.to_dot()`` and its SVG trimmed to the ``<svg>`` element so it can sit inside an
HTML page (no XML declaration, doctype or comments)."""

from __future__ import annotations

import re
import shutil
import subprocess

TIMEOUT = 60.0  # seconds dot may take before graphc draws the picture itself
_COMMENT = re.compile(r"<!--.*?-->", re.S)


class GraphvizError(RuntimeError):
    """``dot`` is missing, failed, or took too long."""


def dot_executable() -> str | None:
    """The path of Graphviz's ``dot`` on ``PATH``, or None."""
    return shutil.which("dot")


def dot_to_svg(dot_text: str, timeout: float = TIMEOUT) -> str:
    """Run ``dot -Tsvg`` on ``dot_text``; the ``<svg>...</svg>`` element it draws."""
    exe = dot_executable()
    if exe is None:
        raise GraphvizError(
            "Graphviz's 'dot' was not found on PATH: install Graphviz (e.g. the graphviz "
            "package of your system) or call to_svg(engine='builtin'), which needs nothing")
    try:
        proc = subprocess.run([exe, "-Tsvg"], input=dot_text.encode("utf-8"),
                              capture_output=True, timeout=timeout, check=False)
    except (OSError, subprocess.TimeoutExpired) as e:
        raise GraphvizError(f"running {exe} failed: {e}") from None
    text = proc.stdout.decode("utf-8", "replace")
    start, end = text.find("<svg"), text.rfind("</svg>")
    if proc.returncode != 0 or start < 0 or end < 0:
        err = proc.stderr.decode("utf-8", "replace").strip()[:500]
        raise GraphvizError(f"{exe} -Tsvg exited with status {proc.returncode} and no "
                            f"picture: {err or '(no message)'}")
    return _COMMENT.sub("", text[start:end + len("</svg>")])

"""Coverage of the frozen API target lists (``../shared/api_targets/``, SPEC section 13).

Each list's first line names the graphc namespace(s) that should hold its names; a name
counts when one of them has it (a dotted name such as ``random.rand`` is looked up
attribute by attribute; the ``Generator`` list's methods are looked up on
``graphc.numpy.random.Generator`` too, whose instances ``default_rng()`` returns).

``python -m benchmarks.api_coverage [--targets DIR]`` prints the table that
``docs/api_coverage.md`` holds; ``tests/test_api_coverage.py`` checks that the page's table
is this one and that every missing name is listed there as deliberately absent, so the
page cannot go stale.
"""

from __future__ import annotations

import argparse
import importlib
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TARGETS = ROOT.parent / "shared" / "api_targets"


def _resolve(path: str):
    parts = path.split(".")
    obj = importlib.import_module(parts[0])
    for p in parts[1:]:
        obj = getattr(obj, p)
    return obj


def _has(obj, dotted: str) -> bool:
    for part in dotted.split("."):
        if not hasattr(obj, part):
            return False
        obj = getattr(obj, part)
    return True


def coverage(targets: Path = TARGETS) -> list[tuple[str, int, int, list[str]]]:
    """``(list, names held, names listed, missing names)`` per target list."""
    rows = []
    for f in sorted(Path(targets).glob("*.txt")):
        lines = f.read_text().splitlines()
        names = [ln.strip() for ln in lines[1:] if ln.strip() and not ln.startswith("#")]
        spaces = []
        for name in re.findall(r"'([\w.]+)'", lines[0]):
            try:
                obj = _resolve(name)
            except (ImportError, AttributeError):
                continue
            spaces.append(obj)
            if "Generator" in f.name and hasattr(obj, "Generator"):
                spaces.append(obj.Generator)
        missing = [n for n in names if not any(_has(s, n) for s in spaces)]
        rows.append((f.stem, len(names) - len(missing), len(names), missing))
    return rows


def table(rows) -> str:
    """The markdown table of ``coverage()``'s rows."""
    out = ["| list | held | listed | coverage | missing |", "|---|---|---|---|---|"]
    for name, have, total, missing in rows:
        gone = ", ".join(f"`{m}`" for m in missing) or "none"
        out.append(f"| {name} | {have} | {total} | {100 * have / total:.1f}% | {gone} |")
    return "\n".join(out)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--targets", type=Path, default=TARGETS,
                        help="the api_targets directory (default: ../shared/api_targets)")
    print(table(coverage(parser.parse_args(argv).targets)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

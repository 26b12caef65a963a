"""The API target lists (``../shared/api_targets/``, SPEC section 13): docs/api_coverage.md
shows the coverage ``python -m benchmarks.api_coverage`` computes, and names every name
graphc lacks as deliberately absent, so the page cannot go stale."""

from pathlib import Path

from benchmarks import api_coverage

PAGE = Path(__file__).resolve().parents[1] / "docs" / "api_coverage.md"
START, END = "<!-- coverage table: python -m benchmarks.api_coverage -->", "<!-- end -->"


def _section(text: str, start: str, end: str) -> str:
    assert start in text and end in text, f"docs/api_coverage.md lacks {start!r}"
    return text.split(start, 1)[1].split(end, 1)[0]


def test_the_target_lists_are_there():
    assert api_coverage.TARGETS.is_dir(), (
        f"{api_coverage.TARGETS} is missing: the suite runs with ../shared beside the clone")
    assert len(api_coverage.coverage()) >= 18


def test_the_coverage_page_shows_the_current_table():
    shown = _section(PAGE.read_text(), START, END).strip()
    assert shown == api_coverage.table(api_coverage.coverage()), (
        "docs/api_coverage.md is stale: paste the output of python -m benchmarks.api_coverage")


def test_every_missing_name_is_listed_as_deliberately_absent():
    absent = _section(PAGE.read_text(), "## Deliberately absent", "## ")
    unexplained = [f"{name}: {m}" for name, _have, _total, missing in api_coverage.coverage()
                   for m in missing if f"`{m}`" not in absent]
    assert unexplained == []

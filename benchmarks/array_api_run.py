"""Run the official Array API test suite (data-apis/array-api-tests) against graphc.numpy
and print the pass rate per test file.

The suite is a git repository, not a package: check it out with its ``array-api``
submodule (the standard's signature stubs), and install its requirements (pytest,
hypothesis, ndindex; pytest-json-report is optional)::

    git clone https://github.com/data-apis/array-api-tests /tmp/array-api-tests
    git -C /tmp/array-api-tests submodule update --init
    pip install hypothesis ndindex
    python benchmarks/array_api_run.py --path /tmp/array-api-tests

Each test file runs in its own ``pytest`` process (a hang costs one file, not the run)
as the suite's README says: ``ARRAY_API_TESTS_MODULE=graphc.numpy pytest
array_api_tests/<file> --max-examples=N --disable-deadline``, from the checkout's root
(its ``conftest.py`` defines those options). The standard's version is graphc.numpy's
``__array_api_version__`` unless ``--api-version`` is given. The rate counts passed
tests over tests run (skipped ones are left out), from each file's JUnit XML.
"""

from __future__ import annotations

import argparse
import os
import pathlib
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ElementTree

ROOT = pathlib.Path(__file__).resolve().parents[1]


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--path", required=True, help="checkout of data-apis/array-api-tests")
    p.add_argument("--max-examples", type=int, default=20, help="Hypothesis examples/test")
    p.add_argument("--api-version", default=None, help="ARRAY_API_TESTS_VERSION, e.g. 2024.12")
    p.add_argument("--timeout", type=int, default=1200, help="seconds per test file")
    p.add_argument("--files", nargs="*", default=None,
                   help="test files to run (names like test_linalg); default: all")
    p.add_argument("--show-failures", action="store_true", help="list failing test ids")
    return p.parse_args(argv)


def counts(xml_path: pathlib.Path):
    """(tests, failures + errors, skipped, failing ids) from a JUnit XML file."""
    root = ElementTree.parse(xml_path).getroot()
    tests = failed = skipped = 0
    names = []
    for case in root.iter("testcase"):
        tests += 1
        tags = {child.tag for child in case}
        if "skipped" in tags:
            skipped += 1
        elif tags & {"failure", "error"}:
            failed += 1
            names.append(f"{case.get('classname')}::{case.get('name')}")
    return tests, failed, skipped, names


def run_file(checkout: pathlib.Path, test_file: pathlib.Path, args, env, tmp: pathlib.Path):
    xml = tmp / f"{test_file.stem}.xml"
    cmd = [sys.executable, "-m", "pytest", str(test_file.relative_to(checkout)), "-q",
           "-p", "no:cacheprovider", f"--max-examples={args.max_examples}",
           "--disable-deadline", f"--junitxml={xml}"]
    try:
        subprocess.run(cmd, cwd=checkout, env=env, timeout=args.timeout,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    except subprocess.TimeoutExpired:
        return None
    if not xml.exists():
        return None
    return counts(xml)


def main(argv=None) -> int:
    args = parse_args(argv)
    checkout = pathlib.Path(args.path).resolve()
    suite = checkout / "array_api_tests"
    if not suite.is_dir():
        print(f"no array_api_tests/ in {checkout}: give a checkout of data-apis/array-api-tests")
        return 2
    if not any((checkout / "array-api").glob("*")):
        print("the array-api submodule is empty: run `git submodule update --init` there")
        return 2
    env = dict(os.environ, ARRAY_API_TESTS_MODULE="graphc.numpy")
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    if args.api_version:
        env["ARRAY_API_TESTS_VERSION"] = args.api_version
    files = sorted(suite.glob("test_*.py"))
    if args.files:
        wanted = {f.removesuffix(".py") for f in args.files}
        files = [f for f in files if f.stem in wanted]
    total_run = total_passed = 0
    print(f"{'file':40s} {'tests':>6s} {'passed':>7s} {'failed':>7s} {'skipped':>8s} {'rate':>7s}")
    with tempfile.TemporaryDirectory() as tmp:
        for test_file in files:
            got = run_file(checkout, test_file, args, env, pathlib.Path(tmp))
            if got is None:
                print(f"{test_file.stem:40s} timed out or crashed (--timeout {args.timeout})")
                continue
            tests, failed, skipped, names = got
            ran = tests - skipped
            passed = ran - failed
            total_run += ran
            total_passed += passed
            rate = f"{100 * passed / ran:6.1f}%" if ran else "    -"
            print(f"{test_file.stem:40s} {tests:6d} {passed:7d} {failed:7d} {skipped:8d} "
                  f"{rate:>7s}")
            if args.show_failures:
                for name in names:
                    print(f"    FAILED {name}")
    if total_run:
        print(f"{'total':40s} {'':6s} {total_passed:7d} {total_run - total_passed:7d} "
              f"{'':8s} {100 * total_passed / total_run:6.1f}%")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

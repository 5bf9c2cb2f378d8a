"""make test's shape holds: tests given one group in `pytest_collection_modifyitems` (as
tests/conftest.py gives the flow chains and the modules that share a fixture) run on one
pytest-xdist worker, one after another. On pytest 9.2 with pytest-xdist 3.8 the groups
were silently dropped (pytest-xdist issue #1386): every flow test could run at once, and
a module's shared fixture was built on every worker that got one of its tests."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.database_independent

CONFTEST = """
import pytest

@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config, items):
    for item in items:
        if "together" in item.name:
            item.add_marker(pytest.mark.xdist_group("together"))
"""

TESTS = """
import os

def record(name):
    with open(os.environ["WORKERS_SEEN"], "a") as seen:
        seen.write(f"{name} {os.environ['PYTEST_XDIST_WORKER']}\\n")

def test_together_{n}_a():
    record("a")

def test_together_{n}_b():
    record("b")

def test_alone_{n}():
    pass
"""


def test_a_group_given_at_collection_runs_on_one_worker(tmp_path: Path):
    # Given two modules whose grouped tests the conftest puts in one group
    (tmp_path / "conftest.py").write_text(CONFTEST)
    for n in range(2):
        (tmp_path / f"test_part_{n}.py").write_text(TESTS.replace("{n}", str(n)))
    seen = tmp_path / "seen.txt"
    # When they run as make test runs them, on several workers
    options = ["-q", "-p", "xdist", "-p", "no:cacheprovider", "-n", "3", "--dist", "loadgroup"]
    done = subprocess.run(
        [sys.executable, "-m", "pytest", *options, "--rootdir", str(tmp_path), str(tmp_path)],
        cwd=tmp_path,
        # xdist alone: the other plugins installed (schemathesis, hypothesis...) take
        # seconds to import in each of the four processes and have no part in this.
        env={**os.environ, "WORKERS_SEEN": str(seen), "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    # Then the four grouped tests ran on one worker
    workers = {line.split()[1] for line in seen.read_text().splitlines()}
    assert len(seen.read_text().splitlines()) == 4
    assert len(workers) == 1, workers

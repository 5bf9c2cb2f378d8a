"""The README's map of the tree is the tree: every folder it names exists where it says,
and every package a newcomer would open (the top-level ones and their sub-packages) is
on it."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

pytestmark = pytest.mark.database_independent

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("web", "models", "tasks", "workers", "scheduler")


def mapped_folders() -> set[str]:
    """The folders of the map block: a name at the start of a line (after its indent),
    nested under the last folder one indent level up; `a/ ...; b/` names on a line
    are folders beside the line's own."""
    text = (ROOT / "README.md").read_text()
    block = text.split("## A map of the tree", 1)[1].split("```", 2)[1]
    folders: set[str] = set()
    parents: dict[int, str] = {}
    for line in block.splitlines():
        found = re.match(r"( *)([\w.-]+)/ ", line + " ")
        if not found:
            continue
        depth = len(found.group(1)) // 2
        parent = parents.get(depth - 1, "") if depth else ""
        folder = f"{parent}/{found.group(2)}" if parent else found.group(2)
        parents[depth] = folder
        folders.add(folder)
        for beside in re.findall(r"; ([\w-]+)/ ", line):
            folders.add(f"{parent}/{beside}" if parent else beside)
    return folders


def test_every_folder_on_the_map_exists():
    missing = sorted(folder for folder in mapped_folders() if not (ROOT / folder).is_dir())
    assert missing == []


def test_every_package_and_sub_package_is_on_the_map():
    packages = set(PACKAGES)
    for package in PACKAGES:
        for init in (ROOT / package).glob("*/__init__.py"):
            packages.add(init.parent.relative_to(ROOT).as_posix())
    assert sorted(packages - mapped_folders()) == []

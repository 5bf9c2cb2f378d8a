"""A read-only mapped file's pages handed back (mapped_pages.py): the process stops
counting them in its resident memory, reads the same bytes after, and never hands back
a mapping it may have written to."""

from __future__ import annotations

import mmap
import sys
from pathlib import Path

import pytest

from models.search import mapped_pages

pytestmark = [
    pytest.mark.database_independent,
    pytest.mark.skipif(not sys.platform.startswith("linux"), reason="/proc/self/smaps"),
]

SIZE = 8 * 1024 * 1024


def _resident_kb(path: Path) -> int:
    """The resident kB of this process's mappings of `path`."""
    resident, inside = 0, False
    for line in Path("/proc/self/smaps").read_text().splitlines():
        fields = line.split()
        if "-" in fields[0] and len(fields) >= 5:  # a mapping's first line
            inside = fields[-1] == str(path)
        elif inside and fields[0] == "Rss:":
            resident += int(fields[1])
    return resident


def _touch(view: mmap.mmap) -> int:
    return sum(view[at] for at in range(0, SIZE, mmap.PAGESIZE))


def test_a_read_only_mapping_is_handed_back_and_reads_the_same(tmp_path):
    path = tmp_path / "dictionary.dic"
    path.write_bytes(bytes(range(256)) * (SIZE // 256))
    with path.open("rb") as file, mmap.mmap(file.fileno(), 0, access=mmap.ACCESS_READ) as view:
        before = _touch(view)
        assert _resident_kb(path) >= SIZE // 1024 * 0.9

        assert mapped_pages.release(path.name) == SIZE

        assert _resident_kb(path) < SIZE // 1024 * 0.1
        assert _touch(view) == before
        assert view[:256] == bytes(range(256))


def test_a_mapping_that_can_be_written_is_left_alone(tmp_path):
    path = tmp_path / "written.dic"
    path.write_bytes(b"\0" * SIZE)
    with path.open("r+b") as file, mmap.mmap(file.fileno(), 0, access=mmap.ACCESS_COPY) as view:
        view[:5] = b"mine!"  # a private copy: only this mapping holds it

        assert mapped_pages.release(path.name) == 0

        assert view[:5] == b"mine!"

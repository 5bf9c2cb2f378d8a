"""Fixtures the search tests share: the embedded engine on a file of the test's own, and the
Meilisearch stand-in served on a local port. A module that tests its engine seeded, or
through every engine, defines its own fixture on the helpers of engines.py."""

from __future__ import annotations

import pytest

from tests.fakes.http import serve
from tests.models.search.engines import embedded_engine, stand_in


@pytest.fixture
def embedded(tmp_path):
    """The embedded engine, set up and empty."""
    yield from embedded_engine(tmp_path / "search.db")


@pytest.fixture
def fake():
    """The Meilisearch stand-in, without an index until the test adds one."""
    return stand_in()


@pytest.fixture
def url(fake):
    """Where the stand-in answers, for the length of the test."""
    with serve(fake) as url:
        yield url

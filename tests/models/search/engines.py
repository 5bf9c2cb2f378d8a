"""The engines the search tests run on, each with its index set up and empty: the embedded
engine on a file, the Meilisearch engine on the local stand-in of the server
(tests/fakes/meili_server.py) or on the real server at MEILI_TEST_URL.

The generators are for fixtures (`yield from`): each closes or stops what it started once
the test is over. conftest.py builds the common fixtures on them."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import meilisearch

from models.search.embedded import EmbeddedEngine
from models.search.meili import MeilisearchEngine
from tests.fakes.http import serve
from tests.fakes.meili_server import FakeMeilisearch

ADMIN_KEY = "admin-key"
MASTER_KEY = "master-key"


def stand_in() -> FakeMeilisearch:
    """The Meilisearch stand-in, knowing the admin and the master key, without an index."""
    return FakeMeilisearch(api_key=ADMIN_KEY, master_key=MASTER_KEY)


def on_stand_in(url: str, **options) -> MeilisearchEngine:
    """The Meilisearch engine on the stand-in at `url`, its index as the stand-in holds it.
    Short time-outs: a local server that does not answer in seconds never will."""
    return MeilisearchEngine(
        url, ADMIN_KEY, MASTER_KEY, timeout=5, task_timeout_ms=5_000, **options
    )


def embedded_engine(path: Path, **options) -> Iterator[EmbeddedEngine]:
    """The embedded engine on the file at `path`, set up; closed after."""
    engine = EmbeddedEngine(str(path), **options)
    engine.apply_settings()
    yield engine
    engine.close()


def stand_in_engine(**options) -> Iterator[MeilisearchEngine]:
    """The Meilisearch engine on a fresh stand-in, set up; the stand-in stops after."""
    with serve(stand_in()) as url:
        engine = on_stand_in(url, **options)
        engine.apply_settings()
        yield engine


def real_meilisearch_engine(**options) -> Iterator[MeilisearchEngine]:
    """The Meilisearch engine on the server at MEILI_TEST_URL, set up, its documents left
    by earlier tests deleted."""
    url, key = os.environ["MEILI_TEST_URL"], os.environ.get("MEILI_TEST_KEY")
    engine = MeilisearchEngine(url, key, key, **options)
    engine.apply_settings()
    index = meilisearch.Client(url, key).index("subtitles")
    index.wait_for_task(index.delete_all_documents().task_uid)
    yield engine


# Every engine a behaviour is checked on: the embedded one, Meilisearch's stand-in, and a
# real Meilisearch when MEILI_TEST_URL is set.
EVERY_ENGINE = ["embedded", "meili-fake"] + (
    ["meilisearch"] if os.environ.get("MEILI_TEST_URL") else []
)


def engine_named(name: str, path: Path) -> Iterator[EmbeddedEngine | MeilisearchEngine]:
    """The engine of EVERY_ENGINE called `name`, set up and empty (the embedded one on a
    file at `path`); closed or stopped after."""
    if name == "embedded":
        yield from embedded_engine(path)
    elif name == "meili-fake":
        yield from stand_in_engine()
    else:
        yield from real_meilisearch_engine()

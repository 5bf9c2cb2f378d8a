"""Search: one engine interface (base.py) with the `embedded` (SQLite FTS5) and
`meilisearch` engines, chosen by SEARCH_BACKEND; documents built from our rows."""

from __future__ import annotations

from models.search.base import (
    DEFAULT_SEMANTIC_RATIO,
    INDEX_NAME,
    SORTS,
    TARGETS,
    Document,
    Hit,
    SearchEngine,
    SearchError,
    SearchQuery,
    SearchResults,
    SearchUnavailable,
    Segment,
)
from models.settings import Settings, get_settings

__all__ = [
    "DEFAULT_SEMANTIC_RATIO",
    "INDEX_NAME",
    "SORTS",
    "TARGETS",
    "Document",
    "Hit",
    "SearchEngine",
    "SearchError",
    "SearchQuery",
    "SearchResults",
    "SearchUnavailable",
    "Segment",
    "get_engine",
    "video_documents",
]

_cache: dict[tuple, SearchEngine] = {}


def build_engine(settings: Settings) -> SearchEngine:
    if settings.search_backend == "meilisearch":
        from models.search.meili import MeilisearchEngine

        return MeilisearchEngine(
            settings.search_host or "", settings.search_api_key, settings.search_master_key
        )
    from models.search.embedded import EmbeddedEngine

    return EmbeddedEngine(settings.search_path)


def get_engine() -> SearchEngine:
    settings = get_settings()
    key = (settings.search_backend, settings.search_host, settings.search_path)
    if key not in _cache:
        _cache[key] = build_engine(settings)
    return _cache[key]


def video_documents(video, channel, description: str, segments: list[Segment]) -> list[Document]:
    """The documents of one video: one per subtitle segment, one for title and description."""
    common = {
        "video_id": video.id,
        "channel_id": channel.id,
        "video_title": video.title,
        "channel_title": channel.title,
        "published_at": video.published_at,
        "thumbnail_url": video.thumbnail_url,
        "view_count": video.view_count,
        "subscriber_count": channel.subscriber_count,
    }
    documents = [
        Document(
            id=f"{video.id}-v",
            kind="video",
            title=video.title,
            description=description or "",
            **common,
        )
    ]
    documents.extend(
        Document(
            id=f"{video.id}-s{n:04d}",
            kind="subtitle",
            text=segment.text,
            start=round(segment.start, 3),
            end=round(segment.end, 3),
            **common,
        )
        for n, segment in enumerate(segments)
    )
    return documents

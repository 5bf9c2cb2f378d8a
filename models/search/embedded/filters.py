"""The query's filters (query.Filters) on the embedded index: a condition on a video's
row (`videos v`), which every statement of a filtered search checks on the matches it
reads (matching.py joins each match to its video by key, a rowid lookup).

The videos table is small beside the documents (one row per video), its rows are read
from the page cache, and a match's video is found by its key, so a filter that lets most
videos through costs a few percent; one that lets few through costs a read of every
match (docs/search.md, Benchmark, has the figures).
"""

from __future__ import annotations

from dataclasses import dataclass

from models.search.query import Filters

# Filters -> (column of `videos v`, comparison).
CHECKS = (
    ("published_from", "v.published_at >= ?"),
    ("published_until", "v.published_at < ?"),
    ("min_duration", "v.duration_seconds >= ?"),
    ("max_duration", "v.duration_seconds <= ?"),
    ("subtitle_type", "v.subtitle_type = ?"),
    ("language", "v.subtitle_language = ?"),
    ("min_views", "v.view_count >= ?"),
    ("max_views", "v.view_count <= ?"),
)


@dataclass(frozen=True)
class VideoFilter:
    """A condition on `videos v` and its parameters. A video without the value a filter
    reads (no subtitles, hidden views) does not pass it."""

    condition: str
    params: tuple[object, ...]


def video_filter(filters: Filters) -> VideoFilter | None:
    """The filters' condition; None when the query has none."""
    parts, params = [], []
    for name, check in CHECKS:
        value = getattr(filters, name)
        if value is not None:
            parts.append(check)
            params.append(value)
    if not parts:
        return None
    return VideoFilter("(" + " AND ".join(parts) + ")", tuple(params))

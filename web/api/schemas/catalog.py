"""Search, search history, favorites, and public channel and video metadata."""

from __future__ import annotations

import re
from typing import Literal

from pydantic import Field, field_validator

from models.search import DEFAULT_SEMANTIC_RATIO, SORTS, TARGETS, SearchQuery
from web.api.schemas.common import (
    PLATFORM_ID,
    PathParams,
    PlatformId,
    Query,
    Response,
    RowId,
    Timestamp,
    pattern,
    text,
)

MAX_CHANNELS = 50
CHANNEL_ID = re.compile(PLATFORM_ID)


def _split(value: str | None) -> list[str]:
    return sorted({part.strip() for part in (value or "").split(",") if part.strip()})


class SearchParams(Query):
    q: text(200, min_length=1) = Field(description="What was said (1-200 characters)")
    channels: pattern(r"^[A-Za-z0-9_,\s-]*$", max_length=MAX_CHANNELS * 66) | None = Field(
        default=None, description=f"Up to {MAX_CHANNELS} comma-separated channel ids"
    )
    target: pattern(r"^[a-z,\s]*$", max_length=64) | None = Field(
        default=None, description=f"A comma-separated subset of {', '.join(TARGETS)}"
    )
    sort: Literal[SORTS] = "relevance"  # type: ignore[valid-type]
    semantic: Literal["0", "1"] = "0"
    sr: float = Field(default=DEFAULT_SEMANTIC_RATIO, ge=0, le=1, allow_inf_nan=False)
    page: int = Field(default=1, ge=1, le=1000)
    per_page: int = Field(default=20, ge=1, le=100)

    @field_validator("channels")
    @classmethod
    def _channels(cls, value):
        parts = _split(value)
        if len(parts) > MAX_CHANNELS or not all(CHANNEL_ID.match(part) for part in parts):
            raise ValueError(f"up to {MAX_CHANNELS} comma-separated channel ids")
        return value

    @field_validator("target")
    @classmethod
    def _targets(cls, value):
        if set(_split(value)) - set(TARGETS):
            raise ValueError(f"a comma-separated subset of {', '.join(TARGETS)}")
        return value

    def search_query(self) -> SearchQuery:
        """Channels and targets normalised (sorted, unique), so one search condition
        is one history row."""
        return SearchQuery(
            q=self.q,
            channels=tuple(_split(self.channels)),
            targets=tuple(_split(self.target)) or TARGETS,
            sort=self.sort,
            page=self.page,
            per_page=self.per_page,
            semantic=self.semantic == "1",
            sr=round(self.sr, 4),
        )


class SemanticState(Response):
    requested: bool
    applied: bool


class SearchHit(Response):
    video_id: str
    video_title: str
    channel_id: str
    channel_title: str
    published_at: str | None
    thumbnail_url: str | None
    matched_in: Literal["subtitle", "title", "description"]
    start: float | None = Field(description="Seconds; null for title and description hits")
    end: float | None
    text: str
    highlight: str = Field(description="HTML-escaped text with <mark> around matches")
    url: str


class SearchResults(Response):
    query: str
    page: int
    per_page: int
    total_hits: int
    total_pages: int
    semantic: SemanticState
    hits: list[SearchHit]


class HistoryEntry(Response):
    id: int
    query: str
    channels: list[str]
    target: list[str]
    sort: str
    semantic: bool
    sr: float
    searched_at: Timestamp
    created_at: Timestamp


class History(Response):
    history: list[HistoryEntry]


class HistoryEntryPath(PathParams):
    entry_id: RowId


class ChannelPath(PathParams):
    channel_id: PlatformId


class Channel(Response):
    id: str
    title: str
    handle: str | None
    thumbnail_url: str | None
    subtitle_status: str
    video_count: int
    country: str | None
    subscriber_count: int | None


class Favorite(Channel):
    channel_id: str
    created_at: Timestamp


class Favorites(Response):
    favorites: list[Favorite]


class Video(Response):
    id: str
    channel_id: str
    title: str
    thumbnail_url: str | None
    duration_seconds: int
    view_count: int | None
    like_count: int | None
    published_at: str
    category_id: str | None
    subtitle_status: str
    subtitle_type: str | None
    credit_cost: int
    url: str


class Segment(Response):
    start: float
    end: float
    text: str


class Subtitles(Response):
    video_id: str
    segments: list[Segment]

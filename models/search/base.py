"""What the service needs from a search engine, whichever engine it is.

The index `subtitles` holds one document per subtitle segment (`kind` "subtitle",
searchable field `text`) and one per video (`kind` "video", searchable fields `title`
and `description`). Every document carries the video's display fields.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Any, Protocol

from models.search.query import Query, parse_search

if TYPE_CHECKING:
    # For the vectors' type alone: the interface needs nothing of numpy at run time.
    import numpy as np
    import numpy.typing as npt

INDEX_NAME = "subtitles"
TARGETS = ("description", "subtitle", "title")
SORTS = ("relevance", "newest", "oldest", "views")
DEFAULT_SEMANTIC_RATIO = 0.5
# Results by video: how far the count of matching videos is exact, and how many moments
# a video shows (docs/api.md, Search).
TOTAL_VIDEOS_CAP = 1000
MOMENTS_PER_VIDEO = 3
# What one search may cost (docs/search.md, What a search may cost): the time an engine
# may spend on it (SEARCH_TIME_BUDGET_MS), and how long a client is asked to wait past it.
DEFAULT_TIME_BUDGET_MS = 1000
BUSY_RETRY_AFTER = 5


class SearchError(Exception):
    """The engine failed (unreachable, or a task it ran failed)."""


class SearchUnavailable(SearchError):
    """The engine did not answer."""


class SearchBusy(SearchError):
    """The search ran past its time budget and was stopped: the engine is fine, this
    search (or the load around it) is too costly right now."""

    def __init__(self, message: str, retry_after: int = BUSY_RETRY_AFTER) -> None:
        super().__init__(message)
        self.retry_after = retry_after


class IndexNotReady(SearchUnavailable):
    """The index is missing or laid out for another version: nothing is written to it or
    read from it until `subsearch db upgrade` sets it up (and a reindex fills it)."""


@dataclass(frozen=True)
class Document:
    id: str
    video_id: str
    channel_id: str
    kind: str  # "subtitle" or "video"
    video_title: str
    channel_title: str
    published_at: str  # ISO 8601 UTC
    thumbnail_url: str | None = None
    view_count: int | None = None
    subscriber_count: int | None = None
    # What the query language's filters read (query.py), on every document of a video:
    # its length, and its subtitles' kind ("manual", "auto") and language (ISO 639-1),
    # None for a video without subtitles.
    duration_seconds: int | None = None
    subtitle_type: str | None = None
    subtitle_language: str | None = None
    text: str | None = None  # subtitle documents
    start: float | None = None
    end: float | None = None
    title: str | None = None  # video documents
    description: str | None = None
    # Video documents: a digest of what the video's documents hold that only a rewrite
    # changes (texts, times, description, date, thumbnail, views), so `search verify`
    # finds a video whose documents are not those its stored cues give.
    fingerprint: str | None = None
    # The document's vector for search by meaning (unit length, the embedder's model),
    # when one is stored for its text as it is now; None until it is embedded.
    vector: npt.NDArray[np.float32] | None = field(default=None, compare=False, repr=False)


@dataclass(frozen=True)
class IndexedVideo:
    """A video as the index holds it, for `search verify`: how many documents (-1 when
    the engine's own records of it disagree) and the fields a rename updates in place."""

    video_id: str
    documents: int
    video_title: str | None
    channel_title: str | None
    title: str | None
    subscriber_count: int | None
    fingerprint: str | None
    # How many of its documents have a vector, where the engine counts them (the
    # embedded engine; None: the fingerprint says it).
    vectors: int | None = None


@dataclass(frozen=True)
class Segment:
    start: float
    end: float
    text: str


@dataclass(frozen=True)
class SearchQuery:
    q: str
    channels: tuple[str, ...] = ()
    targets: tuple[str, ...] = TARGETS  # sorted subset of TARGETS
    sort: str = "relevance"
    page: int = 1
    per_page: int = 20
    semantic: bool = False
    sr: float = DEFAULT_SEMANTIC_RATIO

    @cached_property
    def read(self) -> Query:
        """`q` in the query language (query.py), read once for the search: where its
        request is read (web/api/schemas/catalog.py), and every step after, the engine's
        included, takes it from here. QueryError when `q` cannot be read."""
        return parse_search(self.q)


@dataclass(frozen=True)
class Hit:
    video_id: str
    video_title: str
    channel_id: str
    channel_title: str
    published_at: str
    thumbnail_url: str | None
    matched_in: str  # "subtitle", "title" or "description"
    start: float | None
    end: float | None
    text: str  # the matched field's text (plain)
    highlight: str  # HTML-escaped text with <mark> around matches


@dataclass(frozen=True)
class SearchResults:
    total_hits: int
    hits: list[Hit] = field(default_factory=list)
    semantic_applied: bool = False


@dataclass(frozen=True)
class VideoHit:
    """One video of a grouped answer, with its best subtitle moments."""

    video_id: str
    video_title: str
    channel_id: str
    channel_title: str
    published_at: str
    thumbnail_url: str | None
    score: float  # higher is better, comparable within one answer
    moments: list[Hit]  # subtitle hits, at most MOMENTS_PER_VIDEO, best first; [] for a
    # video found only by its title or description
    matched_in: tuple[str, ...]  # which of "subtitle", "title", "description" matched
    # Every moment of the video for the search (moments.py), as video_moments lists
    # them; 0 for a video found only by its title or description.
    total_moments: int = 0


@dataclass(frozen=True)
class VideoResults:
    total_videos: int  # exact up to TOTAL_VIDEOS_CAP; TOTAL_VIDEOS_CAP when more
    more_than_cap: bool  # more than TOTAL_VIDEOS_CAP videos match
    videos: list[VideoHit]  # the page: SearchQuery.page and per_page count videos
    semantic_applied: bool = False


@dataclass(frozen=True)
class VideoMoments:
    """A page of one video's moments for a search (SearchQuery.page and per_page count
    moments), best first, and how many there are."""

    total_moments: int
    moments: list[Hit]  # subtitle hits over each moment's range, highlighted
    semantic_applied: bool = False


class SearchEngine(Protocol):
    name: str

    def apply_settings(self) -> bool:
        """Create the index if needed and apply its settings (idempotent); True when the
        index was created or laid out anew (its documents must be written again)."""

    def writing(self) -> AbstractContextManager[None]:
        """Hold the index's write lock: one writer at a time across processes. Documents
        built from the database inside it are never overwritten by older ones, since a
        writer that read the database earlier wrote before it."""

    def inventory(self) -> Iterator[IndexedVideo]:
        """Every video the index holds documents of."""

    def replace_video_documents(self, video_id: str, documents: list[Document]) -> None:
        """Make `documents` the video's only documents."""

    def replace_videos(self, replaced: Mapping[str, list[Document]]) -> None:
        """replace_video_documents for several videos at once ([]: the video goes)."""

    def update_channel_documents(self, channel_id: str, values: Mapping[str, object]) -> int:
        """Set fields (e.g. `subscriber_count`) on every document of a channel; returns
        how many documents were updated."""

    def update_video_documents(self, video_id: str, values: Mapping[str, object]) -> int:
        """Set the video's fields on its documents: `video_title` (shown on every
        document) and `title` (the searchable title of its video document); returns how
        many documents were updated."""

    def delete_video_documents(self, video_id: str) -> None: ...

    def search(self, query: SearchQuery) -> SearchResults: ...

    def search_videos(self, query: SearchQuery) -> VideoResults:
        """Matches grouped by video: one entry per video, the query's sort and page
        applied to videos."""

    def video_moments(self, query: SearchQuery, video_id: str) -> VideoMoments:
        """Every moment of one video for the search, a page of them: the moments a
        grouped answer shows the video with first, then the others, best first
        (moments.py); the count is the grouped answer's `total_moments`."""

    def video_segments(self, video_id: str) -> list[Segment]:
        """The video's subtitle segments in time order."""

    def health(self) -> dict[str, Any]:
        """`{"status": "available"}` when the engine answers."""

    def keys(self) -> list[dict[str, str | None]]:
        """The engine's API keys, each `{"name", "key"}` (needs the master key; a key may
        have no name)."""

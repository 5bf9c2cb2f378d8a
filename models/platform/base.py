"""What the service needs from the video platform, whichever engine serves it."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol


class PlatformError(Exception):
    """The platform could not answer."""


class QuotaExceeded(PlatformError):
    """The platform's quota is used up; try again after it resets."""


class NotFoundOnPlatform(PlatformError):
    """No channel or video has this id or handle. For a channel or video we imported, it
    means it was removed from the platform: every engine raises it for a removed
    channel (an empty answer, a missing or `deleted` fixture file), never for an error."""


# How a subtitle fetch failed (CONTRACT §12.2, docs/search.md "When the platform refuses").
# The first three are the platform refusing this service's address, not the video: they
# never mark a video, they pause every fetch (models/platform_pause.py).
HOST_LEVEL = ("ip_blocked", "request_blocked", "network")
FAILURE_KINDS = (
    *HOST_LEVEL,
    "po_token_required",
    "transcripts_disabled",
    "age_restricted",
    "video_unavailable",
    "broken",
)


class SubtitlesFailed(PlatformError):
    """Fetching the subtitles of a video failed (not: the video has none); `kind` says
    how (FAILURE_KINDS), `broken` when nothing tells (the video's own failure)."""

    def __init__(self, message: str, kind: str = "broken") -> None:
        super().__init__(message)
        self.kind = kind

    @property
    def host_level(self) -> bool:
        return self.kind in HOST_LEVEL


@dataclass(frozen=True)
class Cue:
    start: float
    end: float
    text: str


@dataclass(frozen=True)
class Subtitles:
    type: str  # "manual" or "auto"
    language: str
    cues: list[Cue]


@dataclass(frozen=True)
class ChannelInfo:
    id: str
    title: str
    handle: str | None
    thumbnail_url: str | None
    country: str | None
    subscriber_count: int | None  # None when the channel hides it
    video_count: int
    video_ids: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class VideoInfo:
    id: str
    channel_id: str
    title: str
    description: str
    thumbnail_url: str | None
    duration_seconds: int
    view_count: int | None
    like_count: int | None
    published_at: str  # ISO 8601 UTC, fixed width
    category_id: str | None
    deleted: bool = False
    channel_title: str | None = None  # the channel's current title, when the engine knows it


class VideoPlatform(Protocol):
    name: str

    def get_channel(self, id_or_handle: str) -> ChannelInfo:
        """The channel by id (`UC...`) or handle (`@name`), with its video ids. Raises
        NotFoundOnPlatform when there is none (also: it was removed)."""

    def get_videos(self, video_ids: list[str]) -> dict[str, VideoInfo]:
        """Videos by id; a video removed from the platform comes back `deleted=True`."""

    def get_subtitles(self, video_id: str) -> Subtitles | None:
        """The video's subtitles (manual preferred over auto), or None when it has none.
        Raises SubtitlesFailed when fetching fails."""

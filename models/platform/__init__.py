"""The video platform: one interface (base.py), the `fixture` and `youtube` engines,
chosen by VIDEO_API_BACKEND."""

from __future__ import annotations

from models.platform.base import (
    ChannelInfo,
    Cue,
    NotFoundOnPlatform,
    PlatformError,
    QuotaExceeded,
    Subtitles,
    SubtitlesFailed,
    VideoInfo,
    VideoPlatform,
)
from models.platform.fixture import FixturePlatform
from models.platform.youtube import YouTubePlatform
from models.settings import get_settings

__all__ = [
    "ChannelInfo",
    "Cue",
    "NotFoundOnPlatform",
    "PlatformError",
    "QuotaExceeded",
    "Subtitles",
    "SubtitlesFailed",
    "VideoInfo",
    "VideoPlatform",
    "get_platform",
]


def get_platform() -> VideoPlatform:
    settings = get_settings()
    if settings.video_api_backend == "youtube":
        return YouTubePlatform(settings.video_api_key or "")
    return FixturePlatform(settings.video_fixture_dir)

"""The video platform: one interface (base.py), the `fixture` and `youtube` engines,
chosen by VIDEO_API_BACKEND (backends.py)."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

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

if TYPE_CHECKING:
    from models.platform.backends import get_platform, transcript_proxy
    from models.platform.quota import QuotaLedger as QuotaLedger
    from models.platform.youtube import YouTubePlatform as YouTubePlatform

__all__ = [
    "ChannelInfo",
    "Cue",
    "FixturePlatform",
    "NotFoundOnPlatform",
    "PlatformError",
    "QuotaExceeded",
    "Subtitles",
    "SubtitlesFailed",
    "VideoInfo",
    "VideoPlatform",
    "get_platform",
    "transcript_proxy",
]

# The engines and what builds them (the YouTube client, its HTTP library, Redis for the
# quota, the settings), imported on first use (PEP 562): what only reads the interface's
# types (a subtitle cue, when the search index cuts segments) loads none of it.
_LAZY = {
    "QuotaLedger": "models.platform.quota",
    "YouTubePlatform": "models.platform.youtube",
    "get_platform": "models.platform.backends",
    "transcript_proxy": "models.platform.backends",
}


def __getattr__(name: str) -> object:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(module), name)

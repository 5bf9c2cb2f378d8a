"""What the home page offers to start from: example searches and the indexed channels.

Example searches are what people searched most in the last 30 days (by how many members
searched the words, and only words at least two members searched: one person's search is
never shown to others); with no such history, the words found most often in the titles of
recent videos; with neither, none (the page never invents searches or results).

The home page is the most visited one and its two grouped queries read the whole
history and index: each process keeps the answer for a minute.
"""

from __future__ import annotations

import re
import threading
import time
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import timedelta
from typing import cast

from peewee import fn

from models.clock import iso, utcnow
from models.tables import Channel, SearchHistory, Video

EXAMPLE_COUNT = 8
HISTORY_DAYS = 30
RECENT_TITLES = 200
CHANNEL_COUNT = 24
HIDDEN_STATUSES = ("deleted", "opted_out")
MIN_SEARCHERS = 2
KEEP_SECONDS = 60.0

# Title words: runs between spaces, brackets and punctuation, 2 to 12 characters long.
_TITLE_SPLIT = re.compile(
    r"[\s\u3000|｜/／・、。,.!?！？:：;「」『』【】\[\]()（）〈〉《》\"'#＃~〜…\-–—]+"
)


@dataclass(frozen=True)
class HomeChannel:
    id: str
    title: str
    video_count: int


@dataclass(frozen=True)
class Home:
    examples: list[str]
    channels: list[HomeChannel]


_kept: tuple[float, Home] | None = None
_lock = threading.Lock()


def home() -> Home:
    """The home page's offer, read again at most once a minute by this process."""
    global _kept
    with _lock:
        if _kept is None or time.monotonic() - _kept[0] > KEEP_SECONDS:
            _kept = (time.monotonic(), Home(example_searches(), indexed_channels()))
        return _kept[1]


def forget_home() -> None:
    """Read the home page's offer again on its next request (tests)."""
    global _kept
    with _lock:
        _kept = None


def example_searches(count: int = EXAMPLE_COUNT) -> list[str]:
    return popular_queries(count) or title_words(count)


def popular_queries(count: int = EXAMPLE_COUNT, days: int = HISTORY_DAYS) -> list[str]:
    """The queries most members searched in the last `days` days, most searched first;
    only those at least MIN_SEARCHERS members searched."""
    since = iso(utcnow() - timedelta(days=days))
    searchers = fn.COUNT(SearchHistory.user.distinct())
    rows = (
        SearchHistory.select(SearchHistory.query, searchers.alias("searchers"))
        .where(SearchHistory.searched_at >= since)
        .group_by(SearchHistory.query)
        .having(searchers >= MIN_SEARCHERS)
        .order_by(searchers.desc(), SearchHistory.query)
        .limit(count)
    )
    return [row.query.strip() for row in rows if row.query.strip()]


def title_words(count: int = EXAMPLE_COUNT, recent: int = RECENT_TITLES) -> list[str]:
    """Words shared by at least two of the `recent` newest videos' titles, most shared first."""
    titles = (
        Video.select(Video.title)
        .where(Video.subtitle_status.not_in(HIDDEN_STATUSES))
        .order_by(Video.published_at.desc())
        .limit(recent)
    )
    seen: Counter[str] = Counter()
    for video in titles:
        words = _TITLE_SPLIT.split(video.title)
        seen.update({w for w in words if 2 <= len(w) <= 12 and not w.isdigit()})
    shared = [(n, word) for word, n in seen.items() if n >= 2]
    shared.sort(key=lambda pair: (-pair[0], pair[1]))
    return [word for _, word in shared[:count]]


def indexed_channels(count: int = CHANNEL_COUNT) -> list[HomeChannel]:
    """Live channels with indexed videos, the most videos first."""
    videos = fn.COUNT(Video.id)
    query = (
        Channel.select(Channel.id, Channel.title, videos)
        .join(Video, on=(Video.channel == Channel.id))
        .where(
            Channel.subtitle_status.not_in(HIDDEN_STATUSES),
            Video.subtitle_status.not_in(HIDDEN_STATUSES),
        )
        .group_by(Channel.id, Channel.title)
        .order_by(videos.desc(), Channel.title, Channel.id)
        .limit(count)
    )
    rows = cast("Iterable[tuple[str, str, int]]", query.tuples())
    return [HomeChannel(id, title, video_count) for id, title, video_count in rows]

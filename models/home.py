"""What the home page offers to start from: example searches and the indexed channels.

Example searches are what people searched most in the last 30 days (by how many members
searched the words, and only words at least two members searched: one person's search is
never shown to others); with no such history, the searches the sample data suggests for
its channels in the index (a fresh install after `subsearch sample load`); else the words
found most often in the titles of recent videos (their nouns, cut by the index's own
analyser: a Japanese title is one run without spaces); with none of these, none (the page never
invents searches or results). Only real words are offered: no stopword ("in", "for",
"の"), no lone kana, letter or digit (a lone kanji is a word: 鹿). The reader's language
comes first.

The home page is the most visited one and its grouped queries read the whole history and
index: each process keeps the answer for a minute, once there is something to keep (an
empty index is read again at once when the first channel comes in).
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
from models.platform.fixture import FixturePlatform
from models.search.analysis import nouns
from models.search.text import CJK_RUN
from models.settings import get_settings
from models.tables import HIDDEN_STATUSES, Channel, SearchHistory, Video

EXAMPLE_COUNT = 8
HISTORY_DAYS = 30
RECENT_TITLES = 200
CHANNEL_COUNT = 24
MIN_SEARCHERS = 2
KEEP_SECONDS = 60.0

# Title words: nouns found by the analyser the index uses, at most this long.
TITLE_WORD_LENGTH = 12


@dataclass(frozen=True)
class HomeChannel:
    id: str
    title: str
    video_count: int


# Words too common to find anything worth offering, lowercased: English function words
# and Japanese particles and endings that stand alone between spaces or punctuation.
_STOPWORD_LIST = """
a an and are as at be by do does for from how i in is it its me my no not of on or our
so than that the their then this to vs was we what when where which who why will with
you your
の に は を が と で も へ や か な ね よ から まで より です ます した する して こと もの
これ それ あれ この その あの ここ そこ どう なぜ
"""
STOPWORDS = frozenset(_STOPWORD_LIST.split())
# Kanji (with 々 and 〆): a single one can be a word; a lone kana or letter is not.
KANJI = re.compile("[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\u3005\u3006]")


def is_real_word(word: str) -> bool:
    """Whether `word` can stand as an example search: not a stopword or a number, and
    at least two characters unless it is a single kanji."""
    if word.casefold() in STOPWORDS or word.isdigit():
        return False
    return len(word) >= 2 or bool(KANJI.fullmatch(word))


def is_example(query: str) -> bool:
    """Whether every word of a search is a real word."""
    words = query.split()
    return bool(words) and all(is_real_word(word) for word in words)


def language_of(words: str) -> str:
    """The language an example reads in: Japanese when it holds kana or kanji."""
    return "ja" if CJK_RUN.search(words) else "en"


@dataclass(frozen=True)
class Home:
    examples: list[str]
    channels: list[HomeChannel]

    @property
    def empty(self) -> bool:
        return not (self.examples and self.channels)

    def for_reader(self, language: str) -> Home:
        """The same offer with the examples in the reader's language first."""
        ordered = sorted(self.examples, key=lambda words: language_of(words) != language)
        return Home(ordered, self.channels)


_kept: tuple[float, Home] | None = None
_lock = threading.Lock()


def home(language: str) -> Home:
    """The home page's offer for a reader of `language`, read again at most once a minute
    by this process; an offer with no examples or no channels is never kept."""
    global _kept
    with _lock:
        if _kept is None or time.monotonic() - _kept[0] > KEEP_SECONDS:
            channels = indexed_channels()
            found = Home(example_searches(channels), channels)
            _kept = None if found.empty else (time.monotonic(), found)
        else:
            found = _kept[1]
    return found.for_reader(language)


def forget_home() -> None:
    """Read the home page's offer again on its next request (tests)."""
    global _kept
    with _lock:
        _kept = None


def example_searches(
    channels: list[HomeChannel] | None = None, count: int = EXAMPLE_COUNT
) -> list[str]:
    """The first source that has examples: searches people made, the sample data's own
    suggestions for its channels among `channels` (the indexed ones), words of titles."""
    if channels is None:
        channels = indexed_channels()
    return (
        popular_queries(count)
        or sample_examples({c.id for c in channels}, count)
        or title_words(count)
    )


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
        .limit(count * 4)  # room for the ones that are not real words
    )
    return [row.query.strip() for row in rows if is_example(row.query)][:count]


def sample_examples(indexed: set[str], count: int = EXAMPLE_COUNT) -> list[str]:
    """The searches the bundled sample data suggests for those of its channels that are
    in the index, taken in turn from each channel (a fixture folder of one's own, set by
    VIDEO_FIXTURE_DIR, may suggest its own)."""
    suggested = FixturePlatform(get_settings().video_fixture_dir).example_searches()
    lists = [
        [words for words in suggested[channel_id] if is_example(words)]
        for channel_id in sorted(suggested)
        if channel_id in indexed
    ]
    taken: list[str] = []
    for turn in range(max((len(words) for words in lists), default=0)):
        taken += [words[turn] for words in lists if turn < len(words) and words[turn] not in taken]
    return taken[:count]


def title_words(count: int = EXAMPLE_COUNT, recent: int = RECENT_TITLES) -> list[str]:
    """Nouns shared by at least two of the `recent` newest videos' titles, most shared
    first."""
    titles = (
        Video.select(Video.title)
        .where(Video.subtitle_status.not_in(HIDDEN_STATUSES))
        .order_by(Video.published_at.desc())
        .limit(recent)
    )
    seen: Counter[str] = Counter()
    for video in titles:
        words = nouns(video.title)
        seen.update({w for w in words if len(w) <= TITLE_WORD_LENGTH and is_real_word(w)})
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

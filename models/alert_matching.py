"""Matching new videos against the alerts (issue 49, docs/alerts.md, What counts as news).

After each index write (models/indexing.py calls `note_indexed`) a video that reached
the index for the first time gets `first_indexed_at`, and the videos that may be news to
some live alert are handed to the `match_alerts` actor through the outbox, in one
transaction. The actor runs `match_videos`: each alert made before a video first reached
the index asks the engine for the video's moments of its search (`video_moments`, the
search page's own rule: the query language's filters and exclusions, the channels, and
for a search by meaning the engine's floor), and the first moment is the news, written
once per alert and video (`INSERT ... ON CONFLICT DO NOTHING`): a video indexed again
(reindex, refresh, repair, its vectors arriving) is no news twice. An instant alert
that heard of something new gets its mail queued (`send_alert_mail`) in the same
transaction.

What keeps it cheap (bench/alert_matching.py; docs/alerts.md, What matching costs):
only videos first indexed after the oldest live alert are handed on at all; the alerts
are indexed by a key token of each form of the terms of their rarest group (AlertIndex),
so a video is proposed only to the alerts whose keys its subtitles hold; then dates and
channels are compared, and a keyword alert asks the engine only about videos whose
subtitles hold, for every group of its query, some form of one of its terms (its
character pairs or words, its words as the analyser writes them, its readings or other
spellings): a superset of what the engine finds, the subtitles read once per video.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cached_property

from models import outbox
from models.alerts import search_of
from models.clock import now_iso
from models.db import db, write_transaction
from models.search import SearchEngine, SearchError, SearchQuery, get_engine
from models.search.analysis import KANA_MARK, READING_MARK, WORD_MARK, index_words
from models.search.query import Query, QueryError
from models.search.segments import build_segments
from models.search.text import Term, normalize, tokens
from models.subtitles import to_subtitles
from models.tables import Alert, AlertMatch, SubtitleTrack, Video

log = logging.getLogger(__name__)

MATCH_ACTOR = "match_alerts"
MAIL_ACTOR = "send_alert_mail"
# Videos a message of the matching actor carries at most.
MATCH_BATCH = 100
# Ids a statement names at most (SQLite's bound on parameters is 32,766).
LOOKUP_BATCH = 500


# -- after an index write -----------------------------------------------------------------


def note_indexed(video_ids: Iterable[str]) -> list[str]:
    """Record that these videos were just written to the index: `first_indexed_at`, set
    once, for those with subtitles; and hand those that may be news to a live alert
    (first indexed after the oldest one was made) to the matching actor through the
    outbox, in the same transaction. The videos handed on."""
    ids = list(dict.fromkeys(video_ids))
    if not ids:
        return []
    messages: list[str] = []
    news: list[str] = []
    with write_transaction():
        Video.update(first_indexed_at=now_iso()).where(
            Video.id.in_(ids)
            & Video.first_indexed_at.is_null()
            & (Video.subtitle_status == "completed")
        ).execute()
        oldest = Alert.select(Alert.created_at).where(Alert.deleted_at.is_null())
        oldest = oldest.order_by(Alert.created_at).limit(1).scalar()
        if oldest is not None:
            news = [
                video.id
                for video in Video.select(Video.id).where(
                    Video.id.in_(ids)
                    & (Video.first_indexed_at > oldest)
                    & (Video.subtitle_status == "completed")
                )
            ]
            messages = [
                outbox.add(MATCH_ACTOR, news[first : first + MATCH_BATCH])
                for first in range(0, len(news), MATCH_BATCH)
            ]
    _send(messages)
    return news


def _send(messages: list[str]) -> None:
    """After commit; a message the queue did not take waits in the outbox (redrive).
    Inside a caller's transaction nothing is committed yet: the redrive sends them."""
    if db.in_transaction():
        return
    for message in messages:
        try:
            outbox.send(message)
        except outbox.QueueNotSetUp:
            log.warning("outbox message %s waits: this process has no queue", message)


# -- what a video's subtitles may say -----------------------------------------------------


class VideoText:
    """A video's subtitles as the index reads them (the same segments), for the cheap
    test `may_say`: their tokens (character pairs and Latin words), and only when a term
    needs them, their words and readings as the analyser gives them."""

    def __init__(self, texts: list[str]) -> None:
        self.texts = texts

    @cached_property
    def normalized(self) -> list[str]:
        return [normalize(text) for text in self.texts]

    @cached_property
    def pairs(self) -> frozenset[str]:
        return frozenset(token for text in self.normalized for token in tokens(text))

    @cached_property
    def analysed(self) -> frozenset[str]:
        found: set[str] = set()
        for text in self.normalized:
            if not text.isascii():
                for column in index_words(text):
                    found.update(column.split())
        return frozenset(found)

    def may_hold(self, term: Term) -> bool:
        """Whether some segment may hold `term` (never False when one does)."""
        if term.needs_scan:  # a single CJK character, found inside longer runs
            return any(term.text in text for text in self.normalized)
        if term.prefix:
            stem = term.tokens[0]
            return any(token.startswith(stem) for token in self.pairs)
        if self.pairs.issuperset(term.tokens):
            return True
        if any(self.pairs.issuperset(run) for run in term.spellings):
            return True
        if term.words or term.readings:
            analysed = self.analysed
            if any(analysed.issuperset(run) for run in term.words):
                return True
            if any(analysed.issuperset(run) for run in term.reading_tokens):
                return True
        return False

    def may_say(self, read: Query) -> bool:
        """Whether the subtitles may match the query's words: each group, one of its
        terms. Exclusions and filters are the engine's to apply."""
        return all(any(self.may_hold(term) for term in group) for group in read.groups)


def video_texts(video_ids: list[str]) -> dict[str, VideoText]:
    """The subtitle segments of these videos, as the index has them."""
    found: dict[str, VideoText] = {}
    for track in SubtitleTrack.select().where(SubtitleTrack.video.in_(video_ids)):
        subtitles = to_subtitles(track)
        segments = build_segments(subtitles.cues, auto=subtitles.type == "auto")
        found[track.video_id] = VideoText([segment.text for segment in segments])
    return found


# -- matching -----------------------------------------------------------------------------


@dataclass(frozen=True)
class Found:
    alert_id: str
    video_id: str
    start: float | None
    end: float | None
    highlight: str


@dataclass
class Matched:
    """What a run of match_videos did, for the log and the bench."""

    videos: int = 0
    alerts: int = 0
    pairs: int = 0  # alert-video pairs considered (made before the video, channels pass)
    asked: int = 0  # of them, asked of the engine (the cheap test passed)
    new: int = 0  # news written


def match_videos(video_ids: Iterable[str], engine: SearchEngine | None = None) -> int:
    """Match these videos against every live alert made before each first reached the
    index; how many news were written. Safe to run twice: news is written once per
    alert and video, and the mail is queued only for news written by this run."""
    return match(video_ids, engine).new


def match(video_ids: Iterable[str], engine: SearchEngine | None = None) -> Matched:
    ids = list(dict.fromkeys(video_ids))
    done = Matched()
    if not ids:
        return done
    videos = list(
        Video.select(Video.id, Video.channel, Video.first_indexed_at).where(
            Video.id.in_(ids)
            & Video.first_indexed_at.is_null(False)
            & (Video.subtitle_status == "completed")
        )
    )
    if not videos:
        return done
    latest = max(str(video.first_indexed_at) for video in videos)
    alerts = list(
        Alert.select()
        .where(Alert.deleted_at.is_null() & (Alert.created_at < latest))
        .order_by(Alert.created_at, Alert.id)
    )
    done.videos, done.alerts = len(videos), len(alerts)
    if not alerts:
        return done
    heard = {
        (row.alert_id, row.video_id)
        for row in AlertMatch.select(AlertMatch.alert, AlertMatch.video_id).where(
            AlertMatch.video_id.in_([video.id for video in videos])
        )
    }
    searches = []
    for alert in alerts:
        try:
            search = search_of(alert)
            searches.append((alert, search, search.read))
        except QueryError:
            log.warning("alert %s: its query can no longer be read", alert.id)
    texts = video_texts([video.id for video in videos])
    proposed = AlertIndex([(search, read) for _, search, read in searches]).proposed(
        [(video, texts.get(video.id)) for video in videos]
    )
    engine = engine or get_engine()
    found: list[Found] = []
    failure: SearchError | None = None
    # Alert by alert, so a search by meaning embeds its question once (the embedder keeps
    # recent questions) for all the videos.
    for (alert, search, read), candidates in zip(searches, proposed, strict=True):
        for video in candidates:
            if alert.created_at >= str(video.first_indexed_at) or (alert.id, video.id) in heard:
                continue
            if search.channels and video.channel_id not in search.channels:
                continue
            done.pairs += 1
            text = texts.get(video.id)
            if text is None or (not search.semantic and not text.may_say(read)):
                continue
            done.asked += 1
            try:
                news = _first_moment(engine, search, alert.id, video.id)
            except SearchError as error:
                failure = error  # the rest still runs; the actor is retried for this
                continue
            if news is not None:
                found.append(news)
    done.new = record(found)
    if failure is not None:
        raise failure
    return done


# -- which alerts a video may be news to ---------------------------------------------------

_MARKS = (WORD_MARK, READING_MARK, KANA_MARK)


def _rarest(run: tuple[str, ...]) -> str:
    """The token of a run least likely to be said: the longest, with kanji before kana."""
    return max(run, key=lambda token: (len(token), any(c >= "\u3400" for c in token), token))


def term_keys(term: Term) -> set[str] | None:
    """One token of each form `term` may be found by (VideoText.may_hold): text that may
    hold the term holds one of them. None for a term no token stands for (a prefix, a
    single CJK character)."""
    if term.needs_scan or term.prefix:
        return None
    runs = [term.tokens, *term.words, *term.reading_tokens, *term.spellings]
    return {_rarest(run) for run in runs if run}


def query_keys(read: Query) -> set[str] | None:
    """The keys of the query's rarest group: every group must match, so one group's keys
    are enough to find the text it may match; None when no group has keys."""
    best: set[str] | None = None
    best_rank: tuple[int, int] = (0, 0)
    for group in read.groups:
        keys: set[str] = set()
        for term in group:
            found = term_keys(term)
            if found is None:
                break
            keys |= found
        else:
            rank = (min(len(key) for key in keys), -len(keys))
            if best is None or rank > best_rank:
                best, best_rank = keys, rank
    return best


class AlertIndex:
    """The alerts by the keys of their queries (match on the rarest term first): a video
    is proposed to the alerts whose keys its subtitles hold, and to those without keys
    (searches by meaning, prefixes, single characters), instead of to every alert."""

    def __init__(self, searches: list[tuple[SearchQuery, Query]]) -> None:
        self.count = len(searches)
        self.by_key: dict[str, list[int]] = {}
        self.always: list[int] = []
        for n, (search, read) in enumerate(searches):
            keys = None if search.semantic else query_keys(read)
            if keys is None:
                self.always.append(n)
                continue
            for key in keys:
                self.by_key.setdefault(key, []).append(n)
        self.analysed = any(key.startswith(_MARKS) for key in self.by_key)

    def proposed(self, videos: list[tuple[Video, VideoText | None]]) -> list[list[Video]]:
        """For each alert (in the order given), the videos it may hear of, in order."""
        found: list[list[Video]] = [[] for _ in range(self.count)]
        for video, text in videos:
            if text is None:
                continue
            hit: set[int] = set(self.always)
            held = text.pairs | text.analysed if self.analysed else text.pairs
            for token in held & self.by_key.keys():
                hit.update(self.by_key[token])
            for n in sorted(hit):
                found[n].append(video)
        return found


def _first_moment(
    engine: SearchEngine, search: SearchQuery, alert_id: str, video_id: str
) -> Found | None:
    moments = engine.video_moments(search, video_id).moments
    if not moments:
        return None
    first = moments[0]
    return Found(alert_id, video_id, first.start, first.end, first.highlight)


def record(found: list[Found]) -> int:
    """Write the news, once per alert and video, for alerts still live; queue one mail
    per instant alert (not paused) that heard of something new, in the same
    transaction. How many news were new."""
    if not found:
        return 0
    messages: list[str] = []
    new = 0
    with write_transaction():
        wanted = sorted({news.alert_id for news in found})
        live = {
            alert.id: alert
            for first in range(0, len(wanted), LOOKUP_BATCH)
            for alert in Alert.select().where(
                Alert.id.in_(wanted[first : first + LOOKUP_BATCH]) & Alert.deleted_at.is_null()
            )
        }
        mailed: set[str] = set()
        for news in found:
            alert = live.get(news.alert_id)
            if alert is None:
                continue
            inserted = db.execute(
                AlertMatch.insert(
                    alert=news.alert_id,
                    video_id=news.video_id,
                    start_seconds=news.start,
                    end_seconds=news.end,
                    highlight=news.highlight,
                    found_at=now_iso(),
                ).on_conflict_ignore()
            ).rowcount
            if inserted != 1:
                continue
            new += 1
            if alert.frequency == "instant" and alert.paused_at is None:
                mailed.add(alert.id)
        messages = [outbox.add(MAIL_ACTOR, alert_id) for alert_id in sorted(mailed)]
    _send(messages)
    return new

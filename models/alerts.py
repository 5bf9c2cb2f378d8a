"""Alerts (issue 49, docs/alerts.md): a member's saved search, heard of whenever a video
indexed after it was made says it. The rules of saving, listing and deleting them, of
their news (`alert_matches`, written by models/alert_matching.py) and of their private
feed. Nobody but its member reads an alert: every call by a member names the member, and
an alert of another member, or a deleted one, is NotFound like an unknown one.
"""

from __future__ import annotations

import json
import math
import re
import secrets
import uuid
from collections.abc import Iterable
from dataclasses import dataclass
from typing import cast

from peewee import JOIN, Expression, ModelSelect, fn

from models import outbox
from models.clock import now_iso
from models.db import db, is_postgres, write_transaction
from models.errors import DomainError, NotFound, ValidationError
from models.plans import plan_of
from models.search import DEFAULT_SEMANTIC_RATIO, SearchQuery, bounds
from models.search.query import QueryError, parse_search
from models.settings import get_settings
from models.tables import Alert, AlertMatch, Channel, User, Video

PLAN_LIMITS = {"free": 3, "plus": 20, "pro": 100}
FREQUENCIES = ("instant", "daily")
# As /api/search's channels parameter: at most this many, each a platform id.
MAX_CHANNELS = 50
CHANNEL_ID = re.compile(r"[A-Za-z0-9_-]{1,64}")
# The news shown with each alert in a list of them (the account page).
LATEST_SHOWN = 3
# Entries a feed holds: the newest.
FEED_ENTRIES = 50
MAX_PER_PAGE = 100


# The actor that mails an instant alert's news (tasks/alert_mail.py; models/alert_mail.py).
MAIL_ACTOR = "send_alert_mail"


class PlanLimit(DomainError):
    """The member's plan holds no more alerts."""

    code = "plan_limit"
    status = 403
    message = "Your plan allows no more alerts."

    def __init__(self, plan: str, limit: int) -> None:
        super().__init__(
            f"The {plan} plan allows {limit} alerts; delete one, or choose a larger plan."
        )
        self.plan, self.limit = plan, limit


@dataclass(frozen=True)
class News:
    """A video an alert heard of, with the moment that says it."""

    video_id: str
    title: str  # the video's title ("" once the video is gone from the database)
    channel_title: str
    start: float | None
    end: float | None
    highlight: str  # HTML-escaped text with <mark> around the matched words
    found_at: str


@dataclass(frozen=True)
class AlertSummary:
    """A live alert as its member's list shows it."""

    alert: Alert
    channels: list[str]
    match_count: int
    latest: list[News]  # newest first, at most LATEST_SHOWN
    feed_url: str

    @property
    def paused_reason(self) -> str | None:
        return str(self.alert.paused_reason) if self.alert.paused_at else None


@dataclass(frozen=True)
class NewsPage:
    total: int
    news: list[News]  # newest first


def new_token() -> str:
    return secrets.token_urlsafe(24)


def feed_url(token: str) -> str:
    """The alert's private Atom feed, absolute (web/pages/alert_feed.py serves it)."""
    return f"{get_settings().public_base_url}/alerts/feed/{token}.atom"


def channels_of(alert: Alert) -> list[str]:
    found = json.loads(alert.channels or "[]")
    return [str(channel) for channel in found] if isinstance(found, list) else []


def search_of(alert: Alert) -> SearchQuery:
    """The search the alert saved, as the search page would ask it (QueryError when its
    query can no longer be read)."""
    return SearchQuery(
        q=alert.query,
        channels=tuple(channels_of(alert)),
        semantic=bool(alert.semantic),
        sr=float(alert.sr),
        per_page=1,
    )


# -- saving -------------------------------------------------------------------------------


def _checked_query(query: str) -> str:
    text = (query or "").strip()
    if not text:
        raise ValidationError("The query is empty.", fields={"query": "required"})
    if len(text) > bounds.MAX_QUERY_LENGTH:
        raise ValidationError(
            f"The query may be at most {bounds.MAX_QUERY_LENGTH} characters.",
            fields={"query": f"at most {bounds.MAX_QUERY_LENGTH} characters"},
        )
    try:
        read = parse_search(text)
    except QueryError as error:
        raise ValidationError(
            f"The query cannot be read: {error.short()}.", fields={"query": error.short()}
        ) from None
    if not read.groups:
        raise ValidationError("The query holds no word to look for.", fields={"query": "no words"})
    problem = bounds.query_problem(read)
    if problem:
        raise ValidationError(f"The query is too large: {problem}.", fields={"query": problem})
    return text


def _checked_channels(channels: Iterable[str]) -> list[str]:
    wanted = sorted({str(channel).strip() for channel in channels if str(channel).strip()})
    if len(wanted) > MAX_CHANNELS or not all(CHANNEL_ID.fullmatch(c) for c in wanted):
        raise ValidationError(
            "Channels are a list of channel ids.",
            fields={"channels": f"up to {MAX_CHANNELS} channel ids"},
        )
    if wanted:
        known = {c.id for c in Channel.select(Channel.id).where(Channel.id.in_(wanted))}
        unknown = [c for c in wanted if c not in known]
        if unknown:
            raise ValidationError(
                "Some channels are not known.",
                fields={"channels": f"unknown channel ids: {', '.join(unknown)}"},
            )
    return wanted


def _checked_sr(sr: float) -> float:
    if isinstance(sr, bool) or not isinstance(sr, int | float) or not math.isfinite(sr):
        raise ValidationError("sr is a number from 0 to 1.", fields={"sr": "a number from 0 to 1"})
    if not 0 <= sr <= 1:
        raise ValidationError("sr is a number from 0 to 1.", fields={"sr": "a number from 0 to 1"})
    return round(float(sr), 4)


def _lock_member(user_id: str) -> None:
    """Hold the member's row until the transaction ends, so two saves at once count one
    after the other (SQLite: BEGIN IMMEDIATE already serialises writers)."""
    if is_postgres():
        User.select(User.id).where(User.id == user_id).for_update().first()


def live_alerts(user_id: str) -> int:
    return Alert.select().where((Alert.user == user_id) & Alert.deleted_at.is_null()).count()


def create_alert(
    user_id: str,
    query: str,
    *,
    semantic: bool = False,
    sr: float = DEFAULT_SEMANTIC_RATIO,
    channels: Iterable[str] = (),
    frequency: str,
) -> Alert:
    """Save a search as an alert. ValidationError naming the field for a query that
    cannot be read (as /api/search's `q`), an unknown frequency or channel; PlanLimit
    past the plan's count. The count and the insert are one step: the member's row is
    held while both happen, so saves racing each other never pass the limit."""
    text = _checked_query(query)
    if frequency not in FREQUENCIES:
        raise ValidationError(
            "The frequency is instant or daily.", fields={"frequency": "instant or daily"}
        )
    ratio = _checked_sr(sr)
    wanted = _checked_channels(channels)
    plan = plan_of(user_id)
    limit = PLAN_LIMITS.get(plan, PLAN_LIMITS["free"])
    alert_id = str(uuid.uuid4())
    with write_transaction():
        _lock_member(user_id)
        if live_alerts(user_id) >= limit:
            raise PlanLimit(plan, limit)
        Alert.insert(
            id=alert_id,
            user=user_id,
            query=text,
            semantic=bool(semantic),
            sr=ratio,
            channels=json.dumps(wanted),
            frequency=frequency,
            feed_token=new_token(),
            unsubscribe_token=new_token(),
            created_at=now_iso(),
        ).execute()
    return Alert.get_by_id(alert_id)


# -- reading ------------------------------------------------------------------------------


def _own_live(user_id: str, alert_id: str) -> Alert:
    alert: Alert | None = Alert.get_or_none(
        (Alert.id == alert_id) & (Alert.user == user_id) & Alert.deleted_at.is_null()
    )
    if alert is None:
        raise NotFound("No alert of yours has this id.")
    return alert


def news_rows(where: Expression) -> ModelSelect[AlertMatch]:
    """The news `where` selects, each with its video's and channel's titles on the row
    (`video_title`, `channel_title`; empty once the video is gone). Unordered."""
    return (
        AlertMatch.select(
            AlertMatch.alert_id,
            AlertMatch.video_id,
            AlertMatch.start_seconds,
            AlertMatch.end_seconds,
            AlertMatch.highlight,
            AlertMatch.found_at,
            Video.title.alias("video_title"),
            Channel.title.alias("channel_title"),
        )
        .join(Video, JOIN.LEFT_OUTER, on=(Video.id == AlertMatch.video_id))
        .join(Channel, JOIN.LEFT_OUTER, on=(Channel.id == Video.channel))
        .where(where)
        .objects()  # the joined titles on the row itself
    )


NEWEST_FIRST = (AlertMatch.found_at.desc(), AlertMatch.video_id)


def _news_query(alert_id: str) -> ModelSelect[AlertMatch]:
    return news_rows(AlertMatch.alert == alert_id).order_by(*NEWEST_FIRST)


def _latest_news(alert_ids: list[str]) -> dict[str, list[News]]:
    """Each alert's newest LATEST_SHOWN news, in one query (a window per alert)."""
    rank = fn.ROW_NUMBER().over(partition_by=[AlertMatch.alert], order_by=list(NEWEST_FIRST))
    ranked = AlertMatch.select(AlertMatch.alert_id, AlertMatch.video_id, rank.alias("rank")).where(
        AlertMatch.alert.in_(alert_ids)
    )
    latest = ranked.alias("latest")
    rows = (
        news_rows(AlertMatch.alert.in_(alert_ids))
        .join(
            latest,
            on=(
                (latest.c.alert_id == AlertMatch.alert_id)
                & (latest.c.video_id == AlertMatch.video_id)
            ),
        )
        .where(latest.c.rank <= LATEST_SHOWN)
        .order_by(*NEWEST_FIRST)
    )
    found: dict[str, list[News]] = {alert_id: [] for alert_id in alert_ids}
    for row in rows:
        found[row.alert_id].append(_news(row))
    return found


def _news(row: AlertMatch) -> News:
    return News(
        video_id=row.video_id,
        title=getattr(row, "video_title", None) or "",
        channel_title=getattr(row, "channel_title", None) or "",
        start=row.start_seconds,
        end=row.end_seconds,
        highlight=row.highlight or "",
        found_at=row.found_at,
    )


def list_alerts(user_id: str) -> list[AlertSummary]:
    """The member's live alerts, newest first, each with its count of news and its
    latest news (paused ones too: their news still arrives, only mail stopped)."""
    alerts = list(
        Alert.select()
        .where((Alert.user == user_id) & Alert.deleted_at.is_null())
        .order_by(Alert.created_at.desc(), Alert.id)
    )
    if not alerts:
        return []
    ids = [alert.id for alert in alerts]
    counted = (
        AlertMatch.select(AlertMatch.alert_id, fn.COUNT(AlertMatch.video_id).alias("n"))
        .where(AlertMatch.alert.in_(ids))
        .group_by(AlertMatch.alert_id)
    )
    counts = {alert_id: int(n) for alert_id, n in cast(Iterable[tuple[str, int]], counted.tuples())}
    latest = _latest_news(ids)
    return [
        AlertSummary(
            alert=alert,
            channels=channels_of(alert),
            match_count=int(counts.get(alert.id, 0)),
            latest=latest[alert.id],
            feed_url=feed_url(alert.feed_token),
        )
        for alert in alerts
    ]


def get_alert(user_id: str, alert_id: str) -> Alert:
    return _own_live(user_id, alert_id)


def alert_matches(user_id: str, alert_id: str, page: int = 1, per_page: int = 20) -> NewsPage:
    """A page of the alert's news, newest first."""
    alert = _own_live(user_id, alert_id)
    page, per_page = max(1, page), min(max(1, per_page), MAX_PER_PAGE)
    total = AlertMatch.select().where(AlertMatch.alert == alert.id).count()
    rows = _news_query(alert.id).paginate(page, per_page)
    return NewsPage(total, [_news(row) for row in rows])


# -- changing -----------------------------------------------------------------------------


def delete_alert(user_id: str, alert_id: str) -> None:
    """Delete the member's alert: no more news, mail or feed. One conditional statement:
    of two deletes at once one deletes, the other is NotFound."""
    deleted = (
        Alert.update(deleted_at=now_iso())
        .where((Alert.id == alert_id) & (Alert.user == user_id) & Alert.deleted_at.is_null())
        .execute()
    )
    if deleted != 1:
        raise NotFound("No alert of yours has this id.")


def renew_feed_token(user_id: str, alert_id: str) -> str:
    """A new private address for the alert's feed; the old one answers 404 from now on."""
    token = new_token()
    renewed = (
        Alert.update(feed_token=token)
        .where((Alert.id == alert_id) & (Alert.user == user_id) & Alert.deleted_at.is_null())
        .execute()
    )
    if renewed != 1:
        raise NotFound("No alert of yours has this id.")
    return token


def resume_mail(user_id: str, alert_id: str) -> Alert:
    """Mail again for the member's alert paused after repeated refusals (the mailbox is
    fixed): its refusals forgotten in the one conditional statement that resumes it, and
    the news that waited meanwhile mailed now (instant; a daily alert's goes in its next
    digest), through the outbox. Resuming an alert that is not paused changes nothing.
    NotFound for another member's, an unknown or a deleted alert."""
    message = None
    with write_transaction():
        resumed = (
            Alert.update(paused_at=None, paused_reason=None, mail_failures=0)
            .where(
                (Alert.id == alert_id)
                & (Alert.user == user_id)
                & Alert.deleted_at.is_null()
                & Alert.paused_at.is_null(False)
            )
            .execute()
        )
        alert = _own_live(user_id, alert_id)
        waiting = (
            AlertMatch.select()
            .where((AlertMatch.alert == alert.id) & AlertMatch.mailed_at.is_null())
            .exists()
        )
        if resumed and alert.frequency == "instant" and waiting:
            message = outbox.add(MAIL_ACTOR, alert.id)
    if message:
        outbox.send(message)  # after commit; one not sent waits for the redrive
    return alert


def has_alert(user_id: str, query: SearchQuery) -> bool:
    """Whether one of the member's live alerts is this search (the same words, channels
    and meaning), so a page offers no second one. Only the alerts with these very words
    are read."""
    wanted = (query.semantic, round(query.sr, 4) if query.semantic else None, set(query.channels))
    same_words = Alert.select().where(
        (Alert.user == user_id) & Alert.deleted_at.is_null() & (Alert.query == query.q.strip())
    )
    return any(
        (bool(a.semantic), round(a.sr, 4) if a.semantic else None, set(channels_of(a))) == wanted
        for a in same_words
    )


def feed_of(token: str) -> tuple[Alert, list[News]]:
    """The live alert whose feed `token` opens, and its newest news; NotFound for a
    token unknown, renewed since, or of a deleted alert."""
    alert: Alert | None = (
        Alert.get_or_none((Alert.feed_token == token) & Alert.deleted_at.is_null())
        if token
        else None
    )
    if alert is None:
        raise NotFound("No feed has this address.")
    return alert, [_news(row) for row in _news_query(alert.id).limit(FEED_ENTRIES)]


def unsubscribe(token: str) -> Alert | None:
    """The mail's one-click unsubscribe (RFC 8058): the alert whose `unsubscribe_token`
    this is, deleted (again: a second click changes nothing); None for an unknown token."""
    if not token:
        return None
    with db.atomic():
        Alert.update(deleted_at=now_iso()).where(
            (Alert.unsubscribe_token == token) & Alert.deleted_at.is_null()
        ).execute()
    found: Alert | None = Alert.get_or_none(Alert.unsubscribe_token == token)
    return found

"""Alerts (docs/alerts.md): a saved search heard of whenever a new video says it."""

from __future__ import annotations

from typing import Annotated, Literal, get_args

from pydantic import Field

from models.alerts import MAX_CHANNELS, MAX_PER_PAGE, AlertSummary, News, feed_url
from models.alerts import channels_of as alert_channels
from models.search import DEFAULT_SEMANTIC_RATIO, bounds
from models.tables import Alert as AlertRow
from web.api.schemas.catalog import watch_url
from web.api.schemas.common import (
    Body,
    PathParams,
    PlatformId,
    Query,
    Response,
    Timestamp,
    Uuid,
    known,
    text,
)

Frequency = Literal["instant", "daily"]
FREQUENCY_CHOICES: tuple[Frequency, ...] = get_args(Frequency)


class AlertPath(PathParams):
    alert_id: Uuid


class NewAlert(Body):
    query: Annotated[str, text(bounds.MAX_QUERY_LENGTH, min_length=1)] = Field(
        description="The search, in the query language as /api/search's `q` reads it"
        f" (1-{bounds.MAX_QUERY_LENGTH} characters; filters and excluded words hold). A"
        " query that cannot be read is 400 invalid_request naming `query`",
        examples=["たこ焼き -冷凍 lang:ja"],
    )
    semantic: bool = Field(
        default=False, description="Search by meaning as well as by keywords (weighed by `sr`)"
    )
    sr: float = Field(
        default=DEFAULT_SEMANTIC_RATIO,
        ge=0,
        le=1,
        allow_inf_nan=False,
        description="With semantic, how far it leans to meaning: 0 keywords only, 1 meaning only",
    )
    channels: list[PlatformId] = Field(
        default_factory=list,
        max_length=MAX_CHANNELS,
        description=f"Only videos of these channels (up to {MAX_CHANNELS} known channel ids);"
        " empty: any channel",
    )
    frequency: Frequency = Field(
        description="`instant`: a mail for each batch of news; `daily`: one digest a day"
        " at the set hour of the member's time zone"
    )


class AlertMatch(Response):
    video_id: str
    title: str = Field(description="The video's title")
    start: float | None = Field(description="Seconds: where the first moment that says it starts")
    end: float | None
    highlight: str = Field(description="HTML-escaped text with <mark> around the matched words")
    url: str = Field(description="The video on the platform at that moment")
    found_at: Timestamp = Field(description="When the alert heard of it")

    @classmethod
    def of(cls, news: News) -> AlertMatch:
        return cls(
            video_id=news.video_id,
            title=news.title,
            start=news.start,
            end=news.end,
            highlight=news.highlight,
            url=watch_url(news.video_id, news.start),
            found_at=news.found_at,
        )


class Alert(Response):
    id: str
    query: str
    semantic: bool
    sr: float
    channels: list[str]
    frequency: Frequency
    feed_url: str = Field(
        description="The alert's private Atom feed (application/atom+xml), readable without"
        " signing in by whoever has the address; renew it with POST"
        " /api/alerts/{alertId}/feed-token. 404 once the alert is deleted"
    )
    created_at: Timestamp
    match_count: int | None = Field(
        default=None, description="How many videos the alert heard of (in the list)"
    )
    latest_matches: list[AlertMatch] | None = Field(
        default=None, description="Its newest news, at most 3 (in the list)"
    )
    paused_reason: str | None = Field(
        default=None,
        description="Why its mail is paused (repeated refusals of the address); news still"
        " arrives in the app and the feed. Null while mail goes out (in the list)",
    )

    @classmethod
    def of(cls, alert: AlertRow) -> Alert:
        return cls(
            id=alert.id,
            query=alert.query,
            semantic=bool(alert.semantic),
            sr=float(alert.sr),
            channels=alert_channels(alert),
            frequency=known(alert.frequency, FREQUENCY_CHOICES),
            feed_url=feed_url(alert.feed_token),
            created_at=alert.created_at,
        )

    @classmethod
    def listed(cls, summary: AlertSummary) -> Alert:
        alert = cls.of(summary.alert)
        alert.match_count = summary.match_count
        alert.latest_matches = [AlertMatch.of(news) for news in summary.latest]
        alert.paused_reason = summary.paused_reason
        return alert


class AlertCreated(Response):
    alert: Alert


class Alerts(Response):
    alerts: list[Alert] = Field(description="The caller's alerts, newest first")


class MatchesParams(Query):
    page: int = Field(default=1, ge=1, le=100_000, description="From 1")
    per_page: int = Field(default=20, ge=1, le=MAX_PER_PAGE)


class AlertMatches(Response):
    matches: list[AlertMatch] = Field(description="Newest first")
    page: int
    per_page: int
    total: int = Field(description="How many videos the alert heard of")
    total_pages: int


class FeedToken(Response):
    feed_url: str = Field(description="The feed's new address; the old one answers 404")

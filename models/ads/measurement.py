"""Measurement of direct ads: what a click or an impression beacon counts, clicks logged
once per click id, impressions counted once per event id into one row per (reservation,
UTC date, country), and only inside the reservation's contract period (docs/ads.md,
Direct ads: delivery, measurement and reports)."""

from __future__ import annotations

import re
import uuid
from dataclasses import dataclass
from datetime import datetime, timedelta
from functools import lru_cache
from typing import NamedTuple, Protocol

import redis
from crawleruseragents import is_crawler
from peewee import SQL

from models import redis_client
from models.ads import view_tokens
from models.ads.delivery import active_reservations
from models.ads.months import month_of
from models.clock import iso, now_iso, utcnow
from models.countries import usable_country
from models.db import db, is_postgres, write_transaction
from models.errors import NotFound
from models.metrics import INVALID_BEACONS
from models.tables import AdClickLog, AdImpressionDaily, AdImpressionEvent, AdReservation

# The spec's patterns, on top of the maintained list.
SPEC_BOT = re.compile(r"bot|crawler|spider", re.IGNORECASE)
EVENT_KEEP = timedelta(days=7)
# A little longer than a view token lives, so a replay within its life is caught here.
SEEN_SECONDS = 31 * 60
SEEN_KEY = "subsearch:ads:seen:"
UNKNOWN_COUNTRY = "unknown"
# The first key of the PostgreSQL advisory lock held while a click's view token is judged
# (the second is the token's hash); any constant not used by another lock.
CLICK_TOKEN_LOCK = 0x0AD0C11C


@lru_cache(maxsize=4096)
def is_bot(user_agent: str | None) -> bool:
    """A missing User-Agent is no browser's either."""
    if not user_agent or not user_agent.strip():
        return True
    return bool(SPEC_BOT.search(user_agent)) or is_crawler(user_agent)


def stored_country(header: str | None) -> str:
    return usable_country(header) or UNKNOWN_COUNTRY


class AdState(NamedTuple):
    status: str  # "unknown" | "inactive" | "active"
    redirect_url: str | None
    # Active and inside its contract period now: only then is anything counted. An
    # approved ad is active before its start month, and stays active for minutes after
    # its end month until the daily expiry job runs.
    counts: bool


def reservation_state(reservation_id: str, now: datetime | None = None) -> AdState:
    """Live ads come from the delivery cache; only other ids are looked up."""
    month = month_of(now or utcnow())
    live = active_reservations().get(reservation_id)
    if live is not None:
        return AdState("active", live.redirect_url, live.in_period(month))
    row = (
        AdReservation.select(
            AdReservation.status,
            AdReservation.redirect_url,
            AdReservation.start_month,
            AdReservation.end_month,
        )
        .where(AdReservation.id == reservation_id)
        .first()
    )
    if row is None:
        return AdState("unknown", None, False)
    if row.status != "active":
        return AdState("inactive", row.redirect_url, False)
    return AdState("active", row.redirect_url, row.start_month <= month <= row.end_month)


def seen_before(identity: str) -> bool:
    """A cheap first filter of replayed view tokens, before anything is queued. The
    event id recorded with the count stays the authority: when Redis is down this says
    no and the database still counts the token once."""
    if not redis_client.available():
        return False
    try:
        first = redis_client.get_redis().set(SEEN_KEY + identity, 1, nx=True, ex=SEEN_SECONDS)
    except redis.RedisError as error:
        redis_client.mark_down(error)
        return False
    return not first


def new_event_id() -> str:
    return str(uuid.uuid4())


@dataclass(frozen=True)
class Beacon:
    """What a click or an impression beacon says, as the request gave it."""

    reservation_id: str
    token: str | None  # the view token (`v`), unchecked
    user_agent: str | None
    edge_country: str | None  # the edge's country header, unchecked
    now: datetime


@dataclass(frozen=True)
class Click:
    """One click to log: the fields, names and order of the record_click message.
    view_token and is_bot come last and optional, so messages queued before them still
    run."""

    click_id: str
    reservation_id: str
    country: str
    user_agent: str | None
    at: str
    view_token: str | None = None  # only a genuine one
    is_bot: bool = False


@dataclass(frozen=True)
class ClickAnswer:
    redirect_url: str  # where the visitor goes, whether the click counts or not
    click: Click | None  # None outside the contract period: nothing is logged


@dataclass(frozen=True)
class Impression:
    """One impression to count: the fields, names and order of the record_impression
    message."""

    event_id: str
    reservation_id: str
    date: str
    country: str
    at: str


class InvalidBeacons(Protocol):
    """Invalid impression beacons counted per address (web/limits.py's BeaconFlood)."""

    def flooded(self, address: str) -> bool: ...

    def note(self, address: str, reason: str) -> None: ...


def judge_click(beacon: Beacon) -> ClickAnswer:
    """Where the visitor goes and the click to log. Outside the contract period the
    visitor goes on and nothing is logged. A bot's click is logged too, marked, and
    left out of the reports' figures. The click id is made here, so a redelivered
    message logs nothing more."""
    state = reservation_state(beacon.reservation_id, beacon.now)
    # An active ad always has its URL: the second test is for the type checker.
    if state.status != "active" or state.redirect_url is None:
        raise NotFound("No active ad has this id.")
    if not state.counts:
        return ClickAnswer(state.redirect_url, None)
    # An expired but genuine token still shows the ad was served: a page left open
    # gets real clicks.
    genuine = view_tokens.verify(beacon.token, beacon.reservation_id, beacon.now).genuine
    click = Click(
        click_id=new_event_id(),
        reservation_id=beacon.reservation_id,
        country=stored_country(beacon.edge_country),
        user_agent=beacon.user_agent,
        at=iso(beacon.now),
        view_token=beacon.token if genuine else None,
        is_bot=is_bot(beacon.user_agent),
    )
    return ClickAnswer(state.redirect_url, click)


def judge_impression(beacon: Beacon, invalid: InvalidBeacons, address: str) -> Impression | None:
    """The impression to count, None when it counts nothing: one viewable impression
    per view token, whose render identity is the event id, so a replay (here or after a
    redelivery) counts nothing. Bots count nothing."""
    if is_bot(beacon.user_agent):
        return None
    # The signature is checked first (no lookup): an address flooding invalid tokens is
    # answered here, while a valid token is never limited (docs/operating.md, Rate limits).
    seen = view_tokens.verify(beacon.token, beacon.reservation_id, beacon.now)
    if seen.status != view_tokens.VALID:
        if invalid.flooded(address):
            INVALID_BEACONS.labels(reason="flood").inc()
            return None
        invalid.note(address, seen.status)
    state = reservation_state(beacon.reservation_id, beacon.now)
    if state.status == "unknown":
        raise NotFound("No ad has this id.")
    identity = seen.identity if seen.status == view_tokens.VALID else None
    if not state.counts or identity is None:
        return None
    if seen_before(identity):
        invalid.note(address, "replayed")
        return None
    at = iso(beacon.now)
    return Impression(
        event_id=identity,
        reservation_id=beacon.reservation_id,
        date=at[:10],
        country=stored_country(beacon.edge_country),
        at=at,
    )


def record_click(click: Click) -> bool:
    """Insert the click under its own id, with the view token it carried if that was
    genuine and whether a bot made it (kept, but left out of the reports' figures); a
    second delivery of the same click inserts nothing. Returns whether a row was added.

    A view token counts one verified click: a human click whose token an earlier human
    click carried is kept as a repeat, left out of the figures. Whether one came before
    is decided in one transaction that holds the token (the write lock on SQLite, a
    lock on the token's hash on PostgreSQL), so clicks at once cannot all be first."""
    user_agent = click.user_agent
    values: dict[str, object] = {
        "id": click.click_id,
        "ad_reservation": click.reservation_id,
        "country": click.country,
        "user_agent": (user_agent or None) and user_agent[:512],
        "created_at": click.at,
        "view_token": click.view_token,
        "is_bot": click.is_bot,
    }
    if click.view_token is None or click.is_bot:
        return _insert_click(values, is_repeat=False)
    with write_transaction():
        if is_postgres():
            db.execute_sql(
                "SELECT pg_advisory_xact_lock(%s, hashtext(%s))",
                (CLICK_TOKEN_LOCK, f"{click.reservation_id}:{click.view_token}"),
            )
        earlier = (
            AdClickLog.select(SQL("1"))
            .where(
                (AdClickLog.ad_reservation == click.reservation_id)
                & (AdClickLog.view_token == click.view_token)
                & (AdClickLog.is_bot == False)  # noqa: E712 (SQL, not Python)
            )
            .exists()
        )
        # A redelivered click finds itself here, and then inserts nothing anyway.
        return _insert_click(values, is_repeat=earlier)


def _insert_click(values: dict[str, object], is_repeat: bool) -> bool:
    query = AdClickLog.insert(**values, is_repeat=is_repeat).on_conflict_ignore()
    inserted: int = db.execute(query).rowcount
    return inserted == 1


def record_impression(
    event_id: str, reservation_id: str, date: str, country: str, at: str | None = None
) -> bool:
    """Count one impression: the event id recorded once and the day's row upserted with
    impressions + 1, in one transaction. A redelivered event counts nothing."""
    at = at or now_iso()
    with write_transaction():
        first = (
            db.execute(
                AdImpressionEvent.insert(id=event_id, created_at=at).on_conflict_ignore()
            ).rowcount
            == 1
        )
        if not first:
            return False
        (
            AdImpressionDaily.insert(
                id=str(uuid.uuid4()),
                ad_reservation=reservation_id,
                date=date,
                country=country,
                impressions=1,
                created_at=at,
                updated_at=at,
            )
            .on_conflict(
                conflict_target=[
                    AdImpressionDaily.ad_reservation,
                    AdImpressionDaily.date,
                    AdImpressionDaily.country,
                ],
                update={
                    AdImpressionDaily.impressions: AdImpressionDaily.impressions + 1,
                    AdImpressionDaily.updated_at: at,
                },
            )
            .execute()
        )
    return True


def prune_impression_events(now: datetime | None = None) -> int:
    cutoff = iso((now or utcnow()) - EVENT_KEEP)
    pruned: int = AdImpressionEvent.delete().where(AdImpressionEvent.created_at < cutoff).execute()
    return pruned

"""Measurement of direct ads: what a click or an impression beacon counts, clicks logged
once per click id, impressions counted once per event id into one row per (reservation,
UTC date, country), and only inside the reservation's contract period (docs/ads.md,
Direct ads: delivery, measurement and reports). The writing itself, a batch or one
event, is models/ads/counting.py's."""

from __future__ import annotations

import re
import uuid
from dataclasses import dataclass
from datetime import datetime, timedelta
from functools import lru_cache
from typing import NamedTuple, Protocol

from crawleruseragents import is_crawler

from models.ads import counting, view_tokens

# The events a beacon makes, where callers of the judging find them (re-exported).
from models.ads.counting import Click as Click
from models.ads.counting import Impression as Impression
from models.ads.delivery import active_reservations
from models.ads.months import month_of
from models.clock import iso, now_iso, utcnow
from models.countries import usable_country
from models.errors import NotFound
from models.metrics import INVALID_BEACONS
from models.tables import AdImpressionEvent, AdReservation

# The spec's patterns, on top of the maintained list.
SPEC_BOT = re.compile(r"bot|crawler|spider", re.IGNORECASE)
EVENT_KEEP = timedelta(days=7)
UNKNOWN_COUNTRY = "unknown"


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
class ClickAnswer:
    redirect_url: str  # where the visitor goes, whether the click counts or not
    click: Click | None  # None outside the contract period: nothing is logged


class InvalidBeacons(Protocol):
    """Invalid impression beacons counted per address (web/limits.py's BeaconFlood)."""

    def flooded(self, address: str) -> bool: ...

    def note(self, address: str, reason: str) -> None: ...


def judge_click(beacon: Beacon) -> ClickAnswer:
    """Where the visitor goes and the click to log. Outside the contract period the
    visitor goes on and nothing is logged. A bot's click, and one whose view token is
    missing, forged, expired or another reservation's, is logged too, marked (the
    token's fault as `invalid_reason`), and left out of the reports' figures. The click
    id is made here, so a redelivered message logs nothing more."""
    state = reservation_state(beacon.reservation_id, beacon.now)
    # An active ad always has its URL: the second test is for the type checker.
    if state.status != "active" or state.redirect_url is None:
        raise NotFound("No active ad has this id.")
    if not state.counts:
        return ClickAnswer(state.redirect_url, None)
    seen = view_tokens.verify(beacon.token, beacon.reservation_id, beacon.now)
    click = Click(
        click_id=new_event_id(),
        reservation_id=beacon.reservation_id,
        country=stored_country(beacon.edge_country),
        user_agent=beacon.user_agent,
        at=iso(beacon.now),
        # A genuine token is kept, expired too; a forged one is anyone's text.
        view_token=beacon.token if seen.genuine else None,
        is_bot=is_bot(beacon.user_agent),
        invalid_reason=invalid_reason(beacon.token, seen),
    )
    return ClickAnswer(state.redirect_url, click)


def invalid_reason(token: str | None, seen: view_tokens.Verified) -> str | None:
    """Why a click's view token leaves it out of the figures, None when it counts. A
    token for another reservation fails its signature, as a forged one does (the MAC
    covers the reservation id, which the token does not carry): both are bad."""
    if seen.status == view_tokens.VALID:
        return None
    if not token:
        return counting.MISSING_TOKEN
    if seen.status == view_tokens.EXPIRED:
        return counting.EXPIRED_TOKEN
    return counting.BAD_TOKEN


def judge_impression(beacon: Beacon, invalid: InvalidBeacons, address: str) -> Impression | None:
    """The impression to count, None when it counts nothing: one viewable impression
    per view token, whose render identity is the event id, so a replay counts nothing
    (the hand-off drops one cheaply, workers/beacons.py, and the event id counts a token
    once whatever comes through). Bots count nothing."""
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
    at = iso(beacon.now)
    return Impression(
        event_id=identity,
        reservation_id=beacon.reservation_id,
        date=at[:10],
        country=stored_country(beacon.edge_country),
        at=at,
    )


def note_replay(invalid: InvalidBeacons, address: str) -> None:
    """An impression beacon whose view token was posted before: it counts nothing, and
    is one more invalid beacon from its address."""
    invalid.note(address, "replayed")


def record_click(click: Click) -> bool:
    """Log one click as a batch of one (models/ads/counting.py: its own id, its token's
    first click or a repeat, a bot's marked); a second delivery of the same click
    inserts nothing. Returns whether a row was added."""
    return counting.count([], [click]).clicks == 1


def record_impression(
    event_id: str, reservation_id: str, date: str, country: str, at: str | None = None
) -> bool:
    """Count one impression as a batch of one: its event id recorded and the day's row
    upserted in one transaction. A redelivered event counts nothing."""
    impression = Impression(event_id, reservation_id, date, country, at or now_iso())
    return counting.count([impression], []).impressions == 1


def prune_impression_events(now: datetime | None = None) -> int:
    cutoff = iso((now or utcnow()) - EVENT_KEEP)
    pruned: int = AdImpressionEvent.delete().where(AdImpressionEvent.created_at < cutoff).execute()
    return pruned

"""Measurement of direct ads: clicks logged once per click id, impressions counted
once per event id into one row per (reservation, UTC date, country)."""

from __future__ import annotations

import re
import uuid
from datetime import datetime, timedelta
from functools import lru_cache

from crawleruseragents import is_crawler

from models.clock import iso, now_iso, utcnow
from models.countries import usable_country
from models.db import db, write_transaction
from models.tables import AdClickLog, AdImpressionDaily, AdImpressionEvent, AdReservation

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


def reservation_state(reservation_id: str) -> tuple[str, str | None]:
    """("unknown" | "inactive" | "active", redirect_url). Live ads come from the delivery
    cache; only other ids are looked up."""
    from models.ads.delivery import active_redirects

    target = active_redirects().get(reservation_id)
    if target is not None:
        return "active", target
    row = (
        AdReservation.select(AdReservation.status, AdReservation.redirect_url)
        .where(AdReservation.id == reservation_id)
        .first()
    )
    if row is None:
        return "unknown", None
    return ("active" if row.status == "active" else "inactive"), row.redirect_url


def new_event_id() -> str:
    return str(uuid.uuid4())


def record_click(
    click_id: str, reservation_id: str, country: str, user_agent: str | None, at: str
) -> bool:
    """Insert the click under its own id; a second delivery of the same click inserts
    nothing. Returns whether a row was added."""
    query = AdClickLog.insert(
        id=click_id,
        ad_reservation=reservation_id,
        country=country,
        user_agent=(user_agent or None) and user_agent[:512],
        created_at=at,
    ).on_conflict_ignore()
    return db.execute(query).rowcount == 1


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
    return AdImpressionEvent.delete().where(AdImpressionEvent.created_at < cutoff).execute()

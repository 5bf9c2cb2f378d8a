"""Counting clicks and impressions, a batch at a time and each event exactly once: what
one transaction writes for the events it is given, and which of them count (docs/ads.md,
Counting). The batch comes from the beacons' stream (workers/beacons.py), or is one event
from a beacon that found Redis down."""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import TypeVar

from peewee import EXCLUDED

from models.db import db, is_postgres, write_transaction
from models.tables import AdClickLog, AdImpressionDaily, AdImpressionEvent

# The first key of the PostgreSQL advisory locks held while clicks' view tokens are
# judged (the second is the token's hash); any constant not used by another lock.
CLICK_TOKEN_LOCK = 0x0AD0C11C
# Rows per INSERT: far below SQLite's 32,766 and PostgreSQL's 65,535 parameters.
ROWS_PER_STATEMENT = 500

T = TypeVar("T")


# Why a click is left out of the figures (docs/ads.md, Clicks): decided once, where the
# click is taken (models/ads/measurement.py), and logged with it.
MISSING_TOKEN = "missing_token"  # the URL carried no view token
BAD_TOKEN = "bad_token"  # not one this service signed for this reservation
EXPIRED_TOKEN = "expired_token"  # genuine, but older than its 30 minutes
# Logged without a genuine token by a release that did not record the reason yet
# (migration 0018 marked those rows): missing or forged, no telling which.
UNVERIFIED = "unverified"
INVALID_REASONS = (MISSING_TOKEN, BAD_TOKEN, EXPIRED_TOKEN, UNVERIFIED)


@dataclass(frozen=True)
class Click:
    """One click to log, as the beacons' stream carries it (every field, each time)."""

    click_id: str
    reservation_id: str
    country: str
    user_agent: str | None
    at: str
    view_token: str | None = None  # only a genuine one (expired included)
    is_bot: bool = False
    # Why the click does not count (INVALID_REASONS); None for a valid view token.
    invalid_reason: str | None = None


@dataclass(frozen=True)
class Impression:
    """One impression to count, as the beacons' stream carries it."""

    event_id: str
    reservation_id: str
    date: str
    country: str
    at: str


@dataclass(frozen=True)
class Counted:
    """What a batch added: impressions counted, click rows logged (a bot's, a repeat's or
    an invalid token's included: logged, though left out of the figures). A redelivered
    event adds nothing."""

    impressions: int = 0
    clicks: int = 0

    def __add__(self, other: Counted) -> Counted:
        return Counted(self.impressions + other.impressions, self.clicks + other.clicks)


def count(impressions: Sequence[Impression], clicks: Sequence[Click]) -> Counted:
    """Write a batch in one transaction. Each event id is inserted first, and only the
    ones newly inserted count: an impression's id in ad_impression_events, a click's as
    its row's primary key. So a batch given twice, or an event twice in one batch, or
    an event already counted one at a time, counts once."""
    with write_transaction():
        added_impressions = _count_impressions(impressions)
        added_clicks = _log_clicks(clicks)
    return Counted(added_impressions, added_clicks)


def _count_impressions(impressions: Sequence[Impression]) -> int:
    """New impressions summed per (reservation, UTC date, country) and each sum added in
    one upsert, in key order (two batches at once on PostgreSQL take the rows' locks in
    the same order, so neither waits on the other in a circle)."""
    events = _first_of_each(impressions, lambda i: i.event_id)
    new: set[str] = set()
    for part in _parts(list(events.values())):
        rows = [{"id": i.event_id, "created_at": i.at} for i in part]
        query = AdImpressionEvent.insert_many(rows).on_conflict_ignore()
        new.update(row[0] for row in query.returning(AdImpressionEvent.id).tuples().execute())
    sums: dict[tuple[str, str, str], tuple[int, str]] = {}
    for event in events.values():
        if event.event_id in new:
            key = (event.reservation_id, event.date, event.country)
            counted, latest = sums.get(key, (0, event.at))
            sums[key] = (counted + 1, max(latest, event.at))
    days = [
        {
            "id": str(uuid.uuid4()),
            "ad_reservation": reservation_id,
            "date": date,
            "country": country,
            "impressions": added,
            "created_at": at,
            "updated_at": at,
        }
        for (reservation_id, date, country), (added, at) in sorted(sums.items())
    ]
    for rows_part in _parts(days):
        (
            AdImpressionDaily.insert_many(rows_part)
            .on_conflict(
                conflict_target=[
                    AdImpressionDaily.ad_reservation,
                    AdImpressionDaily.date,
                    AdImpressionDaily.country,
                ],
                update={
                    AdImpressionDaily.impressions: AdImpressionDaily.impressions
                    + EXCLUDED.impressions,
                    AdImpressionDaily.updated_at: EXCLUDED.updated_at,
                },
            )
            .execute()
        )
    return len(new)


def _log_clicks(clicks: Sequence[Click]) -> int:
    """Insert the clicks not logged yet. A view token counts one click: a valid human
    click whose token an earlier one carried (logged before, or earlier in this batch)
    is kept as a repeat; an invalid click (an expired token) is never a repeat, nor
    makes one. That is decided holding every token of the batch: the
    transaction's write lock on SQLite, a lock per token's hash on PostgreSQL (the same
    ones a single click takes), so clicks of one token in two batches at once cannot
    both be first."""
    unique = _first_of_each(clicks, lambda c: c.click_id)
    if not unique:
        return 0
    tokened = [c for c in unique.values() if _takes_token(c)]
    if tokened and is_postgres():
        _lock_tokens(sorted({f"{c.reservation_id}:{c.view_token}" for c in tokened}))
    logged = _logged_ids(list(unique))
    fresh = [c for c in unique.values() if c.click_id not in logged]
    earlier = _tokens_clicked(tokened)
    rows = []
    for click in fresh:
        repeat = False
        if _takes_token(click) and click.view_token is not None:
            token = (click.reservation_id, click.view_token)
            repeat = token in earlier
            earlier.add(token)
        rows.append(_click_row(click, repeat))
    added = 0
    for part in _parts(rows):
        query = AdClickLog.insert_many(part).on_conflict_ignore()
        added += len(list(query.returning(AdClickLog.id).tuples().execute()))
    return added


def _takes_token(click: Click) -> bool:
    """Whether the click may be its token's counted click (a human's, token valid)."""
    return click.view_token is not None and not click.is_bot and click.invalid_reason is None


def _lock_tokens(keys: list[str]) -> None:
    """Every token's lock, in the order of their hashes: one order for every
    transaction, so two batches sharing tokens queue up instead of deadlocking."""
    db.execute_sql(
        "SELECT pg_advisory_xact_lock(%s, held.hash) FROM ("
        " SELECT DISTINCT hashtext(key) AS hash FROM unnest(%s::text[]) AS key ORDER BY 1"
        ") AS held",
        (CLICK_TOKEN_LOCK, keys),
    )


def _logged_ids(click_ids: list[str]) -> set[str]:
    logged: set[str] = set()
    for part in _parts(click_ids):
        query = AdClickLog.select(AdClickLog.id).where(AdClickLog.id.in_(part))
        logged.update(str(row.id) for row in query)
    return logged


def _tokens_clicked(tokened: list[Click]) -> set[tuple[str, str]]:
    """Which (reservation, token) pairs of these clicks a valid human click already
    carried."""
    wanted = {(c.reservation_id, c.view_token) for c in tokened if c.view_token is not None}
    found: set[tuple[str, str]] = set()
    reservations = sorted({reservation for reservation, _ in wanted})
    for part in _parts(sorted({token for _, token in wanted})):
        query = (
            AdClickLog.select(AdClickLog.ad_reservation, AdClickLog.view_token)
            .where(
                AdClickLog.ad_reservation.in_(reservations)
                & AdClickLog.view_token.in_(part)
                & (AdClickLog.is_bot == False)  # noqa: E712 (SQL, not Python)
                & AdClickLog.invalid_reason.is_null()
            )
            .distinct()
        )
        pairs = {(str(row.ad_reservation_id), str(row.view_token)) for row in query}
        found.update(pairs & wanted)
    return found


def _click_row(click: Click, is_repeat: bool) -> dict[str, object]:
    user_agent = click.user_agent
    return {
        "id": click.click_id,
        "ad_reservation": click.reservation_id,
        "country": click.country,
        "user_agent": (user_agent or None) and user_agent[:512],
        "created_at": click.at,
        "view_token": click.view_token,
        "is_bot": click.is_bot,
        "is_repeat": is_repeat,
        "invalid_reason": click.invalid_reason,
    }


def _first_of_each(events: Sequence[T], key: Callable[[T], str]) -> dict[str, T]:
    """The events by id, the first of each id in batch order (the order they came)."""
    first: dict[str, T] = {}
    for event in events:
        first.setdefault(key(event), event)
    return first


def _parts(items: list[T]) -> Iterator[list[T]]:
    for start in range(0, len(items), ROWS_PER_STATEMENT):
        yield items[start : start + ROWS_PER_STATEMENT]

"""What administrators see: reservations with their measurements, the timeline of
active ads, and ad revenue read back from the payment provider."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, cast

from peewee import SQL, ModelSelect, fn

from models.ads import POSITIONS, SLOT_IDS
from models.ads.delivery_state import DeliveryState, delivery_state
from models.ads.inventory import slot_problem
from models.ads.months import add_months, month_of
from models.clock import utcnow
from models.countries import country_problem, usable_country
from models.errors import NotFound, ValidationError
from models.payments import get_provider
from models.problems import Problem
from models.settings import get_settings
from models.tables import AdClickLog, AdImpressionDaily, AdReservation, AdStopNotice

STATUSES = ("pending_review", "active", "stopped", "expired")
TIMELINE_MONTHS = 13  # the current month and 12 ahead
# A human's click whose view token was not valid (a bot's is a bot's), as the literal
# condition of the partial index idx_ad_click_logs_invalid (migration 0018): a bound
# parameter would not match it.
INVALID_HUMAN = "invalid_reason IS NOT NULL AND is_bot = 0"


@dataclass(frozen=True)
class Figures:
    """Impressions and clicks (bot clicks, repeats of a view token and clicks without a
    valid one left out) over some span."""

    impressions: int
    clicks: int

    @property
    def ctr(self) -> float | None:
        return None if self.impressions == 0 else self.clicks / self.impressions


@dataclass(frozen=True)
class ListedReservation:
    reservation: AdReservation
    figures: Figures
    has_stop_notice: bool
    delivery: DeliveryState


@dataclass(frozen=True)
class TimelineRow:
    """One unit (slot, position, country): who holds it in each month, or None."""

    slot: str
    position: int
    country: str
    cells: list[AdReservation | None]


@dataclass(frozen=True)
class Timeline:
    months: list[str]
    rows: list[TimelineRow]


@dataclass(frozen=True)
class RevenueRow:
    month: str
    country: str
    currency: str
    amount_received: int
    payments: int


@dataclass(frozen=True)
class RevenueTotal:
    currency: str
    amount_received: int


@dataclass(frozen=True)
class PaidAfterStop:
    """Money that arrived after its reservation was stopped: to be refunded."""

    reservation: AdReservation
    payment_intent_id: str
    currency: str
    amount_received: int


@dataclass(frozen=True)
class Revenue:
    by_month: list[RevenueRow]
    totals: list[RevenueTotal]
    paid_after_stop: list[PaidAfterStop]


def tuples_of(query: ModelSelect[Any]) -> Iterable[tuple[Any, ...]]:
    """A grouped query's rows as plain tuples (peewee's types see model rows)."""
    return cast("Iterable[tuple[Any, ...]]", query.tuples())


def measurements(reservation_ids: list[str]) -> dict[str, Figures]:
    """reservation id -> (impressions, clicks) inside each reservation's contract period
    (first day of start_month to last day of end_month, UTC), bot clicks, repeats and
    invalid clicks left out, in five grouped queries; so the totals equal the sum of the daily chart
    and the admin report over the period. Bounds are text: dates and timestamps are fixed-width ISO
    text, and '-31' is at or after the last day of any month."""
    if not reservation_ids:
        return {}
    # Driven from ad_reservations and grouped by its id: each reservation is one range
    # of the (reservation, date|created_at) index, and no sort of every counted row.
    impressions: dict[str, Any] = dict(
        tuples_of(
            AdReservation.select(AdReservation.id, fn.SUM(AdImpressionDaily.impressions))
            .join(AdImpressionDaily, on=(AdImpressionDaily.ad_reservation == AdReservation.id))
            .where(
                AdReservation.id.in_(reservation_ids)
                & (AdImpressionDaily.date >= AdReservation.start_month.concat("-01"))
                & (AdImpressionDaily.date <= AdReservation.end_month.concat("-31"))
            )
            .group_by(AdReservation.id)
        )
    )
    logged = (
        AdReservation.select(AdReservation.id, fn.COUNT(SQL("*")))
        .join(AdClickLog, on=(AdClickLog.ad_reservation == AdReservation.id))
        .where(
            AdReservation.id.in_(reservation_ids)
            & (AdClickLog.created_at >= AdReservation.start_month.concat("-01T00:00:00.000Z"))
            & (AdClickLog.created_at <= AdReservation.end_month.concat("-31T23:59:59.999Z"))
        )
        .group_by(AdReservation.id)
    )
    # Bot clicks and repeats (a view token's clicks after its first) are counted apart
    # and subtracted: filtering "is_bot = 0" would read every row, while the literal
    # "is_bot = 1" (not a bound parameter) matches the partial index of bot clicks, and
    # "is_repeat = 1" that of repeats. A bot's click is never a repeat. They are counted
    # first, so a click logged in between cannot make a count negative.
    bots: dict[str, Any] = dict(tuples_of(logged.where(SQL("is_bot = 1"))))
    repeats: dict[str, Any] = dict(tuples_of(logged.where(SQL("is_repeat = 1"))))
    # Humans' clicks whose view token was not valid: never a bot's, never a repeat.
    invalid: dict[str, Any] = dict(tuples_of(logged.where(SQL(INVALID_HUMAN))))
    clicks = {
        rid: int(count)
        - int(bots.get(rid) or 0)
        - int(repeats.get(rid) or 0)
        - int(invalid.get(rid) or 0)
        for rid, count in tuples_of(logged)
    }
    return {
        rid: Figures(int(impressions.get(rid) or 0), clicks.get(rid, 0)) for rid in reservation_ids
    }


def status_problem(status: str) -> Problem | None:
    return None if status in STATUSES else Problem("not_a_choice", choices=", ".join(STATUSES))


def _filter_problems(
    status: str | None, slot: str | None, country: str | None
) -> dict[str, Problem]:
    found = {
        "status": status_problem(status) if status is not None else None,
        "slot": slot_problem(slot) if slot is not None else None,
        "country": country_problem(country) if country is not None else None,
    }
    return {field: problem for field, problem in found.items() if problem}


def list_reservations(
    status: str | None = None,
    slot: str | None = None,
    country: str | None = None,
    now: datetime | None = None,
) -> list[ListedReservation]:
    """Every reservation, newest first, narrowed by the filters given, with its figures
    and where its delivery stands today (UTC)."""
    problems = _filter_problems(status, slot, country)
    if problems:
        raise ValidationError(fields=problems)
    query = AdReservation.select().order_by(AdReservation.created_at.desc())
    if status:
        query = query.where(AdReservation.status == status)
    if slot:
        query = query.where(AdReservation.slot == slot)
    if country:
        query = query.where(AdReservation.country == usable_country(country))
    return _listed(list(query), now)


def listed_reservation(reservation_id: str, now: datetime | None = None) -> ListedReservation:
    """One reservation, whoever bought it, as the list shows it: what an administrator
    reviews on its page."""
    row = AdReservation.get_or_none(AdReservation.id == reservation_id)
    if row is None:
        raise NotFound("No reservation has this id.")
    return _listed([row], now)[0]


def _listed(rows: list[AdReservation], now: datetime | None) -> list[ListedReservation]:
    ids = [row.id for row in rows]
    counts = measurements(ids)
    noticed = _with_stop_notice(ids)
    today = (now or utcnow()).date()
    return [
        ListedReservation(
            row,
            counts[row.id],
            row.id in noticed,
            delivery_state(row.status, row.start_month, row.end_month, today),
        )
        for row in rows
    ]


def _with_stop_notice(reservation_ids: list[str]) -> set[str]:
    if not reservation_ids:
        return set()
    query = AdStopNotice.select(AdStopNotice.ad_reservation).where(
        AdStopNotice.ad_reservation.in_(reservation_ids)
    )
    return {row.ad_reservation_id for row in query}


def _holding(months: list[str]) -> list[AdReservation]:
    """Active ads, and stopped ones still holding their unit (nothing moves up), so the
    admin sees why a position is taken and can open the stop notice again."""
    return list(
        AdReservation.select().where(
            (
                (AdReservation.status == "active")
                | (
                    (AdReservation.status == "stopped")
                    & AdReservation.position_released_at.is_null()
                )
            )
            & (AdReservation.start_month <= months[-1])
            & (AdReservation.end_month >= months[0])
        )
    )


def _holder(
    held: list[AdReservation], slot: str, position: int, country: str, month: str
) -> AdReservation | None:
    return next(
        (
            r
            for r in held
            if r.slot_id == slot
            and r.position == position
            and r.country == country
            and r.start_month <= month <= r.end_month
        ),
        None,
    )


def timeline(now: datetime | None = None) -> Timeline:
    """Who holds each slot x position x country, month by month from the current month
    to 12 months ahead: active ads, and stopped ones that still hold the unit."""
    first = month_of(now or utcnow())
    months = [add_months(first, n) for n in range(TIMELINE_MONTHS)]
    held = _holding(months)
    countries = sorted(
        {r.country for r in held} | set(get_settings().payment_ad_price_ids) | {"JP"}
    )
    rows = [
        TimelineRow(
            slot,
            position,
            country,
            [_holder(held, slot, position, country, month) for month in months],
        )
        for country in countries
        for slot in SLOT_IDS
        for position in POSITIONS
    ]
    return Timeline(months, rows)


def revenue() -> Revenue:
    """Sum of amount_received of the ad payment intents by month and country, kept apart
    from subscription revenue (only payments carrying an ad reservation count). Money
    that arrived after its reservation was stopped is not revenue: it is listed apart,
    to be refunded."""
    to_refund = {
        row.payment_intent_id: row
        for row in AdReservation.select().where(AdReservation.paid_after_stop_at.is_null(False))
    }
    groups: dict[tuple[str, str, str], list[int]] = defaultdict(lambda: [0, 0])
    refunds = []
    for intent in get_provider().list_ad_payment_intents():
        stopped = to_refund.get(intent.id)
        if stopped is not None:
            refunds.append(
                PaidAfterStop(stopped, intent.id, intent.currency, intent.amount_received)
            )
            continue
        month = datetime.fromtimestamp(intent.created, UTC).strftime("%Y-%m")
        key = (month, intent.metadata.get("country") or "unknown", intent.currency)
        groups[key][0] += intent.amount_received
        groups[key][1] += 1
    rows = [
        RevenueRow(month, country, currency, total, count)
        for (month, country, currency), (total, count) in sorted(groups.items(), reverse=True)
    ]
    totals: dict[str, int] = defaultdict(int)
    for row in rows:
        totals[row.currency] += row.amount_received
    return Revenue(
        by_month=rows,
        totals=[RevenueTotal(currency, total) for currency, total in sorted(totals.items())],
        paid_after_stop=sorted(
            refunds, key=lambda r: r.reservation.paid_after_stop_at or "", reverse=True
        ),
    )

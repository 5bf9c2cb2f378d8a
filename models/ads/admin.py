"""What administrators see: reservations with their measurements, the timeline of
active ads, and ad revenue read back from the payment provider."""

from __future__ import annotations

from collections import defaultdict
from datetime import UTC, datetime

from peewee import SQL, fn

from models.ads import POSITIONS, SLOT_IDS
from models.ads.months import add_months, month_of
from models.ads.reservations import reservation_json
from models.clock import utcnow
from models.countries import usable_country
from models.errors import ValidationError
from models.payments import get_provider
from models.settings import get_settings
from models.tables import AdClickLog, AdImpressionDaily, AdReservation, AdStopNotice

STATUSES = ("pending_review", "active", "stopped", "expired")
TIMELINE_MONTHS = 13  # the current month and 12 ahead


def ctr(impressions: int, clicks: int) -> float | None:
    return None if impressions == 0 else clicks / impressions


def measured(impressions: int, clicks: int) -> dict:
    return {"impressions": impressions, "clicks": clicks, "ctr": ctr(impressions, clicks)}


def measurements(reservation_ids: list[str]) -> dict[str, tuple[int, int]]:
    """reservation id -> (impressions, clicks) inside each reservation's contract period
    (first day of start_month to last day of end_month, UTC), bot clicks left out, in
    three grouped queries; so the totals equal the sum of the daily chart and the admin
    report over the period. Bounds are text: dates and timestamps are fixed-width ISO
    text, and '-31' is at or after the last day of any month."""
    if not reservation_ids:
        return {}
    # Driven from ad_reservations and grouped by its id: each reservation is one range
    # of the (reservation, date|created_at) index, and no sort of every counted row.
    impressions = dict(
        AdReservation.select(AdReservation.id, fn.SUM(AdImpressionDaily.impressions))
        .join(AdImpressionDaily, on=(AdImpressionDaily.ad_reservation == AdReservation.id))
        .where(
            AdReservation.id.in_(reservation_ids)
            & (AdImpressionDaily.date >= AdReservation.start_month.concat("-01"))
            & (AdImpressionDaily.date <= AdReservation.end_month.concat("-31"))
        )
        .group_by(AdReservation.id)
        .tuples()
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
    # Bot clicks are counted apart and subtracted: filtering "is_bot = 0" would read every
    # row, while the literal "is_bot = 1" (not a bound parameter) matches the partial index
    # of bot clicks. Bots are counted first, so a click logged in between cannot make a
    # count negative.
    bots = dict(logged.where(SQL("is_bot = 1")).tuples())
    clicks = {rid: int(count) - int(bots.get(rid) or 0) for rid, count in logged.tuples()}
    return {rid: (int(impressions.get(rid) or 0), clicks.get(rid, 0)) for rid in reservation_ids}


def list_reservations(status=None, slot=None, country=None) -> list[dict]:
    errors = {}
    if status is not None and status not in STATUSES:
        errors["status"] = f"one of {', '.join(STATUSES)}"
    if slot is not None and slot not in SLOT_IDS:
        errors["slot"] = f"one of {', '.join(SLOT_IDS)}"
    if country is not None and usable_country(country) is None:
        errors["country"] = "an ISO 3166-1 alpha-2 country code"
    if errors:
        raise ValidationError(fields=errors)
    query = AdReservation.select().order_by(AdReservation.created_at.desc())
    if status:
        query = query.where(AdReservation.status == status)
    if slot:
        query = query.where(AdReservation.slot == slot)
    if country:
        query = query.where(AdReservation.country == usable_country(country))
    rows = list(query)
    counts = measurements([r.id for r in rows])
    noticed = _with_stop_notice([r.id for r in rows])
    out = []
    for row in rows:
        impressions, clicks = counts[row.id]
        out.append(
            {
                **reservation_json(row),
                "paymentIntentId": row.payment_intent_id,
                "businessLegalName": row.business_legal_name,
                "contactName": row.contact_name,
                "contactEmail": row.contact_email,
                "businessCategory": row.business_category,
                # A rejected unpaid reservation gave its position back.
                "positionReleased": row.position_released_at is not None,
                # Money that arrived after the reservation was stopped: refund it.
                "paidAfterStopAt": row.paid_after_stop_at,
                "hasStopNotice": row.id in noticed,
                **measured(impressions, clicks),
            }
        )
    return out


def _with_stop_notice(reservation_ids: list[str]) -> set[str]:
    if not reservation_ids:
        return set()
    query = AdStopNotice.select(AdStopNotice.ad_reservation).where(
        AdStopNotice.ad_reservation.in_(reservation_ids)
    )
    return {row.ad_reservation_id for row in query}


def timeline(now: datetime | None = None) -> dict:
    """Advertiser names per slot x position x country, month by month from the current
    month to 12 months ahead: active ads, and stopped ones that still hold the unit
    (each cell says its status)."""
    first = month_of(now or utcnow())
    months = [add_months(first, n) for n in range(TIMELINE_MONTHS)]
    # Active ads, and stopped ones still holding their unit (nothing moves up), so the
    # admin sees why a position is taken and can open the stop notice again.
    active = list(
        AdReservation.select().where(
            (
                (AdReservation.status == "active")
                | (
                    (AdReservation.status == "stopped")
                    & AdReservation.position_released_at.is_null()
                )
            )
            & (AdReservation.start_month <= months[-1])
            & (AdReservation.end_month >= first)
        )
    )
    countries = sorted(
        {r.country for r in active} | set(get_settings().payment_ad_price_ids) | {"JP"}
    )
    rows = []
    for country in countries:
        for slot in SLOT_IDS:
            for position in POSITIONS:
                cells = []
                for month in months:
                    ad = next(
                        (
                            r
                            for r in active
                            if r.slot_id == slot
                            and r.position == position
                            and r.country == country
                            and r.start_month <= month <= r.end_month
                        ),
                        None,
                    )
                    cells.append(
                        None
                        if ad is None
                        else {
                            "reservationId": ad.id,
                            "advertiserName": ad.advertiser_name,
                            "status": ad.status,
                        }
                    )
                rows.append(
                    {"slot": slot, "position": position, "country": country, "cells": cells}
                )
    return {"months": months, "rows": rows}


def revenue() -> dict:
    """Sum of amount_received of the ad payment intents by month and country, kept apart
    from subscription revenue (only payments carrying an ad reservation count). Money
    that arrived after its reservation was stopped is not revenue: it is listed apart,
    to be refunded."""
    to_refund = {
        row.payment_intent_id: row
        for row in AdReservation.select().where(AdReservation.paid_after_stop_at.is_null(False))
    }
    groups: dict[tuple, list[int]] = defaultdict(lambda: [0, 0])
    refunds = []
    for intent in get_provider().list_ad_payment_intents():
        stopped = to_refund.get(intent.id)
        if stopped is not None:
            refunds.append(
                {
                    "reservationId": stopped.id,
                    "advertiserName": stopped.advertiser_name,
                    "paymentIntentId": intent.id,
                    "currency": intent.currency,
                    "amountReceived": intent.amount_received,
                    "stoppedAt": stopped.stopped_at,
                    "paidAt": stopped.paid_after_stop_at,
                }
            )
            continue
        month = datetime.fromtimestamp(intent.created, UTC).strftime("%Y-%m")
        key = (month, intent.metadata.get("country") or "unknown", intent.currency)
        groups[key][0] += intent.amount_received
        groups[key][1] += 1
    rows = [
        {
            "month": month,
            "country": country,
            "currency": currency,
            "amountReceived": total,
            "payments": count,
        }
        for (month, country, currency), (total, count) in sorted(groups.items(), reverse=True)
    ]
    totals: dict[str, int] = defaultdict(int)
    for row in rows:
        totals[row["currency"]] += row["amountReceived"]
    return {
        "adRevenue": rows,
        "totals": [{"currency": c, "amountReceived": t} for c, t in sorted(totals.items())],
        "paidAfterStop": sorted(refunds, key=lambda r: r["paidAt"], reverse=True),
    }

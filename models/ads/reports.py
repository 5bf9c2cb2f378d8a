"""Reports: the advertiser's own reservations with days left and a daily series, and the
administrators' report over a date range (spec, Reporting)."""

from __future__ import annotations

from collections import defaultdict
from datetime import date, datetime, timedelta

from peewee import SQL, Case, fn

from models.ads.admin import ctr, measured, measurements
from models.ads.checkout import checkouts_of, payment_json
from models.ads.months import first_day, last_day
from models.ads.reservations import placement_json
from models.clock import utcnow
from models.errors import NotFound, ValidationError
from models.tables import AdClickLog, AdImpressionDaily, AdReservation

DEFAULT_RANGE_DAYS = 30


def _today(now: datetime | None) -> date:
    return (now or utcnow()).date()


def days_left(reservation: AdReservation, today: date) -> tuple[int, bool]:
    """Days left until the end of end_month, today included; ended once it is over."""
    end = last_day(reservation.end_month)
    if today > end:
        return 0, True
    return (end - today).days + 1, False


def _summary(reservation: AdReservation, counts, today: date, payment: dict) -> dict:
    impressions, clicks = counts
    left, ended = days_left(reservation, today)
    return {
        **placement_json(reservation),
        "daysLeft": left,
        "ended": ended,
        **payment,
        **measured(impressions, clicks),
    }


def advertiser_reservations(user_id: str, now: datetime | None = None) -> list[dict]:
    """Own reservations, newest first, each with its figures and where its payment
    stands (an open checkout can be paid until checkoutExpiresAt)."""
    now = now or utcnow()
    rows = list(
        AdReservation.select()
        .where(AdReservation.user == user_id)
        .order_by(AdReservation.created_at.desc())
    )
    ids = [r.id for r in rows]
    counts = measurements(ids)
    checkouts = checkouts_of(ids)
    today = _today(now)
    return [
        _summary(row, counts[row.id], today, payment_json(row, checkouts.get(row.id), now))
        for row in rows
    ]


def _day_keys(start: date, end: date) -> list[str]:
    return [(start + timedelta(days=n)).isoformat() for n in range((end - start).days + 1)]


def _daily_impressions(reservation_ids, start: str, end: str):
    """(reservation id, date) -> impressions, for dates start..end (YYYY-MM-DD)."""
    query = (
        AdImpressionDaily.select(
            AdImpressionDaily.ad_reservation,
            AdImpressionDaily.date,
            fn.SUM(AdImpressionDaily.impressions),
        )
        .where((AdImpressionDaily.date >= start) & (AdImpressionDaily.date <= end))
        .group_by(AdImpressionDaily.ad_reservation, AdImpressionDaily.date)
    )
    if reservation_ids is not None:
        query = query.where(AdImpressionDaily.ad_reservation.in_(reservation_ids))
    return {(rid, day): int(total) for rid, day, total in query.tuples()}


def _daily_logged_clicks(reservation_ids, start: str, end: str):
    """(reservation id, date) -> logged clicks, bots included, with created_at from start
    00:00:00.000 to end 23:59:59.999 UTC."""
    day = fn.SUBSTR(AdClickLog.created_at, 1, 10)
    query = (
        # count(*), not count(id): the (reservation, created_at) index then covers it.
        AdClickLog.select(AdClickLog.ad_reservation, day, fn.COUNT(SQL("*")))
        .where(
            (AdClickLog.created_at >= f"{start}T00:00:00.000Z")
            & (AdClickLog.created_at <= f"{end}T23:59:59.999Z")
        )
        .group_by(AdClickLog.ad_reservation, day)
    )
    if reservation_ids is not None:
        query = query.where(AdClickLog.ad_reservation.in_(reservation_ids))
    return {(rid, when): int(total) for rid, when, total in query.tuples()}


def _daily_bot_clicks(reservation_ids, start: str, end: str):
    """(reservation id, date) -> (bot clicks, of which without a genuine view token), over
    the same range. Bot clicks stay in the log but out of every figure: they are counted
    here and subtracted, so the human counts stay on the covering (reservation,
    created_at) index. The literal "is_bot = 1" lets SQLite use the partial index of bot
    clicks; a bound parameter would not match it."""
    day = fn.SUBSTR(AdClickLog.created_at, 1, 10)
    tokenless = fn.SUM(Case(None, [(AdClickLog.view_token.is_null(), 1)], 0))
    query = (
        AdClickLog.select(AdClickLog.ad_reservation, day, fn.COUNT(SQL("*")), tokenless)
        .where(
            (AdClickLog.created_at >= f"{start}T00:00:00.000Z")
            & (AdClickLog.created_at <= f"{end}T23:59:59.999Z")
            & SQL("is_bot = 1")
        )
        .group_by(AdClickLog.ad_reservation, day)
    )
    if reservation_ids is not None:
        query = query.where(AdClickLog.ad_reservation.in_(reservation_ids))
    return {
        (rid, when): (int(total), int(without or 0)) for rid, when, total, without in query.tuples()
    }


def _without_bots(logged: dict, bots: dict) -> dict:
    return {key: count - bots.get(key, (0, 0))[0] for key, count in logged.items()}


def _daily_clicks(reservation_ids, start: str, end: str):
    """(reservation id, date) -> clicks, bots left out, with created_at from start
    00:00:00.000 to end 23:59:59.999 UTC."""
    # Bots first: a click logged between the two queries can then only add, never make a
    # count negative.
    bots = _daily_bot_clicks(reservation_ids, start, end)
    return _without_bots(_daily_logged_clicks(reservation_ids, start, end), bots)


def _unverified_clicks(reservation_ids, start: str, end: str) -> dict[str, int]:
    """reservation id -> logged clicks in the range, bots included, whose URL carried no
    genuine view token (not from an ad this service rendered: a copied link, a bot, a
    forgery)."""
    query = (
        AdClickLog.select(AdClickLog.ad_reservation, fn.COUNT(SQL("*")))
        .where(
            (AdClickLog.created_at >= f"{start}T00:00:00.000Z")
            & (AdClickLog.created_at <= f"{end}T23:59:59.999Z")
            & AdClickLog.view_token.is_null()
            & AdClickLog.ad_reservation.in_(reservation_ids)
        )
        .group_by(AdClickLog.ad_reservation)
    )
    return {rid: int(total) for rid, total in query.tuples()}


def advertiser_reservation(user_id: str, reservation_id: str, now: datetime | None = None):
    """One own reservation with a daily series over its whole period (first day of the
    start month to the last day of the end month) and a preview; others' are 404."""
    reservation = AdReservation.get_or_none(
        (AdReservation.id == reservation_id) & (AdReservation.user == user_id)
    )
    if reservation is None:
        raise NotFound("No reservation of yours has this id.")
    start, end = first_day(reservation.start_month), last_day(reservation.end_month)
    days = _day_keys(start, end)
    impressions = _daily_impressions([reservation.id], days[0], days[-1])
    clicks = _daily_clicks([reservation.id], days[0], days[-1])
    daily = [
        {
            "date": day,
            "impressions": impressions.get((reservation.id, day), 0),
            "clicks": clicks.get((reservation.id, day), 0),
        }
        for day in days
    ]
    counts = measurements([reservation.id])[reservation.id]
    now = now or utcnow()
    checkout = checkouts_of([reservation.id]).get(reservation.id)
    return {
        **_summary(reservation, counts, _today(now), payment_json(reservation, checkout, now)),
        "daily": daily,
        "preview": {
            "imageUrl": reservation.image_url,
            "advertiserName": reservation.advertiser_name,
            "redirectUrl": reservation.redirect_url,
        },
    }


def parse_range(start_text, end_text, now: datetime | None = None) -> tuple[date, date]:
    """The report's range; default the past 30 days including today."""
    today = _today(now)
    errors = {}

    def parse(text, default):
        if text in (None, ""):
            return default
        try:
            return date.fromisoformat(text) if len(text) == 10 else None
        except ValueError:
            return None

    start = parse(start_text, today - timedelta(days=DEFAULT_RANGE_DAYS - 1))
    end = parse(end_text, today)
    if start is None:
        errors["startDate"] = "a date as YYYY-MM-DD"
    if end is None:
        errors["endDate"] = "a date as YYYY-MM-DD"
    if not errors and start > end:
        errors["startDate"] = "must not be after endDate"
    if not errors and (end - start).days > 366 * 2:
        errors["endDate"] = "the range may span at most two years"
    if errors:
        raise ValidationError(fields=errors)
    return start, end


def admin_report(start: date, end: date) -> dict:
    """Spec, Reporting item 4: (a) every reservation, any status, whose months overlap
    the range's months; (b) impressions with date in range; (c) clicks from the start
    date 00:00:00 to the end date 23:59:59 UTC; (d) joined per reservation with totals;
    (e) a daily trend, ascending, of dates with any impression or click. Bot clicks are
    left out of (c), of CTR and of the trend, and shown apart as botClicks. Each row and
    the totals also carry unverifiedClicks: those of (c) without a genuine view token."""
    first_month, last_month = month_of_date(start), month_of_date(end)
    reservations = list(
        AdReservation.select()
        .where((AdReservation.start_month <= last_month) & (AdReservation.end_month >= first_month))
        .order_by(AdReservation.start_month, AdReservation.slot, AdReservation.position)
    )
    ids = [r.id for r in reservations]
    day_from, day_to = start.isoformat(), end.isoformat()
    impressions = _daily_impressions(ids, day_from, day_to) if ids else {}
    # Bots first, as in _daily_clicks.
    bots = _daily_bot_clicks(ids, day_from, day_to) if ids else {}
    clicks = _without_bots(_daily_logged_clicks(ids, day_from, day_to) if ids else {}, bots)
    unverified = _unverified_clicks(ids, day_from, day_to) if ids else {}
    bot_clicks: dict[str, int] = defaultdict(int)
    for (rid, _day), (count, tokenless) in bots.items():
        bot_clicks[rid] += count
        # A bot's click without a token is no longer one of (c).
        unverified[rid] = unverified.get(rid, 0) - tokenless
    per_reservation: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    per_day: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for (rid, day), count in impressions.items():
        per_reservation[rid][0] += count
        per_day[day][0] += count
    for (rid, day), count in clicks.items():
        per_reservation[rid][1] += count
        per_day[day][1] += count
    rows = []
    for r in reservations:
        imp, clk = per_reservation[r.id]
        rows.append(
            {
                **placement_json(r),
                "advertiserName": r.advertiser_name,
                **measured(imp, clk),
                "unverifiedClicks": unverified.get(r.id, 0),
                "botClicks": bot_clicks[r.id],
            }
        )
    total_impressions = sum(row["impressions"] for row in rows)
    total_clicks = sum(row["clicks"] for row in rows)
    trend = [
        {"date": day, "impressions": counts[0], "clicks": counts[1]}
        for day, counts in sorted(per_day.items())
        if counts[0] or counts[1]
    ]
    return {
        "startDate": day_from,
        "endDate": day_to,
        "reservations": rows,
        "totals": {
            "impressions": total_impressions,
            "clicks": total_clicks,
            "ctr": ctr(total_impressions, total_clicks),
            "unverifiedClicks": sum(row["unverifiedClicks"] for row in rows),
            "botClicks": sum(row["botClicks"] for row in rows),
        },
        "dailyTrend": trend,
    }


def month_of_date(day: date) -> str:
    return f"{day.year:04d}-{day.month:02d}"

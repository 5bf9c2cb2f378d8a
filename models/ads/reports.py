"""Reports: the advertiser's own reservations with days left and a daily series, and the
administrators' report over a date range (spec, Reporting)."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from typing import Any

from peewee import SQL, Case, fn

from models.ads.admin import INVALID_HUMAN, Figures, measurements, tuples_of
from models.ads.checkout import PaymentState, checkouts_of, payment_state
from models.ads.counting import INVALID_REASONS
from models.ads.delivery_state import DeliveryState, days_to_start, delivery_state
from models.ads.months import first_day, last_day, month_of_day
from models.clock import utcnow
from models.errors import NotFound, ValidationError
from models.tables import AdClickLog, AdImpressionDaily, AdReservation

DEFAULT_RANGE_DAYS = 30
# (reservation id, YYYY-MM-DD) -> a count
Daily = dict[tuple[str, str], int]


def _today(now: datetime | None) -> date:
    return (now or utcnow()).date()


def days_left(reservation: AdReservation, today: date) -> tuple[int, bool]:
    """Days left until the end of end_month, today included; ended once it is over."""
    end = last_day(reservation.end_month)
    if today > end:
        return 0, True
    return (end - today).days + 1, False


@dataclass(frozen=True)
class DailyFigures:
    date: str
    impressions: int
    clicks: int


@dataclass(frozen=True)
class OwnReservation:
    """An advertiser's reservation with its figures over its contract period, the days
    left, where its payment stands, and where its delivery stands."""

    reservation: AdReservation
    figures: Figures
    days_left: int
    ended: bool
    payment: PaymentState
    delivery: DeliveryState
    # Days until the first day of the period (0 once begun): when a scheduled ad starts.
    days_to_start: int


@dataclass(frozen=True)
class OwnReservationDetail(OwnReservation):
    daily: list[DailyFigures]


@dataclass(frozen=True)
class ReportRow:
    reservation: AdReservation
    figures: Figures
    delivery: DeliveryState
    unverified_clicks: int
    bot_clicks: int
    # Clicks with a view token an earlier click carried: out of the figures, shown apart.
    repeat_clicks: int = 0
    # Human clicks whose view token was missing, bad or expired: invalid traffic, out of
    # the figures, shown apart with their reasons (counting.INVALID_REASONS).
    invalid_clicks: int = 0
    invalid_by_reason: dict[str, int] = field(default_factory=dict)


@dataclass(frozen=True)
class ReportTotals:
    figures: Figures
    unverified_clicks: int
    bot_clicks: int
    repeat_clicks: int = 0
    invalid_clicks: int = 0
    invalid_by_reason: dict[str, int] = field(default_factory=dict)


@dataclass(frozen=True)
class Report:
    start: date
    end: date
    rows: list[ReportRow]
    totals: ReportTotals
    daily_trend: list[DailyFigures]


def _own(
    reservation: AdReservation, figures: Figures, today: date, payment: PaymentState
) -> OwnReservation:
    left, ended = days_left(reservation, today)
    delivery = delivery_state(
        reservation.status, reservation.start_month, reservation.end_month, today
    )
    starts_in = days_to_start(reservation.start_month, today)
    return OwnReservation(reservation, figures, left, ended, payment, delivery, starts_in)


def advertiser_reservations(user_id: str, now: datetime | None = None) -> list[OwnReservation]:
    """Own reservations, newest first, each with its figures and where its payment
    stands (an open checkout can be paid until its expiry)."""
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
        _own(row, counts[row.id], today, payment_state(row, checkouts.get(row.id), now))
        for row in rows
    ]


def _day_keys(start: date, end: date) -> list[str]:
    return [(start + timedelta(days=n)).isoformat() for n in range((end - start).days + 1)]


def _daily_impressions(reservation_ids: list[str] | None, start: str, end: str) -> Daily:
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
    return {(rid, day): int(total) for rid, day, total in tuples_of(query)}


def _clicks_by_day(
    reservation_ids: list[str] | None,
    start: str,
    end: str,
    *columns: Any,
    only: str = "",
    by_reason: bool = False,
) -> Any:
    """Click logs grouped by (reservation, date of created_at) from start 00:00:00.000 to
    end 23:59:59.999 UTC (and by invalid_reason when `by_reason`), selecting count(*)
    and `columns`; `only` is a literal SQL condition ("is_bot = 1"): a literal lets
    SQLite use the partial index of those rows, a bound parameter would not match it."""
    day = fn.SUBSTR(AdClickLog.created_at, 1, 10)
    where = (AdClickLog.created_at >= f"{start}T00:00:00.000Z") & (
        AdClickLog.created_at <= f"{end}T23:59:59.999Z"
    )
    if only:
        where &= SQL(only)
    if reservation_ids is not None:
        where &= AdClickLog.ad_reservation.in_(reservation_ids)
    groups = [AdClickLog.ad_reservation, day]
    if by_reason:
        groups.append(AdClickLog.invalid_reason)
    # count(*), not count(id): the (reservation, created_at) index then covers it.
    return tuples_of(
        AdClickLog.select(AdClickLog.ad_reservation, day, fn.COUNT(SQL("*")), *columns)
        .where(where)
        .group_by(*groups)
    )


def _daily_logged_clicks(reservation_ids: list[str] | None, start: str, end: str) -> Daily:
    """(reservation id, date) -> logged clicks, bots and repeats included."""
    return {
        (rid, when): int(total) for rid, when, total in _clicks_by_day(reservation_ids, start, end)
    }


def _daily_bot_clicks(
    reservation_ids: list[str] | None, start: str, end: str
) -> dict[tuple[str, str], tuple[int, int]]:
    """(reservation id, date) -> (bot clicks, of which without a genuine view token), over
    the same range. Bot clicks stay in the log but out of every figure: they are counted
    here and subtracted, so the human counts stay on the covering (reservation,
    created_at) index."""
    tokenless = fn.SUM(Case(None, [(AdClickLog.view_token.is_null(), 1)], 0))
    found = _clicks_by_day(reservation_ids, start, end, tokenless, only="is_bot = 1")
    return {(rid, when): (int(total), int(without or 0)) for rid, when, total, without in found}


def _daily_repeat_clicks(reservation_ids: list[str] | None, start: str, end: str) -> Daily:
    """(reservation id, date) -> repeats (human clicks whose view token an earlier click
    carried), over the same range: kept in the log, out of every figure, subtracted as
    bot clicks are."""
    found = _clicks_by_day(reservation_ids, start, end, only="is_repeat = 1")
    return {(rid, when): int(total) for rid, when, total in found}


def _daily_invalid_clicks(
    reservation_ids: list[str] | None, start: str, end: str
) -> dict[tuple[str, str], dict[str, int]]:
    """(reservation id, date) -> {reason: human clicks with an invalid view token}, over
    the same range: kept in the log, out of every figure, subtracted as bot clicks are
    (an invalid click is never a repeat)."""
    found: dict[tuple[str, str], dict[str, int]] = defaultdict(dict)
    rows = _clicks_by_day(
        reservation_ids, start, end, AdClickLog.invalid_reason, only=INVALID_HUMAN, by_reason=True
    )
    for rid, when, total, reason in rows:
        found[(rid, when)][str(reason)] = int(total)
    return found


def _counted(
    logged: Daily,
    bots: dict[tuple[str, str], tuple[int, int]],
    repeats: Daily,
    invalid: dict[tuple[str, str], dict[str, int]],
) -> Daily:
    """Logged clicks without the bots', the repeats and the invalid ones (three sets
    apart: a bot's click is neither of the others, an invalid one never a repeat)."""
    return {
        key: count
        - bots.get(key, (0, 0))[0]
        - repeats.get(key, 0)
        - sum(invalid.get(key, {}).values())
        for key, count in logged.items()
    }


def _daily_clicks(reservation_ids: list[str] | None, start: str, end: str) -> Daily:
    """(reservation id, date) -> clicks, bots, repeats and invalid clicks left out, with
    created_at from start 00:00:00.000 to end 23:59:59.999 UTC."""
    # Those left out first: a click logged between the queries can then only add,
    # never make a count negative.
    bots = _daily_bot_clicks(reservation_ids, start, end)
    repeats = _daily_repeat_clicks(reservation_ids, start, end)
    invalid = _daily_invalid_clicks(reservation_ids, start, end)
    return _counted(_daily_logged_clicks(reservation_ids, start, end), bots, repeats, invalid)


def _unverified_clicks(reservation_ids: list[str], start: str, end: str) -> dict[str, int]:
    """reservation id -> logged clicks in the range, bots included, whose URL carried no
    genuine view token (not from an ad this service rendered: a copied link, a bot, a
    forgery; the humans' are invalid clicks too)."""
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
    return {rid: int(total) for rid, total in tuples_of(query)}


def advertiser_reservation(
    user_id: str, reservation_id: str, now: datetime | None = None
) -> OwnReservationDetail:
    """One own reservation with a daily series over its whole period (first day of the
    start month to the last day of the end month); others' are 404."""
    reservation = AdReservation.get_or_none(
        (AdReservation.id == reservation_id) & (AdReservation.user == user_id)
    )
    if reservation is None:
        raise NotFound("No reservation of yours has this id.")
    return _detail(reservation, now)


def any_reservation(reservation_id: str, now: datetime | None = None) -> OwnReservationDetail:
    """Any reservation, whoever bought it, as its advertiser sees it: the page an
    administrator reviews it on."""
    reservation = AdReservation.get_or_none(AdReservation.id == reservation_id)
    if reservation is None:
        raise NotFound("No reservation has this id.")
    return _detail(reservation, now)


def _detail(reservation: AdReservation, now: datetime | None) -> OwnReservationDetail:
    start, end = first_day(reservation.start_month), last_day(reservation.end_month)
    days = _day_keys(start, end)
    impressions = _daily_impressions([reservation.id], days[0], days[-1])
    clicks = _daily_clicks([reservation.id], days[0], days[-1])
    daily = [
        DailyFigures(
            day,
            impressions.get((reservation.id, day), 0),
            clicks.get((reservation.id, day), 0),
        )
        for day in days
    ]
    now = now or utcnow()
    checkout = checkouts_of([reservation.id]).get(reservation.id)
    summary = _own(
        reservation,
        measurements([reservation.id])[reservation.id],
        _today(now),
        payment_state(reservation, checkout, now),
    )
    return OwnReservationDetail(**vars(summary), daily=daily)


def _day(text: str | None, default: date) -> date | None:
    """A YYYY-MM-DD date, the default when absent, None when it is no date."""
    if text in (None, ""):
        return default
    try:
        return date.fromisoformat(text) if len(text) == 10 else None
    except ValueError:
        return None


def parse_range(
    start_text: str | None, end_text: str | None, now: datetime | None = None
) -> tuple[date, date]:
    """The report's range; default the past 30 days including today, at most two years."""
    today = _today(now)
    start = _day(start_text, today - timedelta(days=DEFAULT_RANGE_DAYS - 1))
    end = _day(end_text, today)
    if start is None or end is None:
        missing = {"start_date": start, "end_date": end}
        raise ValidationError(
            fields={name: "a date as YYYY-MM-DD" for name, day in missing.items() if day is None}
        )
    if start > end:
        raise ValidationError(fields={"start_date": "must not be after endDate"})
    if (end - start).days > 366 * 2:
        raise ValidationError(fields={"end_date": "the range may span at most two years"})
    return start, end


def _overlapping(start: date, end: date) -> list[AdReservation]:
    """Every reservation, any status, whose months overlap the range's months."""
    first_month, last_month = month_of_day(start), month_of_day(end)
    return list(
        AdReservation.select()
        .where((AdReservation.start_month <= last_month) & (AdReservation.end_month >= first_month))
        .order_by(AdReservation.start_month, AdReservation.slot, AdReservation.position)
    )


def _sums(daily: Daily, part: int) -> dict[str, int]:
    """Counts keyed (reservation id, date), summed by one part of the key."""
    sums: dict[str, int] = defaultdict(int)
    for key, count in daily.items():
        sums[key[part]] += count
    return sums


def _apart(
    ids: list[str], start: str, end: str, bots: dict[tuple[str, str], tuple[int, int]]
) -> tuple[dict[str, int], dict[str, int]]:
    """Per reservation: its clicks without a genuine view token, bots left out (part of
    its invalid clicks), and its bot clicks."""
    unverified = _unverified_clicks(ids, start, end) if ids else {}
    bot_clicks: dict[str, int] = defaultdict(int)
    for (rid, _day), (count, tokenless) in bots.items():
        bot_clicks[rid] += count
        # A bot's click without a token is no longer one of (c).
        unverified[rid] = unverified.get(rid, 0) - tokenless
    return unverified, bot_clicks


def _reasons_by_reservation(
    invalid: dict[tuple[str, str], dict[str, int]],
) -> dict[str, dict[str, int]]:
    """reservation id -> {reason: invalid clicks over the range}."""
    found: dict[str, dict[str, int]] = defaultdict(dict)
    for (rid, _day), reasons in invalid.items():
        found[rid] = _summed_reasons([found[rid], reasons])
    return found


def _summed_reasons(parts: Iterable[dict[str, int]]) -> dict[str, int]:
    """Counts by reason added up, in the order of counting.INVALID_REASONS (any other
    reason after them, by name)."""
    summed: dict[str, int] = defaultdict(int)
    for part in parts:
        for reason, count in part.items():
            summed[reason] += count
    known = [r for r in INVALID_REASONS if r in summed]
    return {reason: summed[reason] for reason in known + sorted(set(summed) - set(known))}


def _trend(impressions: dict[str, int], clicks: dict[str, int]) -> list[DailyFigures]:
    """Dates with any impression or click, ascending."""
    days = sorted(set(impressions) | set(clicks))
    figures = [DailyFigures(day, impressions.get(day, 0), clicks.get(day, 0)) for day in days]
    return [f for f in figures if f.impressions or f.clicks]


def admin_report(start: date, end: date, now: datetime | None = None) -> Report:
    """Spec, Reporting item 4: (a) every reservation, any status, whose months overlap
    the range's months; (b) impressions with date in range; (c) clicks from the start
    date 00:00:00 to the end date 23:59:59 UTC; (d) joined per reservation with totals;
    (e) a daily trend, ascending, of dates with any impression or click. Bot clicks are
    left out of (c), of CTR and of the trend, and shown apart, as are repeats (clicks
    with a view token an earlier click carried: a token counts once), and so are
    invalid clicks (a human's click whose view token was missing, bad or expired),
    with their count by reason. Each row and the totals also carry the unverified
    clicks: the invalid ones without a genuine view token. Each row says where its
    delivery stands today (UTC), whatever the range."""
    reservations = _overlapping(start, end)
    ids = [r.id for r in reservations]
    day_from, day_to = start.isoformat(), end.isoformat()
    impressions = _daily_impressions(ids, day_from, day_to) if ids else {}
    # Those left out first, as in _daily_clicks.
    bots = _daily_bot_clicks(ids, day_from, day_to) if ids else {}
    repeats = _daily_repeat_clicks(ids, day_from, day_to) if ids else {}
    invalid = _daily_invalid_clicks(ids, day_from, day_to) if ids else {}
    logged = _daily_logged_clicks(ids, day_from, day_to) if ids else {}
    clicks = _counted(logged, bots, repeats, invalid)
    unverified, bot_clicks = _apart(ids, day_from, day_to, bots)
    seen, clicked, repeated = _sums(impressions, 0), _sums(clicks, 0), _sums(repeats, 0)
    reasons = _reasons_by_reservation(invalid)
    today = _today(now)
    rows = [
        ReportRow(
            r,
            Figures(seen.get(r.id, 0), clicked.get(r.id, 0)),
            delivery_state(r.status, r.start_month, r.end_month, today),
            unverified.get(r.id, 0),
            bot_clicks.get(r.id, 0),
            repeated.get(r.id, 0),
            sum(reasons.get(r.id, {}).values()),
            reasons.get(r.id, {}),
        )
        for r in reservations
    ]
    totals = ReportTotals(
        Figures(
            sum(row.figures.impressions for row in rows), sum(row.figures.clicks for row in rows)
        ),
        sum(row.unverified_clicks for row in rows),
        sum(row.bot_clicks for row in rows),
        sum(row.repeat_clicks for row in rows),
        sum(row.invalid_clicks for row in rows),
        _summed_reasons(row.invalid_by_reason for row in rows),
    )
    return Report(start, end, rows, totals, _trend(_sums(impressions, 1), _sums(clicks, 1)))

"""Reports on constructed data, against figures computed by hand."""

from __future__ import annotations

import uuid
from datetime import UTC, date, datetime

import pytest

from models.ads.admin import Figures, list_reservations
from models.ads.reports import (
    DailyFigures,
    ReportTotals,
    admin_report,
    advertiser_reservation,
    advertiser_reservations,
    parse_range,
)
from models.errors import NotFound, ValidationError
from models.tables import AdClickLog, AdImpressionDaily
from tests.factories import make_reservation, make_user

NOW = datetime(2027, 2, 10, 15, 0, tzinfo=UTC)


def impressions(reservation, day, count, country="JP"):
    AdImpressionDaily.create(
        id=str(uuid.uuid4()),
        ad_reservation=reservation,
        date=day,
        country=country,
        impressions=count,
    )


def click(reservation, at, view_token=None, is_bot=False):
    AdClickLog.create(
        id=str(uuid.uuid4()),
        ad_reservation=reservation,
        country="JP",
        created_at=at,
        view_token=view_token,
        is_bot=is_bot,
    )


@pytest.fixture
def owner():
    return make_user()


def test_the_advertiser_list_has_days_left_ended_and_ctr(owner):
    running = make_reservation(owner, start_month="2027-01", end_month="2027-03", status="active")
    ended = make_reservation(
        owner, start_month="2026-11", end_month="2027-01", status="expired", position=2
    )
    impressions(running, "2027-02-01", 200)
    impressions(running, "2027-02-02", 50, country="unknown")
    click(running, "2027-02-01T10:00:00.000Z")
    click(running, "2027-02-02T23:59:59.999Z")
    make_reservation(make_user(), position=4)  # someone else's
    rows = {r.reservation.id: r for r in advertiser_reservations(owner.id, now=NOW)}
    assert set(rows) == {running.id, ended.id}
    # Feb 10 .. Mar 31, today included: 19 + 31 days.
    assert (rows[running.id].days_left, rows[running.id].ended) == (50, False)
    assert rows[running.id].figures == Figures(250, 2)
    assert rows[running.id].figures.ctr == pytest.approx(0.008)
    assert (rows[ended.id].days_left, rows[ended.id].ended) == (0, True)
    assert rows[ended.id].figures.ctr is None


def test_the_last_day_still_counts_as_a_day_left(owner):
    reservation = make_reservation(owner, start_month="2027-02", end_month="2027-02")
    last = datetime(2027, 2, 28, 23, 0, tzinfo=UTC)
    [row] = advertiser_reservations(owner.id, now=last)
    assert (row.days_left, row.ended) == (1, False)
    [after] = advertiser_reservations(owner.id, now=datetime(2027, 3, 1, tzinfo=UTC))
    assert (after.days_left, after.ended) == (0, True)
    assert reservation.id == row.reservation.id


def test_the_detail_has_a_daily_series_over_the_whole_period(owner):
    reservation = make_reservation(
        owner,
        start_month="2027-01",
        end_month="2027-02",
        image_url="/uploads/a.png",
        advertiser_name="名前",
        redirect_url="https://example.jp/",
    )
    impressions(reservation, "2027-01-01", 10)
    impressions(reservation, "2027-01-01", 5, country="US")
    impressions(reservation, "2027-02-28", 7)
    click(reservation, "2027-01-01T00:00:00.000Z")
    click(reservation, "2027-03-01T00:00:00.000Z")  # after the period
    detail = advertiser_reservation(owner.id, reservation.id, now=NOW)
    daily = detail.daily
    assert len(daily) == 31 + 28
    assert (daily[0].date, daily[-1].date) == ("2027-01-01", "2027-02-28")
    assert daily[0] == DailyFigures("2027-01-01", impressions=15, clicks=1)
    assert daily[-1] == DailyFigures("2027-02-28", impressions=7, clicks=0)
    assert sum(d.impressions for d in daily) == 22
    assert detail.reservation.id == reservation.id
    with pytest.raises(NotFound):
        advertiser_reservation(make_user().id, reservation.id)


def test_the_admin_report_by_hand():
    inside = make_reservation(start_month="2027-01", end_month="2027-01", status="active")
    stopped = make_reservation(
        start_month="2026-12", end_month="2027-02", status="stopped", position=2
    )
    outside = make_reservation(start_month="2027-03", end_month="2027-03", position=3)
    impressions(inside, "2027-01-09", 99)  # the day before the range
    impressions(inside, "2027-01-10", 100)  # first day
    impressions(inside, "2027-01-20", 300)  # last day
    impressions(stopped, "2027-01-15", 40)
    impressions(outside, "2027-01-15", 1000)  # not a reservation of the range's months
    click(inside, "2027-01-09T23:59:59.999Z")  # before the start
    click(inside, "2027-01-10T00:00:00.000Z")  # the very start
    click(inside, "2027-01-20T23:59:59.000Z")  # the very end
    click(inside, "2027-01-21T00:00:00.000Z")  # after the end
    click(stopped, "2027-01-15T12:00:00.000Z")
    report = admin_report(date(2027, 1, 10), date(2027, 1, 20))
    rows = {r.reservation.id: r for r in report.rows}
    assert set(rows) == {inside.id, stopped.id}
    assert rows[inside.id].figures == Figures(400, 2)
    assert rows[inside.id].figures.ctr == pytest.approx(0.005)
    assert (rows[stopped.id].figures, rows[stopped.id].reservation.status) == (
        Figures(40, 1),
        "stopped",
    )
    assert report.totals == ReportTotals(Figures(440, 3), unverified_clicks=3, bot_clicks=0)
    assert report.totals.figures.ctr == pytest.approx(3 / 440)
    assert report.daily_trend == [
        DailyFigures("2027-01-10", impressions=100, clicks=1),
        DailyFigures("2027-01-15", impressions=40, clicks=1),
        DailyFigures("2027-01-20", impressions=300, clicks=1),
    ]
    assert (report.start, report.end) == (date(2027, 1, 10), date(2027, 1, 20))


def test_the_admin_report_shows_clicks_without_a_view_token_beside_all_clicks():
    shown = make_reservation(start_month="2027-01", end_month="2027-01", status="active")
    quiet = make_reservation(start_month="2027-01", end_month="2027-01", position=2)
    click(shown, "2027-01-10T10:00:00.000Z", view_token="served-token")
    click(shown, "2027-01-10T11:00:00.000Z")  # a copied link: no token
    click(shown, "2027-01-11T11:00:00.000Z")
    click(shown, "2027-01-21T00:00:00.000Z")  # after the range
    click(quiet, "2027-01-12T00:00:00.000Z", view_token="served-token")
    report = admin_report(date(2027, 1, 10), date(2027, 1, 20))
    rows = {r.reservation.id: r for r in report.rows}
    assert (rows[shown.id].figures.clicks, rows[shown.id].unverified_clicks) == (3, 2)
    assert (rows[quiet.id].figures.clicks, rows[quiet.id].unverified_clicks) == (1, 0)
    assert (report.totals.figures.clicks, report.totals.unverified_clicks) == (4, 2)


def test_the_advertiser_list_and_chart_leave_bot_clicks_out(owner):
    # Given a reservation with two human clicks and three bot clicks in its period
    reservation = make_reservation(owner, start_month="2027-01", end_month="2027-01")
    impressions(reservation, "2027-01-05", 100)
    click(reservation, "2027-01-05T10:00:00.000Z")
    click(reservation, "2027-01-05T11:00:00.000Z", view_token="served-token")
    click(reservation, "2027-01-05T12:00:00.000Z", is_bot=True)
    click(reservation, "2027-01-05T13:00:00.000Z", view_token="served-token", is_bot=True)
    click(reservation, "2027-01-06T00:00:00.000Z", is_bot=True)  # a day with only a bot
    # When the advertiser lists it and opens its chart
    [row] = advertiser_reservations(owner.id, now=NOW)
    detail = advertiser_reservation(owner.id, reservation.id, now=NOW)
    daily = {d.date: d.clicks for d in detail.daily}
    # Then only the human clicks count, in the clicks and in the CTR
    assert (row.figures, row.figures.ctr) == (Figures(100, 2), pytest.approx(0.02))
    assert (daily["2027-01-05"], daily["2027-01-06"]) == (2, 0)
    assert AdClickLog.select().count() == 5  # the log keeps every click


def test_the_admin_list_leaves_bot_clicks_out():
    # Given one human click and one bot click in the period
    reservation = make_reservation(start_month="2027-01", end_month="2027-01")
    impressions(reservation, "2027-01-05", 50)
    click(reservation, "2027-01-05T10:00:00.000Z")
    click(reservation, "2027-01-05T11:00:00.000Z", is_bot=True)
    # When the administrators list the reservations
    [row] = list_reservations()
    # Then the bot's click is not counted
    assert (row.figures.clicks, row.figures.ctr) == (1, pytest.approx(0.02))


def test_the_admin_report_leaves_bot_clicks_out_and_shows_them_apart():
    # Given human and bot clicks, with and without a view token, on two reservations
    busy = make_reservation(start_month="2027-01", end_month="2027-01", status="active")
    quiet = make_reservation(start_month="2027-01", end_month="2027-01", position=2)
    impressions(busy, "2027-01-10", 200)
    click(busy, "2027-01-10T10:00:00.000Z", view_token="served-token")
    click(busy, "2027-01-10T11:00:00.000Z")  # a human without a token
    click(busy, "2027-01-10T12:00:00.000Z", is_bot=True)  # a bot without a token
    click(busy, "2027-01-10T13:00:00.000Z", view_token="served-token", is_bot=True)
    click(busy, "2027-01-21T00:00:00.000Z", is_bot=True)  # after the range
    click(quiet, "2027-01-12T00:00:00.000Z", is_bot=True)  # a day with only a bot
    # When the report is read
    report = admin_report(date(2027, 1, 10), date(2027, 1, 20))
    rows = {r.reservation.id: r for r in report.rows}

    def figures(row):
        return (row.figures.clicks, row.figures.ctr, row.unverified_clicks, row.bot_clicks)

    # Then clicks and CTR leave the bots out, shown apart as bot clicks; the clicks
    # without a token stay a part of the clicks
    assert figures(rows[busy.id]) == (2, pytest.approx(0.01), 1, 2)
    assert figures(rows[quiet.id]) == (0, None, 0, 1)
    assert report.totals == ReportTotals(Figures(200, 2), unverified_clicks=1, bot_clicks=3)
    # And the trend has no bot click, nor a day that had only bots
    assert report.daily_trend == [DailyFigures("2027-01-10", impressions=200, clicks=2)]


def test_the_advertiser_list_counts_only_inside_the_contract_period(owner):
    reservation = make_reservation(owner, start_month="2027-01", end_month="2027-02")
    impressions(reservation, "2026-12-31", 1000)  # before the first day
    impressions(reservation, "2027-01-01", 10)
    impressions(reservation, "2027-02-28", 5)
    impressions(reservation, "2027-03-01", 2000)  # after the last day
    click(reservation, "2026-12-31T23:59:59.999Z")
    click(reservation, "2027-01-01T00:00:00.000Z")
    click(reservation, "2027-02-28T23:59:59.999Z")
    click(reservation, "2027-03-01T00:00:00.000Z")
    [row] = advertiser_reservations(owner.id, now=NOW)
    assert row.figures == Figures(15, 2)


def test_the_list_the_chart_and_the_admin_report_agree_over_the_whole_period(owner):
    # Rows outside the period, written before counting stopped at its bounds, too.
    reservation = make_reservation(owner, start_month="2027-01", end_month="2027-02")
    neighbour = make_reservation(owner, start_month="2027-02", end_month="2027-03", position=2)
    for day, count in [("2026-12-31", 7), ("2027-01-05", 30), ("2027-02-28", 4), ("2027-03-01", 9)]:
        impressions(reservation, day, count)
        impressions(neighbour, day, count)
    for at in [
        "2026-12-31T23:00:00.000Z",
        "2027-01-05T08:00:00.000Z",
        "2027-02-28T23:59:59.999Z",
        "2027-03-01T00:00:00.000Z",
    ]:
        click(reservation, at)
        click(neighbour, at)
    listed = {r.reservation.id: r.figures for r in advertiser_reservations(owner.id, now=NOW)}
    for each in (reservation, neighbour):
        daily = advertiser_reservation(owner.id, each.id, now=NOW).daily
        report = admin_report(date.fromisoformat(daily[0].date), date.fromisoformat(daily[-1].date))
        [in_report] = [r.figures for r in report.rows if r.reservation.id == each.id]
        chart = Figures(sum(d.impressions for d in daily), sum(d.clicks for d in daily))
        assert listed[each.id] == chart
        assert in_report == chart
    assert listed[reservation.id] == Figures(34, 2)
    assert listed[neighbour.id] == Figures(13, 2)


def test_an_empty_report():
    report = admin_report(date(2030, 1, 1), date(2030, 1, 31))
    assert report.rows == [] and report.daily_trend == []
    assert report.totals == ReportTotals(Figures(0, 0), unverified_clicks=0, bot_clicks=0)
    assert report.totals.figures.ctr is None


def test_the_default_range_is_the_past_30_days_including_today():
    assert parse_range(None, None, now=NOW) == (date(2027, 1, 12), date(2027, 2, 10))


@pytest.mark.parametrize(
    ("start", "end", "field"),
    [
        ("2027-02-10", "2027-02-01", "start_date"),
        ("2027-2-1", None, "start_date"),
        (None, "tomorrow", "end_date"),
        ("2027-02-30", None, "start_date"),
        ("2025-01-01", "2027-02-01", "end_date"),
    ],
)
def test_bad_ranges_are_refused(start, end, field):
    with pytest.raises(ValidationError) as error:
        parse_range(start, end, now=NOW)
    assert field in error.value.fields

"""A click counts as verified once per view token: later clicks with the same token are
logged as repeats and left out of clicks and CTR in every report (issue 26, finding 4)."""

from __future__ import annotations

import uuid
from datetime import UTC, date, datetime

import pytest

from models.ads.admin import Figures, list_reservations
from models.ads.measurement import Click, record_click
from models.ads.reports import admin_report, advertiser_reservation, advertiser_reservations
from models.db import db
from models.migrations import m0015_click_repeats
from models.tables import AdClickLog, AdImpressionDaily
from tests.concurrency import at_once
from tests.factories import make_reservation, make_user

NOW = datetime(2027, 1, 20, 12, 0, tzinfo=UTC)
BROWSER = "Mozilla/5.0 (Windows NT 10.0) AppleWebKit/537.36 Chrome/130 Safari/537.36"
TOKEN = "A" * 44


@pytest.fixture
def owner():
    return make_user()


@pytest.fixture
def reservation(owner):
    return make_reservation(owner, start_month="2027-01", end_month="2027-01", status="active")


def impressions(reservation, day, count):
    AdImpressionDaily.create(
        id=str(uuid.uuid4()), ad_reservation=reservation, date=day, country="JP", impressions=count
    )


def click(reservation, at="2027-01-10T10:00:00.000Z", token=TOKEN, bot=False, click_id=None):
    return record_click(
        Click(click_id or str(uuid.uuid4()), reservation.id, "JP", BROWSER, at, token, bot)
    )


def test_two_hundred_clicks_on_one_click_url_count_one_verified_click(owner, reservation):
    # Given 301 impressions and 200 clicks that all carry the same view token
    impressions(reservation, "2027-01-10", 301)
    for n in range(200):
        click(reservation, at=f"2027-01-10T10:{n // 60:02d}:{n % 60:02d}.000Z")
    # When the advertiser lists their reservations
    [row] = advertiser_reservations(owner.id, now=NOW)
    # Then one click counts, and the CTR is computed from it
    assert row.figures == Figures(301, 1)
    assert row.figures.ctr == pytest.approx(1 / 301)


def test_every_click_stays_in_the_log_and_the_later_ones_are_marked_repeats(reservation):
    for n in range(3):
        click(reservation, at=f"2027-01-10T10:00:0{n}.000Z")
    rows = list(AdClickLog.select().order_by(AdClickLog.created_at))
    assert [(r.view_token, r.is_repeat) for r in rows] == [
        (TOKEN, False),
        (TOKEN, True),
        (TOKEN, True),
    ]


def test_a_hundred_clicks_at_once_with_one_token_make_exactly_one_verified(reservation):
    # 50 threads (a database pool holds 64 connections), two clicks each.
    outcomes = at_once(lambda _: (click(reservation), click(reservation)), list(range(50)))
    assert [o for o in outcomes if isinstance(o, Exception)] == []
    assert AdClickLog.select().count() == 100
    assert AdClickLog.select().where(AdClickLog.is_repeat == False).count() == 1  # noqa: E712


def test_a_redelivered_click_adds_no_row_and_does_not_make_itself_a_repeat(reservation):
    assert click(reservation, click_id="c1") is True
    assert click(reservation, click_id="c1") is False
    [row] = AdClickLog.select()
    assert (row.id, row.is_repeat) == ("c1", False)


def test_each_view_token_counts_once_of_its_own(owner, reservation):
    impressions(reservation, "2027-01-10", 100)
    for token in ("A" * 44, "B" * 44, "A" * 44, "B" * 44):
        click(reservation, token=token)
    click(reservation, token=None)  # a copied link: no token, counted as before
    click(reservation, token=None)
    [row] = advertiser_reservations(owner.id, now=NOW)
    assert row.figures == Figures(100, 4)


def test_a_bot_click_does_not_use_up_the_token_of_the_human_after_it(owner, reservation):
    click(reservation, at="2027-01-10T10:00:00.000Z", bot=True)
    click(reservation, at="2027-01-10T10:00:01.000Z")
    [row] = advertiser_reservations(owner.id, now=NOW)
    assert row.figures.clicks == 1
    assert [r.is_repeat for r in AdClickLog.select()] == [False, False]


def test_repeats_are_left_out_of_the_chart_the_admin_list_and_the_admin_report(owner, reservation):
    # Given 100 impressions, a verified click, two repeats of it and a click without token
    impressions(reservation, "2027-01-10", 100)
    click(reservation, at="2027-01-10T10:00:00.000Z")
    click(reservation, at="2027-01-10T10:00:01.000Z")
    click(reservation, at="2027-01-11T09:00:00.000Z")
    click(reservation, at="2027-01-11T10:00:00.000Z", token=None)
    # When every report is read
    daily = {d.date: d.clicks for d in advertiser_reservation(owner.id, reservation.id, NOW).daily}
    [listed] = list_reservations()
    report = admin_report(date(2027, 1, 1), date(2027, 1, 31))
    [in_report] = report.rows
    # Then each counts the verified click and the tokenless one, never the repeats
    assert (daily["2027-01-10"], daily["2027-01-11"]) == (1, 1)
    assert listed.figures == Figures(100, 2)
    assert in_report.figures == Figures(100, 2)
    assert (in_report.unverified_clicks, in_report.repeat_clicks) == (1, 2)
    assert (report.totals.figures, report.totals.repeat_clicks) == (Figures(100, 2), 2)
    assert [(d.date, d.clicks) for d in report.daily_trend] == [
        ("2027-01-10", 1),
        ("2027-01-11", 1),
    ]


def test_the_migration_marks_the_later_clicks_of_tokens_logged_before_it(reservation):
    # Given clicks logged before the rule: a bot, then three humans with one token
    def logged(click_id, at, token=TOKEN, bot=False):
        AdClickLog.create(
            id=click_id,
            ad_reservation=reservation,
            country="JP",
            created_at=at,
            view_token=token,
            is_bot=bot,
        )

    logged("bot", "2027-01-10T09:00:00.000Z", bot=True)
    logged("b", "2027-01-10T10:00:00.000Z")
    logged("a", "2027-01-10T10:00:00.000Z")  # the same moment: the smaller id is first
    logged("c", "2027-01-11T10:00:00.000Z")
    logged("none", "2027-01-11T11:00:00.000Z", token=None)
    # When the migration's backfill runs
    [backfill] = [s for s in m0015_click_repeats.STATEMENTS if s.strip().startswith("UPDATE")]
    db.execute_sql(backfill)
    # Then only the later human clicks of the token are repeats
    repeats = {row.id: row.is_repeat for row in AdClickLog.select()}
    assert repeats == {"bot": False, "a": False, "b": True, "c": True, "none": False}

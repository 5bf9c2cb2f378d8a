"""Clicks whose view token is not valid (issue 42): the reason is decided where the
click is taken, logged with it, and keeps it out of every figure; an invalid click is
never its token's counted click nor a repeat (docs/ads.md, Clicks)."""

from __future__ import annotations

import uuid
from datetime import UTC, date, datetime, timedelta

import pytest

from models.ads import counting, view_tokens
from models.ads.admin import Figures, list_reservations
from models.ads.measurement import Beacon, Click, judge_click, record_click
from models.ads.reports import admin_report, advertiser_reservations
from models.db import db
from models.migrations import m0018_invalid_clicks
from models.tables import AdClickLog, AdImpressionDaily
from tests.factories import make_reservation, make_user

NOW = datetime(2027, 1, 20, 12, 0, tzinfo=UTC)
AT = "2027-01-10T10:00:00.000Z"
BROWSER = "Mozilla/5.0 (Windows NT 10.0) AppleWebKit/537.36 Chrome/130 Safari/537.36"
TOKEN = "A" * 44


@pytest.fixture
def owner():
    return make_user()


@pytest.fixture
def reservation(owner):
    made = make_reservation(owner, start_month="2027-01", end_month="2027-01", status="active")
    AdImpressionDaily.create(
        id=str(uuid.uuid4()), ad_reservation=made, date="2027-01-10", country="JP", impressions=50
    )
    return made


def click(reservation, token=TOKEN, reason=None, at=AT, bot=False):
    click_id = str(uuid.uuid4())
    record_click(Click(click_id, reservation.id, "JP", BROWSER, at, token, bot, reason))
    return click_id


def beacon(reservation, token, now=NOW) -> Beacon:
    return Beacon(reservation.id, token, BROWSER, "JP", now)


@pytest.mark.parametrize(
    ("token_of", "reason"),
    [
        (lambda r: view_tokens.make(r.id, r.position, view_tokens.new_render_id(), NOW), None),
        (lambda r: None, "missing_token"),
        (lambda r: "", "missing_token"),
        (lambda r: "x" * 44, "bad_token"),
        (lambda r: "short", "bad_token"),
        (lambda r: view_tokens.make(str(uuid.uuid4()), 1, b"r" * 12, NOW), "bad_token"),
        (
            lambda r: view_tokens.make(r.id, r.position, b"r" * 12, NOW - timedelta(hours=1)),
            "expired_token",
        ),
    ],
    ids=["valid", "missing", "empty", "made_up", "short", "another_ad", "expired"],
)
def test_the_reason_is_decided_where_the_click_is_taken(reservation, token_of, reason):
    made = judge_click(beacon(reservation, token_of(reservation)))
    assert made.click is not None
    assert made.click.invalid_reason == reason


def test_invalid_clicks_are_out_of_every_figure_and_apart_in_the_report(owner, reservation):
    # Given one valid click and one of each invalid reason, and a bot without a token
    click(reservation)
    for reason in counting.INVALID_REASONS:
        click(reservation, token=None, reason=reason)
    click(reservation, token=None, reason="missing_token", bot=True)
    # When the advertiser, the admin list and the report are read
    [own] = advertiser_reservations(owner.id, now=NOW)
    [listed] = list_reservations()
    report = admin_report(date(2027, 1, 1), date(2027, 1, 31))
    # Then one click counts everywhere, the invalid ones are apart by reason, and the
    # bot's click is a bot's, not invalid traffic
    assert own.figures == listed.figures == report.rows[0].figures == Figures(50, 1)
    assert report.totals.invalid_clicks == 4
    assert report.totals.invalid_by_reason == dict.fromkeys(counting.INVALID_REASONS, 1)
    assert report.totals.bot_clicks == 1
    assert [day.clicks for day in report.daily_trend] == [1]


def test_an_expired_click_is_neither_its_tokens_click_nor_a_repeat(owner, reservation):
    # Given a token's expired click logged first, then its valid one, then an expired one
    click(reservation, reason="expired_token", at="2027-01-10T09:00:00.000Z")
    valid = click(reservation, at="2027-01-10T10:00:00.000Z")
    click(reservation, reason="expired_token", at="2027-01-10T11:00:00.000Z")
    # Then the valid one counts, and neither expired one is a repeat
    rows = {row.id: (row.invalid_reason, row.is_repeat) for row in AdClickLog.select()}
    assert rows[valid] == (None, False)
    assert sorted(rows.values(), key=str) == [("expired_token", False)] * 2 + [(None, False)]
    [own] = advertiser_reservations(owner.id, now=NOW)
    assert own.figures.clicks == 1


def test_the_migration_marks_the_clicks_logged_without_a_genuine_token(reservation):
    # Given clicks logged before the reason was kept: with a token, without, a bot's
    logged = [("with", TOKEN, False), ("without", None, False), ("bot", None, True)]
    for click_id, token, bot in logged:
        AdClickLog.create(
            id=click_id,
            ad_reservation=reservation,
            country="JP",
            created_at=AT,
            view_token=token,
            is_bot=bot,
        )
    # When the migration's backfill runs
    [backfill] = [s for s in m0018_invalid_clicks.STATEMENTS if s.strip().startswith("UPDATE")]
    db.execute_sql(backfill)
    # Then those without a genuine token are unverified
    reasons = {row.id: row.invalid_reason for row in AdClickLog.select()}
    assert reasons == {"with": None, "without": "unverified", "bot": "unverified"}

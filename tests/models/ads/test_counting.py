"""Counting a batch of beacons in one transaction, each event exactly once: impressions
summed per (reservation, date, country), clicks logged with the one-click-per-token rule
inside the batch and across batches, bots and repeats left out of the figures."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from models.ads.counting import Click, Counted, Impression, count
from models.ads.measurement import record_click, record_impression
from models.ads.reports import advertiser_reservations
from models.tables import AdClickLog, AdImpressionDaily, AdImpressionEvent
from tests.factories import make_reservation, make_user

NOW = datetime(2027, 1, 20, 12, 0, tzinfo=UTC)
AT = "2027-01-10T10:00:00.000Z"
BROWSER = "Mozilla/5.0 (Windows NT 10.0) AppleWebKit/537.36 Chrome/130 Safari/537.36"


@pytest.fixture
def owner():
    return make_user()


@pytest.fixture
def reservation(owner):
    return make_reservation(owner, start_month="2027-01", end_month="2027-01", status="active")


def seen(reservation, event_id, day="2027-01-10", country="JP", at=AT) -> Impression:
    return Impression(event_id, reservation.id, day, country, at)


def clicked(reservation, click_id, token=None, bot=False, at=AT) -> Click:
    return Click(click_id, reservation.id, "JP", BROWSER, at, token, bot)


def days(reservation) -> dict[tuple[str, str], int]:
    rows = AdImpressionDaily.select().where(AdImpressionDaily.ad_reservation == reservation.id)
    return {(r.date, r.country): r.impressions for r in rows}


def repeats() -> dict[str, bool]:
    return {c.id: c.is_repeat for c in AdClickLog.select()}


def test_impressions_are_summed_per_reservation_day_and_country(reservation):
    other = make_reservation(
        start_month="2027-01", end_month="2027-01", status="active", position=2
    )
    batch = [
        seen(reservation, "e1"),
        seen(reservation, "e2"),
        seen(reservation, "e3", country="US"),
        seen(reservation, "e4", day="2027-01-11"),
        seen(other, "e5"),
    ]
    assert count(batch, []) == Counted(impressions=5)
    assert days(reservation) == {
        ("2027-01-10", "JP"): 2,
        ("2027-01-10", "US"): 1,
        ("2027-01-11", "JP"): 1,
    }
    assert days(other) == {("2027-01-10", "JP"): 1}
    assert AdImpressionEvent.select().count() == 5


def test_a_sum_is_added_to_the_days_row_already_there(reservation):
    count([seen(reservation, "e1")], [])
    count([seen(reservation, "e2"), seen(reservation, "e3")], [])
    assert days(reservation) == {("2027-01-10", "JP"): 3}


def test_the_same_batch_twice_counts_once(reservation):
    # Given a batch counted, whose ack never reached Redis
    batch = [seen(reservation, "e1"), seen(reservation, "e2")]
    clicks = [clicked(reservation, "c1", "tok"), clicked(reservation, "c2")]
    assert count(batch, clicks) == Counted(2, 2)
    # When another consumer claims and counts the same entries
    again = count(batch, clicks)
    # Then nothing more is counted or logged
    assert again == Counted(0, 0)
    assert days(reservation) == {("2027-01-10", "JP"): 2}
    assert repeats() == {"c1": False, "c2": False}


def test_a_batch_holding_an_id_twice_counts_it_once(reservation):
    batch = [seen(reservation, "e1"), seen(reservation, "e1"), seen(reservation, "e2")]
    clicks = [clicked(reservation, "c1", "tok"), clicked(reservation, "c1", "tok")]
    assert count(batch, clicks) == Counted(2, 1)
    assert days(reservation) == {("2027-01-10", "JP"): 2}
    assert repeats() == {"c1": False}


def test_an_event_counted_alone_counts_nothing_more_in_a_batch(reservation):
    # Given an impression and a click written one at a time (the front took Redis for
    # down), then found on the stream too
    assert record_impression("e1", reservation.id, "2027-01-10", "JP", AT) is True
    assert record_click(clicked(reservation, "c1", "tok")) is True
    # When a batch holds them with new ones
    counted = count(
        [seen(reservation, "e1"), seen(reservation, "e2")],
        [clicked(reservation, "c1", "tok"), clicked(reservation, "c2", "tok")],
    )
    # Then only the new ones count, and the new click of the same token is a repeat
    assert counted == Counted(1, 1)
    assert days(reservation) == {("2027-01-10", "JP"): 2}
    assert repeats() == {"c1": False, "c2": True}


def test_within_a_batch_a_token_counts_its_first_human_click(reservation):
    clicks = [
        clicked(reservation, "bot", "tok", bot=True),  # a bot's: never first, never repeat
        clicked(reservation, "first", "tok"),
        clicked(reservation, "second", "tok"),
        clicked(reservation, "other-token", "tok2"),
        clicked(reservation, "no-token-1"),
        clicked(reservation, "no-token-2"),
    ]
    assert count([], clicks) == Counted(0, 6)
    assert repeats() == {
        "bot": False,
        "first": False,
        "second": True,
        "other-token": False,
        "no-token-1": False,
        "no-token-2": False,
    }


def test_across_batches_a_token_counts_once(reservation):
    count([], [clicked(reservation, "c1", "tok")])
    count([], [clicked(reservation, "c2", "tok"), clicked(reservation, "c3", "new")])
    assert repeats() == {"c1": False, "c2": True, "c3": False}


def test_the_same_token_on_another_reservation_is_a_click_of_its_own(reservation):
    other = make_reservation(
        start_month="2027-01", end_month="2027-01", status="active", position=2
    )
    count([], [clicked(reservation, "c1", "tok"), clicked(other, "c2", "tok")])
    assert repeats() == {"c1": False, "c2": False}


def test_bots_and_repeats_are_logged_but_left_out_of_the_figures(owner, reservation):
    # Given a batch of 4 impressions, and clicks: one counted, a repeat, a bot's, and
    # one without a token
    impressions = [seen(reservation, f"e{n}") for n in range(4)]
    clicks = [
        clicked(reservation, "c1", "tok"),
        clicked(reservation, "c2", "tok"),
        clicked(reservation, "c3", "tok", bot=True),
        clicked(reservation, "c4"),
    ]
    count(impressions, clicks)
    # When the advertiser lists their reservations
    [row] = advertiser_reservations(owner.id, now=NOW)
    # Then every click is in the log, and two count
    assert AdClickLog.select().count() == 4
    assert (row.figures.impressions, row.figures.clicks) == (4, 2)


def test_a_batch_larger_than_one_statement_counts_every_event(reservation):
    impressions = [seen(reservation, f"e{n}") for n in range(1_203)]
    clicks = [clicked(reservation, f"c{n}", f"tok{n % 400}") for n in range(1_203)]
    assert count(impressions, clicks) == Counted(1_203, 1_203)
    assert days(reservation) == {("2027-01-10", "JP"): 1_203}
    assert sum(not repeat for repeat in repeats().values()) == 400


def test_an_empty_batch_writes_nothing():
    assert count([], []) == Counted()
    assert AdImpressionEvent.select().count() == 0

"""What a click or an impression beacon counts, judged from the request's plain values:
where the visitor goes, the click to log, the impression to count, and which invalid
beacons are noted against their address (issue 31, item 4)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from models.ads import measurement, view_tokens
from models.ads.measurement import (
    Beacon,
    Click,
    ClickAnswer,
    Impression,
    judge_click,
    judge_impression,
    record_click,
)
from models.ads.reservations import approve, stop
from models.errors import NotFound
from models.tables import AdClickLog
from tests.factories import make_reservation
from tests.fakes.ad_pages import PAGES
from tests.fixtures import metric_changes
from workers import beacons

NOW = datetime(2027, 2, 14, 12, 0, tzinfo=UTC)
AT = "2027-02-14T12:00:00.000Z"
BROWSER = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 Chrome/130 Safari/537.36"
ADDRESS = "address:192.0.2.40"


class NotedBeacons:
    """The flood guard as the domain sees it: which invalid beacons were noted, and
    whether an address counts as flooding."""

    def __init__(self, flooding: bool = False):
        self.flooding = flooding
        self.notes: list[tuple[str, str]] = []

    def flooded(self, address: str) -> bool:
        return self.flooding

    def note(self, address: str, reason: str) -> None:
        self.notes.append((address, reason))


def token_for(reservation, made_at=NOW) -> str:
    render = view_tokens.new_render_id()
    return view_tokens.make(reservation.id, reservation.position, render, made_at)


def beacon(reservation_id, token=None, user_agent=BROWSER, country="JP", now=NOW) -> Beacon:
    return Beacon(reservation_id, token, user_agent, country, now)


# A click


def test_a_click_inside_the_period_sends_the_visitor_on_with_the_click_to_log(ad):
    token = token_for(ad)
    answer = judge_click(beacon(ad.id, token))
    assert answer.redirect_url == "https://example.jp/go"
    assert answer.click == Click(answer.click.click_id, ad.id, "JP", BROWSER, AT, token, False)


def test_every_click_gets_an_id_of_its_own(ad):
    token = token_for(ad)
    ids = {judge_click(beacon(ad.id, token)).click.click_id for _ in range(3)}
    assert len(ids) == 3


def test_a_click_outside_the_period_sends_the_visitor_on_and_logs_nothing(ad):
    april = datetime(2027, 4, 1, 0, 3, tzinfo=UTC)  # before the daily expiry job
    answer = judge_click(beacon(ad.id, token_for(ad, april), now=april))
    assert answer == ClickAnswer("https://example.jp/go", None)


def test_a_click_on_a_stopped_or_unknown_ad_is_not_found(ad):
    stop(ad.id, "違反", PAGES)
    with pytest.raises(NotFound):
        judge_click(beacon(ad.id))
    with pytest.raises(NotFound):
        judge_click(beacon("no-such-ad"))


def test_a_click_keeps_an_expired_but_genuine_token(ad):
    token = token_for(ad, NOW - timedelta(hours=1))
    assert judge_click(beacon(ad.id, token)).click.view_token == token


@pytest.mark.parametrize("token", [None, "forged", "x" * 44])
def test_a_click_without_a_genuine_token_keeps_none(ad, token):
    assert judge_click(beacon(ad.id, token)).click.view_token is None


def test_a_token_made_for_another_ad_is_not_genuine_for_this_one(ad):
    other = make_reservation(
        start_month="2027-01", end_month="2027-03", position=2, payment_intent_id="pi"
    )
    approve(other.id)
    assert judge_click(beacon(ad.id, token_for(other))).click.view_token is None


@pytest.mark.parametrize("agent", ["Googlebot/2.1", "my-spider", "", None])
def test_a_bot_click_is_still_logged_and_marked(ad, agent):
    answer = judge_click(beacon(ad.id, token_for(ad), user_agent=agent))
    assert (answer.redirect_url, answer.click.is_bot) == ("https://example.jp/go", True)


@pytest.mark.parametrize(("header", "stored"), [("JP", "JP"), ("T1", "unknown"), (None, "unknown")])
def test_a_click_stores_a_usable_country_or_unknown(ad, header, stored):
    assert judge_click(beacon(ad.id, country=header)).click.country == stored


def test_the_click_to_log_is_the_record_click_message(ad):
    # Given the click a beacon makes, sent as its fields (a Dramatiq message is JSON)
    click = judge_click(beacon(ad.id, token_for(ad))).click
    # When it is recorded from them, twice (a redelivery)
    assert record_click(click) is True
    assert record_click(click) is False
    # Then one row holds what the beacon said
    [row] = AdClickLog.select()
    assert (row.id, row.view_token, row.country, row.created_at) == (
        click.click_id,
        click.view_token,
        "JP",
        AT,
    )


# An impression


def test_a_valid_impression_is_counted_under_its_render_identity(ad):
    token = token_for(ad)
    invalid = NotedBeacons()
    impression = judge_impression(beacon(ad.id, token), invalid, ADDRESS)
    identity = view_tokens.verify(token, ad.id, NOW).identity
    assert impression == Impression(identity, ad.id, "2027-02-14", "JP", AT)
    assert invalid.notes == []


def test_a_replayed_impression_counts_nothing_and_is_noted(ad):
    # The replay is found where the impression is handed on, in the same Redis call
    # (workers/beacons.py), and the front notes it as the domain says.
    token = token_for(ad)
    invalid = NotedBeacons()
    first = judge_impression(beacon(ad.id, token), invalid, ADDRESS)
    again = judge_impression(beacon(ad.id, token), invalid, ADDRESS)
    assert beacons.accept_impression(first) is True
    assert beacons.accept_impression(again) is False
    measurement.note_replay(invalid, ADDRESS)
    assert invalid.notes == [(ADDRESS, "replayed")]


def test_a_bot_impression_counts_nothing_and_looks_nothing_up(ad, monkeypatch):
    monkeypatch.setattr(measurement, "reservation_state", lambda *_a: pytest.fail("looked up"))
    invalid = NotedBeacons()
    bot = beacon(ad.id, token_for(ad), user_agent="Googlebot")
    assert judge_impression(bot, invalid, ADDRESS) is None
    assert invalid.notes == []


@pytest.mark.parametrize(
    ("token", "reason"),
    [("forged", "forged"), (None, "forged"), ("expired", "expired")],
)
def test_an_invalid_impression_counts_nothing_and_is_noted_with_its_reason(ad, token, reason):
    if token == "expired":
        token = token_for(ad, NOW - 2 * view_tokens.TTL)
    invalid = NotedBeacons()
    assert judge_impression(beacon(ad.id, token), invalid, ADDRESS) is None
    assert invalid.notes == [(ADDRESS, reason)]


def test_from_a_flooding_address_an_invalid_impression_is_answered_without_a_lookup(
    ad, monkeypatch
):
    monkeypatch.setattr(measurement, "reservation_state", lambda *_a: pytest.fail("looked up"))
    flood = metric_changes("subsearch_invalid_beacons")
    invalid = NotedBeacons(flooding=True)
    assert judge_impression(beacon("no-such-ad", "forged"), invalid, ADDRESS) is None
    assert (invalid.notes, flood()) == ([], {"flood": 1})


def test_from_a_flooding_address_a_valid_impression_still_counts(ad):
    impression = judge_impression(beacon(ad.id, token_for(ad)), NotedBeacons(True), ADDRESS)
    assert impression is not None


def test_an_impression_of_an_unknown_ad_is_not_found_after_its_token_is_noted():
    invalid = NotedBeacons()
    with pytest.raises(NotFound):
        judge_impression(beacon("no-such-ad", "forged"), invalid, ADDRESS)
    assert invalid.notes == [(ADDRESS, "forged")]


def test_an_impression_outside_the_period_or_of_a_stopped_ad_counts_nothing(ad):
    april = datetime(2027, 4, 1, 0, 3, tzinfo=UTC)
    late = beacon(ad.id, token_for(ad, april), now=april)
    outside = judge_impression(late, NotedBeacons(), ADDRESS)
    stop(ad.id, "違反", PAGES)
    stopped = judge_impression(beacon(ad.id, token_for(ad)), NotedBeacons(), ADDRESS)
    assert (outside, stopped) == (None, None)


def test_an_impression_stores_a_usable_country_or_unknown(ad):
    unusable = beacon(ad.id, token_for(ad), country="T1")
    impression = judge_impression(unusable, NotedBeacons(), ADDRESS)
    assert impression.country == "unknown"

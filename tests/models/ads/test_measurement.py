"""Whether a click or an impression counts: the reservation's status and its contract
period (first day of start_month to last day of end_month, UTC), for live ads read from
the delivery cache."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from models.ads.delivery import clear_process_cache
from models.ads.measurement import Click, record_click, reservation_state
from models.ads.reservations import stop
from models.tables import AdClickLog, AdReservation
from tests.fakes.ad_pages import PAGES


@pytest.fixture(autouse=True)
def fresh_cache():
    clear_process_cache()
    yield
    clear_process_cache()


@pytest.mark.parametrize(
    ("moment", "counts"),
    [
        (datetime(2026, 12, 31, 23, 59, 59, tzinfo=UTC), False),  # approved ahead of time
        (datetime(2027, 1, 1, 0, 0, tzinfo=UTC), True),  # the first day
        (datetime(2027, 2, 14, 12, 0, tzinfo=UTC), True),
        (datetime(2027, 3, 31, 23, 59, 59, tzinfo=UTC), True),  # the last day
        (datetime(2027, 4, 1, 0, 3, tzinfo=UTC), False),  # before the 00:05 expiry job
    ],
)
def test_an_active_ad_counts_only_inside_its_period(ad, moment, counts):
    state = reservation_state(ad.id, now=moment)
    assert state == ("active", "https://example.jp/go", counts)


def test_the_period_of_a_live_ad_needs_no_database_read(ad, monkeypatch):
    reservation_state(ad.id)  # fills the cache

    def no_reads(*_a, **_k):
        raise AssertionError("read the database")

    monkeypatch.setattr(AdReservation, "select", no_reads)
    inside = reservation_state(ad.id, now=datetime(2027, 2, 1, tzinfo=UTC))
    outside = reservation_state(ad.id, now=datetime(2027, 4, 1, tzinfo=UTC))
    assert (inside.counts, outside.counts) == (True, False)


def test_a_stopped_ad_never_counts_and_an_unknown_id_is_unknown(ad):
    stop(ad.id, "違反", PAGES)
    inside = datetime(2027, 2, 1, tzinfo=UTC)
    assert reservation_state(ad.id, now=inside).status == "inactive"
    assert reservation_state(ad.id, now=inside).counts is False
    assert reservation_state("no-such-ad", now=inside) == ("unknown", None, False)


def test_a_click_keeps_the_view_token_it_is_given(ad):
    record_click(Click("c1", ad.id, "JP", "UA", "2027-02-01T00:00:00.000Z", "tok"))
    record_click(Click("c2", ad.id, "JP", "UA", "2027-02-01T00:00:00.000Z"))
    assert {c.id: c.view_token for c in AdClickLog.select()} == {"c1": "tok", "c2": None}

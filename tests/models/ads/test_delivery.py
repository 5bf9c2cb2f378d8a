"""Delivery: who sees what, at which position, in which country, and the page limit."""

from __future__ import annotations

import pytest

from models import redis_client
from models.ads import delivery_cache
from models.ads.delivery import assignment, clear_process_cache, search_page_ads
from models.ads.months import add_months, month_of
from models.ads.reservations import approve, stop
from models.clock import utcnow
from models.tables import AdReservation
from tests.factories import make_reservation
from tests.fakes.ad_pages import PAGES

MONTH = month_of(utcnow())
SLOT = "search-result-bottom"


@pytest.fixture(autouse=True)
def fresh_cache():
    clear_process_cache()
    yield
    clear_process_cache()


def active(position, slot=SLOT, start=MONTH, end=MONTH, **fields):
    reservation = make_reservation(
        slot=slot,
        position=position,
        start_month=start,
        end_month=end,
        payment_intent_id="pi_x",
        **fields,
    )
    approve(reservation.id)
    return reservation


def names(slot=SLOT, country="JP", month=MONTH):
    return [ad.advertiser_name if ad else None for ad in assignment(slot, country, month)]


def test_no_active_reservation_is_all_network():
    make_reservation(slot=SLOT, position=1, start_month=MONTH, end_month=MONTH)  # pending
    assert names() == [None, None, None, None]


@pytest.mark.parametrize("count", [1, 2, 3, 4])
def test_each_active_reservation_shows_at_its_own_position(count):
    for position in range(1, count + 1):
        active(position, advertiser_name=f"広告主{position}")
    expected = [f"広告主{p}" if p <= count else None for p in range(1, 5)]
    assert names() == expected


def test_a_stopped_position_leaves_a_gap_and_nothing_moves_up():
    for position in (1, 2, 3):
        active(position, advertiser_name=f"広告主{position}")
    stop(AdReservation.get(AdReservation.position == 2).id, "違反", PAGES)
    assert names() == ["広告主1", None, "広告主3", None]


def test_only_reservations_covering_the_month_and_of_that_slot_and_country():
    next_month = add_months(MONTH, 1)
    active(1, start=next_month, end=next_month, advertiser_name="来月")
    active(2, start=add_months(MONTH, -2), end=add_months(MONTH, -1), advertiser_name="先月")
    active(3, slot="search-result-midroll", advertiser_name="別の枠")
    active(4, country="US", advertiser_name="米国")
    assert names() == [None, None, None, None]
    assert names(month=next_month) == ["来月", None, None, None]
    assert names(slot="search-result-midroll") == [None, None, "別の枠", None]


@pytest.mark.parametrize("country", ["XX", "T1", "ZZ", "Japan", "", None])
def test_an_unusable_country_is_all_network(country):
    active(1)
    assert names(country=country) == [None, None, None, None]


def test_approve_and_stop_reach_delivery_at_once_despite_the_cache():
    first = active(1, advertiser_name="一番")
    assert names() == ["一番", None, None, None]
    second = make_reservation(
        slot=SLOT,
        position=2,
        start_month=MONTH,
        end_month=MONTH,
        payment_intent_id="pi_y",
        advertiser_name="二番",
    )
    assert names() == ["一番", None, None, None]  # pending: not delivered
    approve(second.id)
    assert names() == ["一番", "二番", None, None]
    stop(first.id, "違反", PAGES)
    assert names() == [None, "二番", None, None]


def test_the_search_page_limit():
    active(1, slot="search-result-midroll", advertiser_name="中")
    active(1, slot="search-result-bottom", advertiser_name="下")
    page = search_page_ads("JP", MONTH, hit_count=40)
    assert [a and a.advertiser_name for a in page.midroll(1)] == ["中", None, None, None]
    assert page.midroll(2) == [None] * 4  # later firings: network
    assert [a and a.advertiser_name for a in page.bottom] == ["下", None, None, None]
    empty = search_page_ads("JP", MONTH, hit_count=0)
    assert empty.bottom is None and empty.zero_hits
    assert [a and a.advertiser_name for a in empty.midroll(1)] == ["中", None, None, None]


def test_the_delivery_generation_is_read_at_most_once_a_second(monkeypatch):

    first = delivery_cache.generation()
    redis_client.get_redis().incr(delivery_cache.KEY)  # another process approved an ad
    assert delivery_cache.generation() == first  # no Redis round trip on every request
    later = delivery_cache.time.monotonic() + delivery_cache.GENERATION_SECONDS
    monkeypatch.setattr(delivery_cache.time, "monotonic", lambda: later)
    assert delivery_cache.generation() == first + 1  # seen within a second


def test_this_process_sees_its_own_change_at_once():
    first = delivery_cache.generation()
    delivery_cache.invalidate()
    assert delivery_cache.generation() == first + 1

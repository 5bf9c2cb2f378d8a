"""The limit of unpaid holds per member holds under concurrency: one member's requests
arriving together, for different slots and months, cannot all pass the count before
any of them is written (issue 42)."""

from __future__ import annotations

from models.ads import SLOT_IDS
from models.ads.months import add_months, month_of
from models.ads.reservations import Order, TooManyUnpaidHolds, reserve
from models.clock import utcnow
from models.tables import AdReservation
from tests.concurrency import at_once
from tests.factories import make_profile, make_upload, make_user
from tests.fakes.ad_pages import PAGES

NEXT = add_months(month_of(utcnow()), 1)


def order(user, profile, slot: str, start: str) -> Order:
    return Order(
        slot=slot,
        country="JP",
        start_month=start,
        months=12,
        advertiser_name="山田商店",
        image_url=make_upload(user),
        redirect_url="https://example.jp/shop",
        consent=True,
        profile_id=profile.id,
    )


def test_a_member_firing_many_reservations_at_once_gets_at_most_two_holds():
    # Given a fresh state and one member with twelve orders, each for a free position
    # (four slots, three years)
    hoarder = make_user()
    profile = make_profile(hoarder)
    orders = [
        order(hoarder, profile, slot, add_months(NEXT, 12 * year))
        for slot in SLOT_IDS
        for year in range(3)
    ]
    # When all are sent at the same moment
    outcomes = at_once(lambda o: reserve(hoarder.id, o, PAGES).reservation, orders)
    # Then two are held and every other is refused as too many, nothing else
    held = [o for o in outcomes if isinstance(o, AdReservation)]
    refused = [o for o in outcomes if isinstance(o, TooManyUnpaidHolds)]
    assert (len(held), len(refused)) == (2, 10), outcomes
    assert AdReservation.select().where(AdReservation.user == hoarder.id).count() == 2
    # And another member still reserves any of those positions
    other = make_user()
    for slot in SLOT_IDS[:2]:
        placed = reserve(other.id, order(other, make_profile(other), slot, NEXT), PAGES)
        assert placed.reservation.position in (1, 2)

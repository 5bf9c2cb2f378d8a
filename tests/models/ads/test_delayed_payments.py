"""Reservations paid with a delayed method (konbini): the scheduled hold release waits
for the money, one release serves the scheduler and the webhook, and revenue counts
only what arrived."""

from __future__ import annotations

from datetime import timedelta

import pytest

from models.ads import admin
from models.ads.checkout import konbini_deadline
from models.ads.months import add_months, month_of
from models.ads.reservations import (
    Order,
    release_cancelled_checkout,
    release_hold,
    release_unpaid_holds,
    reserve,
)
from models.clock import utcnow
from models.payments import get_provider
from models.tables import AdCheckout, AdReservation
from tests.factories import make_profile, make_upload, make_user
from tests.fakes.ad_pages import PAGES

NEXT = add_months(month_of(utcnow()), 1)
AFTER_THE_TTL = timedelta(minutes=61)


def buy(months=1):
    user = make_user()
    order = Order(
        slot="search-result-bottom",
        country="JP",
        start_month=NEXT,
        months=months,
        advertiser_name="山田商店",
        image_url=make_upload(user),
        redirect_url="https://example.jp/shop",
        consent=True,
        profile_id=make_profile(user).id,
    )
    return reserve(user.id, order, PAGES).reservation


def session_of(reservation) -> str:
    return AdCheckout.get_by_id(reservation.id).checkout_session_id


def test_a_checkout_complete_but_unpaid_keeps_its_hold():
    # given a buyer who chose konbini and has not paid yet (the webhook not yet here)
    reservation = buy()
    get_provider().complete(session_of(reservation), method="konbini")
    # when the checkout's time is long over and the scheduler releases unpaid holds
    released = release_unpaid_holds(utcnow() + AFTER_THE_TTL)
    # then the hold stays, unpaid: the money may still come
    assert released == []
    assert AdReservation.get_by_id(reservation.id).payment_intent_id is None


def test_a_konbini_payment_settled_before_its_event_is_recorded_by_the_release():
    reservation = buy()
    provider = get_provider()
    provider.complete(session_of(reservation), method="konbini")
    provider.settle(session_of(reservation))
    assert release_unpaid_holds(utcnow() + AFTER_THE_TTL) == []
    intent = provider.get_checkout_session(session_of(reservation)).payment_intent_id
    assert AdReservation.get_by_id(reservation.id).payment_intent_id == intent


def test_release_hold_frees_an_unpaid_position_but_never_a_paid_one():
    unpaid, paid = buy(), buy()
    AdReservation.update(payment_intent_id="pi_card").where(AdReservation.id == paid.id).execute()
    assert release_hold(unpaid, "test") is True
    assert release_hold(paid, "test") is False
    assert not AdReservation.select().where(AdReservation.id == unpaid.id).exists()
    assert AdReservation.get_by_id(paid.id).payment_intent_id == "pi_card"
    assert buy().position == 1  # the released position is free again


def test_revenue_counts_only_settled_money():
    # given a card payment (1 month), a settled konbini (2) and an awaited one (3)
    provider = get_provider()
    card, settled, awaited = buy(1), buy(2), buy(3)
    provider.complete(session_of(card))
    provider.complete(session_of(settled), method="konbini")
    provider.settle(session_of(settled))
    provider.complete(session_of(awaited), method="konbini")
    # then revenue is the card's and the settled payment's, no more
    result = admin.revenue()
    assert result.totals == [admin.RevenueTotal("jpy", 150_000)]
    assert [row.payments for row in result.by_month] == [2]


@pytest.mark.parametrize(
    ("issued", "deadline"),
    [
        # Monday 10:00 in Japan: the end of Thursday in Japan.
        ("2026-11-23T01:00:00.000Z", "2026-11-26T14:59:59.000Z"),
        # Monday 23:30 in Japan (14:30 in UTC): still Monday's voucher.
        ("2026-11-23T14:30:00.000Z", "2026-11-26T14:59:59.000Z"),
        # Tuesday 00:30 in Japan: a day later.
        ("2026-11-23T15:30:00.000Z", "2026-11-27T14:59:59.000Z"),
    ],
)
def test_a_konbini_voucher_lapses_at_the_end_of_its_third_day_in_japan(issued, deadline):
    assert konbini_deadline(issued) == deadline


def test_coming_back_from_a_cancelled_checkout_frees_the_position_once():
    # given a buyer who left the checkout without paying
    reservation = buy()
    owner, session = reservation.user_id, session_of(reservation)
    # when they come back (twice: a reload), or someone else names their reservation
    assert release_cancelled_checkout(make_user().id, reservation.id) is False
    assert release_cancelled_checkout(owner, reservation.id) is True
    assert release_cancelled_checkout(owner, reservation.id) is False
    # then the checkout is closed at the provider and the position is free again
    assert get_provider().get_checkout_session(session).status == "expired"
    assert not AdReservation.select().where(AdReservation.id == reservation.id).exists()
    assert buy().position == 1


@pytest.mark.parametrize("method", ["card", "konbini"])
def test_a_checkout_completed_before_the_buyer_came_back_keeps_its_hold(method):
    reservation = buy()
    get_provider().complete(session_of(reservation), method=method)
    assert release_cancelled_checkout(reservation.user_id, reservation.id) is False
    assert AdReservation.get_by_id(reservation.id).status == "pending_review"

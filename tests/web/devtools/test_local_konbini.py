"""The local provider's delayed method (konbini): complete unpaid, then settled or
lapsed, each with the event the real provider sends; revenue counts only money in."""

from __future__ import annotations

import time

import pytest

from models.payments import (
    CheckoutPaid,
    CheckoutPaymentFailed,
    CheckoutPaymentPending,
    LineItem,
    PaymentRejected,
)
from web.devtools.local_payments.engine import LocalProvider
from web.devtools.local_payments.events import AD_CHECKOUT_ENDPOINT, SUBSCRIPTION_ENDPOINT
from web.devtools.local_payments.tables import LocalPaymentIntent


@pytest.fixture
def local():
    return LocalProvider(public_base_url="http://127.0.0.1:8000", webhook_secrets=("whsec_a",))


def ad_checkout(local, quantity=2, key="k1", reservation="r-1"):
    return local.create_payment_checkout(
        line_items=[LineItem("price_local_ad_jp", quantity)],
        metadata={"ad_reservation_id": reservation, "country": "JP"},
        success_url="http://127.0.0.1:8000/ads/ok",
        cancel_url="http://127.0.0.1:8000/ads/new",
        expires_at=int(time.time()) + 3600,
        idempotency_key=key,
    )


def konbini(local, **options):
    session = ad_checkout(local, **options)
    events = local.complete(session.id, method="konbini")
    return session, events


def test_a_card_payment_is_paid_at_once(local):
    session = ad_checkout(local)
    [event] = local.complete(session.id)
    assert event.payload["data"]["object"]["payment_status"] == "paid"
    assert isinstance(event.event, CheckoutPaid)
    read = local.get_checkout_session(session.id)
    assert (read.status, read.payment_status, read.paid) == ("complete", "paid", True)
    assert LocalPaymentIntent.get().status == "succeeded"


def test_konbini_completes_the_checkout_unpaid(local):
    # when the buyer chooses konbini
    session, events = konbini(local)
    # then the checkout is complete, the money is not in, and the event says so
    read = local.get_checkout_session(session.id)
    assert (read.status, read.payment_status, read.paid) == ("complete", "unpaid", False)
    intent = LocalPaymentIntent.get()
    assert (intent.amount_received, intent.status) == (0, "requires_action")
    assert read.payment_intent_id == intent.id
    assert [e.type for e in events] == ["checkout.session.completed"]
    obj = events[0].payload["data"]["object"]
    assert (obj["status"], obj["payment_status"], obj["payment_intent"]) == (
        "complete",
        "unpaid",
        intent.id,
    )
    assert events[0].event == CheckoutPaymentPending(
        events[0].payload["id"], "checkout.session.completed", session.id, "r-1"
    )


def test_settling_receives_the_money_and_says_async_payment_succeeded(local):
    session, _ = konbini(local, quantity=3)
    # when the buyer pays at the store (and the tester clicks twice)
    events = local.settle(session.id)
    assert local.settle(session.id) == []
    # then the amount is received, the session is paid, and one event announces it
    intent = LocalPaymentIntent.get()
    assert (intent.amount_received, intent.status) == (150_000, "succeeded")
    assert local.get_checkout_session(session.id).payment_status == "paid"
    assert [e.type for e in events] == ["checkout.session.async_payment_succeeded"]
    assert events[0].payload["data"]["object"]["payment_status"] == "paid"
    assert events[0].event == CheckoutPaid(
        events[0].payload["id"],
        "checkout.session.async_payment_succeeded",
        session.id,
        "r-1",
        payment_intent_id=intent.id,
    )
    assert events[0].endpoints == [AD_CHECKOUT_ENDPOINT]


def test_failing_cancels_the_intent_and_says_async_payment_failed(local):
    session, _ = konbini(local)
    events = local.fail(session.id)
    assert local.fail(session.id) == []
    intent = LocalPaymentIntent.get()
    assert (intent.amount_received, intent.status) == (0, "canceled")
    read = local.get_checkout_session(session.id)
    assert (read.status, read.payment_status) == ("complete", "unpaid")
    assert [e.type for e in events] == ["checkout.session.async_payment_failed"]
    assert isinstance(events[0].event, CheckoutPaymentFailed)
    assert events[0].event.reservation_id == "r-1"
    assert events[0].endpoints == [AD_CHECKOUT_ENDPOINT]
    assert local.payment_state(local.checkout(session.id)) == "payment_failed"


def test_a_konbini_payment_ends_one_way_only(local):
    settled, _ = konbini(local, key="a", reservation="r-a")
    lapsed, _ = konbini(local, key="b", reservation="r-b")
    local.settle(settled.id)
    local.fail(lapsed.id)
    with pytest.raises(PaymentRejected):
        local.fail(settled.id)
    with pytest.raises(PaymentRejected):
        local.settle(lapsed.id)


def test_only_a_konbini_payment_can_be_settled_or_failed(local):
    card = ad_checkout(local, key="card")
    local.complete(card.id)
    still_open = ad_checkout(local, key="open", reservation="r-2")
    for session_id in (card.id, still_open.id):
        with pytest.raises(PaymentRejected):
            local.settle(session_id)
        with pytest.raises(PaymentRejected):
            local.fail(session_id)


def test_konbini_is_for_one_time_checkouts_only(local):
    session = local.create_subscription_checkout(
        customer_id="cus_1",
        price_id="price_local_plus",
        reference_id="u-1",
        success_url="s",
        cancel_url="c",
        idempotency_key="sub-1",
    )
    with pytest.raises(PaymentRejected):
        local.complete(session.id, method="konbini")
    assert local.get_checkout_session(session.id).status == "open"


def test_the_checkout_completed_event_reaches_both_endpoints_whatever_the_method(local):
    _, events = konbini(local)
    assert set(events[0].endpoints) == {AD_CHECKOUT_ENDPOINT, SUBSCRIPTION_ENDPOINT}


def test_revenue_lists_only_money_received(local):
    # given a card payment, a konbini payment settled, one awaited and one lapsed
    local.complete(ad_checkout(local, quantity=1, key="card", reservation="r-card").id)
    settled, _ = konbini(local, quantity=2, key="settled", reservation="r-settled")
    local.settle(settled.id)
    konbini(local, quantity=3, key="awaited", reservation="r-awaited")
    lapsed, _ = konbini(local, quantity=4, key="lapsed", reservation="r-lapsed")
    local.fail(lapsed.id)
    # then only the card and the settled payment are revenue
    listed = sorted(
        (i.metadata["ad_reservation_id"], i.amount_received)
        for i in local.list_ad_payment_intents()
    )
    assert listed == [("r-card", 50_000), ("r-settled", 100_000)]

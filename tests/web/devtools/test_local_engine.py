"""The offline provider: prices, sessions, payment, expiry, the events it produces."""

from __future__ import annotations

import time

import pytest

from models.payments import (
    CheckoutExpired,
    CheckoutPaid,
    LineItem,
    PaymentNotFound,
    PaymentRejected,
    SubscriptionChanged,
    SubscriptionCheckoutCompleted,
    webhooks,
)
from web.devtools.local_payments.engine import LocalProvider
from web.devtools.local_payments.events import AD_CHECKOUT_ENDPOINT, SUBSCRIPTION_ENDPOINT
from web.devtools.local_payments.tables import LocalPaymentIntent


@pytest.fixture
def local():
    return LocalProvider(public_base_url="http://127.0.0.1:8000", webhook_secrets=("whsec_a",))


def ad_checkout(local, quantity=2, key="k1", expires_in=3600, reservation="r-1"):
    return local.create_payment_checkout(
        line_items=[LineItem("price_local_ad_jp", quantity)],
        metadata={"ad_reservation_id": reservation, "country": "JP"},
        success_url="http://127.0.0.1:8000/ads/ok",
        cancel_url="http://127.0.0.1:8000/ads/new",
        expires_at=int(time.time()) + expires_in,
        idempotency_key=key,
    )


def test_default_prices_exist(local):
    ad = local.get_price("price_local_ad_jp")
    assert (ad.unit_amount, ad.currency, ad.active) == (50_000, "jpy", True)
    assert local.get_price("price_local_plus").recurring_interval == "month"
    assert (
        local.get_price("price_local_pro").unit_amount
        > local.get_price("price_local_plus").unit_amount
    )
    with pytest.raises(PaymentNotFound):
        local.get_price("price_nope")


def test_a_checkout_session_is_a_page_of_this_service(local):
    session = ad_checkout(local)
    assert session.url == f"http://127.0.0.1:8000/_local-payments/checkout/{session.id}"
    assert session.status == "open"
    assert session.metadata["ad_reservation_id"] == "r-1"


def test_the_same_idempotency_key_gives_the_same_session(local):
    assert ad_checkout(local).id == ad_checkout(local).id
    assert ad_checkout(local, key="k2").id != ad_checkout(local).id


def test_completion_records_the_payment_and_produces_the_event(local):
    session = ad_checkout(local, quantity=3)
    events = local.complete(session.id)
    intent = LocalPaymentIntent.get()
    assert intent.amount_received == 150_000
    assert intent.metadata == {"ad_reservation_id": "r-1", "country": "JP"}
    assert [e.type for e in events] == ["checkout.session.completed"]
    obj = events[0].payload["data"]["object"]
    assert obj["payment_intent"] == intent.id
    assert obj["metadata"]["ad_reservation_id"] == "r-1"
    assert set(events[0].endpoints) == {AD_CHECKOUT_ENDPOINT, SUBSCRIPTION_ENDPOINT}
    assert events[0].event == CheckoutPaid(
        events[0].payload["id"],
        "checkout.session.completed",
        session.id,
        "r-1",
        payment_intent_id=intent.id,
    )


def test_an_endpoint_reads_the_signed_delivery_as_the_event_it_is(local):
    [event] = local.complete(ad_checkout(local).id)
    body = event.body()
    assert local.verify_webhook(body, webhooks.sign(body, "whsec_a")) == event.event


def test_paying_twice_pays_once(local):
    session = ad_checkout(local)
    local.complete(session.id)
    assert local.complete(session.id) == []
    assert LocalPaymentIntent.select().count() == 1


def test_cancel_expires_the_session_and_says_so(local):
    session = ad_checkout(local)
    events = local.cancel(session.id)
    assert [e.type for e in events] == ["checkout.session.expired"]
    assert events[0].event == CheckoutExpired(
        events[0].payload["id"], "checkout.session.expired", session.id, "r-1"
    )
    assert events[0].endpoints == [AD_CHECKOUT_ENDPOINT, SUBSCRIPTION_ENDPOINT]
    with pytest.raises(PaymentRejected):
        local.complete(session.id)
    assert local.cancel(session.id) == []


def test_a_paid_session_cannot_be_cancelled(local):
    session = ad_checkout(local)
    local.complete(session.id)
    with pytest.raises(PaymentRejected):
        local.cancel(session.id)


def test_sessions_past_their_time_expire(local):
    due = ad_checkout(local, key="due", expires_in=-1)
    ad_checkout(local, key="later", expires_in=3600)
    events = local.expire_due()
    assert [e.payload["data"]["object"]["id"] for e in events] == [due.id]
    assert local.expire_due() == []


def test_an_archived_price_cannot_be_sold(local):
    created = local.create_price(
        unit_amount=60_000,
        currency="jpy",
        product_name="広告",
        product_id="prod_local_ads_jp",
        metadata={},
        idempotency_key="p1",
    )
    assert local.archive_price(created.id).active is False
    with pytest.raises(PaymentRejected):
        local.create_payment_checkout(
            line_items=[LineItem(created.id, 1)],
            metadata={},
            success_url="x",
            cancel_url="y",
            expires_at=int(time.time()) + 60,
            idempotency_key="k",
        )


def test_subscription_checkout_creates_the_subscription_on_completion(local):
    customer = local.create_customer(
        email="a@b.jp", name="A", user_id="u-1", idempotency_key="customer-u-1"
    )
    assert customer == local.create_customer(
        email="a@b.jp", name="A", user_id="u-1", idempotency_key="customer-u-1"
    )
    session = local.create_subscription_checkout(
        customer_id=customer,
        price_id="price_local_plus",
        reference_id="u-1",
        success_url="s",
        cancel_url="c",
        idempotency_key="sub-1",
    )
    events = local.complete(session.id)
    assert [e.type for e in events] == [
        "customer.subscription.created",
        "checkout.session.completed",
    ]
    created, completed = (e.event for e in events)
    assert isinstance(completed, SubscriptionCheckoutCompleted)
    assert completed.reference_id == "u-1"
    subscription_id = completed.subscription_id
    assert created == SubscriptionChanged(
        events[0].payload["id"],
        "customer.subscription.created",
        subscription_id,
        reference_id="u-1",
        deleted=False,
    )
    remote = local.get_subscription(subscription_id)
    assert (remote.status, remote.price_id, remote.customer_id) == (
        "active",
        "price_local_plus",
        customer,
    )
    assert remote.period_end > remote.period_start
    assert remote.metadata == {"reference_id": "u-1"}


def test_ad_payment_intents_are_listed_with_their_amounts(local):
    for n, quantity in enumerate([1, 4]):
        local.complete(ad_checkout(local, quantity=quantity, key=f"k{n}", reservation=f"r-{n}").id)
    intents = sorted(local.list_ad_payment_intents(), key=lambda i: i.amount_received)
    assert [(i.metadata["ad_reservation_id"], i.amount_received) for i in intents] == [
        ("r-0", 50_000),
        ("r-1", 200_000),
    ]


def test_subscription_changes_and_its_end_are_announced_as_typed_events(local):
    session = local.create_subscription_checkout(
        customer_id="cus_1",
        price_id="price_local_plus",
        reference_id="u-1",
        success_url="s",
        cancel_url="c",
        idempotency_key="sub-1",
    )
    completed = local.complete(session.id)[-1].event
    assert isinstance(completed, SubscriptionCheckoutCompleted)
    [renewed] = local.update_subscription(completed.subscription_id, renew=True)
    [ended] = local.cancel_subscription(completed.subscription_id)
    assert (renewed.event.type, renewed.event.deleted) == ("customer.subscription.updated", False)
    assert (ended.event.type, ended.event.deleted) == ("customer.subscription.deleted", True)
    assert {renewed.event.subscription_id, ended.event.subscription_id} == {
        completed.subscription_id
    }
    assert renewed.endpoints == ended.endpoints == [SUBSCRIPTION_ENDPOINT]

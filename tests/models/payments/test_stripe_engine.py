"""The stripe engine against a local stand-in of the provider's API: the exact
form-encoded requests the SDK sends, and errors mapped to ours."""

from __future__ import annotations

import pytest

from models.payments import (
    LineItem,
    PaymentMisconfigured,
    PaymentNotFound,
    PaymentRejected,
    PaymentUnavailable,
)
from models.payments.stripe_engine import StripeProvider
from tests.fakes.http import serve

pytestmark = pytest.mark.database_independent


def test_payment_checkout_request_shape(provider, fake):
    session = provider.create_payment_checkout(
        line_items=[LineItem("price_jp", 3)],
        metadata={"ad_reservation_id": "r-123", "country": "JP"},
        success_url="https://sub.example/ads/r-123?paid=1",
        cancel_url="https://sub.example/ads/new",
        expires_at=1_900_000_000,
        idempotency_key="ad-checkout-r-123",
    )
    sent = fake.last("POST", "/v1/checkout/sessions")
    assert sent["form"] == {
        "mode": "payment",
        "line_items[0][price]": "price_jp",
        "line_items[0][quantity]": "3",
        "line_items[0][tax_rates][0]": "txr_1",
        "metadata[ad_reservation_id]": "r-123",
        "metadata[country]": "JP",
        "payment_intent_data[metadata][ad_reservation_id]": "r-123",
        "payment_intent_data[metadata][country]": "JP",
        "success_url": "https://sub.example/ads/r-123?paid=1",
        "cancel_url": "https://sub.example/ads/new",
        "expires_at": "1900000000",
    }
    assert sent["headers"]["Idempotency-Key"] == "ad-checkout-r-123"
    assert session.id == "cs_test_1"
    assert session.url == "https://checkout.example/c/pay/cs_test_1"
    assert session.metadata == {"ad_reservation_id": "r-123", "country": "JP"}


def test_subscription_checkout_request_shape(provider, fake):
    provider.create_subscription_checkout(
        customer_id="cus_9",
        price_id="price_plus",
        reference_id="user-1",
        success_url="https://sub.example/account?subscribed=1",
        cancel_url="https://sub.example/account",
        idempotency_key="sub-checkout-user-1-plus-x",
    )
    sent = fake.last("POST", "/v1/checkout/sessions")
    assert sent["form"] == {
        "mode": "subscription",
        "customer": "cus_9",
        "client_reference_id": "user-1",
        "line_items[0][price]": "price_plus",
        "line_items[0][quantity]": "1",
        "metadata[reference_id]": "user-1",
        "subscription_data[metadata][reference_id]": "user-1",
        "subscription_data[default_tax_rates][0]": "txr_1",
        "success_url": "https://sub.example/account?subscribed=1",
        "cancel_url": "https://sub.example/account",
    }
    assert sent["headers"]["Idempotency-Key"] == "sub-checkout-user-1-plus-x"


def test_read_a_price(provider, fake):
    price = provider.get_price("price_jp")
    assert (price.id, price.unit_amount, price.currency, price.active) == (
        "price_jp",
        50000,
        "jpy",
        True,
    )
    assert fake.requests[-1]["headers"]["Authorization"] == "Bearer sk_test_fake"


def test_create_customer_carries_our_user_id(provider, fake):
    assert (
        provider.create_customer(
            email="a@b.jp", name="花子", user_id="u-1", idempotency_key="customer-u-1"
        )
        == "cus_test_1"
    )
    sent = fake.last("POST", "/v1/customers")
    assert sent["form"] == {"email": "a@b.jp", "name": "花子", "metadata[user_id]": "u-1"}
    assert sent["headers"]["Idempotency-Key"] == "customer-u-1"


def test_create_and_archive_a_price(provider, fake):
    created = provider.create_price(
        unit_amount=60000,
        currency="JPY",
        product_name="広告枠",
        product_id="prod_ads",
        metadata={"country": "JP"},
        idempotency_key="ad-price-1",
    )
    assert fake.last("POST", "/v1/prices")["form"] == {
        "unit_amount": "60000",
        "currency": "jpy",
        "product": "prod_ads",
        "metadata[country]": "JP",
    }
    assert created.unit_amount == 60000
    archived = provider.archive_price("price_new")
    assert fake.last("POST", "/v1/prices/price_new")["form"] == {"active": "false"}
    assert archived.active is False


def test_a_price_without_a_product_gets_product_data(provider, fake):
    provider.create_price(
        unit_amount=1000,
        currency="usd",
        product_name="Ad slot (US)",
        product_id=None,
        metadata={},
        idempotency_key="k",
    )
    assert fake.last("POST", "/v1/prices")["form"]["product_data[name]"] == "Ad slot (US)"


def test_read_a_subscription_with_the_period_on_its_item(provider, fake):
    fake.subscriptions["sub_1"] = {
        "id": "sub_1",
        "object": "subscription",
        "customer": "cus_9",
        "status": "active",
        "cancel_at_period_end": False,
        "metadata": {"reference_id": "u-1"},
        "items": {
            "data": [
                {
                    "current_period_start": 1_800_000_000,
                    "current_period_end": 1_802_592_000,
                    "price": {"id": "price_plus", "recurring": {"interval": "month"}},
                }
            ]
        },
    }
    subscription = provider.get_subscription("sub_1")
    assert subscription.price_id == "price_plus"
    assert subscription.interval == "month"
    assert subscription.period_start == 1_800_000_000_000
    assert subscription.metadata == {"reference_id": "u-1"}


def test_ad_payment_intents_are_listed_across_pages_and_only_ads(provider, fake):
    fake.intents = [
        {
            "id": "pi_1",
            "amount_received": 50000,
            "currency": "jpy",
            "created": 10,
            "metadata": {"ad_reservation_id": "r-1", "country": "JP"},
        },
        {"id": "pi_2", "amount_received": 980, "currency": "jpy", "created": 11, "metadata": {}},
        {
            "id": "pi_3",
            "amount_received": 150000,
            "currency": "jpy",
            "created": 12,
            "metadata": {"ad_reservation_id": "r-2", "country": "JP"},
        },
    ]
    intents = list(provider.list_ad_payment_intents(created_from=5, created_to=20))
    assert [(i.id, i.amount_received) for i in intents] == [("pi_1", 50000), ("pi_3", 150000)]
    first = next(r for r in fake.requests if r["path"] == "/v1/payment_intents")
    assert first["query"] == {"limit": "100", "created[gte]": "5", "created[lt]": "20"}


def test_errors_are_mapped_to_our_types(fake):
    with serve(fake) as url:
        provider = StripeProvider("sk_test_fake", api_base=url)
        with pytest.raises(PaymentNotFound):
            provider.get_price("price_missing")
        with pytest.raises(PaymentRejected):
            provider.create_price(
                unit_amount=0,
                currency="jpy",
                product_name="x",
                product_id=None,
                metadata={},
                idempotency_key="k0",
            )
        with pytest.raises(PaymentMisconfigured):
            StripeProvider("sk_test_wrong", api_base=url).get_price("price_jp")


def test_an_unreachable_provider_is_unavailable():
    provider = StripeProvider("sk_test_fake", api_base="http://127.0.0.1:9", network_retries=0)
    with pytest.raises(PaymentUnavailable):
        provider.get_price("price_jp")


def test_read_a_checkout_session(provider, fake):
    session = provider.get_checkout_session("cs_test_9")
    assert fake.requests[-1]["path"] == "/v1/checkout/sessions/cs_test_9"
    assert (session.status, session.payment_intent_id) == ("complete", "pi_paid")


def test_a_checkout_session_carries_its_payment_status(provider, fake, monkeypatch):
    # given a konbini checkout the provider reports complete but unpaid
    answer = fake.route

    def unpaid(method, path, req):
        status, payload = answer(method, path, req)
        return status, {**payload, "payment_status": "unpaid"}

    monkeypatch.setattr(fake, "route", unpaid)
    # when it is read
    session = provider.get_checkout_session("cs_test_9")
    # then it is complete, and not paid
    assert (session.status, session.payment_status, session.paid) == ("complete", "unpaid", False)


def test_payment_intents_that_received_nothing_are_not_revenue(provider, fake):
    ad = {"ad_reservation_id": "r-1", "country": "JP"}
    fake.intents = [
        {
            "id": "pi_paid",
            "amount_received": 50000,
            "currency": "jpy",
            "created": 10,
            "status": "succeeded",
            "metadata": ad,
        },
        {
            "id": "pi_konbini",
            "amount_received": 0,
            "currency": "jpy",
            "created": 11,
            "status": "requires_action",
            "metadata": ad,
        },
        {
            "id": "pi_lapsed",
            "amount_received": 0,
            "currency": "jpy",
            "created": 12,
            "status": "canceled",
            "metadata": ad,
        },
    ]
    assert [i.id for i in provider.list_ad_payment_intents()] == ["pi_paid"]


def test_expire_a_checkout_session(provider, fake):
    session = provider.expire_checkout_session("cs_open_1")
    assert fake.requests[-1]["method"] == "POST"
    assert fake.requests[-1]["path"] == "/v1/checkout/sessions/cs_open_1/expire"
    assert session.status == "expired"


def test_a_complete_checkout_session_cannot_be_expired(provider, fake):
    with pytest.raises(PaymentRejected):
        provider.expire_checkout_session("cs_complete")


# --- a member's second paid subscription: cancelled now, its payment refunded ----------


def a_paid_second_subscription(fake, amount=980, payments=("pi_dup",)):
    """Given the provider holds an active subscription whose first invoice was paid."""
    fake.subscriptions["sub_dup"] = {
        "id": "sub_dup",
        "object": "subscription",
        "customer": "cus_9",
        "status": "active",
        "latest_invoice": "in_dup",
        "metadata": {"reference_id": "u-1"},
        "items": {"data": []},
    }
    for n, intent in enumerate(payments, start=1):
        fake.intents.append(
            {
                "id": intent,
                "object": "payment_intent",
                "amount_received": amount,
                "currency": "jpy",
                "created": 10,
                "status": "succeeded",
                "latest_charge": f"ch_{intent}",
                "metadata": {},
            }
        )
        fake.invoice_payments.append(
            {
                "id": f"inpay_{n}",
                "object": "invoice_payment",
                "invoice": "in_dup",
                "amount_paid": amount,
                "amount_requested": amount,
                "currency": "jpy",
                "is_default": n == 1,
                "status": "paid",
                "payment": {"type": "payment_intent", "payment_intent": intent},
                "status_transitions": {"paid_at": 1_800_000_000, "canceled_at": None},
            }
        )


def sent(fake, method, path):
    return [r for r in fake.requests if r["method"] == method and r["path"] == path]


def test_cancel_and_refund_sends_the_documented_requests(provider, fake):
    a_paid_second_subscription(fake)
    provider.cancel_and_refund_subscription("sub_dup", idempotency_key="duplicate-sub_dup")
    assert [(r["method"], r["path"]) for r in fake.requests] == [
        ("GET", "/v1/subscriptions/sub_dup"),
        ("DELETE", "/v1/subscriptions/sub_dup"),
        ("GET", "/v1/invoice_payments"),
        ("GET", "/v1/payment_intents/pi_dup"),
        ("GET", "/v1/refunds"),
        ("POST", "/v1/refunds"),
    ]
    cancel = fake.last("DELETE", "/v1/subscriptions/sub_dup")
    # A DELETE carries its parameters in the query: ended now, no credit, no last invoice.
    assert cancel["query"] == {"prorate": "false", "invoice_now": "false"}
    assert cancel["form"] == {}
    assert cancel["headers"]["Idempotency-Key"] == "duplicate-sub_dup-cancel"
    listed = fake.last("GET", "/v1/invoice_payments")
    assert listed["query"] == {"invoice": "in_dup", "status": "paid"}
    refund = fake.last("POST", "/v1/refunds")
    # What the intent still holds, as a duplicate: a repeat finds the refund and sends none
    assert fake.last("GET", "/v1/refunds")["query"] == {"payment_intent": "pi_dup"}
    assert refund["form"] == {
        "payment_intent": "pi_dup",
        "amount": "980",
        "reason": "duplicate",
        "metadata[duplicate_subscription]": "sub_dup",
    }
    assert refund["headers"]["Idempotency-Key"] == "duplicate-sub_dup-refund-pi_dup"


def test_cancel_and_refund_refunds_the_paid_amount(provider, fake):
    a_paid_second_subscription(fake, amount=2980)
    refunded = provider.cancel_and_refund_subscription("sub_dup", idempotency_key="duplicate-1")
    assert refunded == 2980
    assert [(r["payment_intent"], r["amount"]) for r in fake.refunds] == [("pi_dup", 2980)]
    assert fake.subscriptions["sub_dup"]["status"] == "canceled"


def test_every_paid_payment_of_the_invoice_is_refunded(provider, fake):
    # given an invoice paid in two payments (the provider's partial payments)
    a_paid_second_subscription(fake, amount=490, payments=("pi_first", "pi_second"))
    refunded = provider.cancel_and_refund_subscription("sub_dup", idempotency_key="duplicate-2")
    assert refunded == 980
    assert [r["payment_intent"] for r in fake.refunds] == ["pi_first", "pi_second"]
    keys = [r["headers"]["Idempotency-Key"] for r in sent(fake, "POST", "/v1/refunds")]
    assert keys == ["duplicate-2-refund-pi_first", "duplicate-2-refund-pi_second"]


def test_a_subscription_with_nothing_paid_is_cancelled_and_refunds_nothing(provider, fake):
    # given a subscription whose first invoice has no paid payment (a trial, a failed card)
    a_paid_second_subscription(fake)
    fake.invoice_payments[0]["status"] = "open"
    assert provider.cancel_and_refund_subscription("sub_dup", idempotency_key="dup-3") == 0
    assert fake.subscriptions["sub_dup"]["status"] == "canceled"
    assert sent(fake, "POST", "/v1/refunds") == []


def test_a_refund_the_provider_refuses_is_rejected(provider, fake):
    # given the member charged the payment back: the provider refuses to refund it
    a_paid_second_subscription(fake)
    fake.disputed.add("pi_dup")
    with pytest.raises(PaymentRejected, match="charged back") as refused:
        provider.cancel_and_refund_subscription("sub_dup", idempotency_key="duplicate-4")
    # refused as made, not missing and not "try later": the operator settles it
    assert type(refused.value) is PaymentRejected
    assert fake.refunds == []


def test_a_missing_subscription_is_not_found(provider, fake):
    with pytest.raises(PaymentNotFound):
        provider.cancel_and_refund_subscription("sub_gone", idempotency_key="duplicate-5")
    assert sent(fake, "DELETE", "/v1/subscriptions/sub_gone") == []


def test_a_repeat_cancels_and_refunds_nothing_more(provider, fake):
    a_paid_second_subscription(fake)
    first = provider.cancel_and_refund_subscription("sub_dup", idempotency_key="duplicate-6")
    # when it runs again (a redelivered message), within the provider's key lifetime
    again = provider.cancel_and_refund_subscription("sub_dup", idempotency_key="duplicate-6")
    # then the cancelled subscription is not cancelled again and the refund is the first
    assert first == again == 980
    assert len(sent(fake, "DELETE", "/v1/subscriptions/sub_dup")) == 1
    assert len(sent(fake, "POST", "/v1/refunds")) == 1  # the second run found it refunded
    assert [r["amount"] for r in fake.refunds] == [980]


def test_a_repeat_after_the_keys_were_pruned_refunds_nothing_more(provider, fake):
    a_paid_second_subscription(fake)
    provider.cancel_and_refund_subscription("sub_dup", idempotency_key="duplicate-7")
    fake.answers.clear()  # a day later
    provider.cancel_and_refund_subscription("sub_dup", idempotency_key="duplicate-7")
    assert [r["amount"] for r in fake.refunds] == [980]


def test_an_invoice_paid_by_a_bare_charge_is_left_for_the_operator(provider, fake):
    # Given the duplicate's invoice paid by a charge, not a payment intent
    a_paid_second_subscription(fake)
    fake.invoice_payments[0]["payment"] = {"type": "charge", "charge": "ch_1"}
    # Then nothing is refunded blindly and the refusal says why
    with pytest.raises(PaymentRejected, match="refunded by hand"):
        provider.cancel_and_refund_subscription("sub_dup", idempotency_key="duplicate-8")
    assert fake.refunds == []

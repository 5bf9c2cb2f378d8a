"""The local provider's whole journey over real HTTP: a session is created, its page
opened, paid or cancelled, and the signed events reach this service's endpoints through
the queue and verify."""

from __future__ import annotations

import re
import time
from dataclasses import replace

import requests

from models.payments import LineItem, get_provider
from models.payments.local_engine import LocalPaymentIntent
from models.tables import AdReservation, PaymentEvent, Subscription
from tests.conftest import drain
from tests.factories import make_reservation, make_user


def ad_session(reservation, quantity):
    return get_provider().create_payment_checkout(
        line_items=[LineItem("price_local_ad_jp", quantity)],
        metadata={"ad_reservation_id": reservation.id},
        success_url="http://127.0.0.1/ads/done",
        cancel_url="http://127.0.0.1/ads/new",
        expires_at=int(time.time()) + 3600,
        idempotency_key=f"ad-checkout-{reservation.id}",
    )


def test_pay_on_the_page_and_the_signed_event_marks_the_reservation_paid(
    site, stub_broker, stub_worker
):
    reservation = make_reservation()
    session = ad_session(reservation, quantity=2)
    assert session.url == f"{site}/_local-payments/checkout/{session.id}"

    page = requests.get(session.url, timeout=5)
    assert page.status_code == 200
    assert "¥100,000" in page.text
    assert re.search(r'action="[^"]*/complete"', page.text)

    paid = requests.post(f"{session.url}/complete", allow_redirects=False, timeout=5)
    assert paid.status_code == 303
    assert paid.headers["Location"] == "http://127.0.0.1/ads/done"
    drain(stub_broker, stub_worker)

    intent = LocalPaymentIntent.get()
    assert intent.amount_received == 100_000
    fresh = AdReservation.get_by_id(reservation.id)
    assert fresh.payment_intent_id == intent.id
    assert fresh.status == "pending_review"
    received = {(e.endpoint, e.type) for e in PaymentEvent.select()}
    assert received == {
        ("ad-checkout", "checkout.session.completed"),
        ("subscription", "checkout.session.completed"),
    }
    assert "お支払いは完了しています" in requests.get(session.url, timeout=5).text


def test_cancel_leads_to_checkout_session_expired(site, stub_broker, stub_worker):
    reservation = make_reservation()
    session = ad_session(reservation, quantity=1)
    cancelled = requests.post(f"{session.url}/cancel", allow_redirects=False, timeout=5)
    assert cancelled.status_code == 303
    assert cancelled.headers["Location"] == "http://127.0.0.1/ads/new"
    drain(stub_broker, stub_worker)

    assert [(e.endpoint, e.type) for e in PaymentEvent.select()] == [
        ("subscription", "checkout.session.expired")
    ]
    assert AdReservation.get_by_id(reservation.id).payment_intent_id is None
    late = requests.post(f"{session.url}/complete", allow_redirects=False, timeout=5)
    assert late.status_code == 409


def test_subscription_checkout_reaches_the_subscription_endpoint(site, stub_broker, stub_worker):
    user = make_user()
    provider = get_provider()
    customer = provider.create_customer(
        email=user.email, name=user.name, user_id=user.id, idempotency_key=f"customer-{user.id}"
    )
    session = provider.create_subscription_checkout(
        customer_id=customer,
        price_id="price_local_plus",
        reference_id=user.id,
        success_url="http://127.0.0.1/account",
        cancel_url="http://127.0.0.1/account",
        idempotency_key=f"subscribe-{user.id}",
    )
    assert (
        requests.post(f"{session.url}/complete", allow_redirects=False, timeout=5).status_code
        == 303
    )
    drain(stub_broker, stub_worker)

    row = Subscription.get(Subscription.reference_id == user.id)
    assert (row.plan, row.status, row.payment_customer_id) == ("plus", "active", customer)
    assert row.billing_interval == "month"
    assert row.period_end > row.period_start
    assert Subscription.select().count() == 1  # two events, one row


def test_unknown_checkout_pages_are_404(site):
    assert requests.get(f"{site}/_local-payments/checkout/cs_nope", timeout=5).status_code == 404
    assert (
        requests.post(f"{site}/_local-payments/checkout/cs_nope/complete", timeout=5).status_code
        == 404
    )


def test_the_local_pages_do_not_exist_with_the_stripe_backend(settings):
    from web import create_app

    app = create_app(replace(settings, payment_backend="stripe", payment_api_key="sk_test_x"))
    assert app.test_client().get("/_local-payments/checkout/cs_1").status_code == 404

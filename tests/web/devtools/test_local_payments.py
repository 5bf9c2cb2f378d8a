"""The local provider's whole journey over real HTTP: a session is created, its page
opened, paid or cancelled, and the signed events reach this service's endpoints through
the queue and verify."""

from __future__ import annotations

import re
import time
from dataclasses import replace

import requests

from models.payments import LineItem, get_provider
from models.tables import AdReservation, PaymentEvent, Subscription
from tests.factories import make_reservation, make_user
from tests.fixtures import drain
from web.app import create_app
from web.devtools.local_payments.tables import LocalPaymentIntent


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

    assert {(e.endpoint, e.type) for e in PaymentEvent.select()} == {
        ("ad-checkout", "checkout.session.expired"),
        ("subscription", "checkout.session.expired"),
    }
    # the abandoned hold is released at once
    assert AdReservation.get_or_none(AdReservation.id == reservation.id) is None
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
    app = create_app(replace(settings, payment_backend="stripe", payment_api_key="sk_test_x"))
    assert app.test_client().get("/_local-payments/checkout/cs_1").status_code == 404


def choose_konbini(site, stub_broker, stub_worker, reservation):
    """Open the checkout page, choose konbini, and let the events arrive."""
    session = ad_session(reservation, quantity=2)
    page = requests.get(session.url, timeout=5)
    assert "コンビニ払い (後払い)" in page.text
    chosen = requests.post(f"{session.url}/konbini", allow_redirects=False, timeout=5)
    assert chosen.status_code == 303
    assert chosen.headers["Location"] == session.url  # back to the page, which waits
    drain(stub_broker, stub_worker)
    return session


def test_konbini_then_settled_marks_the_reservation_paid(site, stub_broker, stub_worker):
    # given a buyer who chose konbini on the checkout page
    reservation = make_reservation()
    session = choose_konbini(site, stub_broker, stub_worker, reservation)
    # then the reservation is not paid yet, and the page waits for the money
    assert AdReservation.get_by_id(reservation.id).payment_intent_id is None
    waiting = requests.get(session.url, timeout=5).text
    assert "入金する" in waiting and "支払い期限切れにする" in waiting
    assert re.search(r'action="[^"]*/settle"', waiting)

    # when the tester settles it
    settled = requests.post(f"{session.url}/settle", allow_redirects=False, timeout=5)
    assert settled.status_code == 303
    drain(stub_broker, stub_worker)

    # then the money is in and the reservation is paid
    intent = LocalPaymentIntent.get()
    assert (intent.amount_received, intent.status) == (100_000, "succeeded")
    assert AdReservation.get_by_id(reservation.id).payment_intent_id == intent.id
    assert {(e.endpoint, e.type) for e in PaymentEvent.select()} == {
        ("ad-checkout", "checkout.session.completed"),
        ("subscription", "checkout.session.completed"),
        ("ad-checkout", "checkout.session.async_payment_succeeded"),
    }
    assert "お支払いは完了しています" in requests.get(session.url, timeout=5).text


def test_konbini_then_lapsed_releases_the_hold(site, stub_broker, stub_worker):
    # given a buyer who chose konbini on the checkout page
    reservation = make_reservation()
    session = choose_konbini(site, stub_broker, stub_worker, reservation)
    # when the tester lets the payment lapse
    lapsed = requests.post(f"{session.url}/fail", allow_redirects=False, timeout=5)
    assert lapsed.status_code == 303
    drain(stub_broker, stub_worker)
    # then the hold is released, no money is counted, and the page says so
    assert not AdReservation.select().where(AdReservation.id == reservation.id).exists()
    assert LocalPaymentIntent.get().status == "canceled"
    assert list(get_provider().list_ad_payment_intents()) == []
    assert "支払い期限が切れました" in requests.get(session.url, timeout=5).text
    late = requests.post(f"{session.url}/settle", allow_redirects=False, timeout=5)
    assert late.status_code == 409


def test_a_subscription_checkout_offers_no_konbini(client):
    user = make_user()
    session = get_provider().create_subscription_checkout(
        customer_id="cus_local_x",
        price_id="price_local_plus",
        reference_id=user.id,
        success_url="http://127.0.0.1/account",
        cancel_url="http://127.0.0.1/account",
        idempotency_key=f"subscribe-{user.id}",
    )
    page = client.get(f"/_local-payments/checkout/{session.id}").get_data(as_text=True)
    assert "支払う" in page
    assert "コンビニ払い" not in page
    assert client.post(f"/_local-payments/checkout/{session.id}/konbini").status_code == 409


def test_the_checkout_lines_say_what_is_bought_not_the_price_id(site):
    reservation = make_reservation()
    session = get_provider().create_payment_checkout(
        line_items=[LineItem("price_local_ad_jp", 2)],
        metadata={
            "ad_reservation_id": reservation.id,
            "slot": "search-result-bottom",
            "country": "JP",
            "start_month": "2031-04",
            "months": "2",
        },
        success_url="http://127.0.0.1/ads/done",
        cancel_url="http://127.0.0.1/ads/new",
        expires_at=int(time.time()) + 3600,
        idempotency_key=f"ad-checkout-{reservation.id}",
    )
    page = requests.get(session.url, headers={"Accept-Language": "ja"}, timeout=5).text
    assert "広告枠: 検索結果下部、日本、2031年4月から（1か月の料金）" in page
    assert "price_local" not in page
    assert "JPY" not in page and "¥100,000" in page


def test_a_plan_checkout_names_the_plan_not_its_price_id(site):
    session = get_provider().create_subscription_checkout(
        customer_id="cus_local_x",
        price_id="price_local_plus",
        reference_id=make_user().id,
        success_url="http://127.0.0.1/account",
        cancel_url="http://127.0.0.1/account",
        idempotency_key="subscribe-plan-label",
    )
    page = requests.get(session.url, headers={"Accept-Language": "ja"}, timeout=5).text
    assert "プラスプラン" in page
    assert "price_local" not in page

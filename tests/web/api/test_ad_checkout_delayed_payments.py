"""The ad checkout webhook (docs/payments.md): only money that arrived counts as paid,
an internal failure answers 500 so the provider retries, and signatures dated in the
future are refused like stale ones."""

from __future__ import annotations

import json
import time
import uuid
from datetime import timedelta

import pytest
from peewee import OperationalError

from models.clock import iso, parse_iso, utcnow
from models.payments import webhooks
from models.tables import AdCheckout, AdReservation, PaymentEvent
from tests.factories import make_reservation, make_user, sign_in
from tests.fixtures import metric_changes

AD = "/api/webhooks/payment/ad-checkout"
SUBSCRIPTION = "/api/auth/payment/webhook"


def checkout_event(event_type, reservation_id, payment_status, intent="pi_konbini"):
    return {
        "id": f"evt_{uuid.uuid4().hex}",
        "object": "event",
        "type": event_type,
        "data": {
            "object": {
                "id": "cs_1",
                "object": "checkout.session",
                "mode": "payment",
                "status": "complete",
                "payment_status": payment_status,
                "payment_intent": intent,
                "metadata": {"ad_reservation_id": reservation_id},
            }
        },
    }


def completed(reservation_id, payment_status="unpaid"):
    return checkout_event("checkout.session.completed", reservation_id, payment_status)


def succeeded(reservation_id):
    return checkout_event("checkout.session.async_payment_succeeded", reservation_id, "paid")


def failed(reservation_id):
    return checkout_event("checkout.session.async_payment_failed", reservation_id, "unpaid")


def post(client, path, payload, timestamp=None):
    body = json.dumps(payload).encode()
    return client.post(
        path,
        data=body,
        headers={
            "Content-Type": "application/json",
            webhooks.SIGNATURE_HEADER: webhooks.sign(body, "whsec_test_one", timestamp),
        },
    )


@pytest.fixture
def outcomes(redis_client):
    return metric_changes("subsearch_webhook_events", endpoint="ad-checkout")


def paid_intent(reservation):
    return AdReservation.get_by_id(reservation.id).payment_intent_id


def test_a_checkout_completed_unpaid_does_not_mark_the_reservation_paid(client, outcomes):
    # given a reservation whose buyer chose konbini
    reservation = make_reservation()
    # when the checkout completes with the money still to come (and is redelivered)
    payload = completed(reservation.id)
    first = post(client, AD, payload)
    again = post(client, AD, payload)
    # then nothing is paid, and the event is known, so the redelivery is a duplicate
    assert first.status_code == again.status_code == 200
    assert paid_intent(reservation) is None
    assert outcomes() == {"awaiting_payment": 1, "duplicate_event": 1}


def test_a_checkout_completed_without_payment_required_counts_as_paid(client, outcomes):
    reservation = make_reservation()
    post(client, AD, completed(reservation.id, payment_status="no_payment_required"))
    assert paid_intent(reservation) == "pi_konbini"
    assert outcomes() == {"paid": 1}


def test_an_async_payment_that_succeeded_marks_the_reservation_paid_once(client, outcomes):
    # given a konbini checkout completed unpaid
    reservation = make_reservation()
    post(client, AD, completed(reservation.id))
    # when the money arrives, and the provider delivers that event twice
    payload = succeeded(reservation.id)
    assert post(client, AD, payload).status_code == 200
    assert post(client, AD, payload).status_code == 200
    # then the reservation is paid, once
    assert paid_intent(reservation) == "pi_konbini"
    assert AdReservation.get_by_id(reservation.id).status == "pending_review"
    assert outcomes() == {"awaiting_payment": 1, "paid": 1, "duplicate_event": 1}


def test_an_async_payment_that_failed_releases_the_hold(client, outcomes):
    # given a konbini checkout completed unpaid
    reservation = make_reservation()
    post(client, AD, completed(reservation.id))
    # when the voucher lapses unpaid
    response = post(client, AD, failed(reservation.id))
    # then the hold is gone, as an expired unpaid checkout's would be
    assert response.status_code == 200
    assert not AdReservation.select().where(AdReservation.id == reservation.id).exists()
    assert outcomes() == {"awaiting_payment": 1, "hold_released": 1}


def test_an_async_payment_failure_never_releases_a_paid_reservation(client, outcomes):
    # given a reservation already paid
    reservation = make_reservation(payment_intent_id="pi_card")
    # when a failure event arrives for it
    response = post(client, AD, failed(reservation.id))
    # then it keeps its payment and its position
    assert response.status_code == 200
    assert paid_intent(reservation) == "pi_card"
    assert outcomes() == {"hold_kept": 1}


@pytest.mark.parametrize(
    "failure",
    [OperationalError("database is locked"), RuntimeError("something unexpected")],
    ids=["database-locked", "unexpected"],
)
def test_an_event_that_cannot_be_applied_answers_500_and_the_retry_applies_it(
    client, outcomes, monkeypatch, failure
):
    # given a paid checkout's event, and a database that fails the write
    reservation = make_reservation()
    payload = completed(reservation.id, payment_status="paid")

    def broken(*_args, **_kwargs):
        raise failure

    monkeypatch.setattr(AdReservation, "update", broken)
    # when the provider delivers it
    response = post(client, AD, payload)
    # then it is told to retry, and nothing is half-written: no payment, no event record
    assert response.status_code == 500
    assert response.get_json()["error"]["code"] == "internal_error"
    assert paid_intent(reservation) is None
    assert PaymentEvent.select().count() == 0
    # and when the database is back, the provider's retry applies it
    monkeypatch.undo()
    assert post(client, AD, payload).status_code == 200
    assert paid_intent(reservation) == "pi_konbini"
    assert outcomes() == {"error": 1, "paid": 1}


def test_a_signature_dated_in_the_future_is_refused_by_the_ad_checkout_endpoint(client, outcomes):
    reservation = make_reservation()
    ahead = int(time.time()) + webhooks.TOLERANCE_SECONDS + 60
    response = post(client, AD, completed(reservation.id, "paid"), timestamp=ahead)
    assert response.status_code == 200  # the spec: bad signatures answer 200 too
    assert paid_intent(reservation) is None
    assert PaymentEvent.select().count() == 0
    assert outcomes() == {"bad_signature": 1}


def test_a_signature_dated_in_the_future_is_refused_by_the_subscription_endpoint(client):
    ahead = int(time.time()) + webhooks.TOLERANCE_SECONDS + 60
    payload = {"id": "evt_future", "object": "event", "type": "invoice.paid", "data": {}}
    response = post(client, SUBSCRIPTION, payload, timestamp=ahead)
    assert response.status_code == 400
    assert PaymentEvent.select().count() == 0


@pytest.mark.parametrize("path", [AD, SUBSCRIPTION])
def test_a_signature_dated_just_inside_the_tolerance_ahead_is_accepted(client, path):
    reservation = make_reservation()
    ahead = int(time.time()) + webhooks.TOLERANCE_SECONDS - 10
    response = post(client, path, completed(reservation.id, "paid"), timestamp=ahead)
    assert response.status_code == 200
    assert PaymentEvent.select().count() == 1


def test_a_konbini_checkout_reads_payment_pending_with_its_deadline_and_cannot_be_reopened(client):
    # given a reservation with an open checkout, whose buyer then chose konbini
    user = make_user()
    reservation = make_reservation(user=user)
    AdCheckout.create(
        ad_reservation=reservation.id,
        checkout_session_id="cs_1",
        expires_at=iso(utcnow() + timedelta(minutes=30)),
    )
    sign_in(client, user)
    before = client.get(f"/api/ads/reservations/{reservation.id}").get_json()
    assert before["paymentState"] == "awaiting_payment"
    # when the provider says the checkout completed with the money still to come
    assert post(client, AD, completed(reservation.id)).status_code == 200
    # then the reservation awaits the money until the voucher's deadline, and its
    # checkout is not offered again
    after = client.get(f"/api/ads/reservations/{reservation.id}").get_json()
    assert after["paymentState"] == "payment_pending"
    due = parse_iso(after["paymentDueAt"]) - utcnow()
    assert timedelta(days=3) < due <= timedelta(days=4)  # to the end of a day in Japan
    resumed = client.post(f"/api/ads/reservations/{reservation.id}/checkout", json={})
    assert resumed.status_code == 409
    assert resumed.get_json()["error"]["code"] == "checkout_closed"

"""The two payment webhook endpoints: signatures, event records, and what each changes."""

from __future__ import annotations

import json
import time
import uuid

import pytest

from models.payments import webhooks
from models.tables import AdReservation, PaymentEvent
from tests.factories import make_reservation
from tests.fixtures import metric_changes, take_messages

AD = "/api/webhooks/payment/ad-checkout"
SUBSCRIPTION = "/api/auth/payment/webhook"


def event(event_type="checkout.session.completed", **obj):
    return {
        "id": f"evt_{uuid.uuid4().hex}",
        "object": "event",
        "type": event_type,
        "data": {"object": obj},
    }


def post(client, path, payload, secret="whsec_test_two", timestamp=None, header=True):
    body = json.dumps(payload).encode()
    headers = {"Content-Type": "application/json"}
    if header:
        headers[webhooks.SIGNATURE_HEADER] = webhooks.sign(body, secret, timestamp)
    return client.post(path, data=body, headers=headers)


BAD = [
    {"secret": "whsec_wrong"},
    {"timestamp": int(time.time()) - 400},
    {"header": False},
]


@pytest.mark.parametrize("bad", BAD, ids=["wrong-secret", "stale", "missing-header"])
def test_subscription_webhook_rejects_bad_signatures_and_writes_nothing(client, bad, stub_broker):
    payload = event("customer.subscription.updated", id="sub_1", metadata={})
    response = post(client, SUBSCRIPTION, payload, **bad)
    assert response.status_code == 400
    assert response.get_json()["error"]["code"] == "invalid_request"
    assert PaymentEvent.select().count() == 0
    assert stub_broker.queues.get("billing") is None or stub_broker.queues["billing"].qsize() == 0


def test_subscription_webhook_rejects_a_tampered_body(client):
    body = json.dumps(event("customer.subscription.updated", id="sub_1")).encode()
    header = webhooks.sign(body, "whsec_test_one")
    response = client.post(
        SUBSCRIPTION,
        data=body.replace(b"sub_1", b"sub_2"),
        headers={webhooks.SIGNATURE_HEADER: header},
    )
    assert response.status_code == 400
    assert PaymentEvent.select().count() == 0


def test_a_redelivered_subscription_event_is_recognised(client, stub_broker):
    payload = event("customer.subscription.updated", id="sub_1", metadata={})
    first = post(client, SUBSCRIPTION, payload, secret="whsec_test_one")
    again = post(client, SUBSCRIPTION, payload, secret="whsec_test_two")
    assert first.status_code == again.status_code == 200
    assert again.get_json()["duplicate"] is True
    assert PaymentEvent.select().count() == 1
    # Queued once: a message Redis loses is sent again by the outbox's redrive, not by
    # every redelivery (twenty deliveries queued twenty messages before)
    messages = take_messages(stub_broker, "billing")
    assert [m["args"] for m in messages] == [[payload["id"]]]


def completed(reservation_id="r-x", intent="pi_1", payment_status="paid", **extra):
    metadata = {"ad_reservation_id": reservation_id} if reservation_id else {}
    return event(
        mode="payment",
        payment_intent=intent,
        payment_status=payment_status,
        metadata=metadata,
        **extra,
    )


@pytest.fixture
def outcomes(redis_client):
    return metric_changes("subsearch_webhook_events", endpoint="ad-checkout")


def test_ad_webhook_sets_the_payment_intent_and_leaves_the_status(client, outcomes):
    reservation = make_reservation()
    response = post(client, AD, completed(reservation.id, "pi_first"))
    assert response.status_code == 200
    fresh = AdReservation.get_by_id(reservation.id)
    assert fresh.payment_intent_id == "pi_first"
    assert fresh.status == "pending_review"
    assert outcomes() == {"paid": 1}


def test_ad_webhook_replay_with_another_intent_keeps_the_first(client, outcomes):
    reservation = make_reservation()
    first = completed(reservation.id, "pi_first")
    post(client, AD, first)
    post(client, AD, first)  # the same event again
    post(client, AD, completed(reservation.id, "pi_second"))  # another event
    assert AdReservation.get_by_id(reservation.id).payment_intent_id == "pi_first"
    assert outcomes() == {"paid": 1, "duplicate_event": 1, "already_paid": 1}


@pytest.mark.parametrize(
    ("case", "payload", "signed"),
    [
        ("bad_signature", completed(), False),
        ("ignored_event", event("charge.refunded", metadata={}), True),
        ("ignored_event", event("payment_intent.payment_failed"), True),
        ("missing_metadata", completed(reservation_id=None), True),
        ("missing_metadata", completed(reservation_id="r-\x00"), True),
        (
            "missing_metadata",
            event(mode="subscription", subscription="sub_1", metadata={"reference_id": "u"}),
            True,
        ),
        ("missing_payment_intent", completed(intent=None), True),
        ("missing_payment_intent", completed(intent="pi_\x00"), True),
        ("unknown_reservation", completed(reservation_id="no-such-reservation"), True),
    ],
)
def test_ad_webhook_failures_answer_200_and_write_nothing(client, outcomes, case, payload, signed):
    reservation = make_reservation()
    if case == "bad_signature":
        payload = completed(reservation.id)
    response = post(client, AD, payload, secret="whsec_test_one" if signed else "whsec_wrong")
    assert response.status_code == 200
    assert AdReservation.get_by_id(reservation.id).payment_intent_id is None
    assert PaymentEvent.select().count() == 0
    assert outcomes() == {case: 1}

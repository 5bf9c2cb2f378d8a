"""Webhook signatures: the provider's documented scheme, verified with its SDK; and the
record of events already received."""

from __future__ import annotations

import json
import time

import pytest
import stripe

from models.payments import (
    CheckoutPaymentPending,
    UnhandledEvent,
    WebhookSignatureInvalid,
    webhooks,
)
from models.payments.events import record_event
from models.tables import PaymentEvent

SECRETS = ("whsec_test_one", "whsec_test_two")
EVENT = {
    "id": "evt_1",
    "object": "event",
    "type": "checkout.session.completed",
    "data": {"object": {"id": "cs_1"}},
}
BODY = json.dumps(EVENT).encode()
# What an endpoint reads from it: a checkout completed without saying it was paid.
TYPED = CheckoutPaymentPending(
    "evt_1", "checkout.session.completed", session_id="cs_1", reservation_id=None
)


def test_our_signature_is_the_documented_scheme():
    assert webhooks.sign(BODY, "whsec_x", 1_800_000_000) == (
        stripe.WebhookSignature.generate_signature_header(BODY.decode(), "whsec_x", 1_800_000_000)
    )


@pytest.mark.parametrize("secret", SECRETS)
def test_a_valid_signature_is_accepted_with_each_secret_of_the_list(secret):
    assert webhooks.verify(BODY, webhooks.sign(BODY, secret), SECRETS) == TYPED


@pytest.mark.parametrize(
    ("body", "header"),
    [
        (BODY.replace(b"cs_1", b"cs_2"), webhooks.sign(BODY, SECRETS[0])),
        (BODY, webhooks.sign(BODY, "whsec_someone_else")),
        (BODY, webhooks.sign(BODY, SECRETS[0], int(time.time()) - 301)),
        (BODY, None),
        (BODY, ""),
        (BODY, "t=abc,v1=nothex"),
    ],
    ids=["tampered-body", "wrong-secret", "stale-timestamp", "missing", "empty", "garbage"],
)
def test_bad_signatures_are_rejected(body, header):
    with pytest.raises(WebhookSignatureInvalid):
        webhooks.verify(body, header, SECRETS)


def test_a_timestamp_within_the_tolerance_is_accepted():
    header = webhooks.sign(BODY, SECRETS[1], int(time.time()) - 290)
    assert webhooks.verify(BODY, header, SECRETS).id == "evt_1"


def test_no_configured_secret_accepts_nothing():
    with pytest.raises(WebhookSignatureInvalid):
        webhooks.verify(BODY, webhooks.sign(BODY, "whsec_x"), ())


def test_an_event_is_new_once_per_endpoint():
    assert record_event(TYPED, "subscription") is True
    assert record_event(TYPED, "subscription") is False
    assert record_event(TYPED, "ad-checkout") is True
    assert PaymentEvent.select().count() == 2


def test_the_record_keeps_the_event_id_and_its_type_as_sent():
    record_event(UnhandledEvent("evt_2", "x" * 250 + "\x00"), "ad-checkout", processed=True)
    row = PaymentEvent.get(PaymentEvent.id == "evt_2")
    assert (row.endpoint, row.type) == ("ad-checkout", "x" * 200)
    assert row.processed_at is not None
    record_event(TYPED, "subscription")
    row = PaymentEvent.get(PaymentEvent.id == "evt_1")
    assert (row.type, row.processed_at) == ("checkout.session.completed", None)


def test_a_timestamp_beyond_the_tolerance_in_the_future_is_rejected():
    # The SDK checks only the past; a signature made ahead of time is refused too.
    ahead = int(time.time()) + webhooks.TOLERANCE_SECONDS + 1
    with pytest.raises(WebhookSignatureInvalid, match="future"):
        webhooks.verify(BODY, webhooks.sign(BODY, SECRETS[0], ahead), SECRETS)


def test_a_timestamp_just_inside_the_tolerance_in_the_future_is_accepted():
    ahead = int(time.time()) + webhooks.TOLERANCE_SECONDS - 10
    assert webhooks.verify(BODY, webhooks.sign(BODY, SECRETS[0], ahead), SECRETS).id == "evt_1"


@pytest.mark.parametrize(
    "header",
    [f"t={int(time.time())},v1=\u00e9", "v1=abc", "t=,v1=abc", "t=soon,v1=abc"],
    ids=["non-ascii", "no-timestamp", "empty-timestamp", "word-timestamp"],
)
def test_malformed_headers_are_invalid_signatures_not_crashes(header):
    with pytest.raises(WebhookSignatureInvalid):
        webhooks.verify(BODY, header, SECRETS)


def test_a_signed_event_id_the_database_cannot_store_is_not_an_event():
    body = json.dumps({**EVENT, "id": "evt_\u0000"}).encode()
    with pytest.raises(WebhookSignatureInvalid):
        webhooks.verify(body, webhooks.sign(body, SECRETS[0]), SECRETS)

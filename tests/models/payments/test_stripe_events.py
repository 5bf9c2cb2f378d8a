"""Each engine reads the provider's event bodies into typed events: every handled kind,
and bodies of a handled kind whose ids are missing, malformed or unstorable (their ids
come out None, so the rules answer as they always did: missing_metadata and the rest).
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from models.payments import (
    CheckoutExpired,
    CheckoutPaid,
    CheckoutPaymentFailed,
    CheckoutPaymentPending,
    SubscriptionChanged,
    SubscriptionCheckoutCompleted,
    UnhandledEvent,
    WebhookEvent,
    webhooks,
)
from models.payments.stripe_engine import StripeProvider
from models.payments.stripe_events import parse_event
from web.devtools.local_payments.engine import LocalProvider

pytestmark = pytest.mark.database_independent

SECRET = "whsec_a"
COMPLETED = "checkout.session.completed"


def body(event_type: str, data: Any = None, **obj: Any) -> dict[str, Any]:
    return {
        "id": "evt_1",
        "object": "event",
        "type": event_type,
        "data": {"object": obj} if data is None else data,
    }


def session(event_type: str = COMPLETED, metadata: Any = None, **fields: Any) -> dict[str, Any]:
    values = {
        "id": "cs_1",
        "mode": "payment",
        "payment_status": "paid",
        "payment_intent": "pi_1",
        "metadata": {"ad_reservation_id": "r-1"} if metadata is None else metadata,
    }
    return body(event_type, **{**values, **fields})


@pytest.fixture(params=["stripe", "local"])
def engine(request) -> StripeProvider | LocalProvider:
    if request.param == "stripe":
        return StripeProvider("sk_test_unused", webhook_secrets=(SECRET,))
    return LocalProvider(public_base_url="http://127.0.0.1:8000", webhook_secrets=(SECRET,))


def received(engine: StripeProvider | LocalProvider, payload: dict[str, Any]) -> WebhookEvent:
    """What the engine reads from a signed delivery, checked against a stored read."""
    raw = json.dumps(payload).encode()
    event = engine.verify_webhook(raw, webhooks.sign(raw, SECRET))
    assert engine.read_event(json.loads(raw)) == event
    return event


HANDLED = [
    (
        session(),
        CheckoutPaid("evt_1", COMPLETED, "cs_1", "r-1", payment_intent_id="pi_1"),
    ),
    (
        session(payment_status="no_payment_required"),
        CheckoutPaid("evt_1", COMPLETED, "cs_1", "r-1", payment_intent_id="pi_1"),
    ),
    (
        session(payment_intent={"id": "pi_expanded", "object": "payment_intent"}),
        CheckoutPaid("evt_1", COMPLETED, "cs_1", "r-1", payment_intent_id="pi_expanded"),
    ),
    (
        session(payment_status="unpaid", payment_intent="pi_konbini"),
        CheckoutPaymentPending("evt_1", COMPLETED, "cs_1", "r-1"),
    ),
    (
        session("checkout.session.async_payment_succeeded"),
        CheckoutPaid(
            "evt_1",
            "checkout.session.async_payment_succeeded",
            "cs_1",
            "r-1",
            payment_intent_id="pi_1",
        ),
    ),
    (
        session("checkout.session.async_payment_failed", payment_status="unpaid"),
        CheckoutPaymentFailed("evt_1", "checkout.session.async_payment_failed", "cs_1", "r-1"),
    ),
    (
        session("checkout.session.expired", payment_status="unpaid", payment_intent=None),
        CheckoutExpired("evt_1", "checkout.session.expired", "cs_1", "r-1"),
    ),
    (
        session(
            mode="subscription",
            subscription="sub_1",
            client_reference_id="user-1",
            metadata={"reference_id": "user-1"},
        ),
        SubscriptionCheckoutCompleted(
            "evt_1", COMPLETED, subscription_id="sub_1", reference_id="user-1"
        ),
    ),
    (
        session(mode="subscription", subscription={"id": "sub_2", "object": "subscription"}),
        SubscriptionCheckoutCompleted(
            "evt_1", COMPLETED, subscription_id="sub_2", reference_id=None
        ),
    ),
    (
        body("customer.subscription.created", id="sub_1", metadata={"reference_id": "user-1"}),
        SubscriptionChanged(
            "evt_1", "customer.subscription.created", "sub_1", reference_id="user-1", deleted=False
        ),
    ),
    (
        body("customer.subscription.updated", id="sub_1"),
        SubscriptionChanged(
            "evt_1", "customer.subscription.updated", "sub_1", reference_id=None, deleted=False
        ),
    ),
    (
        body("customer.subscription.deleted", id="sub_1", metadata={}),
        SubscriptionChanged(
            "evt_1", "customer.subscription.deleted", "sub_1", reference_id=None, deleted=True
        ),
    ),
    (
        body("charge.refunded", id="ch_1", metadata={"ad_reservation_id": "r-1"}),
        UnhandledEvent("evt_1", "charge.refunded"),
    ),
]


HANDLED_IDS = [
    "paid",
    "no-payment-required",
    "expanded-intent",
    "unpaid",
    "async-succeeded",
    "async-failed",
    "expired",
    "subscription-checkout",
    "subscription-checkout-expanded",
    "subscription-created",
    "subscription-updated",
    "subscription-deleted",
    "other",
]


@pytest.mark.parametrize(("payload", "expected"), HANDLED, ids=HANDLED_IDS)
def test_each_engine_reads_each_event_it_delivers(engine, payload, expected):
    assert received(engine, payload) == expected


NUL = "r-\x00"


@pytest.mark.parametrize(
    "metadata",
    [{}, [], "r-1", {"ad_reservation_id": None}, {"ad_reservation_id": 7}],
    ids=["empty", "a-list", "a-string", "null", "a-number"],
)
@pytest.mark.parametrize(
    "event_type",
    [
        COMPLETED,
        "checkout.session.async_payment_succeeded",
        "checkout.session.async_payment_failed",
        "checkout.session.expired",
    ],
)
def test_a_checkout_without_a_reservation_in_its_metadata_names_none(engine, event_type, metadata):
    event = received(engine, session(event_type, metadata=metadata))
    assert event.type == event_type
    assert event.reservation_id is None


@pytest.mark.parametrize("reservation_id", ["", NUL, "r" * 256], ids=["empty", "nul", "too-long"])
def test_a_reservation_id_we_could_not_store_is_none(engine, reservation_id):
    event = received(engine, session(metadata={"ad_reservation_id": reservation_id}))
    assert isinstance(event, CheckoutPaid)
    assert event.reservation_id is None


def test_the_longest_storable_reservation_id_is_kept(engine):
    event = received(engine, session(metadata={"ad_reservation_id": "r" * 255}))
    assert event.reservation_id == "r" * 255


@pytest.mark.parametrize(
    "intent",
    [None, "", "pi_\x00", {"id": None}, {"object": "payment_intent"}, 42],
    ids=["null", "empty", "nul", "expanded-null", "expanded-without-id", "a-number"],
)
def test_a_paid_checkout_without_a_usable_payment_intent_has_none(engine, intent):
    event = received(engine, session(payment_intent=intent))
    assert event == CheckoutPaid("evt_1", COMPLETED, "cs_1", "r-1", payment_intent_id=None)


@pytest.mark.parametrize("data", [None, [], "x", {"object": None}, {"object": ["cs_1"]}], ids=repr)
def test_a_checkout_event_without_a_session_object_names_nothing(engine, data):
    payload = body("checkout.session.expired", data={} if data is None else data)
    assert received(engine, payload) == CheckoutExpired(
        "evt_1", "checkout.session.expired", None, None
    )


@pytest.mark.parametrize("status", [None, "unpaid", ["paid"], {"paid": 1}], ids=repr)
def test_a_completion_not_stated_paid_is_pending(engine, status):
    event = received(engine, session(payment_status=status))
    assert event == CheckoutPaymentPending("evt_1", COMPLETED, "cs_1", "r-1")


def test_a_session_id_is_kept_as_sent_even_when_it_could_not_be_stored(engine):
    # It is only compared with the stored checkout, which it then cannot be.
    event = received(engine, session("checkout.session.expired", id="cs_\x00"))
    assert event == CheckoutExpired("evt_1", "checkout.session.expired", "cs_\x00", "r-1")


@pytest.mark.parametrize("subscription", [None, "", 5, {"id": None}], ids=repr)
def test_a_subscription_checkout_without_a_subscription_names_none(engine, subscription):
    event = received(engine, session(mode="subscription", subscription=subscription))
    assert event == SubscriptionCheckoutCompleted("evt_1", COMPLETED, None, None)


@pytest.mark.parametrize(
    "obj", [{"id": 5}, {"metadata": {"reference_id": "u"}}, {}], ids=["number", "none", "empty"]
)
def test_a_subscription_event_without_a_subscription_id_is_unhandled(engine, obj):
    payload = body("customer.subscription.updated", **obj)
    assert received(engine, payload) == UnhandledEvent("evt_1", "customer.subscription.updated")


@pytest.mark.parametrize(
    ("metadata", "reference_id"),
    [({"reference_id": 5}, None), ("u-1", None), ({"reference_id": "u-1"}, "u-1")],
    ids=["number", "not-an-object", "string"],
)
def test_a_subscription_reference_is_a_string_or_none(engine, metadata, reference_id):
    payload = body("customer.subscription.updated", id="sub_1", metadata=metadata)
    assert received(engine, payload).reference_id == reference_id


@pytest.mark.parametrize(
    ("payload", "event_type"),
    [
        ({"id": "evt_1", "type": None}, "None"),
        ({"id": "evt_1"}, ""),
        ({"id": "evt_1", "type": 5, "data": {"object": {}}}, "5"),
        ({"id": "evt_1", "type": "invoice.paid", "data": []}, "invoice.paid"),
    ],
    ids=["null", "missing", "a-number", "invoice"],
)
def test_other_bodies_are_unhandled_and_keep_their_type_as_text(engine, payload, event_type):
    # The text is what payment_events.type has always stored for them.
    assert received(engine, payload) == UnhandledEvent("evt_1", event_type)


def test_the_parser_reads_a_body_without_any_engine():
    assert parse_event(session()) == HANDLED[0][1]

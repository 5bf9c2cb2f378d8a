"""Stripe's event bodies read as our typed events (models/payments/events.py): the one
place that knows their shape. Both engines read with it, the local one because it
sends the same bodies.

A body of a kind we use but of a shape we cannot read gives that kind of event with
the unreadable ids None, so the rule applying it can say what was missing.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from models.payments.base import PAID_STATUSES
from models.payments.events import (
    CheckoutExpired,
    CheckoutPaid,
    CheckoutPaymentFailed,
    CheckoutPaymentPending,
    SubscriptionChanged,
    SubscriptionCheckoutCompleted,
    UnhandledEvent,
    WebhookEvent,
)

COMPLETED = "checkout.session.completed"
ASYNC_SUCCEEDED = "checkout.session.async_payment_succeeded"
ASYNC_FAILED = "checkout.session.async_payment_failed"
EXPIRED = "checkout.session.expired"
CHECKOUT_EVENTS = (COMPLETED, ASYNC_SUCCEEDED, ASYNC_FAILED, EXPIRED)

SUBSCRIPTION_DELETED = "customer.subscription.deleted"
SUBSCRIPTION_EVENTS = (
    "customer.subscription.created",
    "customer.subscription.updated",
    SUBSCRIPTION_DELETED,
)

# The metadata key naming the ad reservation a one-time checkout pays for.
AD_RESERVATION_KEY = "ad_reservation_id"


def parse_event(body: Mapping[str, Any]) -> WebhookEvent:
    """A verified event body (a JSON object whose `id` is usable) as a typed event."""
    event_id = body["id"]
    event_type = str(body.get("type", ""))
    data = body.get("data")
    obj = data.get("object") if isinstance(data, dict) else None
    obj = obj if isinstance(obj, dict) else {}
    if event_type == COMPLETED and obj.get("mode") == "subscription":
        return SubscriptionCheckoutCompleted(
            event_id,
            event_type,
            subscription_id=_subscription_of(obj),
            reference_id=_text(obj.get("client_reference_id")),
        )
    if event_type in CHECKOUT_EVENTS:
        return _checkout_event(event_id, event_type, obj)
    subscription_id = obj.get("id")
    if event_type in SUBSCRIPTION_EVENTS and isinstance(subscription_id, str):
        return SubscriptionChanged(
            event_id,
            event_type,
            subscription_id=subscription_id,
            reference_id=_text(_metadata(obj).get("reference_id")),
            deleted=event_type == SUBSCRIPTION_DELETED,
        )
    return UnhandledEvent(event_id, event_type)


def _checkout_event(
    event_id: str, event_type: str, session: dict[str, Any]
) -> CheckoutPaid | CheckoutPaymentPending | CheckoutPaymentFailed | CheckoutExpired:
    session_id = _text(session.get("id"))
    reservation_id = usable_id(_metadata(session).get(AD_RESERVATION_KEY))
    if event_type == ASYNC_FAILED:
        return CheckoutPaymentFailed(event_id, event_type, session_id, reservation_id)
    if event_type == EXPIRED:
        return CheckoutExpired(event_id, event_type, session_id, reservation_id)
    if event_type == COMPLETED and not _paid(session.get("payment_status")):
        return CheckoutPaymentPending(event_id, event_type, session_id, reservation_id)
    # Completed and paid, or a delayed payment that succeeded.
    intent = usable_id(_ref(session.get("payment_intent")))
    return CheckoutPaid(event_id, event_type, session_id, reservation_id, intent)


def _paid(payment_status: object) -> bool:
    return isinstance(payment_status, str) and payment_status in PAID_STATUSES


def _subscription_of(session: dict[str, Any]) -> str | None:
    subscription = _ref(session.get("subscription"))
    return subscription if isinstance(subscription, str) and subscription else None


def _metadata(obj: dict[str, Any]) -> dict[str, Any]:
    metadata = obj.get("metadata")
    return metadata if isinstance(metadata, dict) else {}


def _ref(value: object) -> object:
    """An expandable reference: the id, or the expanded object's id."""
    return value.get("id") if isinstance(value, dict) else value


def _text(value: object) -> str | None:
    return value if isinstance(value, str) else None


def usable_id(value: object) -> str | None:
    """An id we can store, or None. PostgreSQL refuses NUL in text, and no id of ours or
    the provider's is longer than 255 characters."""
    if isinstance(value, str) and 0 < len(value) <= 255 and "\x00" not in value:
        return value
    return None

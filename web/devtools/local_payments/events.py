"""The local engine's events, built only here: the bodies the real provider would send
(Stripe's shapes, read back by models/payments/stripe_events.py like the real ones),
the endpoints each goes to, the outbox rows that deliver them, and their signature."""

from __future__ import annotations

import json
import secrets
import time
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from models import outbox
from models.payments import webhooks
from models.payments.events import WebhookEvent
from models.payments.stripe_events import parse_event

if TYPE_CHECKING:
    from models.payments.local_engine import (
        LocalCheckoutSession,
        LocalPrice,
        LocalSubscription,
    )

AD_CHECKOUT_ENDPOINT = "/api/webhooks/payment/ad-checkout"
SUBSCRIPTION_ENDPOINT = "/api/auth/payment/webhook"
# Which events each of this service's endpoints is registered for at the provider.
ENDPOINT_EVENTS = {
    AD_CHECKOUT_ENDPOINT: {
        "checkout.session.completed",
        "checkout.session.async_payment_succeeded",
        "checkout.session.async_payment_failed",
        "checkout.session.expired",
    },
    SUBSCRIPTION_ENDPOINT: {
        "checkout.session.completed",
        "checkout.session.expired",
        "customer.subscription.created",
        "customer.subscription.updated",
        "customer.subscription.deleted",
    },
}


def new_id(prefix: str) -> str:
    return f"{prefix}_local_{secrets.token_hex(12)}"


class LocalEvent:
    """An event the provider sends, the endpoints that receive it, and the outbox rows
    that deliver it (one per endpoint)."""

    def __init__(self, event_type: str, obj: dict[str, Any]):
        self.outbox_ids: list[str] = []
        self.payload: dict[str, Any] = {
            "id": new_id("evt"),
            "object": "event",
            "type": event_type,
            "created": int(time.time()),
            "livemode": False,
            "api_version": "local",
            "data": {"object": obj},
        }

    @property
    def type(self) -> str:
        return str(self.payload["type"])

    @property
    def event(self) -> WebhookEvent:
        """What an endpoint receiving it reads."""
        return parse_event(self.payload)

    @property
    def endpoints(self) -> list[str]:
        return [path for path, types in ENDPOINT_EVENTS.items() if self.type in types]

    def body(self) -> bytes:
        return json.dumps(self.payload, ensure_ascii=False).encode()


def checkout_event(event_type: str, row: LocalCheckoutSession) -> LocalEvent:
    """A `checkout.session.*` event about the session as it is now (see `_emit`)."""
    return _emit(event_type, _session_object(row))


def subscription_event(event_type: str, row: LocalSubscription, price: LocalPrice) -> LocalEvent:
    """A `customer.subscription.*` event about the subscription as it is now."""
    return _emit(event_type, _subscription_object(row, price))


def _emit(event_type: str, obj: dict[str, Any]) -> LocalEvent:
    """An event to deliver, written to the outbox in the caller's transaction (the one
    that changed what it reports), so Redis losing the delivery loses nothing; like the
    real provider, this one keeps sending until an endpoint answers 2xx."""
    event = LocalEvent(event_type, obj)
    body = event.body().decode()
    event.outbox_ids = [outbox.add("deliver_local_event", path, body) for path in event.endpoints]
    return event


def send(events: Iterable[LocalEvent]) -> None:
    """Queue the deliveries of events already in the outbox (call after commit); one the
    queue cannot take now is sent by the outbox's redrive."""
    for event in events:
        for outbox_id in event.outbox_ids:
            outbox.send(outbox_id)


def signed_delivery(event_body: bytes, secret: str) -> dict[str, str]:
    """Headers for delivering an event body, signed now with `secret`."""
    return {
        "Content-Type": "application/json",
        webhooks.SIGNATURE_HEADER: webhooks.sign(event_body, secret),
    }


def _session_object(row: LocalCheckoutSession) -> dict[str, Any]:
    return {
        "id": row.id,
        "object": "checkout.session",
        "mode": row.mode,
        "status": row.status,
        "payment_status": row.payment_status,
        "payment_method_types": ["card", "konbini"] if row.mode == "payment" else ["card"],
        "amount_total": row.amount_total,
        "currency": row.currency,
        "customer": row.customer_id,
        "client_reference_id": row.client_reference_id,
        "payment_intent": row.payment_intent_id,
        "subscription": row.subscription_id,
        "metadata": row.metadata,
        "expires_at": row.expires_at,
        "success_url": row.success_url,
        "cancel_url": row.cancel_url,
        "url": None,
        "livemode": False,
    }


def _subscription_object(row: LocalSubscription, price: LocalPrice) -> dict[str, Any]:
    return {
        "id": row.id,
        "object": "subscription",
        "customer": row.customer_id,
        "status": row.status,
        "cancel_at_period_end": bool(row.cancel_at_period_end),
        "canceled_at": row.canceled_at,
        "ended_at": row.ended_at,
        "schedule": row.schedule_id,
        "metadata": row.metadata,
        "items": {
            "object": "list",
            "data": [
                {
                    "object": "subscription_item",
                    "current_period_start": row.current_period_start,
                    "current_period_end": row.current_period_end,
                    "price": _price_object(price),
                    "quantity": 1,
                }
            ],
        },
    }


def _price_object(row: LocalPrice) -> dict[str, Any]:
    return {
        "id": row.id,
        "object": "price",
        "unit_amount": row.unit_amount,
        "currency": row.currency,
        "active": bool(row.active),
        "product": row.product,
        "recurring": {"interval": row.recurring_interval} if row.recurring_interval else None,
    }

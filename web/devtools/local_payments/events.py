"""The local engine's events, built only here: the bodies the real provider would send
(Stripe's shapes, read back by models/payments/stripe_events.py like the real ones),
the endpoints each goes to, the outbox rows that deliver them, and their signature.

Each object kind the provider puts in an event has one builder below (event, checkout
session, subscription, its item list and item, price), filling every field Stripe's
API reference marks required, so code tried only against this simulator meets the
shapes the real provider sends: the values are the simulated object's, null where
Stripe allows null and the simulator has nothing to say.
"""

from __future__ import annotations

import json
import secrets
import time
from collections.abc import Iterable
from typing import Any

import stripe

from models import outbox
from models.clock import parse_iso
from models.payments import webhooks
from models.payments.events import WebhookEvent
from models.payments.stripe_events import parse_event
from web.devtools.local_payments.tables import LocalCheckoutSession, LocalPrice, LocalSubscription

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


def endpoints_for(event_type: str) -> list[str]:
    """This service's endpoints registered for events of this type."""
    return [path for path, types in ENDPOINT_EVENTS.items() if event_type in types]


class LocalEvent:
    """An event the provider sends, the endpoints that receive it, and the outbox rows
    that deliver them (one per endpoint)."""

    def __init__(self, event_type: str, obj: dict[str, Any]):
        self.outbox_ids: list[str] = []
        self.payload: dict[str, Any] = event_object(event_type, obj)

    @property
    def type(self) -> str:
        return str(self.payload["type"])

    @property
    def event(self) -> WebhookEvent:
        """What an endpoint receiving it reads."""
        return parse_event(self.payload)

    @property
    def endpoints(self) -> list[str]:
        return endpoints_for(self.type)

    def body(self) -> bytes:
        return json.dumps(self.payload, ensure_ascii=False).encode()


def checkout_event(event_type: str, row: LocalCheckoutSession) -> LocalEvent:
    """A `checkout.session.*` event about the session as it is now (see `_emit`)."""
    return _emit(event_type, session_object(row))


def subscription_event(event_type: str, row: LocalSubscription, price: LocalPrice) -> LocalEvent:
    """A `customer.subscription.*` event about the subscription as it is now."""
    return _emit(event_type, subscription_object(row, price))


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


# -- the provider's objects, one builder per kind -------------------------------------------


def event_object(event_type: str, obj: dict[str, Any]) -> dict[str, Any]:
    """Stripe's `event` about `obj`, as it happens now. `pending_webhooks` counts the
    endpoints still to receive it (all of them: it is built before any delivery); the
    request is null-filled, the simulator having no API request id to give; the API
    version is the one the SDK pins, whose shapes these builders follow."""
    return {
        "id": new_id("evt"),
        "object": "event",
        "api_version": stripe.api_version,
        "created": int(time.time()),
        "data": {"object": obj},
        "livemode": False,
        "pending_webhooks": len(endpoints_for(event_type)),
        "request": {"id": None, "idempotency_key": None},
        "type": event_type,
    }


def session_object(row: LocalCheckoutSession) -> dict[str, Any]:
    """Stripe's `checkout.session`. Its `url` is null: events report only completed or
    expired sessions, for which the provider no longer gives one."""
    return {
        "id": row.id,
        "object": "checkout.session",
        "amount_subtotal": row.amount_total,
        "amount_total": row.amount_total,
        "automatic_tax": {"enabled": False, "liability": None, "provider": None, "status": None},
        "cancel_url": row.cancel_url,
        "client_reference_id": row.client_reference_id,
        "created": _unix(row.created_at),
        "currency": row.currency,
        "custom_fields": [],
        "custom_text": {
            "after_submit": None,
            "shipping_address": None,
            "submit": None,
            "terms_of_service_acceptance": None,
        },
        "customer": row.customer_id,
        "expires_at": row.expires_at,
        "invoice": None,
        "livemode": False,
        "metadata": row.metadata,
        "mode": row.mode,
        "payment_intent": row.payment_intent_id,
        "payment_method_types": ["card", "konbini"] if row.mode == "payment" else ["card"],
        "payment_status": row.payment_status,
        "setup_intent": None,
        "shipping_options": [],
        "status": row.status,
        "subscription": row.subscription_id,
        "success_url": row.success_url,
        "total_details": {"amount_discount": 0, "amount_shipping": 0, "amount_tax": 0},
        "url": None,
    }


def subscription_object(row: LocalSubscription, price: LocalPrice) -> dict[str, Any]:
    """Stripe's `subscription` with its one item at `price`. It started at its first
    period's start (`created`, `start_date` and the billing anchor), bills that price's
    currency by charging the customer's card, and runs in the flexible billing mode that
    new subscriptions get in the pinned API version. Cancelling at period end sets
    `cancel_at` to that end, as the provider does."""
    started = _unix(row.created_at)
    return {
        "id": row.id,
        "object": "subscription",
        "automatic_tax": {"enabled": False, "liability": None, "disabled_reason": None},
        "billing_cycle_anchor": started,
        "billing_mode": {"type": "flexible", "flexible": None},
        "billing_schedules": [],
        "cancel_at": row.current_period_end if row.cancel_at_period_end else None,
        "cancel_at_period_end": bool(row.cancel_at_period_end),
        "canceled_at": row.canceled_at,
        "collection_method": "charge_automatically",
        "created": started,
        "currency": price.currency,
        "customer": row.customer_id,
        "days_until_due": None,
        "default_payment_method": None,
        "default_tax_rates": [],
        "description": None,
        "discounts": [],
        "ended_at": row.ended_at,
        "invoice_settings": {"account_tax_ids": None, "issuer": {"type": "self"}},
        "items": subscription_item_list(row, price),
        "latest_invoice": None,
        "livemode": False,
        "metadata": row.metadata,
        "pause_collection": None,
        "pending_update": None,
        "schedule": row.schedule_id,
        "start_date": started,
        "status": row.status,
        "trial_end": None,
        "trial_start": None,
    }


def subscription_item_list(row: LocalSubscription, price: LocalPrice) -> dict[str, Any]:
    """The subscription's `items`: a complete list (one item), with the address the
    provider lists them at."""
    return {
        "object": "list",
        "data": [subscription_item(row, price)],
        "has_more": False,
        "total_count": 1,
        "url": f"/v1/subscription_items?subscription={row.id}",
    }


def subscription_item(row: LocalSubscription, price: LocalPrice) -> dict[str, Any]:
    """Stripe's `subscription_item`: one unit of `price` over the current period. The
    simulator keeps one item per subscription, so its id is derived from the
    subscription's and stays the same across plan changes, as an item updated in place
    does."""
    return {
        "id": row.id.replace("sub_", "si_", 1),
        "object": "subscription_item",
        "billing_thresholds": None,
        "created": _unix(row.created_at),
        "current_period_end": row.current_period_end,
        "current_period_start": row.current_period_start,
        "discounts": [],
        "metadata": {},
        "price": price_object(price),
        "quantity": 1,
        "subscription": row.id,
        "tax_rates": [],
    }


def price_object(row: LocalPrice) -> dict[str, Any]:
    """Stripe's `price`: a flat unit amount, recurring (every one interval, billed on the
    quantity) when it has an interval, one-time otherwise."""
    recurring = None
    if row.recurring_interval:
        recurring = {
            "interval": row.recurring_interval,
            "interval_count": 1,
            "meter": None,
            "trial_period_days": None,
            "usage_type": "licensed",
        }
    return {
        "id": row.id,
        "object": "price",
        "active": bool(row.active),
        "billing_scheme": "per_unit",
        "created": _unix(row.created_at),
        "currency": row.currency,
        "custom_unit_amount": None,
        "livemode": False,
        "lookup_key": None,
        "metadata": row.metadata,
        "nickname": None,
        "product": row.product,
        "recurring": recurring,
        "tax_behavior": "unspecified",
        "tiers_mode": None,
        "transform_quantity": None,
        "type": "recurring" if recurring else "one_time",
        "unit_amount": row.unit_amount,
        "unit_amount_decimal": str(row.unit_amount),
    }


def _unix(stored: str) -> int:
    """A row's stored time as the provider's Unix seconds."""
    return int(parse_iso(stored).timestamp())

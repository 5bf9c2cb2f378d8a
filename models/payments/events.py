"""What a payment provider's webhook tells us, in this service's terms. Each engine turns
its own event bodies into these (`verify_webhook`, `read_event`), so the rules in the
domain never read a provider's JSON; and the record of events already received."""

from __future__ import annotations

from dataclasses import dataclass

from models.clock import now_iso
from models.db import db
from models.tables import PaymentEvent


@dataclass(frozen=True)
class BaseEvent:
    id: str  # the provider's event id: a redelivery repeats it
    type: str  # the provider's name for the event, as sent (kept in payment_events.type)


@dataclass(frozen=True)
class CheckoutEvent(BaseEvent):
    """Something happened to a one-time checkout. `reservation_id` is the ad reservation
    named in its metadata, None when absent or not an id we could store."""

    session_id: str | None
    reservation_id: str | None


@dataclass(frozen=True)
class CheckoutPaid(CheckoutEvent):
    """The money arrived: at completion (paid, or nothing to pay), or later for a
    delayed method (konbini). None for a payment intent that is absent or unusable."""

    payment_intent_id: str | None


@dataclass(frozen=True)
class CheckoutPaymentPending(CheckoutEvent):
    """The checkout completed with a delayed method: the money is still to come, and a
    CheckoutPaid or CheckoutPaymentFailed follows."""


@dataclass(frozen=True)
class CheckoutPaymentFailed(CheckoutEvent):
    """A delayed payment lapsed unpaid."""


@dataclass(frozen=True)
class CheckoutExpired(CheckoutEvent):
    """The checkout was abandoned, cancelled, expired by us, or ran out of time."""


@dataclass(frozen=True)
class SubscriptionCheckoutCompleted(BaseEvent):
    """A plan's checkout completed. `reference_id` is the user we named when creating it;
    `subscription_id` is None when the event carries none."""

    subscription_id: str | None
    reference_id: str | None


@dataclass(frozen=True)
class SubscriptionChanged(BaseEvent):
    """A subscription was created, changed or (`deleted`) ended at the provider.
    `reference_id` is the user named in its metadata, when there is one."""

    subscription_id: str
    reference_id: str | None
    deleted: bool


@dataclass(frozen=True)
class UnhandledEvent(BaseEvent):
    """An event no rule of ours uses."""


WebhookEvent = (
    CheckoutPaid
    | CheckoutPaymentPending
    | CheckoutPaymentFailed
    | CheckoutExpired
    | SubscriptionCheckoutCompleted
    | SubscriptionChanged
    | UnhandledEvent
)


def record_event(event: BaseEvent, endpoint: str, *, processed: bool = False) -> bool:
    """Store the event id for this endpoint; False when it was received before.
    `processed`: the caller applies the event in this same transaction.

    One INSERT ... ON CONFLICT DO NOTHING: two deliveries at once cannot both be new.
    """
    query = PaymentEvent.insert(
        id=event.id,
        endpoint=endpoint,
        type=event.type.replace("\x00", "")[:200],
        processed_at=now_iso() if processed else None,
    ).on_conflict_ignore()
    inserted: int = db.execute(query).rowcount
    return inserted == 1

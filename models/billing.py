"""Subscriptions as this service keeps them: one row per provider subscription, copied
from the provider's current state (never from a possibly stale event body)."""

from __future__ import annotations

import logging
import uuid
from dataclasses import dataclass

from models.db import write_transaction
from models.payments import ProviderSubscription, get_provider, plan_for_price
from models.tables import Subscription, User

log = logging.getLogger(__name__)


SUBSCRIPTION_EVENTS = (
    "customer.subscription.created",
    "customer.subscription.updated",
    "customer.subscription.deleted",
)


@dataclass(frozen=True)
class SubscriptionChange:
    """The row before and after a sync; `before` is None for a new subscription."""

    before: Subscription | None
    after: Subscription


def _reference_for(remote: ProviderSubscription, hint: str | None) -> str | None:
    """Whose subscription this is: the hint from the checkout, the reference we put in
    its metadata, the row we already have, or the user owning the provider customer."""
    for candidate in (hint, remote.metadata.get("reference_id")):
        if candidate and User.get_or_none(User.id == candidate):
            return candidate
    known = Subscription.get_or_none(Subscription.payment_subscription_id == remote.id)
    if known:
        return known.reference_id
    if remote.customer_id:
        owner = User.get_or_none(User.payment_customer_id == remote.customer_id)
        if owner:
            return owner.id
    return None


def sync_subscription(subscription_id: str, reference_id: str | None = None):
    """Fetch the provider's subscription and upsert our row; None when it is not ours
    to keep (unknown price or owner), which is logged."""
    remote = get_provider().get_subscription(subscription_id)
    plan = plan_for_price(remote.price_id)
    if plan is None:
        log.warning("subscription %s has price %s of no plan", remote.id, remote.price_id)
        return None
    owner = _reference_for(remote, reference_id)
    if owner is None:
        log.warning("subscription %s belongs to no known user", remote.id)
        return None
    values = {
        "plan": plan,
        "reference_id": owner,
        "payment_customer_id": remote.customer_id,
        "status": remote.status,
        "period_start": remote.period_start,
        "period_end": remote.period_end,
        "trial_start": remote.trial_start,
        "trial_end": remote.trial_end,
        "cancel_at_period_end": remote.cancel_at_period_end,
        "cancel_at": remote.cancel_at,
        "canceled_at": remote.canceled_at,
        "ended_at": remote.ended_at,
        "billing_interval": remote.interval,
        "payment_schedule_id": remote.schedule_id,
    }
    with write_transaction():
        before = Subscription.get_or_none(Subscription.payment_subscription_id == remote.id)
        (
            Subscription.insert(id=str(uuid.uuid4()), payment_subscription_id=remote.id, **values)
            .on_conflict(
                conflict_target=[Subscription.payment_subscription_id],
                update={getattr(Subscription, k): v for k, v in values.items()},
            )
            .execute()
        )
        after = Subscription.get(Subscription.payment_subscription_id == remote.id)
    return SubscriptionChange(before=before, after=after)


def subscription_work(event: dict) -> tuple[str, str, str | None] | None:
    """What an event asks of us: (type, subscription id, user hint), or None to ignore."""
    event_type = event.get("type")
    obj = (event.get("data") or {}).get("object") or {}
    if event_type == "checkout.session.completed" and obj.get("mode") == "subscription":
        subscription = obj.get("subscription")
        if isinstance(subscription, dict):
            subscription = subscription.get("id")
        if isinstance(subscription, str) and subscription:
            return event_type, subscription, obj.get("client_reference_id")
        return None
    if event_type in SUBSCRIPTION_EVENTS and isinstance(obj.get("id"), str):
        return event_type, obj["id"], (obj.get("metadata") or {}).get("reference_id")
    return None

"""Subscription events from the payment provider, applied from its current state."""

from __future__ import annotations

import logging

import dramatiq

from models.billing import sync_subscription

log = logging.getLogger(__name__)


@dramatiq.actor(queue_name="billing", max_retries=10)
def handle_subscription_event(event_type: str, object_id: str, reference_id: str | None = None):
    """Copy the provider's current subscription into ours. Retries 10 times (the provider
    may be briefly unreachable); a rerun copies the same state again."""
    change = sync_subscription(object_id, reference_id)
    if change is None:
        return
    log.info(
        "%s: subscription %s is %s (%s)",
        event_type,
        object_id,
        change.after.status,
        change.after.plan,
    )

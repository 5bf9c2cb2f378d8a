"""Subscription events from the payment provider, and payment customers for new users."""

from __future__ import annotations

import logging

from models.billing import apply_stored_event, ensure_payment_customer
from models.billing import (
    cancel_duplicate_subscription as cancel_duplicate,
)
from workers.actors import actor

log = logging.getLogger(__name__)


@actor(queue_name="billing", max_retries=10)
def process_subscription_event(event_id: str) -> None:
    """Apply one stored subscription webhook event: copy the provider's subscription,
    then credit as the event says, marking the event processed in that transaction.
    Retries 10 times (the provider may be briefly unreachable), and the outbox sends it
    again while it stays unprocessed; a rerun finds it processed and changes nothing."""
    change = apply_stored_event(event_id)
    if change is not None:
        log.info(
            "event %s: subscription %s is %s (%s)",
            event_id,
            change.after.payment_subscription_id,
            change.after.status,
            change.after.plan,
        )


@actor(queue_name="billing", max_retries=10)
def create_payment_customer(user_id: str) -> None:
    """Create the user's customer at the provider. The idempotency key and a conditional
    UPDATE make a second run return the same customer and write nothing."""
    ensure_payment_customer(user_id)


@actor(queue_name="billing", max_retries=10)
def cancel_duplicate_subscription(subscription_id: str) -> None:
    """Cancel and refund a member's second paid subscription through the provider, or
    leave it for the operator when the provider refuses. Retries while the provider is
    unreachable; the provider's idempotency keys and the row's status make a rerun
    refund nothing more."""
    status = cancel_duplicate(subscription_id)
    log.info("second subscription %s: %s", subscription_id, status)

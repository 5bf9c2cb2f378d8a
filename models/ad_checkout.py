"""The ad checkout webhook's rule: a paid checkout fills the reservation's
payment_intent_id once; nothing else changes, and no failure is an error."""

from __future__ import annotations

import logging

from models.db import write_transaction
from models.payments import webhooks
from models.tables import AdReservation

log = logging.getLogger(__name__)

ENDPOINT = "ad-checkout"


def apply_ad_checkout_event(event: dict) -> str:
    """Apply a verified event; returns the outcome (for logs and counters).

    The event id is recorded in the same transaction as the write, so a redelivered
    event is recognised and a failure leaves neither behind.
    """
    if event.get("type") != "checkout.session.completed":
        return "ignored_event"
    session = (event.get("data") or {}).get("object") or {}
    metadata = session.get("metadata") or {}
    reservation_id = metadata.get("ad_reservation_id")
    intent = session.get("payment_intent")
    if isinstance(intent, dict):
        intent = intent.get("id")
    if not isinstance(reservation_id, str) or not reservation_id:
        return "missing_metadata"
    if not isinstance(intent, str) or not intent:
        return "missing_payment_intent"
    with write_transaction():
        if not AdReservation.select().where(AdReservation.id == reservation_id).exists():
            return "unknown_reservation"
        if not webhooks.record_event(event, ENDPOINT):
            return "duplicate_event"
        changed = (
            AdReservation.update(payment_intent_id=intent)
            .where((AdReservation.id == reservation_id) & AdReservation.payment_intent_id.is_null())
            .execute()
        )
    return "paid" if changed else "already_paid"

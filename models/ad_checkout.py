"""The ad checkout webhook's rule (CONTRACT 10.3): only money that arrived counts as paid.

A checkout paid at once, or a delayed payment (konbini) that succeeded later, fills the
reservation's payment_intent_id once; a checkout completed unpaid changes nothing yet;
a delayed payment that failed releases the hold. Events the rule cannot use are
outcomes, not errors; a failure to write is an error, so the provider sends it again.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from models.ads.checkout import record_payment
from models.ads.reservations import release_hold
from models.db import write_transaction
from models.payments import webhooks
from models.payments.base import PAID_STATUSES
from models.tables import AdCheckout, AdReservation

log = logging.getLogger(__name__)

ENDPOINT = "ad-checkout"

COMPLETED = "checkout.session.completed"
ASYNC_SUCCEEDED = "checkout.session.async_payment_succeeded"
ASYNC_FAILED = "checkout.session.async_payment_failed"
EXPIRED = "checkout.session.expired"
HANDLED = (COMPLETED, ASYNC_SUCCEEDED, ASYNC_FAILED, EXPIRED)


def apply_ad_checkout_event(event: dict) -> str:
    """Apply a verified event; returns the outcome (for logs and counters).

    The event id is recorded in the same transaction as the write, so a redelivered
    event is recognised and a failure leaves neither behind. Database failures are
    raised, not turned into an outcome.
    """
    event_type = event.get("type")
    if event_type not in HANDLED:
        return "ignored_event"
    data = event.get("data")
    session = data.get("object") if isinstance(data, dict) else None
    session = session if isinstance(session, dict) else {}
    metadata = session.get("metadata")
    reservation_id = (
        _usable(metadata.get("ad_reservation_id")) if isinstance(metadata, dict) else None
    )
    if reservation_id is None:
        return "missing_metadata"
    if event_type == ASYNC_FAILED:
        return _apply(event, reservation_id, _releaser("its delayed payment failed"))
    if event_type == EXPIRED:
        # Cancelled on the checkout page or timed out: the position is free at once,
        # unless the reservation has moved on to a newer checkout.
        return _apply(
            event,
            reservation_id,
            _releaser("its checkout expired or was cancelled", session.get("id")),
        )
    if event_type == COMPLETED and session.get("payment_status") not in PAID_STATUSES:
        # A delayed method: the buyer has a voucher, not yet paid. Recorded, so a
        # redelivery is a duplicate; async_payment_succeeded or _failed follows.
        return _apply(event, reservation_id, lambda _reservation: "awaiting_payment")
    intent = session.get("payment_intent")
    intent = _usable(intent.get("id") if isinstance(intent, dict) else intent)
    if intent is None:
        return "missing_payment_intent"
    return _apply(event, reservation_id, lambda reservation: _fill_payment(reservation, intent))


def _apply(event: dict, reservation_id: str, change: Callable[[AdReservation], str]) -> str:
    with write_transaction():
        reservation = AdReservation.get_or_none(AdReservation.id == reservation_id)
        if reservation is None:
            return "unknown_reservation"
        if not webhooks.record_event(event, ENDPOINT, processed=True):
            return "duplicate_event"
        return change(reservation)


def _fill_payment(reservation: AdReservation, intent: str) -> str:
    return record_payment(reservation.id, intent)


def _releaser(why: str, session_id: str | None = None) -> Callable[[AdReservation], str]:
    """The same release as the scheduler's for an expired, unpaid checkout: never a paid
    reservation, nor one whose current checkout is another session."""

    def release(reservation: AdReservation) -> str:
        current = AdCheckout.get_or_none(AdCheckout.ad_reservation == reservation.id)
        if session_id and current and current.checkout_session_id != session_id:
            return "hold_kept"
        return "hold_released" if release_hold(reservation, why) else "hold_kept"

    return release


def _usable(value) -> str | None:
    """An id from the event body, or None. PostgreSQL refuses NUL in text, and no id of
    ours or the provider's is longer than 255 characters."""
    if isinstance(value, str) and 0 < len(value) <= 255 and "\x00" not in value:
        return value
    return None

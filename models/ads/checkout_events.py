"""The ad checkout webhook's rule (docs/payments.md): only money that arrived counts as
paid.

A checkout paid at once, or a delayed payment (konbini) that succeeded later, fills the
reservation's payment_intent_id once (`mark_paid`); a checkout completed unpaid changes
nothing yet; a delayed payment that failed, or a checkout that expired, releases the
hold. Events the rule cannot use are outcomes, not errors; a failure to write is an
error, so the provider sends the event again.
"""

from __future__ import annotations

from collections.abc import Callable

from models.ads.checkout import mark_paid, mark_payment_pending
from models.ads.reservations import release_hold
from models.db import write_transaction
from models.payments import (
    CheckoutEvent,
    CheckoutExpired,
    CheckoutPaid,
    CheckoutPaymentFailed,
    CheckoutPaymentPending,
    SubscriptionCheckoutCompleted,
    WebhookEvent,
)
from models.payments.events import record_event
from models.tables import AdCheckout, AdReservation

# The webhook endpoint whose events this module applies (payment_events.endpoint).
ENDPOINT = "ad-checkout"

# What an event does to its reservation, once found; returns the outcome.
Change = Callable[[AdReservation], str]


def apply_checkout_event(event: WebhookEvent) -> str:
    """Apply a verified event; returns the outcome (for logs and counters).

    The event id is recorded in the same transaction as the write, so a redelivered
    event is recognised and a failure leaves neither behind. Database failures are
    raised, not turned into an outcome.
    """
    if isinstance(event, SubscriptionCheckoutCompleted):
        return "missing_metadata"  # a plan's checkout names no reservation
    if not isinstance(event, CheckoutEvent):
        return "ignored_event"
    if event.reservation_id is None:
        return "missing_metadata"
    change = _change_for(event)
    if isinstance(change, str):
        return change
    return _apply(event, event.reservation_id, change)


def _change_for(event: CheckoutEvent) -> Change | str:
    """The change the event asks for, or the outcome when it can ask for none."""
    if isinstance(event, CheckoutPaymentFailed):
        return _releaser("its delayed payment failed")
    if isinstance(event, CheckoutExpired):
        # Cancelled on the checkout page or timed out: the position is free at once,
        # unless the reservation has moved on to a newer checkout.
        return _releaser("its checkout expired or was cancelled", event.session_id)
    if isinstance(event, CheckoutPaymentPending):
        # A delayed method: the buyer has a voucher, not yet paid. Recorded, so a
        # redelivery is a duplicate, and marked on the checkout, so the advertiser's
        # pages say the money is awaited; CheckoutPaid or CheckoutPaymentFailed follows.
        session = event.session_id
        return lambda reservation: mark_payment_pending(reservation.id, session)
    if isinstance(event, CheckoutPaid) and event.payment_intent_id is not None:
        intent = event.payment_intent_id
        return lambda reservation: mark_paid(reservation.id, intent)
    return "missing_payment_intent"


def _apply(event: CheckoutEvent, reservation_id: str, change: Change) -> str:
    with write_transaction():
        reservation = AdReservation.get_or_none(AdReservation.id == reservation_id)
        if reservation is None:
            return "unknown_reservation"
        if not record_event(event, ENDPOINT, processed=True):
            return "duplicate_event"
        return change(reservation)


def _releaser(why: str, session_id: str | None = None) -> Change:
    """The same release as the scheduler's for an expired, unpaid checkout: never a paid
    reservation, nor one whose current checkout is another session."""

    def release(reservation: AdReservation) -> str:
        current = AdCheckout.get_or_none(AdCheckout.ad_reservation == reservation.id)
        if session_id and current and current.checkout_session_id != session_id:
            return "hold_kept"
        return "hold_released" if release_hold(reservation, why) else "hold_kept"

    return release

"""A member's receipts (qualified invoices, 適格請求書; docs/payments.md, Receipts): the
invoice of a paid ad reservation and those of the plan's paid periods, as the payment
provider hosts them. This service keeps no copy: the provider issued them and shows
them; here is only who may see which."""

from __future__ import annotations

import threading
import time

from models.errors import NotFound
from models.payments import PaymentNotFound, Receipt, get_provider
from models.tables import AdCheckout, AdReservation, Subscription, User

NO_RECEIPT = "No paid reservation of yours has this id."


def ad_receipt_url(user_id: str, reservation_id: str) -> str:
    """The address of the own paid reservation's receipt; NotFound for anyone else's
    reservation, an unknown one, an unpaid one, or one whose invoice is not issued."""
    reservation = AdReservation.get_or_none(
        (AdReservation.id == reservation_id) & (AdReservation.user == user_id)
    )
    if reservation is None or not reservation.payment_intent_id:
        raise NotFound(NO_RECEIPT)
    checkout = AdCheckout.get_or_none(AdCheckout.ad_reservation == reservation.id)
    if checkout is None:
        raise NotFound(NO_RECEIPT)
    try:
        url = get_provider().ad_receipt_url(checkout.checkout_session_id)
    except PaymentNotFound:
        url = None
    if not url:
        raise NotFound("This reservation's receipt has not been issued.")
    return url


def plan_receipts(user_id: str) -> list[Receipt]:
    """The paid invoices of the member's plan, newest first; none before a customer
    exists at the provider (never subscribed)."""
    customer_id = User.get_by_id(user_id).payment_customer_id
    if not customer_id:
        return []
    key = (customer_id, _billed_periods(user_id))
    now = time.monotonic()
    with _lock:
        kept = _kept.get(customer_id)
    if kept is not None and kept[0] == key and now - kept[1] < CACHE_SECONDS:
        return list(kept[2])
    receipts = get_provider().subscription_receipts(customer_id)
    with _lock:
        if len(_kept) >= CACHE_SIZE:
            _kept.pop(next(iter(_kept)))
        _kept[customer_id] = (key, now, tuple(receipts))
    return receipts


# The account page shows the plan's receipts on every visit; the provider is asked again
# only when the member's subscriptions moved to a new period or state (a new invoice was
# paid: its webhook changed the row), else after CACHE_SECONDS, per process.
CACHE_SECONDS = 600.0
CACHE_SIZE = 10_000
_lock = threading.Lock()  # guards _kept
_kept: dict[str, tuple[object, float, tuple[Receipt, ...]]] = {}


def _billed_periods(user_id: str) -> tuple[tuple[str, int, str, str], ...]:
    rows = Subscription.select(
        Subscription.payment_subscription_id,
        Subscription.period_start,
        Subscription.plan,
        Subscription.status,
    ).where(Subscription.reference_id == user_id)
    return tuple(
        sorted(
            (r.payment_subscription_id or "", int(r.period_start or 0), r.plan, r.status)
            for r in rows
        )
    )


def forget() -> None:
    """Ask the provider next time (tests)."""
    with _lock:
        _kept.clear()

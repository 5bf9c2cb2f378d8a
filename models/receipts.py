"""A member's receipts (qualified invoices, 適格請求書; docs/payments.md, Receipts): the
invoice of a paid ad reservation and those of the plan's paid periods, as the payment
provider hosts them. This service keeps no copy: the provider issued them and shows
them; here is only who may see which."""

from __future__ import annotations

from models.errors import NotFound
from models.payments import PaymentNotFound, Receipt, get_provider
from models.tables import AdCheckout, AdReservation, User

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
    return get_provider().subscription_receipts(customer_id)

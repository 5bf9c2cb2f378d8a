"""A reservation's payment: where its checkout stands, going back to it, closing it, and
recording the money once (the one rule for the webhook and the scheduled release)."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import UTC, datetime, time, timedelta
from zoneinfo import ZoneInfo

from peewee import Case, Expression

from models.clock import iso, now_iso, parse_iso, utcnow
from models.errors import Conflict, NotFound
from models.payments import PaymentError, get_provider
from models.tables import AdCheckout, AdReservation

log = logging.getLogger(__name__)

PAID = "paid"
# The checkout is open: the advertiser can still pay it.
AWAITING_PAYMENT = "awaiting_payment"
# The checkout's time is over but the hold stands: a delayed payment (konbini) is on its
# way, or the release has not run yet.
PROCESSING = "processing"
# The provider completed the checkout with the money still to come (konbini): the
# buyer pays at a convenience store by the deadline; the checkout cannot be opened again.
PAYMENT_PENDING = "payment_pending"
# Stopped or expired without a payment.
UNPAID = "unpaid"
# How long a konbini voucher can be paid: the provider's default (Stripe's
# payment_method_options.konbini.expires_after_days is 3 unless set otherwise), in
# calendar days of Japan, the voucher lapsing at the end of the last one.
KONBINI_PAYMENT_DAYS = 3
JAPAN = ZoneInfo("Asia/Tokyo")


class CheckoutClosed(Conflict):
    code = "checkout_closed"
    message = "This reservation's checkout can no longer be paid."


class AlreadyPaid(Conflict):
    code = "already_paid"
    message = "It has already been paid (or a delayed payment is under way): it stays."


@dataclass(frozen=True)
class PaymentState:
    """Where a reservation's payment stands (docs/ads.md, Paying later, cancelling), until
    when its checkout can be paid while it is open, and until when a konbini voucher can
    be paid while that payment is awaited."""

    state: str
    checkout_expires_at: str | None
    payment_due_at: str | None = None


def konbini_deadline(pending_at: str) -> str:
    """The last moment a voucher issued at `pending_at` can be paid, as the provider
    counts it: 23:59:59 in Japan on the KONBINI_PAYMENT_DAYS-th calendar day after (a
    voucher of Monday in Japan lapses at the end of Thursday)."""
    issued = parse_iso(pending_at).astimezone(JAPAN).date()
    last_day = issued + timedelta(days=KONBINI_PAYMENT_DAYS)
    return iso(datetime.combine(last_day, time(23, 59, 59), JAPAN).astimezone(UTC))


def payment_state(
    reservation: AdReservation, checkout: AdCheckout | None, now: datetime
) -> PaymentState:
    if reservation.payment_intent_id:
        return PaymentState(PAID, None)
    if reservation.status != "pending_review":
        return PaymentState(UNPAID, None)
    if checkout is not None and checkout.payment_pending_at:
        return PaymentState(PAYMENT_PENDING, None, konbini_deadline(checkout.payment_pending_at))
    if checkout is not None and checkout.expires_at > iso(now):
        return PaymentState(AWAITING_PAYMENT, checkout.expires_at)
    return PaymentState(PROCESSING, None)


def checkouts_of(reservation_ids: list[str]) -> dict[str, AdCheckout]:
    if not reservation_ids:
        return {}
    rows = AdCheckout.select().where(AdCheckout.ad_reservation.in_(reservation_ids))
    return {row.ad_reservation_id: row for row in rows}


@dataclass(frozen=True)
class OpenHold:
    """One of the member's own reservations holding a position while its checkout can
    still be paid: what the purchase form offers to continue or to cancel."""

    reservation_id: str
    slot: str
    position: int
    country: str
    start_month: str
    end_month: str
    checkout_expires_at: str


def holding_unpaid(user_id: str) -> Expression:
    """The member's reservations holding a position unpaid: not yet paid (a konbini
    voucher awaiting its money included), not released, not rejected."""
    return (
        (AdReservation.user == user_id)
        & (AdReservation.status == "pending_review")
        & AdReservation.payment_intent_id.is_null()
        & AdReservation.position_released_at.is_null()
    )


def open_holds(user_id: str, now: datetime | None = None) -> list[OpenHold]:
    """The member's unpaid reservations whose checkout is open (awaiting payment),
    oldest first. A buyer back on the form (the browser's Back from the checkout) is
    offered each: continue its payment, or release it (`release_cancelled_checkout`)."""
    rows = list(
        AdReservation.select()
        .where(holding_unpaid(user_id))
        .order_by(AdReservation.created_at, AdReservation.id)
    )
    checkouts = checkouts_of([row.id for row in rows])
    now = now or utcnow()
    return [
        OpenHold(
            row.id,
            row.slot_id,
            row.position,
            row.country,
            row.start_month,
            row.end_month,
            checkouts[row.id].expires_at,
        )
        for row in rows
        if payment_state(row, checkouts.get(row.id), now).state == AWAITING_PAYMENT
    ]


def resume_checkout(user_id: str, reservation_id: str, now: datetime | None = None) -> str:
    """The URL of the own unpaid reservation's checkout, while it can still be paid."""
    reservation = AdReservation.get_or_none(
        (AdReservation.id == reservation_id) & (AdReservation.user == user_id)
    )
    if reservation is None:
        raise NotFound("No reservation of yours has this id.")
    checkout = checkouts_of([reservation.id]).get(reservation.id)
    state = payment_state(reservation, checkout, now or utcnow()).state
    if state == PAID:
        raise CheckoutClosed("This reservation is already paid.")
    if state != AWAITING_PAYMENT or checkout is None:
        raise CheckoutClosed()
    session = get_provider().get_checkout_session(checkout.checkout_session_id)
    if session.status != "open" or not session.url:
        raise CheckoutClosed()
    return session.url


def mark_payment_pending(reservation_id: str, session_id: str | None) -> str:
    """Record once that the provider completed the reservation's checkout `session_id`
    with the money still to come (one conditional UPDATE; an older checkout's event
    changes nothing). Returns "awaiting_payment"."""
    query = AdCheckout.update(payment_pending_at=now_iso()).where(
        (AdCheckout.ad_reservation == reservation_id) & AdCheckout.payment_pending_at.is_null()
    )
    if session_id:
        query = query.where(AdCheckout.checkout_session_id == session_id)
    query.execute()
    return AWAITING_PAYMENT


def close_checkout(reservation_id: str) -> None:
    """Expire the reservation's open checkout at the provider. A provider that cannot be
    reached leaves it open until its own expiry; a payment made meanwhile is flagged."""
    checkout = AdCheckout.get_or_none(AdCheckout.ad_reservation == reservation_id)
    if checkout is None or not checkout.checkout_session_id:
        return
    try:
        get_provider().expire_checkout_session(checkout.checkout_session_id)
    except PaymentError as error:
        log.warning("could not close the checkout of stopped %s: %s", reservation_id, error)


def mark_paid(reservation_id: str, payment_intent_id: str) -> str:
    """Fill in the payment of a reservation once (one conditional UPDATE): the one writer
    of "paid", for the webhook (models/ads/checkout_events.py) and the scheduled release
    alike. A payment for a reservation already stopped is kept and flagged to be
    refunded. Returns "paid", "paid_after_stop" or "already_paid"."""
    now = now_iso()
    changed = (
        AdReservation.update(
            payment_intent_id=payment_intent_id,
            paid_after_stop_at=Case(None, [(AdReservation.status == "stopped", now)], None),
            updated_at=now,
        )
        .where((AdReservation.id == reservation_id) & AdReservation.payment_intent_id.is_null())
        .execute()
    )
    if not changed:
        return "already_paid"
    flagged = (
        AdReservation.select()
        .where(
            (AdReservation.id == reservation_id) & AdReservation.paid_after_stop_at.is_null(False)
        )
        .exists()
    )
    if flagged:
        log.error("payment %s arrived for stopped %s: refund it", payment_intent_id, reservation_id)
        return "paid_after_stop"
    return PAID

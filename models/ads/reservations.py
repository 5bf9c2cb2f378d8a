"""Reservations: purchase (the order held to the rules, position assignment under a
lock, checkout), review (approve, stop), and the scheduled hold release and expiry."""

from __future__ import annotations

import logging
import uuid
from dataclasses import asdict, dataclass, replace
from datetime import datetime, timedelta
from typing import NamedTuple, Protocol

from peewee import JOIN, Case, IntegrityError

from models.ads import MAX_MONTHS, MAX_YEARS_AHEAD, delivery_cache
from models.ads.checkout import AlreadyPaid, close_checkout, holding_unpaid, mark_paid
from models.ads.creative import advertiser_name_problem, redirect_url_problem
from models.ads.images import NOT_UPLOADED, hold_uploaded_image, lock_member, uploaded_image
from models.ads.inventory import (
    fetch_ad_price,
    get_occupied_positions,
    next_position,
    slot_problem,
)
from models.ads.months import add_months, month_of, month_problem, month_window
from models.ads.notices import StopNotice, build_stop_notification_email
from models.ads.profiles import (
    ProfileFields,
    new_profile_values,
    own_profile,
    profile_problems,
)
from models.clock import iso, now_iso, utcnow
from models.countries import country_problem
from models.db import db, is_postgres, write_transaction
from models.errors import Conflict, DomainError, NotFound, ValidationError
from models.invoices import InvoiceRequest, ad_description, current_issuer
from models.payments import LineItem, PaymentError, get_provider
from models.problems import Problem
from models.settings import get_settings
from models.tables import (
    AdCheckout,
    AdInventoryLock,
    AdReservation,
    AdStopNotice,
    AdvertiserProfile,
)

log = logging.getLogger(__name__)

SNAPSHOT = (
    "business_legal_name",
    "business_address",
    "contact_name",
    "contact_email",
    "business_category",
    "invoice_registration_number",
)
MAX_REASON_LENGTH = 2000


class SlotFull(DomainError):
    code = "slot_full"
    status = 409
    message = "All four positions of this slot are taken for that period."


class TooManyUnpaidHolds(Conflict):
    code = "too_many_unpaid_holds"
    message = "You already hold as many unpaid reservations as one member may."


class NotPaid(Conflict):
    code = "not_paid"
    message = "The reservation has not been paid yet."


class InvalidStatus(Conflict):
    code = "invalid_status"
    message = "The reservation's status does not allow this."


class AdPages(Protocol):
    """The site's pages that a reservation's checkout and stop notice point to: web/
    builds their addresses, the domain passes them on."""

    def reservation(self, reservation_id: str) -> str:
        """The advertiser's own page of the reservation."""
        ...

    def paid(self, reservation_id: str) -> str:
        """Where the checkout sends the buyer back once paid."""
        ...

    def cancelled(self, reservation_id: str) -> str:
        """Where the checkout sends the buyer back when they cancel."""
        ...


@dataclass(frozen=True)
class Order:
    """A purchase as the advertiser asked for it; `reserve` holds it to the rules.
    `country` is an upper-case code; `profile` is a new profile to make with the
    reservation, in place of `profile_id`."""

    slot: str
    country: str
    start_month: str
    months: int
    advertiser_name: str
    image_url: str
    redirect_url: str
    consent: bool
    profile_id: str | None = None
    profile: ProfileFields | None = None

    @property
    def end_month(self) -> str:
        return add_months(self.start_month, self.months - 1)


class Placed(NamedTuple):
    """A new reservation and the address of its checkout."""

    reservation: AdReservation
    checkout_url: str


def _country_problem(country: str) -> Problem | None:
    problem = country_problem(country)
    if problem is None and fetch_ad_price(country) is None:
        return Problem("not_sold_here")
    return problem


def _months_problem(months: int) -> Problem | None:
    return None if 1 <= months <= MAX_MONTHS else Problem("months_out_of_range", n=MAX_MONTHS)


def _start_problem(start: str, now: datetime) -> Problem | None:
    problem = month_problem(start)
    if problem:
        return problem
    next_month = add_months(month_of(now), 1)
    if start < next_month:
        return Problem("before_next_month", n=next_month)
    if start > month_window(now)[1]:
        return Problem("too_far_ahead", n=MAX_YEARS_AHEAD)
    return None


def _image_problem(image_url: str, user_id: str) -> Problem | None:
    if uploaded_image(image_url, user_id) is None:
        return NOT_UPLOADED
    return None


def _profile_problems(user_id: str, order: Order) -> dict[str, Problem]:
    if order.profile is not None:
        return profile_problems(asdict(order.profile), prefix="profile.")
    if order.profile_id is None:
        return {"profile_id": Problem("no_profile")}
    owned = (
        AdvertiserProfile.select()
        .where((AdvertiserProfile.id == order.profile_id) & (AdvertiserProfile.user == user_id))
        .exists()
    )
    return {} if owned else {"profile_id": Problem("not_your_profile")}


def order_problems(user_id: str, order: Order, now: datetime) -> dict[str, Problem]:
    """Every rule of a purchase that the order breaks (docs/ads.md, Direct ads: purchase
    and review), keyed by the order's field names."""
    service = (get_settings().service_name,)
    found = {
        "slot": slot_problem(order.slot),
        "country": _country_problem(order.country),
        "months": _months_problem(order.months),
        "start_month": _start_problem(order.start_month, now),
        "advertiser_name": advertiser_name_problem(order.advertiser_name, service),
        "redirect_url": redirect_url_problem(order.redirect_url),
        "image_url": _image_problem(order.image_url, user_id),
        "consent": None if order.consent else Problem("unconfirmed"),
    }
    problems = {field: problem for field, problem in found.items() if problem}
    return {**problems, **_profile_problems(user_id, order)}


def _lock_inventory(slot: str, country: str) -> None:
    """Serialise position assignment per slot and country: a row lock on PostgreSQL
    (SQLite's BEGIN IMMEDIATE already holds the only write lock)."""
    if is_postgres():
        AdInventoryLock.insert(slot=slot, country=country).on_conflict_ignore().execute()
        AdInventoryLock.select().where(
            (AdInventoryLock.slot == slot) & (AdInventoryLock.country == country)
        ).for_update().get()


def unpaid_holds(user_id: str) -> int:
    """The member's reservations holding a position unpaid: not yet paid (a konbini
    voucher awaiting its money included), not released, not rejected."""
    count: int = AdReservation.select().where(holding_unpaid(user_id)).count()
    return count


def _check_unpaid_holds(user_id: str) -> None:
    """At most AD_UNPAID_HOLDS_PER_MEMBER unpaid holds at once (docs/ads.md, Unpaid
    holds); call under the member's lock (`lock_member`)."""
    limit = get_settings().ad_unpaid_holds_per_member
    held = unpaid_holds(user_id)
    if held >= limit:
        raise TooManyUnpaidHolds(
            f"You already have {held} reservations awaiting payment, the most one member may"
            f" hold at once ({limit}). Pay for one of them, or wait until an unpaid checkout"
            " expires, then reserve again."
        )


def _profile_for(user_id: str, order: Order) -> AdvertiserProfile:
    if order.profile is not None:
        return AdvertiserProfile.create(
            id=str(uuid.uuid4()), user=user_id, **new_profile_values(order.profile)
        )
    return own_profile(user_id, order.profile_id)


def _place(user_id: str, order: Order) -> AdReservation:
    with write_transaction():
        # One member's purchases take turns, whatever their slots: two cannot both count
        # the holds before either is written. Always before the inventory lock.
        lock_member(user_id)
        _check_unpaid_holds(user_id)
        # Checked again under the lock: unused uploads are removed as new ones come.
        hold_uploaded_image(order.image_url, user_id)
        profile = _profile_for(user_id, order)
        _lock_inventory(order.slot, order.country)
        occupied = get_occupied_positions(
            order.slot, order.country, order.start_month, order.end_month
        )
        position = next_position(occupied)
        if position is None:
            raise SlotFull()
        try:
            with db.atomic():
                reservation: AdReservation = AdReservation.create(
                    id=str(uuid.uuid4()),
                    user=user_id,
                    slot=order.slot,
                    position=position,
                    country=order.country,
                    start_month=order.start_month,
                    end_month=order.end_month,
                    advertiser_name=order.advertiser_name.strip(),
                    image_url=order.image_url.strip(),
                    redirect_url=order.redirect_url.strip(),
                    advertiser_profile=profile,
                    status="pending_review",
                    payment_intent_id=None,
                    **{field: getattr(profile, field) for field in SNAPSHOT},
                )
                return reservation
        except IntegrityError:
            # The unique constraint is the backstop behind the lock.
            raise SlotFull() from None


def _open_checkout(reservation: AdReservation, order: Order, pages: AdPages, now: datetime) -> str:
    """The checkout's address; without one, the hold is given back before raising."""
    expires = now + timedelta(minutes=get_settings().ad_checkout_ttl_minutes)
    price = fetch_ad_price(order.country)
    try:
        if price is None:
            raise PaymentError(f"the price of {order.country} disappeared")
        session = get_provider().create_payment_checkout(
            line_items=[LineItem(price.id, order.months)],
            metadata={
                "ad_reservation_id": reservation.id,
                "slot": order.slot,
                "country": order.country,
                "start_month": order.start_month,
                "months": str(order.months),
            },
            success_url=pages.paid(reservation.id),
            cancel_url=pages.cancelled(reservation.id),
            expires_at=int(expires.timestamp()),
            idempotency_key=f"ad-checkout-{reservation.id}",
            invoice=_invoice_request(
                reservation, order, price.unit_amount * order.months, price.currency
            ),
        )
    except PaymentError:
        AdReservation.delete().where(AdReservation.id == reservation.id).execute()
        raise
    AdCheckout.create(
        ad_reservation=reservation.id, checkout_session_id=session.id, expires_at=iso(expires)
    )
    return session.url or ""


def _invoice_request(
    reservation: AdReservation, order: Order, total: int, currency: str
) -> InvoiceRequest | None:
    """What the receipt (qualified invoice) of the reservation's payment says: the buyer
    is the business snapshot on the reservation (docs/payments.md, Receipts). None while
    no issuer is configured (development without one): no invoice is asked for."""
    issuer = current_issuer()
    if issuer is None:
        return None
    return InvoiceRequest(
        issuer=issuer,
        buyer_name=reservation.business_legal_name,
        buyer_registration_number=reservation.invoice_registration_number or None,
        description=ad_description(
            reservation.slot.display_name,
            reservation.position,
            order.country,
            order.start_month,
            order.months,
        ),
        total=total,
        currency=currency,
        metadata={"ad_reservation_id": reservation.id},
    )


def reserve(user_id: str, order: Order, pages: AdPages, now: datetime | None = None) -> Placed:
    """Place a reservation (`pending_review`, unpaid) and open its checkout: one line item
    of the country's current price, quantity = months, expiring after the TTL, coming
    back to `pages`. An order that breaks a rule is refused with every problem."""
    now = now or utcnow()
    problems = order_problems(user_id, order, now)
    if problems:
        raise ValidationError(fields=problems)
    reservation = _place(user_id, order)
    return Placed(reservation, _open_checkout(reservation, order, pages, now))


def _reservation(reservation_id: str) -> AdReservation:
    found: AdReservation | None = AdReservation.get_or_none(AdReservation.id == reservation_id)
    if found is None:
        raise NotFound("No reservation has this id.")
    return found


def approve(reservation_id: str) -> AdReservation:
    """`pending_review` -> `active`, only once paid (one conditional UPDATE)."""
    changed = (
        AdReservation.update(status="active", updated_at=now_iso())
        .where(
            (AdReservation.id == reservation_id)
            & (AdReservation.status == "pending_review")
            & AdReservation.payment_intent_id.is_null(False)
        )
        .execute()
    )
    reservation = _reservation(reservation_id)
    if not changed:
        if reservation.status == "pending_review":
            raise NotPaid()
        raise InvalidStatus(f"A reservation that is {reservation.status} cannot be approved.")
    _delivery_changed()
    return reservation


def _clean_reason(reason: str) -> str:
    reason = reason.strip()
    if not reason:
        raise ValidationError(fields={"reason": Problem("required")})
    if len(reason) > MAX_REASON_LENGTH:
        raise ValidationError(fields={"reason": Problem("too_long", n=MAX_REASON_LENGTH)})
    return reason


def stop(reservation_id: str, reason: str, pages: AdPages) -> tuple[AdReservation, StopNotice]:
    """`pending_review` or `active` -> `stopped`, with the reason; no refund. Returns the
    reservation and the stop notice to send (pointing to its page in `pages`), which is
    kept to be opened again.

    Rejecting an unpaid reservation also gives its position back (in the same UPDATE,
    so a payment recorded a moment before keeps it) and closes its checkout at the
    provider, so it can no longer be paid; a payment that still arrives is flagged for
    a refund (`models.ads.checkout.mark_paid`)."""
    reason = _clean_reason(reason)
    now = now_iso()
    with write_transaction():
        changed = (
            AdReservation.update(
                status="stopped",
                stopped_at=now,
                stopped_reason=reason,
                updated_at=now,
                position_released_at=Case(
                    None, [(AdReservation.payment_intent_id.is_null(), now)], None
                ),
            )
            .where(
                (AdReservation.id == reservation_id)
                & AdReservation.status.in_(("pending_review", "active"))
            )
            .execute()
        )
        reservation = _reservation(reservation_id)
        if not changed:
            raise InvalidStatus(f"A reservation that is {reservation.status} cannot be stopped.")
        notice = build_stop_notification_email(
            reservation, reason, pages.reservation(reservation.id)
        )
        AdStopNotice.create(
            ad_reservation=reservation.id,
            recipient=notice.to,
            subject=notice.subject,
            body=notice.body,
            created_at=now,
        )
    _delivery_changed()
    if reservation.position_released_at:
        close_checkout(reservation.id)
    return reservation, replace(notice, created_at=now)


def stop_notice(reservation_id: str) -> StopNotice:
    """The notice made when the reservation was stopped, as it was then."""
    kept = AdStopNotice.get_or_none(AdStopNotice.ad_reservation == reservation_id)
    if kept is None:
        _reservation(reservation_id)
        raise NotFound("This reservation has no stop notice.")
    return StopNotice(kept.recipient, kept.subject, kept.body, kept.created_at)


def kept_stop_notice(reservation_id: str) -> StopNotice | None:
    """The notice kept for a stopped reservation, or None (stopped before notices were
    kept)."""
    try:
        return stop_notice(reservation_id)
    except NotFound:
        return None


def expire_ended(now: datetime | None = None) -> int:
    """`active` reservations whose last month is over become `expired`. Safe to rerun."""
    current = month_of(now or utcnow())
    changed: int = (
        AdReservation.update(status="expired", updated_at=now_iso())
        .where((AdReservation.status == "active") & (AdReservation.end_month < current))
        .execute()
    )
    if changed:
        _delivery_changed()
    return changed


def release_unpaid_holds(now: datetime | None = None) -> list[str]:
    """Remove reservations still unpaid after their checkout expired (docs/ads.md, Hold
    release and expiry).

    The provider is asked first: a checkout that was in fact paid (its event not yet
    here) fills in the payment instead, so a paid reservation is never released; one
    completed with a delayed method still awaiting the money (konbini) keeps its hold
    until that payment succeeds or fails.
    """
    now = now or utcnow()
    ttl = timedelta(minutes=get_settings().ad_checkout_ttl_minutes)
    candidates = (
        AdReservation.select(AdReservation, AdCheckout)
        .join(AdCheckout, JOIN.LEFT_OUTER, on=(AdCheckout.ad_reservation == AdReservation.id))
        .where(
            (AdReservation.status == "pending_review")
            & AdReservation.payment_intent_id.is_null()
            & (
                (AdCheckout.expires_at <= iso(now))
                | (
                    AdCheckout.ad_reservation.is_null()
                    & (AdReservation.created_at <= iso(now - ttl))
                )
            )
        )
    )
    released = []
    for reservation in candidates:
        checkout = getattr(reservation, "adcheckout", None)
        if checkout is not None and checkout.checkout_session_id:
            try:
                session = get_provider().get_checkout_session(checkout.checkout_session_id)
            except PaymentError:
                log.warning("could not read checkout of %s; next round", reservation.id)
                continue
            if session.paid and session.payment_intent_id:
                mark_paid(reservation.id, session.payment_intent_id)
                continue
            if session.status == "complete":
                log.info(
                    "checkout of %s is complete but not paid (payment_status %s): a delayed"
                    " payment is awaited; hold kept",
                    reservation.id,
                    session.payment_status,
                )
                continue
            if session.status == "open":
                continue
        if release_hold(reservation, "checkout expired unpaid"):
            released.append(reservation.id)
    return released


def release_cancelled_checkout(user_id: str, reservation_id: str) -> bool:
    """The buyer came back from the checkout's cancel page: the own unpaid hold is
    removed at once, in this request, so the form they return to offers the position
    now free (the provider's expired event, still on its way, then finds nothing to do).

    The checkout is closed at the provider first (Stripe leaves an abandoned one open)
    and asked where it stands: one completed meanwhile (paid, or a konbini voucher)
    keeps its hold. True when the hold was removed."""
    reservation = AdReservation.get_or_none(
        (AdReservation.id == reservation_id)
        & (AdReservation.user == user_id)
        & (AdReservation.status == "pending_review")
        & AdReservation.payment_intent_id.is_null()
    )
    if reservation is None:
        return False
    checkout = AdCheckout.get_or_none(AdCheckout.ad_reservation == reservation.id)
    if checkout is not None:
        try:
            session = get_provider().get_checkout_session(checkout.checkout_session_id)
            if session.status == "open":
                session = get_provider().expire_checkout_session(session.id)
        except PaymentError as error:
            log.warning("could not close the cancelled checkout of %s: %s", reservation.id, error)
            return False
        if session.status != "expired":
            return False
    return release_hold(reservation, "its checkout was cancelled")


def abandon_hold(user_id: str, reservation_id: str) -> None:
    """The buyer, back on the purchase form, cancels their own unpaid hold to start
    over: as the checkout's cancel page does (`release_cancelled_checkout`: the checkout
    closed at the provider, then one conditional DELETE). NotFound when no such
    reservation of theirs is awaiting payment; AlreadyPaid when its checkout was
    completed meanwhile (paid, or a konbini voucher) or could not be closed."""
    own_unpaid = (
        AdReservation.select()
        .where(
            (AdReservation.id == reservation_id)
            & (AdReservation.user == user_id)
            & (AdReservation.status == "pending_review")
        )
        .exists()
    )
    if not own_unpaid:
        raise NotFound("No reservation of yours awaiting payment has this id.")
    if release_cancelled_checkout(user_id, reservation_id):
        return
    # Closing the checkout sends the provider's expired event, which may release the
    # hold before this request does: gone is released, only a hold still there stays.
    if AdReservation.select().where(AdReservation.id == reservation_id).exists():
        raise AlreadyPaid()


def release_hold(reservation: AdReservation, why: str) -> bool:
    """Remove an unpaid hold, freeing its position; True when removed, and logged.

    One conditional DELETE: the row goes only while still `pending_review` with no
    payment, so a payment recorded meanwhile (or an approval, a stop) keeps it. Safe to
    call inside a transaction (a savepoint keeps a refused delete from spoiling it).
    A pending reservation is never delivered, so no delivery cache needs dropping.
    """
    try:
        with db.atomic():
            deleted = (
                AdReservation.delete()
                .where(
                    (AdReservation.id == reservation.id)
                    & (AdReservation.status == "pending_review")
                    & AdReservation.payment_intent_id.is_null()
                )
                .execute()
            )
    except IntegrityError:
        log.error("unpaid reservation %s has measurements; kept", reservation.id)
        return False
    if deleted:
        log.info(
            "released unpaid hold %s (%s position %s, %s from %s): %s",
            reservation.id,
            reservation.slot_id,
            reservation.position,
            reservation.country,
            reservation.start_month,
            why,
        )
    return bool(deleted)


def _delivery_changed() -> None:
    """Approve, stop and expiry change what is delivered: drop the delivery cache."""
    delivery_cache.invalidate()

"""Reservations: purchase (validation, position assignment under a lock, checkout),
review (approve, stop), and the scheduled hold release and expiry."""

from __future__ import annotations

import logging
import uuid
from dataclasses import dataclass
from datetime import datetime, timedelta

from peewee import JOIN, Case, IntegrityError

from models.ads import MAX_MONTHS, SLOT_IDS
from models.ads.checkout import close_checkout, record_payment
from models.ads.creative import advertiser_name_problem, redirect_url_problem
from models.ads.images import uploaded_image
from models.ads.inventory import fetch_ad_price, get_occupied_positions, next_position
from models.ads.months import add_months, is_month, month_of
from models.ads.notices import build_stop_notification_email, notice_json
from models.ads.profiles import clean_profile, own_profile
from models.clock import iso, now_iso, utcnow
from models.countries import usable_country
from models.db import db, is_postgres, write_transaction
from models.errors import Conflict, DomainError, NotFound, ValidationError
from models.payments import LineItem, PaymentError, get_provider
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
MAX_YEARS_AHEAD = 5


class SlotFull(DomainError):
    code = "slot_full"
    status = 409
    message = "All four positions of this slot are taken for that period."


class NotPaid(Conflict):
    code = "not_paid"
    message = "The reservation has not been paid yet."


class InvalidStatus(Conflict):
    code = "invalid_status"
    message = "The reservation's status does not allow this."


@dataclass(frozen=True)
class Order:
    """A validated purchase."""

    slot: str
    country: str
    start_month: str
    end_month: str
    months: int
    advertiser_name: str
    image_url: str
    redirect_url: str
    profile_id: str | None
    new_profile: dict | None


def _clean_order(user_id: str, body: dict, now: datetime) -> Order:
    errors: dict[str, str] = {}
    slot = body.get("slot")
    if slot not in SLOT_IDS:
        errors["slot"] = f"one of {', '.join(SLOT_IDS)}"
    country = usable_country(body.get("country")) if isinstance(body.get("country"), str) else None
    if country is None:
        errors["country"] = "an ISO 3166-1 alpha-2 country code"
    elif fetch_ad_price(country) is None:
        errors["country"] = "direct ads are not sold in this country"
    months = body.get("months")
    if isinstance(months, bool) or not isinstance(months, int) or not 1 <= months <= MAX_MONTHS:
        errors["months"] = f"a whole number from 1 to {MAX_MONTHS}"
    start = body.get("startMonth")
    next_month = add_months(month_of(now), 1)
    if not is_month(start):
        errors["startMonth"] = "a month as YYYY-MM"
    elif start < next_month:
        errors["startMonth"] = f"no earlier than next month ({next_month})"
    elif start > add_months(next_month, MAX_YEARS_AHEAD * 12):
        errors["startMonth"] = f"within {MAX_YEARS_AHEAD} years"
    name_problem = advertiser_name_problem(
        body.get("advertiserName"), (get_settings().service_name,)
    )
    if name_problem:
        errors["advertiserName"] = name_problem
    url_problem = redirect_url_problem(body.get("redirectUrl"))
    if url_problem:
        errors["redirectUrl"] = url_problem
    if uploaded_image(body.get("imageUrl"), user_id) is None:
        errors["imageUrl"] = "must be an image you uploaded to this service"
    if body.get("consent") is not True:
        errors["consent"] = "you must confirm that the ad follows the terms"
    profile_id, new_profile = body.get("profileId"), None
    if "profile" in body and body["profile"] is not None:
        new_profile, profile_errors = clean_profile(body["profile"], prefix="profile.")
        errors.update(profile_errors)
    elif profile_id is None:
        errors["profileId"] = "choose an advertiser profile or send a new one"
    elif (
        not AdvertiserProfile.select()
        .where((AdvertiserProfile.id == profile_id) & (AdvertiserProfile.user == user_id))
        .exists()
    ):
        errors["profileId"] = "not one of your advertiser profiles"
    if errors:
        raise ValidationError(fields=errors)
    return Order(
        slot=slot,
        country=country,
        start_month=start,
        end_month=add_months(start, months - 1),
        months=months,
        advertiser_name=body["advertiserName"].strip(),
        image_url=body["imageUrl"].strip(),
        redirect_url=body["redirectUrl"].strip(),
        profile_id=None if new_profile else profile_id,
        new_profile=new_profile,
    )


def _lock_inventory(slot: str, country: str) -> None:
    """Serialise position assignment per slot and country: a row lock on PostgreSQL
    (SQLite's BEGIN IMMEDIATE already holds the only write lock)."""
    if is_postgres():
        AdInventoryLock.insert(slot=slot, country=country).on_conflict_ignore().execute()
        AdInventoryLock.select().where(
            (AdInventoryLock.slot == slot) & (AdInventoryLock.country == country)
        ).for_update().get()


def _place(user_id: str, order: Order) -> AdReservation:
    with write_transaction():
        if order.new_profile:
            profile = AdvertiserProfile.create(
                id=str(uuid.uuid4()), user=user_id, **order.new_profile
            )
        else:
            profile = own_profile(user_id, order.profile_id)
        _lock_inventory(order.slot, order.country)
        occupied = get_occupied_positions(
            order.slot, order.country, order.start_month, order.end_month
        )
        position = next_position(occupied)
        if position is None:
            raise SlotFull()
        try:
            with db.atomic():
                return AdReservation.create(
                    id=str(uuid.uuid4()),
                    user=user_id,
                    slot=order.slot,
                    position=position,
                    country=order.country,
                    start_month=order.start_month,
                    end_month=order.end_month,
                    advertiser_name=order.advertiser_name,
                    image_url=order.image_url,
                    redirect_url=order.redirect_url,
                    advertiser_profile=profile,
                    status="pending_review",
                    payment_intent_id=None,
                    **{field: getattr(profile, field) for field in SNAPSHOT},
                )
        except IntegrityError:
            # The unique constraint is the backstop behind the lock.
            raise SlotFull() from None


def reserve(user_id: str, body: dict, now: datetime | None = None):
    """Place a reservation (`pending_review`, unpaid) and open its checkout: one line item
    of the country's current price, quantity = months, expiring after the TTL.
    Returns (reservation, checkout URL)."""
    now = now or utcnow()
    order = _clean_order(user_id, body, now)
    reservation = _place(user_id, order)
    settings = get_settings()
    expires = now + timedelta(minutes=settings.ad_checkout_ttl_minutes)
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
            success_url=f"{settings.public_base_url}/ads/{reservation.id}?paid=1",
            cancel_url=f"{settings.public_base_url}/ads/new?cancelled={reservation.id}",
            expires_at=int(expires.timestamp()),
            idempotency_key=f"ad-checkout-{reservation.id}",
        )
    except PaymentError:
        # No checkout, no hold: give the position back before answering.
        AdReservation.delete().where(AdReservation.id == reservation.id).execute()
        raise
    AdCheckout.create(
        ad_reservation=reservation.id, checkout_session_id=session.id, expires_at=iso(expires)
    )
    return reservation, session.url


def _reservation(reservation_id: str) -> AdReservation:
    found = AdReservation.get_or_none(AdReservation.id == reservation_id)
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


def stop(reservation_id: str, reason) -> tuple[AdReservation, dict]:
    """`pending_review` or `active` -> `stopped`, with the reason; no refund. Returns the
    reservation and the stop notice to send, which is kept to be opened again.

    Rejecting an unpaid reservation also gives its position back (in the same UPDATE,
    so a payment recorded a moment before keeps it) and closes its checkout at the
    provider, so it can no longer be paid; a payment that still arrives is flagged for
    a refund (`models.ads.checkout.record_payment`)."""
    if not isinstance(reason, str) or not reason.strip():
        raise ValidationError(fields={"reason": "required"})
    reason = reason.strip()
    if len(reason) > 2000:
        raise ValidationError(fields={"reason": "at most 2000 characters"})
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
        notice = build_stop_notification_email(reservation, reason)
        AdStopNotice.create(
            ad_reservation=reservation.id,
            recipient=notice["to"],
            subject=notice["subject"],
            body=notice["body"],
            created_at=now,
        )
    _delivery_changed()
    if reservation.position_released_at:
        close_checkout(reservation.id)
    return reservation, {**notice, "createdAt": now}


def stop_notice(reservation_id: str) -> dict:
    """The notice made when the reservation was stopped, as it was then."""
    kept = AdStopNotice.get_or_none(AdStopNotice.ad_reservation == reservation_id)
    if kept is None:
        _reservation(reservation_id)
        raise NotFound("This reservation has no stop notice.")
    return notice_json(kept.recipient, kept.subject, kept.body, kept.created_at)


def expire_ended(now: datetime | None = None) -> int:
    """`active` reservations whose last month is over become `expired`. Safe to rerun."""
    current = month_of(now or utcnow())
    changed = (
        AdReservation.update(status="expired", updated_at=now_iso())
        .where((AdReservation.status == "active") & (AdReservation.end_month < current))
        .execute()
    )
    if changed:
        _delivery_changed()
    return changed


def release_unpaid_holds(now: datetime | None = None) -> list[str]:
    """Remove reservations still unpaid after their checkout expired (CONTRACT 10.3).

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
                record_payment(reservation.id, session.payment_intent_id)
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
    from models.ads import delivery_cache

    delivery_cache.invalidate()


def placement_json(reservation: AdReservation) -> dict:
    """Which unit a reservation holds, and its status: common to every view of it."""
    return {
        "id": reservation.id,
        "slot": reservation.slot_id,
        "position": reservation.position,
        "country": reservation.country,
        "startMonth": reservation.start_month,
        "endMonth": reservation.end_month,
        "status": reservation.status,
    }


def reservation_json(reservation: AdReservation) -> dict:
    return {
        **placement_json(reservation),
        "advertiserName": reservation.advertiser_name,
        "imageUrl": reservation.image_url,
        "redirectUrl": reservation.redirect_url,
        "profileId": reservation.advertiser_profile_id,
        "paid": reservation.payment_intent_id is not None,
        "stoppedAt": reservation.stopped_at,
        "stoppedReason": reservation.stopped_reason,
        "createdAt": reservation.created_at,
    }

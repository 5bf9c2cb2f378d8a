"""The ad checkout rule on typed events (no provider JSON): only money that arrived
counts as paid, once; a failed or expired checkout releases an unpaid hold; each event
is recorded with the write it makes, and every other event is an outcome, not a write."""

from __future__ import annotations

import uuid

import pytest

from models.ads.checkout_events import ENDPOINT, apply_checkout_event
from models.payments import (
    CheckoutExpired,
    CheckoutPaid,
    CheckoutPaymentFailed,
    CheckoutPaymentPending,
    SubscriptionChanged,
    SubscriptionCheckoutCompleted,
    UnhandledEvent,
)
from models.tables import AdCheckout, AdReservation, PaymentEvent
from tests.factories import make_reservation


def new_id() -> str:
    return f"evt_{uuid.uuid4().hex}"


def paid(reservation_id: str | None, intent: str | None = "pi_1") -> CheckoutPaid:
    return CheckoutPaid(
        new_id(), "checkout.session.completed", "cs_1", reservation_id, payment_intent_id=intent
    )


def pending(reservation_id: str | None) -> CheckoutPaymentPending:
    return CheckoutPaymentPending(new_id(), "checkout.session.completed", "cs_1", reservation_id)


def failed(reservation_id: str | None) -> CheckoutPaymentFailed:
    return CheckoutPaymentFailed(
        new_id(), "checkout.session.async_payment_failed", "cs_1", reservation_id
    )


def expired(reservation_id: str | None, session_id: str | None = "cs_1") -> CheckoutExpired:
    return CheckoutExpired(new_id(), "checkout.session.expired", session_id, reservation_id)


def intent_of(reservation: AdReservation) -> str | None:
    return AdReservation.get_by_id(reservation.id).payment_intent_id


def exists(reservation: AdReservation) -> bool:
    return AdReservation.select().where(AdReservation.id == reservation.id).exists()


def with_checkout(session_id: str) -> AdReservation:
    reservation = make_reservation()
    AdCheckout.create(
        ad_reservation=reservation.id,
        checkout_session_id=session_id,
        expires_at="2030-01-01T00:00:00.000Z",
    )
    return reservation


def test_a_paid_checkout_fills_the_payment_once_and_records_the_event():
    reservation = make_reservation()
    event = paid(reservation.id, "pi_first")
    assert apply_checkout_event(event) == "paid"
    assert apply_checkout_event(event) == "duplicate_event"
    assert apply_checkout_event(paid(reservation.id, "pi_second")) == "already_paid"
    assert intent_of(reservation) == "pi_first"
    row = PaymentEvent.get(PaymentEvent.id == event.id)
    assert (row.endpoint, row.type) == (ENDPOINT, "checkout.session.completed")
    assert row.processed_at is not None


def test_a_payment_for_a_stopped_reservation_is_kept_and_flagged():
    reservation = make_reservation(status="stopped")
    assert apply_checkout_event(paid(reservation.id)) == "paid_after_stop"
    assert AdReservation.get_by_id(reservation.id).paid_after_stop_at is not None


def test_a_completion_awaiting_the_money_changes_nothing_but_is_recorded():
    reservation = make_reservation()
    event = pending(reservation.id)
    assert apply_checkout_event(event) == "awaiting_payment"
    assert apply_checkout_event(event) == "duplicate_event"
    assert intent_of(reservation) is None


def test_a_failed_delayed_payment_releases_the_hold():
    reservation = make_reservation()
    assert apply_checkout_event(failed(reservation.id)) == "hold_released"
    assert not exists(reservation)


def test_a_failure_never_releases_a_paid_reservation():
    reservation = make_reservation(payment_intent_id="pi_card")
    assert apply_checkout_event(failed(reservation.id)) == "hold_kept"
    assert intent_of(reservation) == "pi_card"


@pytest.mark.parametrize(
    ("session_id", "outcome"),
    [("cs_current", "hold_released"), (None, "hold_released"), ("cs_older", "hold_kept")],
    ids=["its-checkout", "no-session-named", "an-older-checkout"],
)
def test_an_expired_checkout_releases_the_hold_unless_another_is_current(session_id, outcome):
    reservation = with_checkout("cs_current")
    assert apply_checkout_event(expired(reservation.id, session_id)) == outcome
    assert exists(reservation) is (outcome == "hold_kept")


@pytest.mark.parametrize(
    "event",
    [paid(None), pending(None), failed(None), expired(None)],
    ids=["paid", "pending", "failed", "expired"],
)
def test_a_checkout_naming_no_reservation_is_missing_metadata(event):
    assert apply_checkout_event(event) == "missing_metadata"
    assert PaymentEvent.select().count() == 0


def test_a_plans_checkout_names_no_reservation():
    event = SubscriptionCheckoutCompleted(new_id(), "checkout.session.completed", "sub_1", "u-1")
    assert apply_checkout_event(event) == "missing_metadata"


@pytest.mark.parametrize(
    "event",
    [
        UnhandledEvent("evt_other", "charge.refunded"),
        SubscriptionChanged("evt_sub", "customer.subscription.updated", "sub_1", None, False),
    ],
    ids=["unhandled", "subscription"],
)
def test_events_of_other_kinds_are_ignored(event):
    assert apply_checkout_event(event) == "ignored_event"
    assert PaymentEvent.select().count() == 0


def test_a_paid_checkout_without_a_payment_intent_writes_nothing():
    reservation = make_reservation()
    assert apply_checkout_event(paid(reservation.id, intent=None)) == "missing_payment_intent"
    assert intent_of(reservation) is None
    assert PaymentEvent.select().count() == 0


def test_an_unknown_reservation_writes_nothing():
    assert apply_checkout_event(paid("no-such-reservation")) == "unknown_reservation"
    assert PaymentEvent.select().count() == 0

"""The buyer back on the purchase form with a hold still open (issue 48, Back from the
checkout): the form learns of it (open_holds) and can cancel it to start over
(abandon_hold), which closes its checkout and frees the position in one conditional
DELETE; a hold paid meanwhile stays."""

from __future__ import annotations

import pytest

from models.ads.checkout import AlreadyPaid, mark_payment_pending, open_holds
from models.ads.reservations import abandon_hold
from models.errors import NotFound
from models.payments import get_provider
from models.tables import AdReservation
from tests.concurrency import at_once
from tests.factories import make_user
from tests.models.ads.test_delayed_payments import buy, session_of


def test_the_form_learns_of_the_buyers_own_hold_awaiting_payment():
    reservation = buy()
    holds = open_holds(reservation.user_id)
    assert [(h.reservation_id, h.slot, h.position) for h in holds] == [
        (reservation.id, "search-result-bottom", 1)
    ]
    assert open_holds(make_user().id) == []  # someone else's is not theirs


def test_a_hold_being_paid_is_not_offered_again():
    # given a konbini voucher issued, its event applied (models/ads/checkout_events.py)
    reservation = buy()
    get_provider().complete(session_of(reservation), method="konbini")
    mark_payment_pending(reservation.id, session_of(reservation))
    assert open_holds(reservation.user_id) == []


def test_cancelling_the_hold_closes_its_checkout_and_frees_the_position():
    reservation = buy()
    abandon_hold(reservation.user_id, reservation.id)
    assert not AdReservation.select().where(AdReservation.id == reservation.id).exists()
    assert buy().position == 1
    with pytest.raises(NotFound):  # a second time: nothing left to cancel
        abandon_hold(reservation.user_id, reservation.id)


def test_the_checkout_of_a_cancelled_hold_can_no_longer_be_paid():
    reservation = buy()
    session = session_of(reservation)
    abandon_hold(reservation.user_id, reservation.id)
    assert get_provider().get_checkout_session(session).status == "expired"


def test_someone_else_cannot_cancel_a_hold():
    reservation = buy()
    with pytest.raises(NotFound):
        abandon_hold(make_user().id, reservation.id)
    assert AdReservation.get_by_id(reservation.id).status == "pending_review"


@pytest.mark.parametrize("method", ["card", "konbini"])
def test_a_hold_paid_meanwhile_stays(method):
    reservation = buy()
    get_provider().complete(session_of(reservation), method=method)
    with pytest.raises(AlreadyPaid):
        abandon_hold(reservation.user_id, reservation.id)
    assert AdReservation.get_by_id(reservation.id).status == "pending_review"


def test_two_cancels_at_once_release_the_hold_once():
    reservation = buy()
    outcomes = at_once(lambda _: abandon_hold(reservation.user_id, reservation.id), [1, 2])
    assert sum(outcome is None for outcome in outcomes) >= 1
    assert all(o is None or isinstance(o, (NotFound, AlreadyPaid)) for o in outcomes)
    assert not AdReservation.select().where(AdReservation.id == reservation.id).exists()


def test_a_hold_the_providers_expired_event_released_first_is_cancelled_all_the_same(
    monkeypatch,
):
    # Given a provider whose expired event, sent as the checkout closes, is handled
    # before the buyer's own request goes on (a loaded machine: seen in a browser test)
    reservation = buy()
    provider = get_provider()
    expire = provider.expire_checkout_session

    def expire_and_release_first(session_id):
        closed = expire(session_id)
        AdReservation.delete().where(AdReservation.id == reservation.id).execute()
        return closed

    monkeypatch.setattr(provider, "expire_checkout_session", expire_and_release_first)

    # When the buyer cancels the hold, then it is gone, and no error says it stays
    abandon_hold(reservation.user_id, reservation.id)
    assert not AdReservation.select().where(AdReservation.id == reservation.id).exists()

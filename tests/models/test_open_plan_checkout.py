"""A plan checkout left open (issue 48, Back from a plan checkout): the account page
learns of it (open_plan_checkout) and can cancel it (abandon_plan_checkout), which
expires it at the provider and releases the member's claim in one conditional DELETE,
so the other plan can be chosen at once; one paid meanwhile stays."""

from __future__ import annotations

import pytest

from models.billing import (
    CheckoutAlreadyPaid,
    abandon_plan_checkout,
    open_plan_checkout,
    start_subscription_checkout,
)
from models.payments import get_provider
from models.tables import SubscriptionCheckout
from tests.concurrency import at_once
from tests.factories import make_user
from tests.models.test_one_subscription import BASE, session_id


@pytest.fixture
def user():
    return make_user()


def test_an_open_plan_checkout_is_shown_with_its_plan_time_and_address(user):
    url = start_subscription_checkout(user.id, "plus", BASE)
    found = open_plan_checkout(user.id)
    assert found is not None
    assert (found.plan, found.url) == ("plus", url)
    assert found.expires_at.endswith("Z")


def test_no_checkout_shows_nothing(user):
    assert open_plan_checkout(user.id) is None
    abandon_plan_checkout(user.id)  # nothing to cancel is not an error


def test_cancelling_it_expires_it_and_lets_the_other_plan_be_chosen(user):
    url = start_subscription_checkout(user.id, "plus", BASE)
    abandon_plan_checkout(user.id)
    assert get_provider().get_checkout_session(session_id(url)).status == "expired"
    assert open_plan_checkout(user.id) is None
    assert SubscriptionCheckout.select().count() == 0
    other = start_subscription_checkout(user.id, "pro", BASE)
    assert other != url


def test_a_checkout_paid_meanwhile_is_not_cancelled(user):
    url = start_subscription_checkout(user.id, "plus", BASE)
    get_provider().complete(session_id(url))
    with pytest.raises(CheckoutAlreadyPaid):
        abandon_plan_checkout(user.id)
    assert SubscriptionCheckout.select().count() == 1


def test_two_cancels_at_once_both_answer_and_leave_no_claim(user):
    start_subscription_checkout(user.id, "plus", BASE)
    outcomes = at_once(lambda _: abandon_plan_checkout(user.id), [1, 2])
    assert outcomes == [None, None]
    assert SubscriptionCheckout.select().count() == 0

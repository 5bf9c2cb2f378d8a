"""One subscription per member whatever the timing (issue 26, finding 3): a plan checkout
cannot be opened while another is open or being paid, and a second payment that still
arrives is cancelled and refunded through the provider, never a second active row."""

from __future__ import annotations

import uuid

import pytest

from models.billing import (
    AlreadySubscribedToPlan,
    CheckoutOpen,
    apply_subscription_event,
    cancel_duplicate_subscription,
    start_subscription_checkout,
)
from models.payments import PaymentRejected, get_provider
from models.referrals import claim_referral
from models.tables import DuplicateSubscription, OutboxMessage, Subscription, User
from tests.concurrency import at_once
from tests.factories import make_user
from tests.models.test_subscription_events import subscribe as paid_subscription
from web.devtools.local_payments.tables import LocalCheckoutSession, LocalSubscription

BASE = "http://127.0.0.1:8000"


def subscribe(user, price):
    """A checkout of the provider's own, opened past our gate (as one opened before an
    outage, or by hand) and paid; returns its subscription id."""
    return paid_subscription(user, price, checkout_key=f"s-{uuid.uuid4()}")


def session_id(url):
    return url.rsplit("/", 1)[-1]


def active_plans(user):
    return sorted(
        row.plan
        for row in Subscription.select().where(
            (Subscription.reference_id == user.id) & (Subscription.status == "active")
        )
    )


def opened_checkouts():
    return LocalCheckoutSession.select().where(LocalCheckoutSession.mode == "subscription").count()


def credits_of(user):
    fresh = User.get_by_id(user.id)
    return fresh.credit_balance, fresh.bonus_credit


@pytest.fixture
def user():
    return make_user()


# -- the checkout gate ---------------------------------------------------------------------


def test_a_checkout_for_another_plan_is_refused_while_one_is_open(user):
    start_subscription_checkout(user.id, "plus", BASE)

    with pytest.raises(CheckoutOpen):
        start_subscription_checkout(user.id, "pro", BASE)

    assert opened_checkouts() == 1


def test_asking_again_for_the_same_plan_gives_the_open_checkout_again(user):
    first = start_subscription_checkout(user.id, "plus", BASE)

    again = start_subscription_checkout(user.id, "plus", BASE)

    assert again == first
    assert opened_checkouts() == 1


def test_a_cancelled_checkout_no_longer_blocks(user):
    first = start_subscription_checkout(user.id, "plus", BASE)
    get_provider().cancel(session_id(first))

    second = start_subscription_checkout(user.id, "pro", BASE)

    assert second != first
    assert opened_checkouts() == 2


def test_a_checkout_paid_but_not_yet_applied_blocks_a_new_one(user):
    first = start_subscription_checkout(user.id, "plus", BASE)
    get_provider().complete(session_id(first))  # its events still on their way

    with pytest.raises(CheckoutOpen):
        start_subscription_checkout(user.id, "pro", BASE)


def test_once_the_paid_checkout_is_applied_the_member_is_already_subscribed(user):
    first = start_subscription_checkout(user.id, "plus", BASE)
    get_provider().complete(session_id(first))
    sub = LocalCheckoutSession.get_by_id(session_id(first)).subscription_id
    apply_subscription_event("complete", sub, user.id)

    with pytest.raises(AlreadySubscribedToPlan):
        start_subscription_checkout(user.id, "pro", BASE)


def test_the_first_checkout_cannot_be_paid_after_a_second_was_opened_for_it(user):
    """Opened one after the other: the second request refuses, so only one is payable."""
    first = start_subscription_checkout(user.id, "plus", BASE)
    with pytest.raises(CheckoutOpen):
        start_subscription_checkout(user.id, "pro", BASE)

    get_provider().complete(session_id(first))
    apply_subscription_event(
        "complete", LocalCheckoutSession.get_by_id(session_id(first)).subscription_id, user.id
    )

    assert active_plans(user) == ["plus"]


@pytest.mark.parametrize("plans", [["plus"] * 8, ["plus", "pro"] * 4], ids=["same", "mixed"])
def test_checkouts_opened_at_once_open_one(user, plans):
    outcomes = at_once(lambda plan: start_subscription_checkout(user.id, plan, BASE), plans)

    urls = {o for o in outcomes if isinstance(o, str)}
    refused = [o for o in outcomes if isinstance(o, CheckoutOpen)]
    assert len(urls) == 1
    assert len(urls) + len(refused) <= len(plans)
    assert [o for o in outcomes if not isinstance(o, str | CheckoutOpen)] == []
    assert opened_checkouts() == 1


# -- a second payment that still arrives ---------------------------------------------------


@pytest.mark.parametrize(
    ("first", "second"),
    [("price_local_plus", "price_local_plus"), ("price_local_plus", "price_local_pro")],
    ids=["plus-plus", "plus-pro"],
)
def test_two_paid_checkouts_leave_one_active_subscription(user, first, second):
    kept = subscribe(user, first)
    extra = subscribe(user, second)

    apply_subscription_event("complete", kept, user.id)
    apply_subscription_event("update", extra, user.id)  # its created event
    apply_subscription_event("complete", extra, user.id)

    assert active_plans(user) == ["plus"]
    assert credits_of(user) == (500, 0)
    duplicate = DuplicateSubscription.get_by_id(extra)
    assert (duplicate.status, duplicate.kept_subscription_id) == ("cancelling", kept)
    assert (
        OutboxMessage.select().where(OutboxMessage.actor == "cancel_duplicate_subscription").count()
        == 1
    )


def test_the_second_subscription_is_cancelled_and_refunded_at_the_provider(user):
    kept = subscribe(user, "price_local_plus")
    extra = subscribe(user, "price_local_pro")
    apply_subscription_event("complete", kept, user.id)
    apply_subscription_event("complete", extra, user.id)

    assert cancel_duplicate_subscription(extra) == "refunded"
    apply_subscription_event("deleted", extra)  # the provider's deleted event

    remote = LocalSubscription.get_by_id(extra)
    assert (remote.status, remote.refunded_amount) == ("canceled", 2_980)
    assert cancel_duplicate_subscription(extra) == "refunded"  # a rerun refunds no more
    assert LocalSubscription.get_by_id(extra).refunded_amount == 2_980
    assert active_plans(user) == ["plus"]
    assert credits_of(user) == (500, 0)


def test_a_refund_the_provider_refuses_is_left_for_the_operator(user, monkeypatch):
    kept = subscribe(user, "price_local_plus")
    extra = subscribe(user, "price_local_pro")
    apply_subscription_event("complete", kept, user.id)
    apply_subscription_event("complete", extra, user.id)

    def refuse(*_args, **_kwargs):
        raise PaymentRejected("charge already disputed")

    monkeypatch.setattr(get_provider(), "cancel_and_refund_subscription", refuse)
    assert cancel_duplicate_subscription(extra) == "needs_operator"

    row = DuplicateSubscription.get_by_id(extra)
    assert "disputed" in row.detail
    assert active_plans(user) == ["plus"]


def test_the_referral_reward_is_paid_once_for_two_paid_checkouts(user):
    referrer = make_user()
    claim_referral(user.id, referrer.referral_code)
    kept = subscribe(user, "price_local_plus")
    extra = subscribe(user, "price_local_pro")

    apply_subscription_event("complete", kept, user.id)
    apply_subscription_event("complete", extra, user.id)

    assert credits_of(user) == (500, 100)
    assert credits_of(referrer) == (50, 100)


def test_two_completions_applied_at_once_leave_one_active_subscription(user):
    subs = [subscribe(user, "price_local_plus"), subscribe(user, "price_local_pro")]

    outcomes = at_once(lambda sub: apply_subscription_event("complete", sub, user.id), subs)

    assert not [o for o in outcomes if isinstance(o, Exception)], outcomes
    assert len(active_plans(user)) == 1
    assert DuplicateSubscription.select().count() == 1

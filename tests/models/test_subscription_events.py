"""Subscription events: what each typed event asks of us, the row copied from the
provider, credits set once per plan and period, the reward on completion, free again on
deletion."""

from __future__ import annotations

import pytest

from models.billing import (
    EVENT_ENDPOINT,
    SubscriptionWork,
    apply_subscription_event,
    receive_webhook_event,
    subscription_work,
)
from models.payments import (
    CheckoutExpired,
    CheckoutPaid,
    SubscriptionChanged,
    SubscriptionCheckoutCompleted,
    UnhandledEvent,
    get_provider,
)
from models.referrals import claim_referral
from models.tables import PaymentEvent, Subscription, User
from tests.concurrency import at_once
from tests.factories import make_subscription, make_user


def subscribe(user, price="price_local_plus", checkout_key=None):
    """A paid subscription at the local provider; returns its id."""
    completion = complete_subscription(user, price, checkout_key)[-1].event
    assert isinstance(completion, SubscriptionCheckoutCompleted)
    assert completion.subscription_id is not None
    return completion.subscription_id


def complete_subscription(user, price="price_local_plus", checkout_key=None):
    """Pay a subscription checkout at the local provider; returns the events it sends.
    A checkout key of its own opens a second checkout for the same plan."""
    provider = get_provider()
    customer = provider.create_customer(
        email=user.email, name=user.name, user_id=user.id, idempotency_key=f"c-{user.id}"
    )
    session = provider.create_subscription_checkout(
        customer_id=customer,
        price_id=price,
        reference_id=user.id,
        success_url="s",
        cancel_url="c",
        idempotency_key=checkout_key or f"s-{user.id}-{price}",
    )
    return provider.complete(session.id)


def spend(user, credits):
    User.update(credit_balance=User.credit_balance - credits).where(User.id == user.id).execute()


def balance(user):
    return User.get_by_id(user.id).credit_balance


@pytest.fixture
def user():
    return make_user()


COMPLETED = "checkout.session.completed"


@pytest.mark.parametrize(
    ("event", "work"),
    [
        (
            SubscriptionCheckoutCompleted("evt_1", COMPLETED, "sub_1", "u-1"),
            SubscriptionWork("complete", "sub_1", "u-1"),
        ),
        (
            SubscriptionChanged("evt_1", "customer.subscription.created", "sub_1", None, False),
            SubscriptionWork("update", "sub_1", None),
        ),
        (
            SubscriptionChanged("evt_1", "customer.subscription.deleted", "sub_1", "u-1", True),
            SubscriptionWork("deleted", "sub_1", "u-1"),
        ),
        (SubscriptionCheckoutCompleted("evt_1", COMPLETED, None, "u-1"), None),
        (CheckoutPaid("evt_1", COMPLETED, "cs_1", "r-1", "pi_1"), None),
        (CheckoutExpired("evt_1", "checkout.session.expired", "cs_1", None), None),
        (UnhandledEvent("evt_1", "invoice.paid"), None),
    ],
    ids=["completed", "created", "deleted", "completed-without-id", "ad", "expired", "other"],
)
def test_what_each_event_asks_of_us(event, work):
    assert subscription_work(event) == work


@pytest.mark.parametrize(
    ("event", "pending"),
    [
        (SubscriptionChanged("evt_1", "customer.subscription.updated", "sub_1", None, False), True),
        (CheckoutExpired("evt_1", "checkout.session.expired", "cs_1", None), False),
    ],
    ids=["work", "nothing-to-do"],
)
def test_a_received_event_is_stored_with_its_id_type_and_payload(event, pending):
    receipt = receive_webhook_event(event, '{"id": "evt_1"}')
    assert (receipt.new, receipt.pending) == (True, pending)
    row = PaymentEvent.get(PaymentEvent.id == "evt_1")
    assert (row.endpoint, row.type, row.payload) == (EVENT_ENDPOINT, event.type, '{"id": "evt_1"}')
    assert (row.processed_at is None) is pending
    assert receive_webhook_event(event, '{"id": "evt_1"}').new is False


def test_completion_copies_the_subscription_and_sets_the_plan_limit(user):
    sub = subscribe(user)
    apply_subscription_event("complete", sub, user.id)
    row = Subscription.get(Subscription.payment_subscription_id == sub)
    assert (row.plan, row.status, row.reference_id) == ("plus", "active", user.id)
    assert balance(user) == 500


def test_the_same_event_twice_changes_nothing(user):
    sub = subscribe(user)
    apply_subscription_event("complete", sub, user.id)
    spend(user, 120)
    apply_subscription_event("complete", sub, user.id)
    apply_subscription_event("update", sub, None)  # the created event, later
    assert balance(user) == 380
    assert Subscription.select().count() == 1


def test_cancel_and_restore_do_not_refill(user):
    sub = subscribe(user)
    apply_subscription_event("complete", sub, user.id)
    spend(user, 400)
    provider = get_provider()
    provider.update_subscription(sub, cancel_at_period_end=True)
    apply_subscription_event("update", sub)
    assert Subscription.get().cancel_at_period_end is True
    provider.update_subscription(sub, cancel_at_period_end=False)
    apply_subscription_event("update", sub)
    assert balance(user) == 100


def test_a_plan_change_refills(user):
    sub = subscribe(user)
    apply_subscription_event("complete", sub, user.id)
    spend(user, 400)
    get_provider().update_subscription(sub, price_id="price_local_pro")
    apply_subscription_event("update", sub)
    assert Subscription.get().plan == "pro"
    assert balance(user) == 2000


def test_a_new_billing_period_refills(user):
    sub = subscribe(user)
    apply_subscription_event("complete", sub, user.id)
    spend(user, 450)
    get_provider().update_subscription(sub, renew=True)
    apply_subscription_event("update", sub)
    assert balance(user) == 500


def test_deletion_returns_to_free(user):
    sub = subscribe(user)
    apply_subscription_event("complete", sub, user.id)
    get_provider().cancel_subscription(sub)
    apply_subscription_event("deleted", sub)
    assert Subscription.get().status == "canceled"
    assert balance(user) == 50
    spend(user, 10)
    apply_subscription_event("deleted", sub)  # redelivered
    assert balance(user) == 40


def test_deletion_keeps_credits_while_another_subscription_is_live(user):
    # Given a member whose old plan's deletion arrives while a pro subscription is live
    # (one paid checkout at a time: the pro row stands for one made before)
    first = subscribe(user, "price_local_plus")
    apply_subscription_event("complete", first, user.id)
    make_subscription(user, plan="pro")
    User.update(credit_balance=2000).where(User.id == user.id).execute()
    spend(user, 100)
    get_provider().cancel_subscription(first)
    apply_subscription_event("deleted", first)
    assert balance(user) == 1900


def test_completion_pays_the_referral_reward_once(user):
    referrer = make_user()
    claim_referral(user.id, referrer.referral_code)
    sub = subscribe(user)
    apply_subscription_event("complete", sub, user.id)
    apply_subscription_event("complete", sub, user.id)
    assert User.get_by_id(user.id).bonus_credit == 100
    assert User.get_by_id(referrer.id).bonus_credit == 100


def test_twenty_concurrent_completions_pay_each_side_once(user):
    referrer = make_user()
    claim_referral(user.id, referrer.referral_code)
    sub = subscribe(user)
    outcomes = at_once(lambda _: apply_subscription_event("complete", sub, user.id), range(20))
    assert [o for o in outcomes if isinstance(o, Exception)] == []
    assert User.get_by_id(user.id).bonus_credit == 100
    assert User.get_by_id(referrer.id).bonus_credit == 100
    assert balance(user) == 500
    assert Subscription.select().count() == 1


def test_a_subscription_of_an_unknown_price_is_not_kept(user, caplog):
    provider = get_provider()
    custom = provider.create_price(
        unit_amount=100,
        currency="jpy",
        product_name="x",
        product_id=None,
        metadata={},
        idempotency_key="odd",
    )
    sub = subscribe(user, custom.id)
    assert apply_subscription_event("complete", sub, user.id) is None
    assert Subscription.select().count() == 0
    assert "of no plan" in caplog.text

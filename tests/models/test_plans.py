"""Plans: which subscriptions are live and which plan wins, alike in Python (plan_of)
and in the SQL of the monthly reset and of a plan change."""

from __future__ import annotations

import pytest

from models.credits import monthly_reset, set_balance_to_plan_limit
from models.plans import PLAN_LIMITS, live_subscriptions, plan_of
from models.tables import User
from tests.factories import make_subscription, make_user

LIVE = ["active", "trialing"]
NOT_LIVE = ["past_due", "unpaid", "canceled", "incomplete", "incomplete_expired", "paused"]


def balance(user):
    return User.get_by_id(user.id).credit_balance


def the_plan_everywhere(user):
    """The plan as the pages read it, checked against the limits that a plan change and
    the monthly reset set in SQL."""
    plan = plan_of(user.id)
    assert set_balance_to_plan_limit(user.id) == PLAN_LIMITS[plan]
    User.update(credit_balance=0).where(User.id == user.id).execute()
    monthly_reset()
    assert balance(user) == PLAN_LIMITS[plan]
    return plan


@pytest.mark.parametrize("status", LIVE)
def test_an_active_or_trialing_subscription_gives_its_plan(status):
    user = make_user(credit_balance=0)
    row = make_subscription(user, plan="pro", status=status)
    assert the_plan_everywhere(user) == "pro"
    assert [s.id for s in live_subscriptions(user.id)] == [row.id]


@pytest.mark.parametrize("status", NOT_LIVE)
def test_any_other_status_leaves_the_user_free(status):
    user = make_user(credit_balance=0)
    make_subscription(user, plan="pro", status=status)
    assert the_plan_everywhere(user) == "free"
    assert list(live_subscriptions(user.id)) == []


@pytest.mark.parametrize(("first", "second"), [("plus", "pro"), ("pro", "plus")])
def test_of_two_live_subscriptions_the_larger_plan_wins(first, second):
    user = make_user(credit_balance=0)
    make_subscription(user, plan=first, status="active")
    make_subscription(user, plan=second, status="trialing")
    assert the_plan_everywhere(user) == "pro"
    assert balance(user) == 2000


def test_a_larger_plan_that_is_not_live_does_not_win():
    user = make_user(credit_balance=0)
    make_subscription(user, plan="plus", status="active")
    make_subscription(user, plan="pro", status="past_due")
    assert the_plan_everywhere(user) == "plus"
    assert balance(user) == 500


def test_the_reset_gives_each_user_their_own_plan():
    pro_and_plus, plus, free = make_user(), make_user(), make_user()
    make_subscription(pro_and_plus, plan="plus")
    make_subscription(pro_and_plus, plan="pro")
    make_subscription(plus, plan="plus")
    make_subscription(free, plan="pro", status="canceled")
    monthly_reset()
    assert [balance(u) for u in (pro_and_plus, plus, free)] == [2000, 500, 50]
    assert [plan_of(u.id) for u in (pro_and_plus, plus, free)] == ["pro", "plus", "free"]

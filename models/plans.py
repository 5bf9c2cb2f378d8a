"""Plans: what a user pays for, read from subscriptions, and the credit limit of each.

The two rules every reader of subscriptions shares are said here once: which
subscriptions are live (give their plan), and which plan wins when a user somehow holds
two; Python and SQL read them alike (docs/accounts.md, Credits, plans and referrals).
"""

from __future__ import annotations

from peewee import SQL, Case, ColumnBase, Expression, ModelSelect, fn

from models.tables import Subscription, User

PLAN_LIMITS = {"free": 50, "plus": 500, "pro": 2000}
# A subscription in these provider states gives its plan (the spec's monthly reset:
# `active` or `trialing`, otherwise free).
PAID_STATUSES = ("active", "trialing")
# Smallest first: when a user somehow holds two live subscriptions, the larger plan counts.
PLANS = ("free", "plus", "pro")
PLAN_RANK = {plan: rank for rank, plan in enumerate(PLANS)}


def is_live(status: str) -> bool:
    """Whether a subscription in this provider state gives its plan."""
    return status in PAID_STATUSES


def live_subscription_of(owner: str | ColumnBase) -> Expression:
    """SQL: a subscription row that is a live one of `owner` (a user id, or a column
    such as `User.id` for a statement over every user)."""
    return (Subscription.reference_id == owner) & Subscription.status.in_(PAID_STATUSES)


def live_subscriptions(owner: str | ColumnBase) -> ModelSelect[Subscription]:
    """The live subscriptions of `owner`; narrow it further with `.where(...)`."""
    return Subscription.select().where(live_subscription_of(owner))


def larger_plans_than(plan: str) -> list[str]:
    return [larger for larger in PLANS if PLAN_RANK[larger] > PLAN_RANK.get(plan, 0)]


def plan_of(user_id: str) -> str:
    plans = [row.plan for row in live_subscriptions(user_id).select(Subscription.plan)]
    return max(plans, key=PLAN_RANK.__getitem__, default="free")


def limit_of_live_plan() -> Case:
    """SQL: each user's plan limit (in a statement over `users`), from their live
    subscriptions, the largest plan first: what `plan_of` answers, as a limit."""

    def holds(plan: str) -> ColumnBase:
        return fn.EXISTS(
            live_subscriptions(User.id).select(SQL("1")).where(Subscription.plan == plan)
        )

    return Case(
        None,
        [(holds(plan), PLAN_LIMITS[plan]) for plan in reversed(PLANS) if plan != "free"],
        PLAN_LIMITS["free"],
    )

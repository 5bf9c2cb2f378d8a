"""Plans: what a user pays for, read from subscriptions, and the credit limit of each."""

from __future__ import annotations

from models.tables import Subscription

PLAN_LIMITS = {"free": 50, "plus": 500, "pro": 2000}
PAID_STATUSES = ("active", "trialing")
# When a user somehow holds two live subscriptions, the larger plan counts.
PLAN_RANK = {"free": 0, "plus": 1, "pro": 2}


def plan_of(user_id: str) -> str:
    plans = [
        row.plan
        for row in Subscription.select(Subscription.plan).where(
            (Subscription.reference_id == user_id) & Subscription.status.in_(PAID_STATUSES)
        )
    ]
    return max(plans, key=PLAN_RANK.__getitem__, default="free")

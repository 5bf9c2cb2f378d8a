"""Periodic credit work: the monthly reset."""

from __future__ import annotations

import logging

from models.credits import run_monthly_reset
from models.metrics import MONTHLY_RESETS
from workers.actors import actor

log = logging.getLogger(__name__)


@actor(actor_name="batch-monthly-reset", queue_name="batch", max_retries=5)
def batch_monthly_reset(period: str | None = None, force: bool = False) -> None:
    """Reset balances to plan limits and drop expired access, once per month (`period`,
    default the current UTC month). Retries 5 times; a redelivery finds the month done."""
    result = run_monthly_reset(period, force=force)
    MONTHLY_RESETS.labels(outcome="already_ran" if result is None else "ran").inc()
    if result is None:
        log.info("monthly reset for %s already ran", period or "this month")
    else:
        log.info(
            "monthly reset: %d users, %d expired access rows deleted",
            result.users,
            result.access_rows_deleted,
        )

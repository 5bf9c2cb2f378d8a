"""What runs when: (name, cron expression in UTC, actor name, arguments)."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Job:
    name: str
    cron: str
    actor: str
    args: tuple = ()
    kwargs: dict = field(default_factory=dict)


SCHEDULE = [
    Job("batch-monthly-reset", "0 0 1 * *", "batch-monthly-reset"),
    Job("expire-ad-reservations", "5 0 * * *", "expire_ad_reservations"),
    Job("prune-impression-events", "30 3 * * *", "prune_impression_events"),
    Job("release-unpaid-ad-holds", "*/5 * * * *", "release_unpaid_ad_holds"),
    Job("refresh-due-channels", "5 * * * *", "refresh_due_channels"),
    Job("purge-expired-sessions", "17 * * * *", "purge_expired_sessions"),
    # Only the local payment provider has checkouts of its own to expire.
    Job("expire-local-checkouts", "* * * * *", "expire_local_checkouts"),
]

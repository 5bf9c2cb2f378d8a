"""What runs when: (name, cron expression in UTC, actor name, arguments).

A job marked `outboxed` is a promise (the monthly reset): it is written to the
database outbox before it is queued, so a message Redis loses is sent again.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Job:
    name: str
    cron: str
    actor: str
    args: tuple[Any, ...] = ()
    kwargs: dict[str, Any] = field(default_factory=dict)
    outboxed: bool = False

    def __post_init__(self) -> None:
        if self.outboxed and self.kwargs:
            raise ValueError(f"{self.name}: an outboxed job takes positional arguments only")


SCHEDULE = [
    Job("batch-monthly-reset", "0 0 1 * *", "batch-monthly-reset", outboxed=True),
    Job("redrive-outbox", "* * * * *", "redrive_outbox"),
    # Each run reads the beacons' stream a little over a minute: one is always reading.
    Job("count-beacons", "* * * * *", "count_beacons"),
    Job("expire-ad-reservations", "5 0 * * *", "expire_ad_reservations"),
    Job("prune-impression-events", "30 3 * * *", "prune_impression_events"),
    Job("release-unpaid-ad-holds", "*/5 * * * *", "release_unpaid_ad_holds"),
    Job("refresh-due-channels", "5 * * * *", "refresh_due_channels"),
    Job("retry-failed-subtitles", "35 * * * *", "retry_failed_subtitles"),
    # Videos fetched before subtitle tracks were kept, fetched once more a round at a time.
    Job("backfill-subtitle-tracks", "50 * * * *", "backfill_subtitle_tracks"),
    # The index compared with the database, and repaired (docs/search-index.md).
    Job("verify-search-index", "40 4 * * *", "verify_search_index"),
    # New vectors folded into the embedded engine's nearest-neighbour snapshot (a no-op
    # until enough have come: models/search/embedded/vectors.py).
    Job("compact-search-vectors", "*/10 * * * *", "compact_search_vectors"),
    Job("purge-expired-sessions", "17 * * * *", "purge_expired_sessions"),
    # Daily alert digests: hourly, each alert's at ALERT_DIGEST_HOUR in its member's zone
    # (models/alert_mail.py); a rerun of an hour plans nothing twice.
    Job("send-alert-digests", "0 * * * *", "send_alert_digests"),
    # Only the local payment provider has checkouts of its own to expire.
    Job("expire-local-checkouts", "* * * * *", "expire_local_checkouts"),
]

"""The outbox's redrive: stored events and messages still unprocessed are sent again."""

from __future__ import annotations

from models import outbox
from workers.actors import actor


@actor(queue_name="maintenance", max_retries=3)
def redrive_outbox() -> None:
    """Send again what waits unprocessed over 2 minutes (every minute, by the scheduler).
    A rerun sends a row again only after its backoff, and every actor it feeds is safe
    to run twice."""
    outbox.redrive()

"""Alerts (docs/alerts.md): new videos matched against the saved searches. The mail
actors of alerts are in tasks/alert_mail.py."""

from __future__ import annotations

import logging

from models import alert_matching
from tasks.search import INDEX_MAX_BACKOFF_MS, INDEX_RETRIES
from workers.actors import actor

log = logging.getLogger(__name__)


@actor(queue_name="index", max_retries=INDEX_RETRIES, max_backoff=INDEX_MAX_BACKOFF_MS)
def match_alerts(video_ids: list[str]) -> None:
    """Match these newly indexed videos against the live alerts made before them (sent
    through the outbox after each index write). Retried while the engine refuses; a
    rerun writes no news twice and queues no second mail for it."""
    done = alert_matching.match(video_ids)
    if done.new or done.asked:
        log.info(
            "alerts: %d video(s) x %d alert(s): %d pair(s), %d asked of the engine, %d news",
            done.videos,
            done.alerts,
            done.pairs,
            done.asked,
            done.new,
        )

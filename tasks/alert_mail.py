"""Alert mail (docs/alerts.md, Mail): each alert's news mailed through the operator's
SMTP server, at once (instant alerts) or in a daily digest."""

from __future__ import annotations

import logging

from models import alert_mail
from workers.actors import actor

log = logging.getLogger(__name__)

# An SMTP server that says "not now", or a batch another run is still sending, is tried
# again for about three hours (backoff doubling to 15 minutes); past that the outbox
# sends the message again while it stays unprocessed.
MAIL_RETRIES = 20
MAIL_QUEUE = "mail"


@actor(queue_name=MAIL_QUEUE, max_retries=MAIL_RETRIES)
def send_alert_mail(alert_id: str) -> None:
    """Mail the alert's waiting news (sent through the outbox by the matching and the
    digest planner). Retried while the server defers or another run holds the batch; a
    rerun sends a batch it finds claimed and unmailed again, under the same Message-ID,
    and nothing already mailed."""
    sent = alert_mail.send_alert_mail(alert_id)
    if sent:
        log.info("alert %s: %d mail(s) sent", alert_id, sent)


@actor(queue_name=MAIL_QUEUE, max_retries=3)
def send_alert_digests() -> None:
    """Plan the daily digests now due (hourly, by the scheduler): each alert's day is
    claimed by a conditional UPDATE, so a rerun plans no second digest; each digest is
    then sent by `send_alert_mail` through the outbox."""
    planned = alert_mail.plan_digests()
    if planned:
        log.info("alerts: %d daily digest(s) planned", planned)

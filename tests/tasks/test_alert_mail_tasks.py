"""The alert mail actors through the stub broker and a worker: a mail the matching puts
in the outbox arrives once and its row is processed, a refused send is retried until
the server takes it, and the scheduler runs the digests hourly."""

from __future__ import annotations

from datetime import UTC, datetime

from models import outbox
from models.db import db
from models.tables import AlertMatch, OutboxMessage
from scheduler.runner import latest_due_tick
from scheduler.schedule import SCHEDULE
from tasks.alert_mail import MAIL_QUEUE, send_alert_digests
from tests.factories import make_alert, make_alert_match, make_user
from tests.fixtures import wait_for


def test_an_outboxed_mail_is_sent_once_and_its_row_processed(smtp_server, stub_broker, stub_worker):
    alert = make_alert()
    make_alert_match(alert)
    # As the matching does: the message in the transaction that found the news.
    with db.atomic():
        message_id = outbox.add("send_alert_mail", alert.id)
    assert outbox.send(message_id)
    stub_broker.join(MAIL_QUEUE)
    stub_worker.join()
    assert len(smtp_server.inbox.messages) == 1
    assert OutboxMessage.get_by_id(message_id).processed_at is not None
    # Redriven or delivered twice: nothing more.
    with db.atomic():
        again = outbox.add("send_alert_mail", alert.id)
    outbox.send(again)
    stub_broker.join(MAIL_QUEUE)
    stub_worker.join()
    assert len(smtp_server.inbox.messages) == 1


def test_a_refused_send_is_retried_by_the_worker(smtp_server, stub_broker, stub_worker):
    alert = make_alert()
    make_alert_match(alert)
    smtp_server.inbox.data_replies.append("421 4.3.2 Service not available, try later")
    with db.atomic():
        message_id = outbox.add("send_alert_mail", alert.id)
    outbox.send(message_id)
    # Dramatiq's backoff starts at a second.
    assert wait_for(lambda: len(smtp_server.inbox.messages) == 1, timeout=30)
    assert wait_for(lambda: OutboxMessage.get_by_id(message_id).processed_at is not None, 10)
    assert all(m.mailed_at for m in AlertMatch.select())


def test_the_digests_run_hourly(smtp_server, stub_broker, stub_worker):
    [job] = [job for job in SCHEDULE if job.actor == "send_alert_digests"]
    after = datetime(2026, 11, 29, 10, 0, tzinfo=UTC)
    assert latest_due_tick(job, after, datetime(2026, 11, 29, 10, 59, tzinfo=UTC)) is None
    assert latest_due_tick(job, after, datetime(2026, 11, 29, 11, 0, 5, tzinfo=UTC)) == datetime(
        2026, 11, 29, 11, 0, tzinfo=UTC
    )
    # The actor plans what is due now (here, whatever the hour: the digest hour is 0).
    from dataclasses import replace  # noqa: PLC0415

    from models.settings import get_settings, use_settings  # noqa: PLC0415

    previous = get_settings()
    use_settings(replace(previous, alert_digest_hour=0))
    try:
        alert = make_alert(make_user(time_zone="UTC"), frequency="daily")
        make_alert_match(alert)
        send_alert_digests.send()
        assert wait_for(lambda: len(smtp_server.inbox.messages) == 1, timeout=30)
    finally:
        use_settings(previous)

"""Alert mail through real processes: a worker on real Redis killed while the SMTP server
holds its mail (accepted on the server's side, never acknowledged to the worker) loses
nothing and doubles nothing: the next worker sends the same batch once more, under the
same Message-ID, and marks it mailed."""

from __future__ import annotations

import asyncio
from datetime import timedelta

import pytest
from dramatiq import Message

from models import outbox
from models.alert_mail import BATCH_LEASE
from models.clock import iso, utcnow
from models.db import db
from models.tables import AlertMatch, OutboxMessage
from tests.factories import make_alert, make_alert_match
from tests.fixtures import TEST_REDIS_URL
from tests.smtp import Inbox, SmtpServer
from tests.workers.processes import kill, wait_for
from workers.broker import build_broker

pytestmark = pytest.mark.flow


class HangingInbox(Inbox):
    """Keeps each message, then, while `hang`, never answers the DATA command."""

    hang = True

    async def handle_DATA(self, server, session, envelope):
        answer = await super().handle_DATA(server, session, envelope)
        while self.hang:
            await asyncio.sleep(0.1)
        return answer


@pytest.fixture
def redis_broker(redis_client):
    broker = build_broker(TEST_REDIS_URL)
    broker.declare_queue("mail")
    yield broker
    broker.close()


def test_a_worker_killed_mid_delivery_loses_and_doubles_nothing(
    start_worker, redis_broker, redis_client
):
    inbox = HangingInbox()
    with SmtpServer(inbox) as server:
        mail_env = {"SMTP_URL": server.url, "MAIL_FROM": "subsearch <alerts@example.jp>"}
        alert = make_alert()
        first, second = make_alert_match(alert), make_alert_match(alert)
        with db.atomic():
            message_id = outbox.add("send_alert_mail", alert.id)
        redis_broker.enqueue(
            Message(
                queue_name="mail",
                actor_name="send_alert_mail",
                args=(alert.id,),
                kwargs={},
                options={outbox.OPTION: message_id},
            )
        )

        worker = start_worker(**mail_env)
        assert wait_for(lambda: len(inbox.messages) == 1, timeout=60)
        kill(worker)  # the server has the mail; the worker never heard it was taken
        claimed = {m.mail_batch for m in AlertMatch.select()}
        assert len(claimed) == 1 and None not in claimed
        assert all(m.mailed_at is None for m in AlertMatch.select())
        assert OutboxMessage.get_by_id(message_id).processed_at is None

        # The dead run's lease runs out (as five minutes would).
        [value] = claimed
        aged = f"{value.split()[0]} {iso(utcnow() - BATCH_LEASE - timedelta(seconds=1))}"
        AlertMatch.update(mail_batch=aged).execute()
        inbox.hang = False

        # The next worker takes the unacknowledged message back (a dead worker's
        # messages return at its heartbeat's timeout) and sends the same batch.
        start_worker(**mail_env)
        assert wait_for(lambda: OutboxMessage.get_by_id(message_id).processed_at, timeout=90)
        sent, again = inbox.messages
        assert again["Message-ID"] == sent["Message-ID"]
        for match in (first, second):
            assert match.video_id in again.get_content()
        assert all(m.mailed_at for m in AlertMatch.select())
        # Nothing more comes: no third copy, no message left to run.
        assert wait_for(lambda: not redis_client.hlen("dramatiq:mail.msgs"), timeout=30)
        assert len(inbox.messages) == 2

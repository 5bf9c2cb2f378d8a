"""The outbox for messages that are promises (the monthly reset): written before they
are queued, marked processed when their actor returns, sent again while they are not."""

from __future__ import annotations

import threading
import time
from datetime import timedelta

import pytest
from click.testing import CliRunner

import tasks
from models import outbox, redis_client
from models.clock import utcnow
from models.db import write_transaction
from models.payments import LineItem, get_provider
from models.tables import AdReservation, OutboxMessage, User
from scheduler.runner import tick_once
from scheduler.schedule import SCHEDULE, Job
from tests.concurrency import at_once
from tests.factories import make_reservation, make_user
from tests.fixtures import drain, take_messages, wait_for
from web.cli import main
from web.devtools.local_payments.events import send as send_local_events
from workers import deadletters

RESET = next(job for job in SCHEDULE if job.name == "batch-monthly-reset")


def later(minutes, seconds=0):
    return utcnow() + timedelta(minutes=minutes, seconds=seconds)


@pytest.fixture
def scheduler_redis(redis_client, new_redis_client):
    return new_redis_client()


def all_acknowledged(broker, queue_name):
    """Whether the stub worker has acknowledged every delivery from the queue so far (a
    retry waiting on the delay queue is not one yet)."""
    return broker.queues[queue_name].unfinished_tasks == 0


def spent_user():
    user = make_user()
    User.update(credit_balance=3).where(User.id == user.id).execute()
    return user


def balance(user):
    return User.get_by_id(user.id).credit_balance


def test_the_monthly_reset_is_a_promise_kept_in_the_outbox():
    assert RESET.outboxed is True


def test_a_scheduled_reset_that_redis_loses_is_sent_again_and_runs_once(
    scheduler_redis, stub_broker, stub_worker
):
    user = spent_user()
    stub_worker.pause()
    now = utcnow().replace(day=1, hour=0, minute=0, second=30, microsecond=0)
    scheduler_redis.set(
        f"subsearch:scheduler:last:{RESET.name}", (now - timedelta(days=1)).isoformat()
    )

    assert [name for name, _ in tick_once(scheduler_redis, stub_broker, now, [RESET])] == [
        RESET.name
    ]
    assert OutboxMessage.select().count() == 1
    stub_broker.flush_all()  # Redis lost the message
    stub_worker.resume()
    drain(stub_broker, stub_worker)
    assert balance(user) == 3

    assert outbox.redrive(now=later(2, 1)).messages == 1
    drain(stub_broker, stub_worker)
    assert balance(user) == 50
    assert OutboxMessage.get().processed_at is not None
    assert outbox.redrive(now=later(120)).messages == 0


def test_a_message_goes_through_the_sender_the_queue_set_up_installed(monkeypatch):
    sent = []
    monkeypatch.setattr(outbox, "_sender", lambda *message: sent.append(message))
    with write_transaction():
        message_id = outbox.add("batch-monthly-reset", None, False)

    assert outbox.send(message_id) is True
    assert sent == [("batch-monthly-reset", (None, False), {outbox.OPTION: message_id})]
    assert OutboxMessage.get_by_id(message_id).send_count == 1


def test_a_sender_that_fails_leaves_the_message_waiting_and_redis_skipped(monkeypatch):
    def down(*_message):
        raise ConnectionError("redis is down")

    monkeypatch.setattr(outbox, "_sender", down)
    with write_transaction():
        message_id = outbox.add("batch-monthly-reset", None, False)

    assert outbox.send(message_id) is False
    assert not redis_client.available()
    assert OutboxMessage.get_by_id(message_id).sent_at is None


def test_sending_before_the_queue_is_set_up_fails_loudly(monkeypatch):
    monkeypatch.setattr(outbox, "_sender", None)
    with write_transaction():
        message_id = outbox.add("batch-monthly-reset", None, False)

    with pytest.raises(outbox.QueueNotSetUp):
        outbox.send(message_id)
    assert redis_client.available()  # not taken for Redis being down


def test_a_processed_message_is_not_sent_again(stub_broker, stub_worker):
    with write_transaction():
        message_id = outbox.add("batch-monthly-reset", None, False)
    assert outbox.send(message_id) is True
    drain(stub_broker, stub_worker)

    assert OutboxMessage.get_by_id(message_id).processed_at is not None
    assert outbox.send(message_id) is False
    assert outbox.redrive(now=later(10)).messages == 0
    assert take_messages(stub_broker, "batch") == []


def test_a_failing_actor_leaves_its_message_waiting(stub_broker, stub_worker, monkeypatch):
    attempts = []

    def broken(*_args, **_kwargs):
        attempts.append(1)
        raise RuntimeError("database is down")

    monkeypatch.setattr(tasks.credits, "run_monthly_reset", broken)
    with write_transaction():
        message_id = outbox.add("batch-monthly-reset", None, False)
    outbox.send(message_id)
    # A failed attempt, and every delivery so far acknowledged: the worker acks a message
    # only after every middleware's after-hook has run, OutboxAck's among them.
    assert wait_for(lambda: attempts and all_acknowledged(stub_broker, "batch"), timeout=10)

    assert OutboxMessage.get_by_id(message_id).processed_at is None


def test_a_tick_whose_outbox_write_fails_is_sent_by_the_next_round(
    scheduler_redis, stub_broker, monkeypatch
):
    now = utcnow().replace(day=1, hour=0, minute=0, second=30, microsecond=0)
    scheduler_redis.set(
        f"subsearch:scheduler:last:{RESET.name}", (now - timedelta(days=1)).isoformat()
    )

    def down(*_args):
        raise RuntimeError("database is down")

    monkeypatch.setattr(outbox, "add", down)
    assert tick_once(scheduler_redis, stub_broker, now, [RESET]) == []
    monkeypatch.undo()

    assert tick_once(scheduler_redis, stub_broker, now + timedelta(seconds=5), [RESET])
    assert OutboxMessage.select().count() == 1


def test_an_outboxed_job_takes_positional_arguments_only():
    with pytest.raises(ValueError, match="positional"):
        Job("x", "* * * * *", "batch-monthly-reset", kwargs={"force": True}, outboxed=True)


def test_queue_status_shows_what_waits_in_the_outbox(stub_broker, monkeypatch):
    with write_transaction():
        outbox.add("batch-monthly-reset", None, False)
    monkeypatch.setattr(stub_broker, "client", object(), raising=False)
    monkeypatch.setattr(deadletters, "status", lambda broker: [])
    result = CliRunner().invoke(main, ["queue", "status"])
    assert result.exit_code == 0, result.output
    assert "outbox: 1 waiting to be processed, oldest 0s" in result.output


def test_a_local_payment_event_lost_by_the_queue_is_delivered_by_the_redrive(
    site, stub_broker, stub_worker
):
    reservation = make_reservation()
    provider = get_provider()
    session = provider.create_payment_checkout(
        line_items=[LineItem("price_local_ad_jp", 1)],
        metadata={"ad_reservation_id": reservation.id},
        success_url="s",
        cancel_url="c",
        expires_at=int(time.time()) + 3600,
        idempotency_key=f"ad-{reservation.id}",
    )
    stub_worker.pause()
    send_local_events(provider.complete(session.id))
    stub_broker.flush_all()  # the deliveries are lost
    stub_worker.resume()
    drain(stub_broker, stub_worker)
    assert AdReservation.get_by_id(reservation.id).payment_intent_id is None

    # checkout.session.completed goes to both endpoints, as the provider registers it.
    assert outbox.redrive(now=later(2, 1)).messages == 2
    drain(stub_broker, stub_worker)
    assert AdReservation.get_by_id(reservation.id).payment_intent_id is not None
    assert outbox.waiting().count == 0


def test_a_message_a_worker_is_still_retrying_is_not_sent_again(stub_broker, monkeypatch):
    with write_transaction():
        message_id = outbox.add("batch-monthly-reset", None, False)
    outbox.send(message_id)
    take_messages(stub_broker, "batch")
    written = utcnow()

    # The worker attempts it three minutes later (and fails: it will retry).
    monkeypatch.setattr(
        outbox,
        "now_iso",
        lambda: (written + timedelta(minutes=3)).strftime("%Y-%m-%dT%H:%M:%S.000Z"),
    )
    outbox.touch(message_id)
    monkeypatch.undo()

    assert outbox.redrive(now=written + timedelta(minutes=4)).messages == 0
    assert outbox.redrive(now=written + timedelta(minutes=5, seconds=1)).messages == 1
    assert OutboxMessage.get_by_id(message_id).send_count == 2


def test_the_redrive_sends_every_due_message_while_others_write(stub_broker, monkeypatch):
    # Given three messages waiting past the redrive delay
    with write_transaction():
        ids = [outbox.add("batch-monthly-reset", None, False) for _ in range(3)]
    take_messages(stub_broker, "batch")
    real_due = outbox._due

    def due_while_another_process_writes(row, now):
        # Another connection commits a write between the redrive's read and its writes,
        # as the web front and the workers do all the time.
        worker = threading.Thread(target=lambda: at_once(lambda _: make_user(), [0]))
        worker.start()
        worker.join()
        return real_due(row, now)

    monkeypatch.setattr(outbox, "_due", due_while_another_process_writes)
    # When the redrive runs, then it sends all three (no "database is locked" from a
    # write made while its own read was still open)
    assert outbox.redrive(now=later(3)).messages == 3
    assert {OutboxMessage.get_by_id(i).send_count for i in ids} == {1}

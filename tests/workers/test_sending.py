"""workers.sending.enqueue: queued with keyword arguments, else what the call site's
policy says (docs/operating.md, Faults and recovery)."""

from __future__ import annotations

import logging

import pytest
from dramatiq.brokers.stub import StubBroker
from dramatiq.errors import ActorNotFound

from models import redis_client
from tests.fixtures import take_messages
from workers.actors import DeclaredActor
from workers.sending import OnFailure, enqueue, send_by_name

pytestmark = pytest.mark.database_independent


@pytest.fixture
def done():
    return []


@pytest.fixture
def probe(done):
    """An actor of its own broker, recording what it was asked to do."""

    def record(thing_id: str, note: str = "") -> None:
        if thing_id == "broken":
            raise RuntimeError("the database is down too")
        done.append((thing_id, note))

    broker = StubBroker()
    actor = DeclaredActor(record, actor_name="record", queue_name="probe", priority=0, options={})
    actor.bind(broker)
    yield actor
    broker.close()


@pytest.fixture
def queue_down(probe, monkeypatch):
    sends = []

    def down(*args, **kwargs):
        sends.append(kwargs)
        raise ConnectionError("redis is down")

    monkeypatch.setattr(probe, "send", down)
    return sends


@pytest.mark.parametrize("policy", list(OnFailure))
def test_a_message_is_queued_with_keyword_arguments(probe, done, policy):
    assert enqueue(probe, on_failure=policy, thing_id="t1", note="n") is True
    [message] = take_messages(probe.broker, "probe")
    assert (message["args"], message["kwargs"]) == ([], {"thing_id": "t1", "note": "n"})
    assert done == []


def test_run_inline_does_the_work_here_when_the_queue_is_down(probe, done, queue_down):
    assert enqueue(probe, on_failure=OnFailure.RUN_INLINE, thing_id="t1", note="n") is False
    assert done == [("t1", "n")]


def test_run_inline_lets_a_second_failure_reach_the_caller(probe, queue_down):
    with pytest.raises(RuntimeError, match="down too"):
        enqueue(probe, on_failure=OnFailure.RUN_INLINE, thing_id="broken")


def test_run_inline_or_log_logs_a_second_failure_with_the_ids(probe, queue_down, caplog):
    with caplog.at_level(logging.ERROR, logger="workers.sending"):
        assert enqueue(probe, on_failure=OnFailure.RUN_INLINE_OR_LOG, thing_id="broken") is False
    assert "record was neither queued nor done here (thing_id=broken)" in caplog.text


def test_log_only_logs_and_leaves_the_work(probe, done, queue_down, caplog):
    with caplog.at_level(logging.ERROR, logger="workers.sending"):
        assert enqueue(probe, on_failure=OnFailure.LOG, thing_id="t1", note="private") is False
    assert done == []
    assert "record was not queued (thing_id=t1)" in caplog.text
    assert "private" not in caplog.text  # only ids are logged


def test_after_a_failure_the_queue_is_skipped_at_once(probe, done, queue_down):
    enqueue(probe, on_failure=OnFailure.RUN_INLINE, thing_id="t1")
    enqueue(probe, on_failure=OnFailure.RUN_INLINE, thing_id="t2")
    assert len(queue_down) == 1  # the second did not wait on Redis again
    assert not redis_client.available()
    assert done == [("t1", ""), ("t2", "")]


def test_the_outboxs_sender_sends_to_the_actor_declared_under_the_name(stub_broker):
    send_by_name("redrive_outbox", (), {"outbox_id": "m1"})
    [message] = take_messages(stub_broker, "maintenance")
    assert (message["actor_name"], message["options"]["outbox_id"]) == ("redrive_outbox", "m1")


def test_the_outboxs_sender_refuses_a_name_no_actor_has():
    with pytest.raises(ActorNotFound):
        send_by_name("no_such_actor", (), {})

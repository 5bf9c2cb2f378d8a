"""Messages through real Redis to a real worker process, and dead letters sent back."""

from __future__ import annotations

import subprocess
import sys
import uuid

import pytest
from dramatiq import Message

from models.verifications import VerificationStore
from tests.fixtures import TEST_REDIS_URL
from tests.workers.processes import ROOT, all_acknowledged, flow_env, wait_for
from workers import deadletters
from workers.broker import build_broker

pytestmark = pytest.mark.flow


@pytest.fixture
def redis_broker(redis_client):
    broker = build_broker(TEST_REDIS_URL)
    broker.declare_queue("flow")
    yield broker
    broker.close()


@pytest.fixture
def worker_process(redis_client, tmp_path):
    with open(tmp_path / "worker.log", "wb") as log:
        process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "dramatiq",
                "web.wiring:worker",  # as `subsearch worker` runs it
                "tests.workers.flow_actors",
                "--processes",
                "1",
                "--threads",
                "2",
            ],
            cwd=ROOT,
            env=flow_env(),
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        yield process
        process.terminate()
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def send(broker, actor, key):
    broker.enqueue(Message(queue_name="flow", actor_name=actor, args=(key,), kwargs={}, options={}))


def runs(redis_client, key):
    return int(redis_client.get(f"{key}:runs") or 0)


def cli(*args):
    return subprocess.run(
        [sys.executable, "-m", "web.cli", *args],
        cwd=ROOT,
        env=flow_env(),
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_a_message_crosses_redis_to_a_worker_and_runs_once(
    redis_broker, worker_process, redis_client
):
    key = f"probe-{uuid.uuid4()}"
    send(redis_broker, "record_probe", key)
    assert wait_for(lambda: runs(redis_client, key) == 1), "the worker never ran the message"
    assert VerificationStore().get(key) == "processed"  # written through the worker's connection
    # Acknowledged, nothing of it left in Redis to deliver again: the count is final.
    assert wait_for(lambda: all_acknowledged(redis_client, "flow")), "never acknowledged"
    assert runs(redis_client, key) == 1
    assert redis_client.llen("dramatiq:flow") == 0
    assert redis_client.zcard("dramatiq:flow.XQ") == 0


def test_a_dead_letter_is_shown_and_requeued(redis_broker, worker_process, redis_client):
    key = f"flaky-{uuid.uuid4()}"
    send(redis_broker, "flaky_probe", key)
    assert wait_for(lambda: redis_client.zcard("dramatiq:flow.XQ") == 1), "not dead-lettered"

    status = cli("queue", "status")
    assert status.returncode == 0, status.stderr
    flow_row = next(line for line in status.stdout.splitlines() if line.startswith("flow "))
    assert flow_row.split()[-1] == "1"
    assert "flaky_probe" in status.stdout

    redis_client.set(f"{key}:allow", "1")
    requeued = cli("queue", "requeue", "--queue", "flow", "--actor", "flaky_probe")
    assert requeued.returncode == 0, requeued.stderr
    assert "requeued 1" in requeued.stdout
    assert wait_for(lambda: runs(redis_client, key) == 1), "the requeued message never ran"
    assert redis_client.zcard("dramatiq:flow.XQ") == 0


def test_a_message_that_fails_past_its_retries_is_found_where_deadletters_reads(
    redis_broker, worker_process, redis_client
):
    """Dramatiq exposes no dead letters: workers/deadletters.py reads its Redis broker's
    keys, and this holds a Dramatiq release to them (a retry through the delay queue
    included)."""
    key = f"doomed-{uuid.uuid4()}"
    sent = redis_broker.enqueue(
        Message(queue_name="flow", actor_name="doomed_probe", args=(key,), kwargs={}, options={})
    )

    def dead():
        return [
            message
            for _, message in deadletters.dead_messages(redis_broker, "flow")
            if message.message_id == sent.message_id
        ]

    assert wait_for(dead), "not found where workers/deadletters.py reads"
    assert runs(redis_client, key) == 2  # tried, retried once, then dead
    [message] = dead()
    assert (message.actor_name, list(message.args)) == ("doomed_probe", [key])
    [flow] = [row for row in deadletters.status(redis_broker) if row.queue == "flow"]
    assert (flow.ready, flow.delayed, flow.dead) == (0, 0, 1)

    requeued = deadletters.requeue(redis_broker, queue="flow", actor="doomed_probe")
    assert [message.message_id for message in requeued] == [sent.message_id]
    # Sent again with its retries reset: two more runs, and dead once more.
    assert wait_for(lambda: runs(redis_client, key) == 4 and dead()), runs(redis_client, key)
    assert len(dead()) == 1


def test_a_message_for_an_actor_this_release_has_not_is_dead_lettered_and_shown(
    redis_broker, worker_process, redis_client
):
    """What a message a release before issue 43 queued meets after the upgrade
    (docs/operating.md, Upgrading from a release before issue 43): not run, not lost
    without a trace, and the worker goes on."""
    # Given messages for actors this release no longer declares, then an ordinary one
    retired = [
        ("measure", "record_click", ["c1", "r1", "JP", "Mozilla/5.0", "2027-01-10T10:00:00.000Z"]),
        ("measure", "record_impression", ["e1", "r1", "2027-01-10", "JP", "2027-01-10T10:00Z"]),
        ("billing", "handle_subscription_event", ["customer.subscription.updated", "sub_1"]),
    ]
    for queue, actor, args in retired:
        redis_broker.enqueue(
            Message(queue_name=queue, actor_name=actor, args=tuple(args), kwargs={}, options={})
        )
    key = f"probe-{uuid.uuid4()}"
    send(redis_broker, "record_probe", key)

    # When the worker fetches them, then each is a dead letter of its queue
    def dead():
        return sorted(
            (queue, message.actor_name, list(message.args))
            for queue in ("measure", "billing")
            for _, message in deadletters.dead_messages(redis_broker, queue)
        )

    assert wait_for(lambda: len(dead()) == 3), dead()
    assert dead() == sorted(retired)
    assert wait_for(lambda: runs(redis_client, key) == 1), "the worker stopped at them"
    # And `subsearch queue status` names each with its arguments
    status = cli("queue", "status")
    assert status.returncode == 0, status.stderr
    for queue, actor, _ in retired:
        assert any(
            line.startswith(f"dead {queue} ") and f" {actor} " in line
            for line in status.stdout.splitlines()
        ), status.stdout


def test_closing_a_broker_closes_its_connections(redis_client):
    """Dramatiq's Redis broker leaves its sockets to the garbage collector; ours closes
    them (a worker's shutdown, and every test that builds a broker)."""
    broker = build_broker(TEST_REDIS_URL)
    mine = broker.client.client_id()

    def connected():
        return any(int(client["id"]) == mine for client in redis_client.client_list())

    assert connected()
    broker.close()
    assert wait_for(lambda: not connected(), timeout=5)

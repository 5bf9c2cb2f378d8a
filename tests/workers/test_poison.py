"""The poison guard (workers/poison.py) on this service's Redis broker, on fakeredis, with
a worker in this process. A process that dies mid-message is played by the guard's
`before_` hook run with no `after_` one: what a dead process leaves behind."""

from __future__ import annotations

import logging
import threading
from dataclasses import replace

import dramatiq
import pytest
from dramatiq import Message, Worker
from dramatiq.broker import MessageProxy
from dramatiq.middleware import SkipMessage

from models.settings import ConfigError, get_settings, load_settings
from tests.fixtures import TEST_REDIS_URL
from workers import deadletters, poison
from workers.broker import build_broker
from workers.log_context import LogContext
from workers.poison import PoisonGuard

pytestmark = pytest.mark.database_independent

QUEUE = "poison_probe"


@pytest.fixture
def broker(redis_client):
    """This service's Redis broker and middleware (without LogContext, which would set
    the test process's logging up as a worker's), and its probe actors."""
    broker = build_broker(TEST_REDIS_URL)
    broker.middleware[:] = [m for m in broker.middleware if not isinstance(m, LogContext)]
    broker.runs = []  # (key, deaths the guard had counted while it ran)

    def probe(key, failures=0):
        broker.runs.append((key, poison.deaths(broker.client, current_id(broker, key))))
        if sum(1 for k, _ in broker.runs if k == key) <= failures:
            raise RuntimeError("fails on purpose")

    broker.probe = dramatiq.actor(
        probe, broker=broker, queue_name=QUEUE, max_retries=5, min_backoff=1, max_backoff=10
    )
    broker.sent = {}
    yield broker
    broker.close()


def current_id(broker, key):
    return broker.sent[key].message_id


def send(broker, key, failures=0):
    message = broker.probe.message(key, failures)
    broker.sent[key] = message
    return broker.enqueue(message)


def guard_of(broker) -> PoisonGuard:
    [guard] = [m for m in broker.middleware if isinstance(m, PoisonGuard)]
    return guard


def run_all(broker):
    worker = Worker(broker, worker_timeout=100)
    worker.start()
    try:
        broker.join(QUEUE, timeout=20_000)
        worker.join()
    finally:
        worker.stop()


def die_running(broker, message, times=1):
    """`times` worker processes took the message and died running it."""
    guard = PoisonGuard(guard_of(broker).deaths)
    for _ in range(times):
        guard.before_process_message(broker, MessageProxy(message))
        guard._suspects = threading.Lock()  # the next process is a new one


def dead(broker):
    return [message for _, message in deadletters.dead_messages(broker, QUEUE)]


def test_a_run_is_counted_while_it_runs_and_cleared_when_it_ends(broker, redis_client):
    sent = send(broker, "ok")
    run_all(broker)

    assert broker.runs == [("ok", 1)]
    assert redis_client.exists(poison.mark_key(sent.message_id)) == 0
    assert dead(broker) == []


def test_a_message_retried_after_exceptions_is_not_counted_as_dying(broker, redis_client):
    sent = send(broker, "flaky", failures=4)  # four exceptions, then done: 5 runs
    run_all(broker)

    assert broker.runs == [("flaky", 1)] * 5  # never 2: each failed run was cleared
    assert redis_client.exists(poison.mark_key(sent.message_id)) == 0
    assert dead(broker) == []


def test_a_message_that_killed_fewer_than_n_processes_runs_again(broker, redis_client):
    sent = send(broker, "unlucky")
    die_running(broker, sent, times=2)
    assert poison.deaths(broker.client, sent.message_id) == 2

    run_all(broker)

    assert broker.runs == [("unlucky", 3)]
    assert redis_client.exists(poison.mark_key(sent.message_id)) == 0


def test_a_message_that_killed_n_processes_is_dead_lettered_with_its_reason(
    broker, redis_client, caplog
):
    sent = send(broker, "poison")
    die_running(broker, sent, times=3)

    with caplog.at_level(logging.ERROR, logger="workers.poison"):
        run_all(broker)

    assert broker.runs == []  # not run a fourth time
    [letter] = dead(broker)
    assert letter.message_id == sent.message_id
    assert deadletters.reason(letter) == "killed its worker process 3 times"
    [line] = [r.getMessage() for r in caplog.records if r.name == "workers.poison"]
    assert sent.message_id in line and "probe" in line and QUEUE in line
    assert "killed its worker process 3 times" in line
    [row] = [row for row in deadletters.status(broker) if row.queue == QUEUE]
    assert (row.ready, row.delayed, row.dead) == (0, 0, 1)


def test_n_is_the_setting(broker):
    assert guard_of(broker).deaths == get_settings().worker_poison_deaths == 3
    two = build_broker(TEST_REDIS_URL, settings=replace(get_settings(), worker_poison_deaths=2))
    assert guard_of(two).deaths == 2
    two.close()
    assert load_settings({"WORKER_POISON_DEATHS": "5"}, read_dotenv=False).worker_poison_deaths == 5
    with pytest.raises(ConfigError):
        load_settings({"WORKER_POISON_DEATHS": "0"}, read_dotenv=False)


def test_a_requeued_poison_message_runs_again_with_its_deaths_forgotten(broker, redis_client):
    sent = send(broker, "fixed")
    die_running(broker, sent, times=3)
    run_all(broker)
    assert len(dead(broker)) == 1

    [requeued] = deadletters.requeue(broker, queue=QUEUE)

    assert poison.REASON_OPTION not in requeued.options
    assert redis_client.exists(poison.mark_key(sent.message_id)) == 0
    run_all(broker)
    assert broker.runs == [("fixed", 1)]
    assert dead(broker) == []


def test_a_suspect_waits_while_another_suspect_runs_in_its_process(broker, redis_client):
    first, second = send(broker, "first"), send(broker, "second")
    die_running(broker, first)
    die_running(broker, second)  # both were running when a process died
    guard = PoisonGuard()
    guard.before_process_message(broker, MessageProxy(first))  # the first one runs

    put_back = []

    def take_second():
        try:
            guard.before_process_message(broker, MessageProxy(second))
        except SkipMessage:
            put_back.append(True)

    taker = threading.Thread(target=take_second)
    taker.start()
    taker.join()

    assert put_back == [True]
    assert poison.deaths(broker.client, second.message_id) == 1  # not counted as a run
    [waiting] = [Message.decode(body) for body in redis_client.hvals(f"dramatiq:{QUEUE}.DQ.msgs")]
    assert waiting.message_id == second.message_id
    # Once the first one ends, a suspect may run again.
    guard.after_process_message(broker, MessageProxy(first))
    guard.before_process_message(broker, MessageProxy(second))
    assert poison.deaths(broker.client, second.message_id) == 2


def test_an_unmarked_message_runs_beside_a_suspect(broker):
    suspect, fresh = send(broker, "suspect"), send(broker, "fresh")
    die_running(broker, suspect)
    guard = PoisonGuard()
    guard.before_process_message(broker, MessageProxy(suspect))

    ran = []
    other = threading.Thread(
        target=lambda: ran.append(guard.before_process_message(broker, MessageProxy(fresh)))
    )
    other.start()
    other.join()

    assert ran == [None]
    assert poison.deaths(broker.client, fresh.message_id) == 1


def test_a_worker_told_to_stop_takes_back_the_marks_of_what_it_runs(broker):
    fresh, once = send(broker, "fresh"), send(broker, "once")
    die_running(broker, once)
    guard = PoisonGuard()
    started, stopping = threading.Barrier(3), threading.Event()

    def run(message):  # a worker thread, busy with the message until the test lets go
        guard.before_process_message(broker, MessageProxy(message))
        started.wait()
        stopping.wait()

    threads = [threading.Thread(target=run, args=(m,)) for m in (fresh, once)]
    for thread in threads:
        thread.start()
    started.wait()
    assert [poison.deaths(broker.client, m.message_id) for m in (fresh, once)] == [1, 2]

    guard.before_worker_shutdown(broker, object())  # SIGTERM; then killed past the grace
    stopping.set()
    for thread in threads:
        thread.join()

    assert [poison.deaths(broker.client, m.message_id) for m in (fresh, once)] == [0, 1]


def test_the_stub_broker_counts_nothing(stub_broker, redis_client):
    message = Message(queue_name=QUEUE, actor_name="probe", args=(), kwargs={}, options={})
    guard = PoisonGuard()
    guard.before_process_message(stub_broker, MessageProxy(message))
    assert redis_client.keys("subsearch:queue-deaths:*") == []

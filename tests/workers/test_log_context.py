"""The worker's log lines: every line logged while a message is processed carries its
message id, actor and attempt (the lines of Dramatiq's own retry too), one line per
message gives its outcome and duration, and a worker that boots writes the format the
settings name."""

from __future__ import annotations

import json
import logging
import subprocess
import sys
from dataclasses import replace

import pytest
from dramatiq import Message, Worker

from models import logs
from models.settings import get_settings, use_settings
from tests.fixtures import TEST_REDIS_URL
from tests.workers.processes import ROOT, flow_env, free_port, kill, stop, wait_for
from workers import actors
from workers.broker import build_broker

log = logging.getLogger("tests.workers.probe")
_failures_left: dict[str, int] = {}


@actors.actor(queue_name="log_probe", max_retries=2, min_backoff=1, max_backoff=5)
def log_probe(key: str) -> None:
    """Test only: logs a line, then fails as often as the test asked (retried at once)."""
    log.info("probe %s running", key)
    if _failures_left.get(key, 0) > 0:
        _failures_left[key] -= 1
        raise RuntimeError(f"probe {key} fails on purpose")


@pytest.fixture
def json_lines(capsys):
    """json_lines() -> the JSON lines written to standard error since the last call."""
    logs.configure("json", component="worker")

    def read() -> list[dict]:
        err = capsys.readouterr().err
        return [json.loads(line) for line in err.splitlines() if line.strip()]

    yield read
    logs.configure(get_settings().log_format, component="worker")


def run(stub_broker, stub_worker) -> None:
    stub_broker.join("log_probe", timeout=10_000)
    stub_worker.join()


def test_an_actors_lines_carry_the_message_id_actor_and_attempt(
    stub_broker, stub_worker, json_lines
):
    message = log_probe.send("ok")
    run(stub_broker, stub_worker)

    lines = json_lines()
    (inside,) = [line for line in lines if line["logger"] == "tests.workers.probe"]
    assert inside["message"] == "probe ok running"
    assert inside["message_id"] == message.message_id
    assert inside["actor"] == "log_probe"
    assert inside["attempt"] == 1
    (outcome,) = [line for line in lines if line["logger"] == "workers.log_context"]
    assert outcome["message"] == "message done"
    assert outcome["outcome"] == "done"
    assert outcome["message_id"] == message.message_id
    assert outcome["actor"] == "log_probe"
    assert outcome["queue"] == "log_probe"
    assert isinstance(outcome["duration_ms"], int | float) and outcome["duration_ms"] >= 0


def test_a_retried_message_counts_its_attempts_and_says_how_each_ended(
    stub_broker, stub_worker, json_lines
):
    _failures_left["flaky"] = 1
    message = log_probe.send("flaky")
    run(stub_broker, stub_worker)

    lines = [line for line in json_lines() if line.get("message_id") == message.message_id]
    outcomes = [
        (line["attempt"], line["outcome"], line.get("error"))
        for line in lines
        if line["logger"] == "workers.log_context"
    ]
    assert outcomes == [(1, "failed", "RuntimeError"), (2, "done", None)]
    # Dramatiq's own lines about the failure and the retry carry the message's fields:
    # the context is bound before, and let go after, every other middleware.
    failure = next(line for line in lines if line["logger"].startswith("dramatiq.worker"))
    assert failure["level"] == "error" and "fails on purpose" in failure["exception"]
    retry = next(line for line in lines if line["logger"].startswith("dramatiq.middleware"))
    assert retry["attempt"] == 1 and retry["actor"] == "log_probe"


def test_nothing_of_a_message_stays_bound_after_it(stub_broker, stub_worker, json_lines):
    first = log_probe.send("one")
    second = log_probe.send("two")
    run(stub_broker, stub_worker)
    log.info("after the messages")

    lines = json_lines()
    by_key = {
        line["message"]: line.get("message_id")
        for line in lines
        if line["logger"] == "tests.workers.probe"
    }
    assert by_key == {
        "probe one running": first.message_id,
        "probe two running": second.message_id,
        "after the messages": None,
    }


def test_a_booting_worker_writes_the_format_its_settings_name(stub_broker, capsys):
    previous = get_settings()
    use_settings(replace(previous, log_format="json"))
    worker = Worker(stub_broker, worker_timeout=100)
    try:
        worker.start()
        message = log_probe.send("booted")
        stub_broker.join("log_probe", timeout=10_000)
        worker.join()
    finally:
        worker.stop()
        stub_broker.middleware[:] = [
            m for m in stub_broker.middleware if getattr(m, "worker", None) is not worker
        ]
        use_settings(previous)
    lines = [json.loads(line) for line in capsys.readouterr().err.splitlines() if line.strip()]
    done = [line for line in lines if line.get("outcome") == "done"]
    assert [line["message_id"] for line in done] == [message.message_id]
    assert {line["component"] for line in lines} == {"worker"}
    logs.configure(previous.log_format, component="worker")


@pytest.mark.flow
def test_the_worker_command_writes_only_json_lines_from_every_process(redis_client, tmp_path):
    env = {
        **flow_env(),
        "LOG_FORMAT": "json",
        "dramatiq_prom_port": str(free_port()),
        "dramatiq_prom_db": str(tmp_path / "worker-metrics"),
    }
    output = tmp_path / "worker.log"
    with open(output, "wb") as log_file:
        process = subprocess.Popen(
            [sys.executable, "-m", "web.cli", "worker", "--processes", "2", "--threads", "1"],
            cwd=ROOT,
            env=env,
            stdout=log_file,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    message = Message(
        queue_name="batch",
        actor_name="batch-monthly-reset",
        args=("2096-03",),
        kwargs={},
        options={},
    )
    try:
        broker = build_broker(TEST_REDIS_URL)
        broker.enqueue(message)
        broker.close()
        assert wait_for(lambda: '"outcome": "done"' in output.read_text(), timeout=30), (
            output.read_text()
        )
    finally:
        stop(process)
        kill(process)

    lines = [json.loads(line) for line in output.read_text().splitlines() if line.strip()]
    assert {line["component"] for line in lines} == {"worker"}
    # Dramatiq's main process too, not only the worker processes it forks.
    assert any(line["logger"] == "dramatiq.MainProcess" for line in lines)
    assert len({line["pid"] for line in lines}) >= 3
    (done,) = [line for line in lines if line.get("outcome") == "done"]
    assert done["message_id"] == message.message_id
    assert (done["actor"], done["attempt"]) == ("batch-monthly-reset", 1)

"""Broker set-up is an explicit call: importing the actors builds no broker, and a
process has one broker, which every actor joins (docs/architecture.md, Workers)."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import dramatiq
import pytest
from dramatiq.brokers.stub import StubBroker

import tasks
from tasks.ads import count_beacons
from workers import actors
from workers.actors import BrokerNotSetUp, DeclaredActor
from workers.broker import get_broker

pytestmark = pytest.mark.database_independent

ROOT = Path(__file__).resolve().parents[2]


def run_python(code: str) -> str:
    result = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        cwd=ROOT,
        env={**os.environ, "QUEUE_BROKER": "stub"},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    return result.stdout


def test_importing_the_actors_builds_no_broker_and_sending_before_setup_fails():
    out = run_python(
        """
        import dramatiq.broker
        import tasks
        import web.app
        from tasks.ads import count_beacons
        from workers.actors import BrokerNotSetUp
        from workers.broker import get_broker

        assert dramatiq.broker.global_broker is None, "a broker was built on import"
        for attempt in (lambda: count_beacons.send(seconds=1.0), get_broker):
            try:
                attempt()
            except BrokerNotSetUp:
                pass
            else:
                raise AssertionError("no error before setup")
        assert dramatiq.broker.global_broker is None, "Dramatiq built its default broker"
        print("ok")
        """
    )
    assert out.strip() == "ok"


def test_setup_builds_one_broker_that_every_actor_joins():
    out = run_python(
        """
        import dramatiq
        import tasks
        from workers import actors

        broker = tasks.setup()
        assert tasks.setup() is broker  # once per process
        assert dramatiq.get_broker() is broker
        for declared in actors.declared():
            assert broker.get_actor(declared.actor_name) is declared.dramatiq_actor
        print(type(broker).__name__, len(actors.declared()))
        """
    )
    name, count = out.split()
    assert name == "StubBroker"
    assert int(count) >= 15


def test_in_this_process_the_actors_are_on_the_broker_the_tests_set_up(stub_broker):
    assert tasks.setup() is stub_broker is get_broker() is dramatiq.get_broker()
    assert stub_broker.get_actor("count_beacons") is count_beacons.dramatiq_actor


def test_an_actor_declared_after_setup_joins_the_broker_at_once(stub_broker):
    @actors.actor(queue_name="probe", max_retries=0)
    def probe_declared_late(thing_id: str) -> None:
        """Declared for this test only."""

    assert stub_broker.get_actor("probe_declared_late") is probe_declared_late.dramatiq_actor
    probe_declared_late.send(thing_id="t")
    assert stub_broker.queues["probe"].qsize() == 1


def test_an_unbound_actor_runs_here_but_cannot_send():
    lazy = DeclaredActor(
        lambda x: x * 2, actor_name="double", queue_name="p", priority=0, options={}
    )
    assert lazy(21) == 42
    with pytest.raises(BrokerNotSetUp):
        lazy.send(1)


def test_an_option_no_middleware_takes_is_refused_when_bound():
    lazy = DeclaredActor(
        lambda: None, actor_name="odd", queue_name="p", priority=0, options={"colour": "red"}
    )
    with pytest.raises(ValueError, match="colour"):
        lazy.bind(StubBroker())


def test_two_actors_cannot_share_a_name():
    with pytest.raises(ValueError, match="count_beacons"):
        actors.actor(actor_name="count_beacons")(lambda: None)

"""`subsearch worker`: embedding has a worker of its own, so a message holding the model
never holds the threads the other queues need (Procfile `embedder`)."""

from __future__ import annotations

import os

import pytest
from click.testing import CliRunner
from dramatiq import cli

from web.cli import main
from workers.broker import WORKER_METRICS_ENV, WORKER_METRICS_PORT_ENV


class Exec(Exception):
    pass


@pytest.fixture
def exec_args(monkeypatch):
    captured: list[list[str]] = []

    def fake_exec(path, args):
        captured.append(args)
        raise Exec

    monkeypatch.setattr(os, "execvp", fake_exec)
    # The command sets its environment for the process it would exec: not this one's.
    monkeypatch.setattr(os, "environ", os.environ.copy())
    return captured


def queues_of(args: list[str]) -> list[str]:
    """The queues Dramatiq's own parser reads from the command."""
    return cli.make_argument_parser().parse_args(args[args.index("web.wiring:worker") :]).queues


def test_the_worker_takes_every_queue_but_embedding(exec_args):
    CliRunner().invoke(main, ["worker"])
    queues = queues_of(exec_args[0])
    assert "embed" not in queues
    assert {"index", "subtitles", "channels", "maintenance", "ads", "billing"} <= set(queues)


def test_the_embedder_takes_only_the_embed_queue(exec_args):
    CliRunner().invoke(main, ["worker", "--queues", "embed", "--threads", "1"])
    assert queues_of(exec_args[0]) == ["embed"]


def test_the_embedder_keeps_its_metrics_apart_from_the_worker(exec_args, monkeypatch, tmp_path):
    monkeypatch.setattr("tempfile.tempdir", str(tmp_path))
    names = (WORKER_METRICS_ENV, WORKER_METRICS_PORT_ENV)
    for name in names:
        os.environ.pop(name, None)

    CliRunner().invoke(main, ["worker"])
    worker = tuple(os.environ.pop(name) for name in names)
    CliRunner().invoke(main, ["worker", "--queues", "embed"])
    embedder = tuple(os.environ[name] for name in names)

    assert worker[0] != embedder[0]
    assert int(embedder[1]) == int(worker[1]) + 1

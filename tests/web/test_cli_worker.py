"""`subsearch worker`: embedding has a worker of its own, so a message holding the model
never holds the threads the other queues need (Procfile `embedder`)."""

from __future__ import annotations

import os

import pytest
from click.testing import CliRunner

from web.cli import main


class Exec(Exception):
    pass


@pytest.fixture
def exec_args(monkeypatch):
    captured: list[list[str]] = []

    def fake_exec(path, args):
        captured.append(args)
        raise Exec

    monkeypatch.setattr(os, "execvp", fake_exec)
    return captured


def queues_of(args: list[str]) -> list[str]:
    return [args[i + 1] for i, arg in enumerate(args) if arg == "--queues"]


def test_the_worker_takes_every_queue_but_embedding(exec_args):
    CliRunner().invoke(main, ["worker"])
    queues = queues_of(exec_args[0])
    assert "embed" not in queues
    assert {"index", "subtitles", "channels", "maintenance", "ads", "billing"} <= set(queues)


def test_the_embedder_takes_only_the_embed_queue(exec_args):
    CliRunner().invoke(main, ["worker", "--queues", "embed", "--threads", "1"])
    assert queues_of(exec_args[0]) == ["embed"]

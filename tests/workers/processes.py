"""Helpers for tests that run real processes (web front, workers) on real Redis."""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
from collections.abc import Iterable
from pathlib import Path

import redis

from tests.fixtures import TEST_REDIS_URL
from tests.fixtures import wait_for as wait_for  # where the flow tests have imported it from

ROOT = Path(__file__).resolve().parents[2]


def flow_env() -> dict[str, str]:
    """The environment of a process in a flow test: the real broker on the test Redis."""
    return {**os.environ, "QUEUE_BROKER": "redis", "REDIS_URL": TEST_REDIS_URL}


def all_acknowledged(client: redis.Redis, queue_name: str) -> bool:
    """Whether every message sent to the queue is done with: acknowledged, or dead-lettered.
    Dramatiq's Redis broker keeps a message's body in `<queue>.msgs` (`<queue>.DQ.msgs`
    while a retry waits) from its send until a worker acks it, through a fetch, a worker
    killed holding it and a requeue; once both are empty, no delivery is left to run."""
    return not any(
        client.hlen(f"dramatiq:{name}.msgs") for name in (queue_name, f"{queue_name}.DQ")
    )


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def stop(process: subprocess.Popen) -> None:
    process.terminate()
    try:
        process.wait(timeout=20)
    except subprocess.TimeoutExpired:
        kill(process)


def kill(process: subprocess.Popen) -> None:
    """SIGKILL the process and its children (a Dramatiq worker runs in a child of its
    main process): no chance to give anything back, and no orphan left behind."""
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGKILL)
    process.wait()


def cli(env: dict[str, str], *args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    """`subsearch ARGS` in a process of its own, with the flow's environment and `env`."""
    return subprocess.run(
        [sys.executable, "-m", "web.cli", *args],
        cwd=ROOT,
        env={**flow_env(), **env},
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def add_channels_at_once(env: dict[str, str], channel_ids: Iterable[str]) -> None:
    """`subsearch channels add` for every channel at the same time, as several operators
    would; each must succeed."""
    adding = [
        subprocess.Popen(
            [sys.executable, "-m", "web.cli", "channels", "add", channel_id],
            cwd=ROOT,
            env={**flow_env(), **env},
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        for channel_id in channel_ids
    ]
    assert all(process.wait(timeout=60) == 0 for process in adding)

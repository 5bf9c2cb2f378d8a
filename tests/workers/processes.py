"""Helpers for tests that run real processes (web front, workers) on real Redis."""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import time
from collections.abc import Callable
from pathlib import Path

from tests.fixtures import TEST_REDIS_URL

ROOT = Path(__file__).resolve().parents[2]


def flow_env() -> dict[str, str]:
    """The environment of a process in a flow test: the real broker on the test Redis."""
    return {**os.environ, "QUEUE_BROKER": "redis", "REDIS_URL": TEST_REDIS_URL}


def wait_for(condition: Callable[[], object], timeout: float = 30.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.1)
    return False


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

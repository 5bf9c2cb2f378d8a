"""Real processes for flow tests: the web front and workers, on the test database and
the test Redis (or another Redis URL, such as a frozen one)."""

from __future__ import annotations

import subprocess
import sys

import pytest
import requests

from tests.workers.processes import ROOT, flow_env, free_port, kill, stop, wait_for


@pytest.fixture
def start_web(tmp_path):
    """start_web(**env) runs `subsearch serve` and returns its base URL once it answers."""
    started = []

    def start(**env):
        port = free_port()
        log_path = tmp_path / f"web{len(started)}.log"
        log = open(log_path, "wb")  # noqa: SIM115  (closed at teardown)
        process = subprocess.Popen(
            [sys.executable, "-m", "web.cli", "serve", "--port", str(port)],
            cwd=ROOT,
            env={**flow_env(), **env},
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        started.append((process, log))
        url = f"http://127.0.0.1:{port}"

        def up():
            try:
                return requests.get(f"{url}/api/ping", timeout=1).ok
            except requests.RequestException:
                return False

        assert wait_for(up, timeout=30), log_path.read_text()
        return url

    yield start
    for process, log in started:
        stop(process)
        log.close()


@pytest.fixture
def start_worker(tmp_path):
    """start_worker(processes=1, threads=2, modules=(), queues=(), **env) runs a Dramatiq
    worker over `tasks` (on `queues` only, when given), each of its processes importing
    `modules` too (test probes; production runs 2 processes x 8 threads)."""
    started = []

    def start(processes=1, threads=2, modules=(), queues=(), **env):
        log = open(tmp_path / f"worker{len(started)}.log", "wb")  # noqa: SIM115
        process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "dramatiq",
                "web.wiring:worker",
                *modules,
                "--processes",
                str(processes),
                "--threads",
                str(threads),
                *(["--queues", *queues] if queues else []),
            ],
            cwd=ROOT,
            env={**flow_env(), **env},
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # its own process group, for `kill`
        )
        started.append((process, log))
        return process

    yield start
    for process, log in started:
        if process.poll() is None:
            stop(process)
        kill(process)  # any child left behind
        log.close()

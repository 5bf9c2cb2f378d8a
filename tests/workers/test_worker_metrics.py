"""`subsearch worker` serves its processes' metrics with Dramatiq's Prometheus middleware
on the loopback: Dramatiq's own (messages by actor, durations) and ours recorded in the
actors (here, a monthly reset run), added up across the worker's processes."""

from __future__ import annotations

import subprocess
import sys

import pytest
import requests
from dramatiq import Message
from prometheus_client.parser import text_string_to_metric_families

from tests.fixtures import TEST_REDIS_URL
from tests.workers.processes import ROOT, flow_env, free_port, kill, stop, wait_for
from workers.broker import build_broker

pytestmark = pytest.mark.flow


def scrape(url: str) -> dict[tuple[str, tuple], float] | None:
    try:
        answer = requests.get(url, timeout=2)
    except requests.RequestException:
        return None
    return {
        (sample.name, tuple(sorted(sample.labels.items()))): sample.value
        for family in text_string_to_metric_families(answer.text)
        for sample in family.samples
    }


def test_the_worker_exposes_dramatiq_and_domain_metrics(redis_client, tmp_path):
    port = free_port()
    env = {
        **flow_env(),
        "dramatiq_prom_port": str(port),
        "dramatiq_prom_db": str(tmp_path / "worker-metrics"),
    }
    with open(tmp_path / "worker.log", "wb") as log:
        process = subprocess.Popen(
            [sys.executable, "-m", "web.cli", "worker", "--processes", "2", "--threads", "1"],
            cwd=ROOT,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    url = f"http://127.0.0.1:{port}/"
    try:
        assert wait_for(lambda: scrape(url) is not None, timeout=30), (
            tmp_path / "worker.log"
        ).read_text()
        broker = build_broker(TEST_REDIS_URL)
        for period in ("2097-01", "2097-01", "2097-02"):
            broker.enqueue(
                Message(
                    queue_name="batch",
                    actor_name="batch-monthly-reset",
                    args=(period,),
                    kwargs={},
                    options={},
                )
            )
        broker.close()
        actor = (("actor_name", "batch-monthly-reset"), ("queue_name", "batch"))

        def done():
            samples = scrape(url) or {}
            return samples.get(("dramatiq_messages_total", actor), 0) == 3 and samples

        samples = wait_for(done, timeout=30) and done()
        assert samples, (tmp_path / "worker.log").read_text()
        assert samples[("dramatiq_message_duration_milliseconds_count", actor)] == 3
        ran = samples[("subsearch_monthly_reset_runs_total", (("outcome", "ran"),))]
        again = samples[("subsearch_monthly_reset_runs_total", (("outcome", "already_ran"),))]
        assert (ran, again) == (2, 1)
        # Not public: the exposition server listens on the loopback only.
        listening = subprocess.run(
            ["ss", "-ltnH", f"sport = :{port}"], capture_output=True, text=True, check=True
        ).stdout
        local = [line.split()[3] for line in listening.splitlines()]
        assert local == [f"127.0.0.1:{port}"]
    finally:
        stop(process)
        kill(process)

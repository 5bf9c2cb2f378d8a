"""The long-running processes: web, worker, scheduler, and all three together for development."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time

import click
import redis

from models import migrations, redis_client
from models.metrics import MULTIPROCESS_ENV
from models.settings import Settings, get_settings
from scheduler.runner import run
from tasks.search import EMBED_QUEUE
from web.cli.group import open_db
from web.cli.search import set_up_index
from web.cli.serve import metrics_folder
from workers.actors import declared
from workers.broker import (
    WORKER_METRICS_ENV,
    WORKER_METRICS_HOST_ENV,
    WORKER_METRICS_PORT,
    WORKER_METRICS_PORT_ENV,
    get_broker,
)
from workers.redis_server import ensure_redis

QUEUE_PREFETCH = 64


@click.command()
@click.option("--processes", default=1, show_default=True, type=int)
@click.option("--threads", default=4, show_default=True, type=int)
@click.option(
    "--queues",
    "-Q",
    multiple=True,
    help=f"Only these queues (default: every queue but {EMBED_QUEUE!r}).",
)
def worker(processes: int, threads: int, queues: tuple[str, ...]) -> None:
    """Run the Dramatiq worker over every actor in `tasks`. Embedding has a worker of
    its own (`--queues embed`, Procfile `embedder`): a message holds the model for a
    minute or more, and would hold the threads the other queues need."""
    queues = queues or tuple(sorted({actor.queue_name for actor in declared()} - {EMBED_QUEUE}))
    args = [
        sys.executable,
        "-m",
        "workers.command",  # Dramatiq's CLI, its main process logging in LOG_FORMAT too
        # Dramatiq's CLI calls web.wiring.worker() in each worker process (its services
        # wired, its broker set up), then uses the broker it set (`module:callable`, in
        # Dramatiq's own words "a callable that sets up a broker").
        "web.wiring:worker",
        "--processes",
        str(processes),
        "--threads",
        str(threads),
    ]
    # One --queues with every name: Dramatiq keeps only the last of repeated ones.
    args += ["--queues", *queues]
    # Dramatiq prefetches only 2 messages a thread by default, and a consumer whose
    # prefetch is full backs off for up to seconds: keep enough in hand to stay busy.
    os.environ.setdefault("dramatiq_queue_prefetch", str(QUEUE_PREFETCH))
    # Dramatiq's Prometheus middleware (workers/broker.py adds it when this folder is
    # set) serves the worker processes' metrics, ours included, on the loopback only.
    # The embedder beside a worker on one machine has a folder and port of its own (the
    # next one): a shared folder would be emptied by whichever started last.
    embedder = queues == (EMBED_QUEUE,)
    if embedder:
        given = os.environ.get(WORKER_METRICS_ENV)
        if given:
            os.environ[WORKER_METRICS_ENV] = f"{given}-embedder"
        port = int(os.environ.get(WORKER_METRICS_PORT_ENV) or WORKER_METRICS_PORT)
        os.environ[WORKER_METRICS_PORT_ENV] = str(port + 1)
    folder = metrics_folder(WORKER_METRICS_ENV, "embedder" if embedder else "worker")
    os.environ[MULTIPROCESS_ENV] = folder
    os.environ.setdefault(WORKER_METRICS_HOST_ENV, "127.0.0.1")
    os.environ.setdefault(WORKER_METRICS_PORT_ENV, str(WORKER_METRICS_PORT))
    os.execvp(sys.executable, args)


@click.command()
@click.option("--interval", default=5.0, show_default=True, help="Seconds between rounds.")
def scheduler(interval: float) -> None:
    """Run the scheduler: enqueue each due job of the schedule, nothing else."""
    open_db()  # outboxed jobs are written to the database before they are queued

    stopping = []
    signal.signal(signal.SIGTERM, lambda *_: stopping.append(True))
    click.echo("scheduler running")
    with contextlib.suppress(KeyboardInterrupt):
        run(
            # A frozen Redis fails the round after a few seconds instead of hanging it.
            redis.Redis(
                connection_pool=redis_client.connection_pool(
                    get_settings().redis_url, redis_client.WORKER_TIMEOUT
                )
            ),
            get_broker(),
            interval=interval,
            stop=lambda: bool(stopping),
        )


def where_to_look(settings: Settings, port: int) -> list[str]:
    """What an operator of this machine reads: metrics and logs (docs/operating.md,
    Operating)."""
    web = (
        f"metrics: http://127.0.0.1:{port}/metrics with 'Authorization: Bearer $METRICS_TOKEN'"
        if settings.metrics_token
        else "metrics: set METRICS_TOKEN in .env to turn on /metrics (off: 404)"
    )
    worker = os.environ.get(WORKER_METRICS_PORT_ENV, str(WORKER_METRICS_PORT))
    return [
        web,
        f"worker metrics: http://127.0.0.1:{worker}/ (Dramatiq's exposition, loopback only)",
        "logs: every process writes to standard error, here (LOG_FORMAT=json or text)",
    ]


def _interrupt(*_: object) -> None:
    raise KeyboardInterrupt


@click.command()
@click.option("--port", default=8000, show_default=True, type=int)
def dev(port: int) -> None:
    """Web + worker + scheduler together, with a local Redis when none answers."""
    settings = get_settings()
    redis_process = ensure_redis(settings.redis_url)
    if redis_process:
        click.echo(f"started a local Redis for {settings.redis_url}")
    open_db()
    migrations.upgrade()
    set_up_index()
    me = [sys.executable, "-m", "web.cli"]
    if settings.video_api_backend == "fixture":
        # Sample data to search from the first minute; imports are idempotent.
        subprocess.run([*me, "sample", "load"], check=False)
    children = [
        subprocess.Popen([*me, "serve", "--port", str(port)]),
        subprocess.Popen([*me, "worker"]),
        subprocess.Popen(
            [*me, "worker", "--queues", EMBED_QUEUE, "--processes", "1", "--threads", "1"]
        ),
        subprocess.Popen([*me, "scheduler"]),
    ]
    click.echo(f"subsearch is running at http://127.0.0.1:{port}/ (Ctrl-C stops it)")
    for line in where_to_look(settings, port):
        click.echo(f"  {line}")
    signal.signal(signal.SIGTERM, _interrupt)
    try:
        while all(child.poll() is None for child in children):
            time.sleep(0.5)
    except KeyboardInterrupt:
        pass
    finally:
        for child in [*children, *([redis_process] if redis_process else [])]:
            if child.poll() is None:
                child.terminate()
        for child in children:
            try:
                child.wait(timeout=10)
            except subprocess.TimeoutExpired:
                child.kill()

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
from models.settings import get_settings
from scheduler.runner import run
from web import create_app
from web.cli import main, open_db
from workers.broker import get_broker
from workers.redis_server import ensure_redis

QUEUE_PREFETCH = 64


@main.command()
@click.option("--host", default="127.0.0.1", show_default=True)
@click.option("--port", default=8000, show_default=True, type=int)
@click.option("--workers", default=2, show_default=True, type=int, help="gunicorn workers.")
def serve(host: str, port: int, workers: int) -> None:
    """Run the web front (gunicorn in production, Flask's server in development)."""
    if get_settings().is_production:
        os.execvp(
            sys.executable,
            [
                sys.executable,
                "-m",
                "gunicorn",
                "--workers",
                str(workers),
                "--bind",
                f"{host}:{port}",
                "web.wsgi:app",
            ],
        )
    create_app().run(host=host, port=port, threaded=True, use_reloader=False)


@main.command()
@click.option("--processes", default=1, show_default=True, type=int)
@click.option("--threads", default=4, show_default=True, type=int)
@click.option("--queues", "-Q", multiple=True, help="Only these queues.")
def worker(processes: int, threads: int, queues: tuple[str, ...]) -> None:
    """Run the Dramatiq worker over every actor in `tasks`."""
    args = [
        sys.executable,
        "-m",
        "dramatiq",
        # Dramatiq's CLI calls tasks.setup() in each worker process, then uses the
        # broker it set (`module:callable`, in Dramatiq's own words "a callable that
        # sets up a broker").
        "tasks:setup",
        "--processes",
        str(processes),
        "--threads",
        str(threads),
    ]
    for name in queues:
        args += ["--queues", name]
    # Dramatiq prefetches only 2 messages a thread by default, and a consumer whose
    # prefetch is full backs off for up to seconds: keep enough in hand to stay busy.
    os.environ.setdefault("dramatiq_queue_prefetch", str(QUEUE_PREFETCH))
    os.execvp(sys.executable, args)


@main.command()
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


def _interrupt(*_: object) -> None:
    raise KeyboardInterrupt


@main.command()
@click.option("--port", default=8000, show_default=True, type=int)
def dev(port: int) -> None:
    """Web + worker + scheduler together, with a local Redis when none answers."""
    settings = get_settings()
    redis_process = ensure_redis(settings.redis_url)
    if redis_process:
        click.echo(f"started a local Redis for {settings.redis_url}")
    open_db()
    migrations.upgrade()
    me = [sys.executable, "-m", "web.cli"]
    if settings.video_api_backend == "fixture":
        # Sample data to search from the first minute; imports are idempotent.
        subprocess.run([*me, "sample", "load"], check=False)
    children = [
        subprocess.Popen([*me, "serve", "--port", str(port)]),
        subprocess.Popen([*me, "worker"]),
        subprocess.Popen([*me, "scheduler"]),
    ]
    click.echo(f"subsearch is running at http://127.0.0.1:{port}/ (Ctrl-C stops it)")
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

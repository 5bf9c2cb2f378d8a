"""`subsearch serve`: the web front. In production it execs gunicorn, whose workers import
the app (web.wsgi:app) themselves; this module imports only what that takes, so the
start pays for the app's imports once, in the workers."""

from __future__ import annotations

import os
import sys
import tempfile

import click

from models.metrics import MULTIPROCESS_ENV, prepare_multiprocess_dir
from models.settings import get_settings
from web.cli.group import web_app


@click.command()
@click.option("--host", default="127.0.0.1", show_default=True)
@click.option("--port", default=8000, show_default=True, type=int)
@click.option("--workers", default=2, show_default=True, type=int, help="gunicorn workers.")
@click.option(
    "--threads",
    default=4,
    show_default=True,
    type=click.IntRange(min=1),
    help="Threads of each gunicorn worker (its gthread worker when more than one).",
)
def serve(host: str, port: int, workers: int, threads: int) -> None:
    """Run the web front (gunicorn in production, Flask's server in development)."""
    if get_settings().is_production:
        # gunicorn's workers add their metrics up through value files in one folder,
        # named before any of them imports prometheus_client.
        metrics_folder(MULTIPROCESS_ENV, "web")
        # gunicorn's workers import the app (web.wsgi:app); this process has not loaded it
        # (web_app names it), so the start pays for its imports once.
        os.execvp(
            sys.executable,
            [
                sys.executable,
                "-m",
                "gunicorn",
                "--logger-class",  # gunicorn's own lines in LOG_FORMAT too
                "web.gunicorn_log.Logger",
                "--workers",
                str(workers),
                # A worker of several threads answers a ping while others wait on the
                # embedding model or the database, and a search by meaning past what
                # its model takes at once is refused (503 search_busy) instead of
                # queueing every request behind it (docs/operating.md, Hostile load).
                "--threads",
                str(threads),
                "--bind",
                f"{host}:{port}",
                "web.wsgi:app",
            ],
        )
    web_app().run(host=host, port=port, threaded=True, use_reloader=False)


def metrics_folder(variable: str, name: str) -> str:
    """The folder `variable` names (default: one for `name` in the temporary folder),
    emptied for this run, and set in the environment the process execs with."""
    folder = os.environ.get(variable) or os.path.join(
        tempfile.gettempdir(), f"subsearch-metrics-{name}"
    )
    prepare_multiprocess_dir(folder)
    os.environ[variable] = folder
    return folder

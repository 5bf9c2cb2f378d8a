"""`python -m workers.command ARGS`: Dramatiq's worker command (`subsearch worker` runs
it), with this service's log lines in its main process too.

Dramatiq's main process would otherwise set up text lines of its own, and it is the one
that says a worker process died. Here logging is set up first and Dramatiq is told to
leave it alone (`--skip-logging`); the worker processes it forks inherit it, writing
through the pipe Dramatiq gives each of them (workers.log_context sets it up again when
a worker boots, for a process that was not forked).
"""

from __future__ import annotations

import sys

from dramatiq import cli

from models import logs
from models.settings import get_settings


def main(argv: list[str] | None = None) -> int:
    settings = get_settings()
    logs.configure(settings.log_format, component="worker", secrets=logs.secret_values(settings))
    args = [*(sys.argv[1:] if argv is None else argv), "--skip-logging"]
    return int(cli.main(cli.make_argument_parser().parse_args(args)))


if __name__ == "__main__":
    sys.exit(main())

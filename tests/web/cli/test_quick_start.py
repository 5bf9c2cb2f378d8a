"""The command line starts without the web app: `subsearch --help` (and a command's) and
`subsearch serve`, which execs gunicorn to import the app itself, never load the app
factory, its blueprints, pages or API schemas (a second or more of imports, paid again
by gunicorn's workers). Each case runs in a fresh interpreter, whose modules it reads."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import click

from models.metrics import MULTIPROCESS_ENV
from web.cli import main
from web.cli.group import COMMANDS

ROOT = Path(__file__).resolve().parents[3]

# What only the web process needs: the factory and what it registers.
APP_MODULES = (
    "web.app",
    "web.wsgi",
    "web.api",
    "web.pages",
    "web.admin",
    "web.devtools.local_payments.pages",
)

# Prints the modules the code before it loaded, then leaves as the command did.
REPORT = """
import json, os, sys
def report(*_args):
    print(json.dumps(sorted(sys.modules)), flush=True)
    os._exit(0)
"""


def loaded_modules(code: str, **environment: str) -> set[str]:
    result = subprocess.run(
        [sys.executable, "-c", REPORT + textwrap.dedent(code)],
        cwd=ROOT,
        env={**os.environ, "APP_ENV": "test", "QUEUE_BROKER": "stub", **environment},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    return set(json.loads(result.stdout.splitlines()[-1]))


def app_modules(modules: set[str]) -> list[str]:
    return sorted(
        name
        for name in modules
        if any(name == part or name.startswith(f"{part}.") for part in APP_MODULES)
    )


def test_help_loads_no_web_app():
    modules = loaded_modules(
        """
        from web.cli import main
        try:
            main(["--help"])
        except SystemExit:  # click's, once the help is printed
            report()
        """
    )
    assert "web.cli.processes" in modules  # the commands were there to list
    assert app_modules(modules) == []


def test_a_commands_help_loads_no_web_app():
    modules = loaded_modules(
        """
        from web.cli import main
        try:
            main(["serve", "--help"])
        except SystemExit:  # click's, once the help is printed
            report()
        """
    )
    assert "web.cli.serve" in modules  # the group ran and loaded the command
    assert "web.wiring" not in modules  # serve's process wires itself, in create_app
    assert "web.cli.processes" not in modules  # nor the other commands' modules
    assert app_modules(modules) == []


def test_serve_in_production_execs_gunicorn_without_loading_the_app(tmp_path):
    modules = loaded_modules(
        """
        os.execvp = report  # instead of gunicorn, what this process loaded before it
        from web.cli import main
        main(["serve"])
        """,
        APP_ENV="production",
        QUEUE_BROKER="redis",
        SECRET_KEY="quick-start",
        SUPPORT_EMAIL="ads@example.jp",
        INVOICE_ISSUER_NAME="subsearch 株式会社",
        INVOICE_ISSUER_ADDRESS="東京都千代田区千代田1-1",
        INVOICE_REGISTRATION_NUMBER="T1234567890123",
        PAYMENT_BACKEND="stripe",
        **{MULTIPROCESS_ENV: str(tmp_path / "metrics")},
    )
    assert "web.cli.serve" in modules
    # Only what serve uses before gunicorn: not the other commands, the wiring, the
    # tasks or the broker, which gunicorn's workers load with the app.
    assert not {"web.cli.processes", "web.wiring", "tasks", "dramatiq"} & modules
    assert app_modules(modules) == []


def test_every_named_command_is_the_command_of_that_name():
    """The group names its commands by module: a name that no longer leads to its
    command would fail only when an operator types it."""
    context = click.Context(main)
    assert main.list_commands(context) == sorted(COMMANDS)
    for name in COMMANDS:
        command = main.get_command(context, name)
        assert command is not None
        assert command.name == name
    database = main.get_command(context, "db")
    assert isinstance(database, click.Group)
    assert database.list_commands(context) == ["backup", "restore", "upgrade"]
    assert all(database.get_command(context, name) for name in ["backup", "restore", "upgrade"])


def test_another_commands_help_wires_the_process():
    modules = loaded_modules(
        """
        from web.cli import main
        try:
            main(["queue", "--help"])
        except SystemExit:
            report()
        """
    )
    assert "web.wiring" in modules  # the group ran: settings, logging, wiring
    assert "web.cli.serve" not in modules
    assert app_modules(modules) == []

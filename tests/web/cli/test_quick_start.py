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

from models.metrics import MULTIPROCESS_ENV

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
    assert "web.wiring" in modules  # the group ran: settings, logging, wiring
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
        PAYMENT_BACKEND="stripe",
        **{MULTIPROCESS_ENV: str(tmp_path / "metrics")},
    )
    assert "web.cli.processes" in modules
    assert app_modules(modules) == []

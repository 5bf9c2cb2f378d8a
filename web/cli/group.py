"""The `subsearch` command group: settings checked, logging set for the command, the
process wired (web/wiring.py); opening the database, which the commands that read or
write it do first; and building the web app, which the few commands that need one do
by name.

The group names each command by where it lives and loads that module only when the
command runs or a help lists it (click's lazy group pattern): `subsearch serve` then
imports its own few modules, not every command's (the domain, the tasks and the
wiring), before it execs gunicorn."""

from __future__ import annotations

import importlib
import logging
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING

import click

from models import logs
from models.db import init_db
from models.settings import ConfigError, Settings, get_settings
from web.cli.dotenv_file import prepare_dotenv

if TYPE_CHECKING:
    from flask import Flask

# The long-running commands log as the process they are; the others as the CLI.
LOG_COMPONENTS = {"serve": "web", "worker": "worker", "scheduler": "scheduler", "dev": "dev"}


# The app factory, by name as gunicorn names the app (web.wsgi:app): importing it loads
# Flask's app, every blueprint, page and API schema, a second or more that `--help`, and
# `serve` before it execs gunicorn, have no use for.
APP_FACTORY = "web.app"

# The composition root, by name too: it imports every task and so the whole domain.
WIRING = "web.wiring"

# Commands whose process wires itself: `serve` builds the app (create_app wires it), in
# this process or in gunicorn's workers, so the group does not wire it first.
SELF_WIRED = frozenset({"serve"})

# Every command of the group, by name, and the module attribute that is it.
COMMANDS = {
    "ads": "web.cli.ads:ads",
    "batch": "web.cli.batch:batch",
    "channels": "web.cli.catalog:channels",
    "db": "web.cli.database:db",
    "dev": "web.cli.processes:dev",
    "ingest": "web.cli.ingestion:ingest",
    "queue": "web.cli.queue:queue",
    "sample": "web.cli.catalog:sample",
    "scheduler": "web.cli.processes:scheduler",
    "search": "web.cli.search:search",
    "serve": "web.cli.serve:serve",
    "users": "web.cli.users:users",
    "videos": "web.cli.ingestion:videos",
    "worker": "web.cli.processes:worker",
}


class LazyGroup(click.Group):
    """A group whose commands are named ("module:attribute") and imported when one runs
    or a help lists them."""

    def __init__(self, *args: object, commands: Mapping[str, str], **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        self.named = dict(commands)

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*super().list_commands(ctx), *self.named})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in self.named:
            return super().get_command(ctx, cmd_name)
        module, _, attribute = self.named[cmd_name].partition(":")
        command = getattr(importlib.import_module(module), attribute)
        if not isinstance(command, click.Command):
            raise TypeError(f"{self.named[cmd_name]} is not a click command")
        return command


def open_db() -> None:
    init_db(get_settings().database_url)


def web_app(settings: Settings | None = None) -> Flask:
    """The web app for `settings` (default: the environment's), its module loaded now."""
    create_app: Callable[[Settings | None], Flask] = importlib.import_module(APP_FACTORY).create_app
    return create_app(settings)


@click.group(cls=LazyGroup, commands=COMMANDS)
@click.option("-v", "--verbose", is_flag=True, help="Log at debug level.")
def main(verbose: bool) -> None:
    """Operate subsearch."""
    command = click.get_current_context().invoked_subcommand or ""
    if command == "dev":  # before the settings read it: its SECRET_KEY, made once and kept
        for done in prepare_dotenv():
            click.echo(done)
    try:
        settings = get_settings()
    except ConfigError as error:
        raise click.ClickException(f"configuration: {error}") from None
    logs.configure(
        settings.log_format,
        component=LOG_COMPONENTS.get(command, "cli"),
        secrets=logs.secret_values(settings),
        level=logging.DEBUG if verbose else logging.INFO,
    )
    if command not in SELF_WIRED:
        # the services and the broker, for the commands that use or enqueue (it connects
        # on first use)
        importlib.import_module(WIRING).wire(settings)

"""`subsearch`: the operator's command line. The group and its options are in group.py;
each module beside it adds one group of commands."""

from __future__ import annotations

from web.cli import ads, backups, batch, catalog, database, processes, queue, search, users
from web.cli.group import main

__all__ = ["main"]

# The modules above add their commands to the group when imported; listed so each is.
COMMAND_MODULES = (ads, backups, batch, catalog, database, processes, queue, search, users)

"""`subsearch`: the operator's command line. The group and its options are in group.py,
which names every command by the module beside it that holds it."""

from __future__ import annotations

from web.cli.group import main

__all__ = ["main"]

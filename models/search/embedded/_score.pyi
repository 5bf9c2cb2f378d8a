"""The C scorer (_score.c): adds subsearch_score and subsearch_rank to a connection."""

import sqlite3

def register(connection: sqlite3.Connection, /) -> None: ...

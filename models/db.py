"""The one database: a proxy bound at start-up to SQLite or PostgreSQL from `DATABASE_URL`."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path

from peewee import Database, DatabaseProxy, PostgresqlDatabase, SqliteDatabase
from playhouse.db_url import connect as connect_url

db = DatabaseProxy()
# The URL the proxy is bound to, so binding it again to the same one keeps the pool.
_bound_url: str | None = None

SQLITE_PRAGMAS = {
    "journal_mode": "wal",
    "foreign_keys": 1,
    "busy_timeout": 10_000,
    "synchronous": "normal",
}


# Connections are opened and closed per request and per message; the pool makes that
# cheap (a closed connection goes back to the pool, set up and ready).
POOL = {"max_connections": 64, "stale_timeout": 300}


def _pooled(url: str) -> str:
    scheme, rest = url.split("://", 1)
    if "+" in scheme or url == "sqlite:///:memory:":
        return url
    return f"{scheme}+pool://{rest}"


def open_database(url: str) -> Database:
    """Build (not connect) the database for a peewee `db_url`."""
    if url.startswith("sqlite:///") and url != "sqlite:///:memory:":
        path = url[len("sqlite:///") :]
        Path(path).parent.mkdir(parents=True, exist_ok=True)
    if url.startswith("sqlite"):
        # The busy timeout is also the driver's timeout so a waiting writer retries.
        # A pooled connection may be taken by another thread later (one at a time).
        sqlite: Database = connect_url(
            _pooled(url), pragmas=SQLITE_PRAGMAS, timeout=10, check_same_thread=False, **POOL
        )
        return sqlite
    postgres: Database = connect_url(_pooled(url), autoconnect=True, **POOL)
    return postgres


def init_db(url: str) -> Database:
    """Bind the proxy to the database at `url` (once per process, or again in tests)."""
    global _bound_url
    current: Database | None = db.obj
    if current is not None and _bound_url == url:
        return current
    if current is not None and not current.is_closed():
        current.close()
    database = open_database(url)
    _bound_url = url
    db.initialize(database)
    return database


def is_postgres() -> bool:
    return isinstance(db.obj, PostgresqlDatabase)


def is_sqlite() -> bool:
    return isinstance(db.obj, SqliteDatabase)


def write_transaction() -> AbstractContextManager[object]:
    """A transaction that takes the write lock at once: `BEGIN IMMEDIATE` on SQLite.

    On SQLite a deferred transaction that reads then writes can fail with
    "database is locked" instead of waiting; an immediate one waits its turn.
    """
    if is_sqlite():
        return db.atomic("IMMEDIATE")
    return db.atomic()


@contextmanager
def connection() -> Iterator[DatabaseProxy]:
    """Open a connection for a unit of work (request, message, command) and close it after."""
    opened = db.connect(reuse_if_open=True)
    try:
        yield db
    finally:
        if opened and not db.is_closed():
            db.close()

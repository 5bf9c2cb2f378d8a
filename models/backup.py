"""Backups of the database while the service runs, and restores of them.

SQLite: the online backup API copies the pages of one read snapshot, so web and worker
keep writing (WAL) and the copy is the database as it was at one moment. PostgreSQL:
`pg_dump --format=custom` reads one snapshot too. Either way the copy is written next
to PATH and renamed over it at the end, so a backup that fails never leaves half a
file where the last good one was. A restore is one transaction on either database
(SQLite's backup API writes every page at once; on PostgreSQL psql applies the SQL
file `pg_restore` makes of the archive with `--single-transaction`): one that fails
leaves the database as it was.

The embedded search index (its own SQLite file) is not backed up: it is derived from
the database and `subsearch search reindex` rebuilds it.
"""

from __future__ import annotations

import os
import shutil
import sqlite3
import subprocess
import tempfile
from collections.abc import Callable, Iterator
from contextlib import closing, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, unquote, urlsplit

from peewee import Database, OperationalError
from playhouse.db_url import connect as connect_url

from models import migrations

# Written by `subsearch db upgrade` itself (the migration ledger, the seeded ad slots):
# rows here do not make a database "hold data". Every other table is the application's.
SCHEMA_TABLES = frozenset({"schema_migrations", "ad_slots"})

SQLITE_MAGIC = b"SQLite format 3\x00"
PG_DUMP_MAGIC = b"PGDMP"
CLIENT_PACKAGE = "postgresql-client"
# The query parameters of a DATABASE_URL that libpq understands, as the environment
# variables that carry them to pg_dump / pg_restore (peewee's own, like
# max_connections, are left out: libpq would refuse them).
LIBPQ_ENVIRONMENT = {
    "sslmode": "PGSSLMODE",
    "sslcert": "PGSSLCERT",
    "sslkey": "PGSSLKEY",
    "sslrootcert": "PGSSLROOTCERT",
    "sslcrl": "PGSSLCRL",
    "connect_timeout": "PGCONNECT_TIMEOUT",
    "application_name": "PGAPPNAME",
    "options": "PGOPTIONS",
    "target_session_attrs": "PGTARGETSESSIONATTRS",
    "channel_binding": "PGCHANNELBINDING",
    "gssencmode": "PGGSSENCMODE",
    "service": "PGSERVICE",
}
SQLITE_BUSY_SECONDS = 30


class BackupError(RuntimeError):
    """A backup or restore that could not be made; the message is safe to print (it
    never holds the database password)."""


@dataclass(frozen=True)
class Restored:
    """What a restore left: the backup's migration level and what this code adds."""

    migration: str | None  # the newest migration recorded in the backup
    pending: tuple[str, ...]  # versions this code has and the backup has not
    unknown: tuple[str, ...]  # versions the backup has and this code does not know


def dialect_of(url: str) -> str:
    scheme = url.split("://", 1)[0].split("+", 1)[0]
    if scheme.startswith("sqlite"):
        return "sqlite"
    if scheme.startswith("postgres"):
        return "postgresql"
    raise BackupError(f"DATABASE_URL has a scheme backups do not know: {scheme!r}")


def sqlite_path(url: str) -> Path:
    """The file of a sqlite:/// URL (sqlite:///var/x.db is relative, sqlite:////x absolute)."""
    rest = url.split("://", 1)[1].split("?", 1)[0]
    if not rest.startswith("/") or rest in ("/", "/:memory:"):
        raise BackupError("an in-memory SQLite database has nothing to back up or restore")
    return Path(rest[1:])


def file_kind(path: Path) -> str:
    """Which database wrote the backup at `path`: "sqlite" or "postgresql"."""
    try:
        with path.open("rb") as handle:
            head = handle.read(len(SQLITE_MAGIC))
    except OSError as error:
        raise BackupError(f"cannot read the backup {path}: {error.strerror}") from None
    if head.startswith(SQLITE_MAGIC):
        return "sqlite"
    if head.startswith(PG_DUMP_MAGIC):
        return "postgresql"
    raise BackupError(f"{path} is neither a SQLite backup nor a pg_dump custom-format archive")


def _open(url: str) -> Database:
    """A database apart from the service's proxy and its pool, for one command."""
    database: Database
    if dialect_of(url) == "sqlite":
        database = connect_url(f"sqlite:///{sqlite_path(url)}", timeout=SQLITE_BUSY_SECONDS)
    else:
        database = connect_url(url.replace("+pool://", "://", 1))
    return database


def _execute(database: Database, sql: str) -> Any:
    """A statement's cursor (the stubs leave `execute_sql` untyped)."""
    return database.execute_sql(sql)  # type: ignore[no-untyped-call]


@contextmanager
def _connected(url: str) -> Iterator[Database]:
    database = _open(url)
    try:
        database.connect()
    except OperationalError as error:
        # The driver's message names host, port and database, never the password.
        raise BackupError(f"cannot connect to the database: {error}".strip()) from None
    try:
        yield database
    finally:
        database.close()


def application_tables(database: Database) -> list[str]:
    return sorted(
        t for t in database.get_tables() if t not in SCHEMA_TABLES and not t.startswith("sqlite_")
    )


def tables_with_rows(url: str) -> list[str]:
    """The application tables of the database at `url` that hold a row: the one test of
    "this database already holds data" (a database that does not exist yet holds none)."""
    if dialect_of(url) == "sqlite" and not sqlite_path(url).exists():
        return []
    with _connected(url) as database:
        return [
            table
            for table in application_tables(database)
            if _execute(database, f'SELECT 1 FROM "{table}" LIMIT 1').fetchone() is not None
        ]


def _partial(path: Path) -> Path:
    return path.with_name(f".{path.name}.{os.getpid()}.partial")


@contextmanager
def _replaced_at_the_end(path: Path) -> Iterator[Path]:
    """A temporary file next to `path`, renamed over it when the block succeeds and
    removed when it fails."""
    if path.is_dir():
        raise BackupError(f"{path} is a directory; give the backup file's path")
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = _partial(path)
    try:
        yield partial
        # On disk before it takes the name, so a crash leaves the old backup or the new.
        with partial.open("rb") as written:
            os.fsync(written.fileno())
        os.replace(partial, path)
    finally:
        partial.unlink(missing_ok=True)


def backup(url: str, path: Path, on_snapshot: Callable[[], None] | None = None) -> None:
    """Write a consistent copy of the database at `url` to `path` while it is in use.

    `on_snapshot` is called once the copy's moment is fixed and before anything is
    copied; writes committed from then on are not in the backup (the restore drill
    uses it to prove writers go on meanwhile)."""
    if dialect_of(url) == "sqlite":
        _sqlite_backup(sqlite_path(url), path, on_snapshot)
    else:
        _postgres_backup(url, path, on_snapshot)


def _sqlite_backup(source: Path, path: Path, on_snapshot: Callable[[], None] | None) -> None:
    if not source.is_file():
        raise BackupError(f"there is no SQLite database at {source}")
    with _replaced_at_the_end(path) as partial:
        src = sqlite3.connect(source, timeout=SQLITE_BUSY_SECONDS, isolation_level=None)
        with closing(src):
            # A read transaction held across the copy pins one snapshot (WAL lets the
            # writers go on); the backup steps read inside it instead of restarting.
            src.execute("BEGIN")
            src.execute("SELECT count(*) FROM sqlite_master").fetchone()
            if on_snapshot is not None:
                on_snapshot()
            dst = sqlite3.connect(partial, isolation_level=None)
            with closing(dst):
                src.backup(dst)
                src.execute("ROLLBACK")
                # One self-contained file: no -wal beside it to forget.
                dst.execute("PRAGMA journal_mode=DELETE")
                verdict = dst.execute("PRAGMA quick_check").fetchone()[0]
        if verdict != "ok":
            raise BackupError(f"the copy failed its integrity check: {verdict}")


def _tool(name: str) -> str:
    found = shutil.which(name)
    if found is None:
        raise BackupError(
            f"{name} was not found on PATH: install the PostgreSQL client tools "
            f"(Debian/Ubuntu: apt-get install {CLIENT_PACKAGE}), of the server's major "
            "version or newer"
        )
    return found


def libpq_environment(url: str) -> dict[str, str]:
    """The connection of a postgresql:// URL as libpq environment variables, so no
    password appears on a command line (where `ps` shows it) or in a message."""
    parts = urlsplit(url)
    env: dict[str, str] = {}
    if parts.hostname:
        env["PGHOST"] = parts.hostname
    if parts.port:
        env["PGPORT"] = str(parts.port)
    if parts.username:
        env["PGUSER"] = unquote(parts.username)
    if parts.password:
        env["PGPASSWORD"] = unquote(parts.password)
    database = unquote(parts.path.lstrip("/"))
    if database:
        env["PGDATABASE"] = database
    for key, value in parse_qsl(parts.query):
        if key in LIBPQ_ENVIRONMENT:
            env[LIBPQ_ENVIRONMENT[key]] = value
    return env


def _run(command: list[str], url: str) -> None:
    env = {**os.environ, **libpq_environment(url)}
    finished = subprocess.run(command, env=env, capture_output=True, text=True, check=False)
    if finished.returncode != 0:
        tool = Path(command[0]).name
        detail = finished.stderr.strip() or f"exit status {finished.returncode}"
        raise BackupError(f"{tool} failed: {detail}")


def _postgres_backup(url: str, path: Path, on_snapshot: Callable[[], None] | None) -> None:
    pg_dump = _tool("pg_dump")
    with _replaced_at_the_end(path) as partial, _connected(url) as database:
        # pg_dump reads one snapshot of its own; exporting ours fixes that moment
        # here, where `on_snapshot` can be told of it.
        _execute(database, "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")
        try:
            snapshot = _execute(database, "SELECT pg_export_snapshot()").fetchone()[0]
            if on_snapshot is not None:
                on_snapshot()
            _run(
                [pg_dump, "--format=custom", f"--snapshot={snapshot}", f"--file={partial}"],
                url,
            )
        finally:
            _execute(database, "ROLLBACK")


def restore(url: str, path: Path, force: bool = False) -> Restored:
    """Replace the database at `url` with the backup at `path`.

    A database that holds data (see `tables_with_rows`) is refused unless `force`.
    The result is at the backup's migration level: newer code needs `db upgrade`."""
    kind, target = file_kind(path), dialect_of(url)
    if kind != target:
        raise BackupError(f"{path} is a {kind} backup; DATABASE_URL is a {target} database")
    tools = (_tool("pg_restore"), _tool("psql")) if target == "postgresql" else ("", "")
    holding = tables_with_rows(url)
    if holding and not force:
        raise BackupError(
            f"the database already holds data (in {', '.join(holding)}); "
            "restore over it only with --force"
        )
    if kind == "sqlite":
        _sqlite_restore(sqlite_path(url), path)
    else:
        _postgres_restore(url, path, *tools)
    return _level(url)


def _sqlite_restore(target: Path, path: Path) -> None:
    src = sqlite3.connect(f"file:{path.absolute()}?mode=ro", uri=True)
    with closing(src):
        verdict = src.execute("PRAGMA quick_check").fetchone()[0]
        if verdict != "ok":
            raise BackupError(f"{path} fails its integrity check: {verdict}")
        target.parent.mkdir(parents=True, exist_ok=True)
        dst = sqlite3.connect(target, timeout=SQLITE_BUSY_SECONDS, isolation_level=None)
        with closing(dst):
            # Every page, schema included, in one write: the target becomes the backup.
            src.backup(dst)


def _conninfo_dbname(url: str) -> str:
    """pg_restore writes to a database only when given one: its name as a conninfo
    (host, user and password still come from the environment)."""
    name = libpq_environment(url).get("PGDATABASE", "")
    quoted = name.replace("\\", "\\\\").replace("'", "\\'")
    return f"dbname='{quoted}'"


def _postgres_restore(url: str, path: Path, pg_restore: str, psql: str) -> None:
    """The archive as an SQL file from pg_restore, then the drops and that file applied
    by psql in one transaction: a restore that fails anywhere (a broken archive, a full
    disk, a name taken) leaves the database as it was. The file, in TMPDIR, is about as
    large as the database; a script piped straight into psql would be committed even
    when pg_restore broke off half-way."""
    with _connected(url) as database:
        # Tables a newer schema added are not in the archive: drop them all, so the
        # result is the backup's schema exactly and `db upgrade` can add them again.
        drops = "".join(
            f'DROP TABLE IF EXISTS "{table}" CASCADE;' for table in database.get_tables()
        )
    with tempfile.TemporaryDirectory(prefix="subsearch-restore-") as folder:
        script = Path(folder) / "restore.sql"
        _run(
            [
                pg_restore,
                "--clean",
                "--if-exists",
                "--no-owner",
                "--no-privileges",
                f"--file={script}",
                str(path),
            ],
            url,
        )
        _run(
            [
                psql,
                "--no-psqlrc",
                "--quiet",
                "--single-transaction",
                "--set=ON_ERROR_STOP=1",
                f"--dbname={_conninfo_dbname(url)}",
                *([f"--command={drops}"] if drops else []),
                f"--file={script}",
            ],
            url,
        )


def _level(url: str) -> Restored:
    with _connected(url) as database:
        recorded = {row[0] for row in _execute(database, "SELECT version FROM schema_migrations")}
    known = {version for version, _, _ in migrations.available()}
    return Restored(
        migration=max(recorded) if recorded else None,
        pending=tuple(sorted(known - recorded)),
        unknown=tuple(sorted(recorded - known)),
    )

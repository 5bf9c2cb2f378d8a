"""`subsearch db backup PATH` / `db restore PATH [--force]`: a database that holds data is
not restored over without --force (and is left as it was), a missing PostgreSQL client
tool is named with the package that has it, and no password is ever printed."""

from __future__ import annotations

from dataclasses import replace

import pytest
from click.testing import CliRunner
from playhouse.db_url import connect as connect_url

from models.credits import grant_bonus_credits
from models.settings import get_settings, use_settings
from tests.drill import fresh_database, summary
from tests.factories import make_user
from web.cli import main

PG_URL = "postgresql://ops:s3cret-pw@127.0.0.1:5432/subsearch"


def run(*args):
    return CliRunner().invoke(main, list(args))


@pytest.fixture
def database_url():
    """use(url): point the commands at another database for the rest of the test."""
    previous = get_settings()

    def use(url: str) -> None:
        use_settings(replace(previous, database_url=url))

    yield use
    use_settings(previous)


def execute(url: str, sql: str) -> None:
    database = connect_url(url)
    try:
        database.execute_sql(sql)
    finally:
        database.close()


def test_restore_refuses_a_database_holding_data_unless_forced(tmp_path, database_url):
    schema_only, flow = tmp_path / "schema.backup", tmp_path / "flow.backup"
    assert run("db", "backup", str(schema_only)).exit_code == 0  # migrated, no data yet
    grant_bonus_credits(make_user().id, 25)
    done = run("db", "backup", str(flow))
    assert done.exit_code == 0, done.output
    assert f"backed up the database to {flow}" in done.output
    backed_up = summary(get_settings().database_url)

    with fresh_database(tmp_path) as fresh:
        database_url(fresh)
        # A database with the schema and the seeded slots but no data is not refused.
        assert run("db", "restore", str(schema_only)).exit_code == 0
        done = run("db", "restore", str(flow))
        assert done.exit_code == 0, done.output
        assert "subsearch search reindex" in done.output
        assert summary(fresh) == backed_up

        execute(fresh, "UPDATE users SET bonus_credit = 999")
        changed = summary(fresh)
        refused = run("db", "restore", str(flow))
        assert refused.exit_code == 1
        assert "already holds data (in users" in refused.output
        assert "--force" in refused.output
        assert summary(fresh) == changed

        forced = run("db", "restore", "--force", str(flow))
        assert forced.exit_code == 0, forced.output
        assert summary(fresh) == backed_up


def test_a_missing_pg_dump_is_named_with_its_package(tmp_path, database_url, monkeypatch):
    database_url(PG_URL)
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    path = tmp_path / "subsearch.dump"
    done = run("db", "backup", str(path))
    assert done.exit_code == 1
    assert "pg_dump was not found" in done.output
    assert "postgresql-client" in done.output
    assert "s3cret" not in done.output
    assert not path.exists()


def test_a_missing_pg_restore_is_named_before_anything_changes(tmp_path, database_url, monkeypatch):
    database_url(PG_URL)
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    archive = tmp_path / "subsearch.dump"
    archive.write_bytes(b"PGDMP" + bytes(64))
    done = run("db", "restore", str(archive))
    assert done.exit_code == 1
    assert "pg_restore was not found" in done.output
    assert "postgresql-client" in done.output


def test_a_backup_of_the_other_database_kind_is_refused(tmp_path, database_url):
    sqlite_backup = tmp_path / "sqlite.backup"
    sqlite_backup.write_bytes(b"SQLite format 3\x00" + bytes(84))
    database_url(PG_URL)
    done = run("db", "restore", str(sqlite_backup))
    assert done.exit_code == 1
    assert "is a sqlite backup; DATABASE_URL is a postgresql database" in done.output
    assert "s3cret" not in done.output


def test_a_file_that_is_no_backup_is_refused(tmp_path):
    junk = tmp_path / "notes.txt"
    junk.write_text("not a backup")
    done = run("db", "restore", str(junk))
    assert done.exit_code == 1
    assert "neither a SQLite backup nor a pg_dump" in done.output

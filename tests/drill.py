"""For the backup and restore tests: a second, empty database beside the test one, and
what a database holds, in a form two databases can be compared by."""

from __future__ import annotations

import secrets
from contextlib import contextmanager
from pathlib import Path

import psycopg2
from playhouse.db_url import connect as connect_url

from tests.fixtures import ADMIN_POSTGRES_URL, TEST_DATABASE

# The money columns (and the billed impressions), each table's rows by key:
# (key columns, value columns).
MONEY = {
    "users": (("id",), ("credit_balance", "bonus_credit")),
    "user_video_access": (("user_id", "video_id"), ("credits",)),
    "local_payment_prices": (("id",), ("unit_amount",)),
    "local_payment_checkout_sessions": (("id",), ("amount_total", "payment_status")),
    "local_payment_intents": (("id",), ("amount_received", "status")),
    "ad_reservations": (("id",), ("payment_intent_id", "status")),
    "ad_impression_daily": (("id",), ("impressions",)),
}


@contextmanager
def fresh_database(tmp_path: Path):
    """The URL of a database of the test's kind that nothing has been written to: a file
    not made yet, or a new PostgreSQL database on the test server, dropped after."""
    if TEST_DATABASE == "sqlite":
        yield f"sqlite:///{tmp_path / 'restored.db'}"
        return
    name = f"subsearch_drill_{secrets.token_hex(4)}"
    admin = psycopg2.connect(ADMIN_POSTGRES_URL)
    admin.autocommit = True
    try:
        with admin.cursor() as cursor:
            cursor.execute(f'CREATE DATABASE "{name}"')
        yield f"{ADMIN_POSTGRES_URL.rsplit('/', 1)[0]}/{name}"
    finally:
        with admin.cursor() as cursor:
            cursor.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        admin.close()


def summary(url: str) -> dict:
    """Every table's row count, and the money columns row by row (with their sums): two
    databases with equal summaries hold the same money."""
    database = connect_url(url.replace("+pool://", "://", 1))
    try:
        tables = [t for t in database.get_tables() if not t.startswith("sqlite_")]
        counts = {
            t: database.execute_sql(f'SELECT count(*) FROM "{t}"').fetchone()[0] for t in tables
        }
        money = {}
        for table, (keys, values) in MONEY.items():
            columns = ", ".join(keys + values)
            rows = database.execute_sql(
                f"SELECT {columns} FROM {table} ORDER BY {', '.join(keys)}"
            ).fetchall()
            money[table] = {tuple(row[: len(keys)]): tuple(row[len(keys) :]) for row in rows}
        return {"counts": counts, "money": money}
    finally:
        database.close()


def money_sums(state: dict) -> dict[str, int]:
    """The sums of the whole-number money columns: what a checksum of them adds up."""
    sums = {}
    for table, (_, values) in MONEY.items():
        for i, column in enumerate(values):
            numbers = [row[i] for row in state["money"][table].values()]
            if all(isinstance(n, int) for n in numbers):
                sums[f"{table}.{column}"] = sum(numbers)
    return sums

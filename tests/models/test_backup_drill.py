"""The restore drill: a backup taken while a writer keeps committing restores, into a
fresh database, to the database as it was at one moment, every table's rows and every
money column; a failed backup leaves the last good one in place."""

from __future__ import annotations

import threading
import time

import pytest
from playhouse.db_url import connect as connect_url

from models import backup, migrations
from models.ads.checkout_events import apply_checkout_event
from models.ads.measurement import Click, record_click, record_impression
from models.ads.months import add_months, month_of
from models.ads.reservations import Order, reserve
from models.clock import now_iso, utcnow
from models.credits import grant_bonus_credits, unlock_video
from models.db import db, write_transaction
from models.payments import get_provider
from models.settings import get_settings
from models.tables import AdCheckout
from tests.drill import fresh_database, money_sums, summary
from tests.factories import make_profile, make_upload, make_user, make_video
from tests.fakes.ad_pages import PAGES

DAY = utcnow().date().isoformat()
BONUS = 7  # credits the writer grants with each of its commits
UA = "Mozilla/5.0 (X11; Linux x86_64) Firefox/133.0"


def wait_until(condition, seconds: float = 20.0) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "the writer stopped committing"
        time.sleep(0.005)


def run_flow():
    """Users with credits spent and granted, a reservation paid through the local
    provider, its clicks and impressions: returns (reservation id, the writer's user id)."""
    reader, friend, buyer = make_user(), make_user(), make_user()
    grant_bonus_credits(friend.id, 40)
    unlock_video(reader.id, make_video(duration_seconds=1800).id)
    unlock_video(friend.id, make_video(duration_seconds=3600).id)
    order = Order(
        slot="search-result-bottom",
        country="JP",
        start_month=add_months(month_of(utcnow()), 1),
        months=2,
        advertiser_name="山田商店",
        image_url=make_upload(buyer),
        redirect_url="https://example.jp/shop",
        consent=True,
        profile_id=make_profile(buyer).id,
    )
    reservation = reserve(buyer.id, order, PAGES).reservation
    session = AdCheckout.get_by_id(reservation.id).checkout_session_id
    paid = get_provider().complete(session)[-1]
    assert apply_checkout_event(paid.event) == "paid"
    for n in range(4):
        record_click(Click(f"flow-click-{n}", reservation.id, "JP", UA, now_iso()))
        record_impression(f"flow-event-{n}", reservation.id, DAY, "JP")
    return reservation.id, friend.id


class Writer(threading.Thread):
    """The worker's part: commit after commit, each one impression counted, one click
    logged and a bonus granted, numbered, until told to stop."""

    def __init__(self, reservation_id: str, user_id: str):
        super().__init__(daemon=True)
        self.reservation_id, self.user_id = reservation_id, user_id
        self.committed = 0
        self.halt = threading.Event()
        self.error: BaseException | None = None

    def run(self) -> None:
        try:
            with db.connection_context():
                while not self.halt.is_set():
                    n = self.committed + 1
                    with write_transaction():
                        record_impression(f"drill-{n:06d}", self.reservation_id, DAY, "JP")
                        record_click(
                            Click(f"drill-{n:06d}", self.reservation_id, "JP", UA, now_iso())
                        )
                        grant_bonus_credits(self.user_id, BONUS)
                    self.committed = n
        except BaseException as error:  # noqa: BLE001  (the drill reports how it stopped)
            self.error = error

    def finish(self) -> int:
        self.halt.set()
        self.join(timeout=30)
        assert self.error is None, self.error
        return self.committed


def after_writes(state: dict, writes: int, reservation_id: str, user_id: str) -> dict:
    """`state` as it is after the writer's first `writes` commits (the flow's rows
    unchanged): what any consistent copy of the database must equal for some count."""
    counts = dict(state["counts"])
    counts["ad_impression_events"] += writes
    counts["ad_click_logs"] += writes
    money = {table: dict(rows) for table, rows in state["money"].items()}
    credit_balance, bonus_credit = money["users"][(user_id,)]
    money["users"][(user_id,)] = (credit_balance, bonus_credit + BONUS * writes)
    (daily_key,) = list(money["ad_impression_daily"])
    money["ad_impression_daily"][daily_key] = (money["ad_impression_daily"][daily_key][0] + writes,)
    return {"counts": counts, "money": money}


def writes_in(url: str) -> set[str]:
    """The ids of the writer's commits that the database at `url` holds."""
    database = connect_url(url)
    try:
        rows = database.execute_sql(
            "SELECT id FROM ad_impression_events WHERE substr(id, 1, 6) = 'drill-'"
        ).fetchall()
        return {row[0] for row in rows}
    finally:
        database.close()


def test_a_backup_taken_while_the_writer_commits_restores_one_moment(tmp_path):
    source = get_settings().database_url
    reservation_id, user_id = run_flow()
    db.close()  # the flow's connection back to the pool: the test reads through its own
    flow = summary(source)
    assert flow["counts"]["ad_reservations"] == 1 and flow["counts"]["users"] == 3

    writer = Writer(reservation_id, user_id)
    writer.start()
    wait_until(lambda: writer.committed >= 5)
    before_backup = writer.committed
    at_snapshot = {}

    def on_snapshot():
        # The backup's moment is fixed: let the writer commit three more meanwhile.
        at_snapshot["committed"] = writer.committed
        wait_until(lambda: writer.committed >= at_snapshot["committed"] + 3)

    path = tmp_path / "backups" / "subsearch.backup"
    backup.backup(source, path, on_snapshot=on_snapshot)
    wait_until(lambda: writer.committed >= at_snapshot["committed"] + 5)
    written = writer.finish()

    with fresh_database(tmp_path) as fresh:
        restored = backup.restore(fresh, path)
        assert restored.pending == () and restored.unknown == ()
        copy = summary(fresh)
        ids = writes_in(fresh)
    # The copy holds the writer's first k commits, none half-made and none missing:
    # every commit made before the backup began, none of those made while it ran.
    k = len(ids)
    assert ids == {f"drill-{n:06d}" for n in range(1, k + 1)}
    assert before_backup <= k <= at_snapshot["committed"] + 1
    assert written >= at_snapshot["committed"] + 3 > k
    expected = after_writes(flow, k, reservation_id, user_id)
    assert copy["counts"] == expected["counts"]
    assert money_sums(copy) == money_sums(expected)
    assert copy["money"] == expected["money"]
    # and the source went on: it holds every commit
    assert summary(source) == after_writes(flow, written, reservation_id, user_id)


def test_a_failed_backup_leaves_the_last_good_one_and_no_partial_file(tmp_path):
    source = get_settings().database_url
    make_user()
    path = tmp_path / "subsearch.backup"
    backup.backup(source, path)
    good = path.read_bytes()

    def fail():
        raise RuntimeError("disk full")

    make_user()
    with pytest.raises(RuntimeError):
        backup.backup(source, path, on_snapshot=fail)
    assert path.read_bytes() == good
    assert sorted(p.name for p in tmp_path.iterdir()) == ["subsearch.backup"]


def test_restore_reports_the_migrations_the_code_adds_to_an_older_backup(tmp_path):
    before, latest = [version for version, _, _ in migrations.available()][-2:]
    source = get_settings().database_url
    path = tmp_path / "old.backup"
    backup.backup(source, path)
    with fresh_database(tmp_path) as fresh:
        backup.restore(fresh, path)
        database = connect_url(fresh)
        database.execute_sql(f"DELETE FROM schema_migrations WHERE version = '{latest}'")
        database.close()
        backup.backup(fresh, path)
    with fresh_database(tmp_path / "again") as fresh:
        restored = backup.restore(fresh, path)
    assert (restored.migration, restored.pending) == (before, (latest,))


def test_the_environment_carries_the_connection_and_keeps_the_password_off_commands():
    env = backup.libpq_environment(
        "postgresql+pool://app%40x:p%2Fss@db.internal:6543/sub%20search"
        "?sslmode=require&max_connections=20"
    )
    assert env == {
        "PGHOST": "db.internal",
        "PGPORT": "6543",
        "PGUSER": "app@x",
        "PGPASSWORD": "p/ss",
        "PGDATABASE": "sub search",
        "PGSSLMODE": "require",
    }


def spoil(path, target, database, how: str) -> None:
    """Make the next restore of `path` into `target` fail part of the way through."""
    if how == "name taken":
        # A name the archive's last tables need, held by something no drop touches:
        # the restore fails after the drops and most of its tables.
        database.execute_sql("DROP TABLE idempotency_keys")
        database.execute_sql("CREATE TYPE idempotency_keys AS (n integer)")
    elif backup.dialect_of(target) == "postgresql":
        # An archive cut short: its table of contents reads, its last data does not.
        path.write_bytes(path.read_bytes()[:-200])
    else:
        # A copy whose pages no longer hold together.
        spoiled = bytearray(path.read_bytes())
        spoiled[4096 + 100 : 8192] = b"\xff" * (8192 - 4096 - 100)
        path.write_bytes(bytes(spoiled))


@pytest.mark.parametrize("how", ["name taken", "copy spoiled"])
def test_a_restore_that_fails_half_way_leaves_the_database_as_it_was(tmp_path, how):
    source = get_settings().database_url
    if how == "name taken" and backup.dialect_of(source) == "sqlite":
        pytest.skip("SQLite's restore copies whole pages: no name in it can be taken")
    make_user()
    path = tmp_path / "good.backup"
    backup.backup(source, path)
    with fresh_database(tmp_path) as target:
        backup.restore(target, path)
        database = connect_url(target)
        # A table a newer schema added: the restore drops it first.
        database.execute_sql("CREATE TABLE later_feature (id integer PRIMARY KEY)")
        database.execute_sql("INSERT INTO later_feature (id) VALUES (1)")
        spoil(path, target, database, how)
        database.close()
        before = summary(target)
        with pytest.raises(backup.BackupError):
            backup.restore(target, path, force=True)
        assert summary(target) == before
        assert before["counts"]["later_feature"] == 1 and before["counts"]["users"] >= 1

"""batch-monthly-reset: on the schedule, from the command line, and through a worker."""

from __future__ import annotations

from datetime import UTC, datetime

from click.testing import CliRunner

from models.tables import User
from scheduler.runner import latest_due_tick
from scheduler.schedule import SCHEDULE
from tasks.credits import batch_monthly_reset
from tests.factories import make_user
from tests.fixtures import take_messages
from web.cli import main


def test_it_is_scheduled_for_the_first_of_the_month_at_midnight_utc():
    job = next(j for j in SCHEDULE if j.actor == "batch-monthly-reset")
    after = datetime(2026, 11, 30, 23, 0, tzinfo=UTC)
    assert latest_due_tick(job, after, datetime(2026, 11, 30, 23, 59, tzinfo=UTC)) is None
    assert latest_due_tick(job, after, datetime(2026, 12, 1, 0, 0, 20, tzinfo=UTC)) == datetime(
        2026, 12, 1, tzinfo=UTC
    )


def test_the_command_enqueues_it(stub_broker):
    result = CliRunner().invoke(main, ["batch", "monthly-reset", "--period", "2026-12"])
    assert result.exit_code == 0, result.output
    [message] = take_messages(stub_broker, "batch")
    assert message["actor_name"] == "batch-monthly-reset"
    assert message["args"] == ["2026-12", False]
    bad = CliRunner().invoke(main, ["batch", "monthly-reset", "--period", "2026-13"])
    assert bad.exit_code == 2


def test_a_worker_runs_it_once_per_month(stub_broker, stub_worker):
    user = make_user(credit_balance=7, bonus_credit=3)
    batch_monthly_reset.send("2030-01")
    stub_broker.join("batch")
    stub_worker.join()
    assert (User.get_by_id(user.id).credit_balance, User.get_by_id(user.id).bonus_credit) == (
        50,
        3,
    )
    User.update(credit_balance=9).where(User.id == user.id).execute()
    batch_monthly_reset.send("2030-01")  # redelivered
    stub_broker.join("batch")
    stub_worker.join()
    assert User.get_by_id(user.id).credit_balance == 9

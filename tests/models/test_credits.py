"""Credits: cost, spending across both balances, access, grants, the monthly reset."""

from __future__ import annotations

import math
import os
import time
from datetime import UTC, datetime, timedelta, timezone

import pytest

from models.clock import iso, parse_iso, utcnow
from models.credits import (
    InsufficientCredits,
    InvalidCreditAmount,
    UserNotFound,
    calculate_credit_cost,
    grant_bonus_credits,
    has_access,
    monthly_reset,
    run_monthly_reset,
    unlock_video,
)
from models.errors import NotFound
from models.tables import BatchRun, User, UserVideoAccess
from tests.concurrency import at_once
from tests.factories import make_admin, make_subscription, make_user, make_video


def balances(user):
    fresh = User.get_by_id(user.id)
    return fresh.credit_balance, fresh.bonus_credit


@pytest.mark.parametrize(
    ("seconds", "cost"),
    [(0, 1), (1, 1), (599, 1), (600, 1), (601, 2), (1200, 2), (1201, 3), (3600, 6)],
)
def test_one_credit_per_started_ten_minutes(seconds, cost):
    assert calculate_credit_cost(seconds) == cost


@pytest.mark.parametrize(
    ("balance", "bonus", "minutes", "after"),
    [
        (1, 0, 10, (0, 0)),  # exactly enough, balance only
        (0, 1, 10, (0, 0)),  # exactly enough, bonus only
        (3, 5, 30, (0, 5)),  # exact balance, bonus untouched
        (2, 1, 30, (0, 0)),  # split across both, exact
        (2, 4, 30, (0, 3)),  # split: shortfall of 1 from bonus
        (5, 5, 30, (2, 5)),  # balance covers it
        (0, 7, 30, (0, 4)),  # bonus covers it all
    ],
)
def test_spending_takes_the_balance_first_then_the_bonus(balance, bonus, minutes, after):
    user = make_user(credit_balance=balance, bonus_credit=bonus)
    video = make_video(duration_seconds=minutes * 60)
    result = unlock_video(user.id, video.id)
    assert balances(user) == after
    assert (result.credit_balance, result.bonus_credit) == after
    assert result.credits == calculate_credit_cost(minutes * 60)


@pytest.mark.parametrize(("balance", "bonus"), [(0, 0), (2, 0), (0, 2), (1, 1)])
def test_not_enough_credits_changes_nothing(balance, bonus):
    user = make_user(credit_balance=balance, bonus_credit=bonus)
    video = make_video(duration_seconds=1800)  # costs 3
    with pytest.raises(InsufficientCredits):
        unlock_video(user.id, video.id)
    assert balances(user) == (balance, bonus)
    assert UserVideoAccess.select().count() == 0


def test_an_unknown_video_is_not_found():
    with pytest.raises(NotFound):
        unlock_video(make_user().id, "nope")


def test_unlock_grants_four_weeks_of_access():
    user, video = make_user(), make_video()
    now = utcnow()
    result = unlock_video(user.id, video.id, now=now)
    row = UserVideoAccess.get()
    assert row.credits == 1
    assert row.expires_at == result.expires_at == iso(now + timedelta(weeks=4))
    assert has_access(user, video.id)
    assert not has_access(user, video.id, now=now + timedelta(weeks=4, seconds=1))
    assert not has_access(make_user(), video.id)
    assert has_access(make_admin(), video.id)


def test_re_unlock_after_expiry_overwrites_credits_extends_and_keeps_created_at():
    user, video = make_user(), make_video(duration_seconds=1200)
    first = utcnow() - timedelta(weeks=6)
    unlock_video(user.id, video.id, now=first)
    UserVideoAccess.update(credits=99).execute()
    later = utcnow()
    unlock_video(user.id, video.id, now=later)
    row = UserVideoAccess.get()
    assert row.credits == 2
    assert row.created_at == iso(first)
    assert parse_iso(row.expires_at) > later + timedelta(weeks=3)
    assert balances(user) == (50 - 4, 0)


def test_twenty_concurrent_unlocks_spend_exactly_what_there_is():
    user = make_user(credit_balance=3, bonus_credit=2)  # credits for 5
    videos = [make_video(duration_seconds=300) for _ in range(20)]
    outcomes = at_once(lambda video: unlock_video(user.id, video.id), videos)
    assert sum(not isinstance(o, Exception) for o in outcomes) == 5
    assert sum(isinstance(o, InsufficientCredits) for o in outcomes) == 15
    assert balances(user) == (0, 0)
    assert UserVideoAccess.select().count() == 5


def test_grant_adds_to_the_bonus():
    user = make_user()
    grant_bonus_credits(user.id, 100)
    grant_bonus_credits(user.id, 5.0)
    assert balances(user) == (50, 105)


def test_grant_of_zero_touches_no_database(monkeypatch):
    def no_database(*_a, **_k):
        raise AssertionError("the database was used")

    monkeypatch.setattr(User, "update", no_database)
    monkeypatch.setattr(User, "select", no_database)
    grant_bonus_credits("no-such-user", 0)


@pytest.mark.parametrize("amount", [-1, 1.5, math.nan, math.inf, -math.inf, True, False, "5", None])
def test_grant_refuses_what_is_not_a_positive_whole_number(amount):
    user = make_user()
    with pytest.raises(InvalidCreditAmount):
        grant_bonus_credits(user.id, amount)
    assert balances(user) == (50, 0)


def test_grant_to_a_missing_user_raises():
    with pytest.raises(UserNotFound):
        grant_bonus_credits("no-such-user", 10)


def test_the_reset_sets_plan_limits_keeps_bonus_and_drops_expired_access():
    free = make_user(credit_balance=3, bonus_credit=7)
    plus = make_user(credit_balance=0)
    make_subscription(plus, plan="plus", status="active")
    pro_trial = make_user(credit_balance=12)
    make_subscription(pro_trial, plan="pro", status="trialing")
    lapsed = make_user(credit_balance=1999)
    make_subscription(lapsed, plan="pro", status="canceled")
    video, other = make_video(), make_video()
    now = utcnow()
    unlock_video(free.id, video.id, now=now - timedelta(weeks=5))  # expired
    unlock_video(free.id, other.id, now=now)  # still valid

    first = monthly_reset(now)
    assert first.access_rows_deleted == 1
    assert [balances(u) for u in (free, plus, pro_trial, lapsed)] == [
        (50, 7),
        (500, 0),
        (2000, 0),
        (50, 0),
    ]
    assert [r.video_id for r in UserVideoAccess.select()] == [other.id]

    monthly_reset(now)  # twice: the same result
    assert [balances(u) for u in (free, plus, pro_trial, lapsed)] == [
        (50, 7),
        (500, 0),
        (2000, 0),
        (50, 0),
    ]


def test_the_reset_runs_once_per_month_unless_forced():
    user = make_user(credit_balance=10)
    assert run_monthly_reset("2026-12") is not None
    User.update(credit_balance=5).where(User.id == user.id).execute()
    assert run_monthly_reset("2026-12") is None  # a redelivered message
    assert balances(user) == (5, 0)
    assert run_monthly_reset("2026-12", force=True) is not None
    assert balances(user) == (50, 0)
    assert run_monthly_reset("2027-01") is not None


def test_a_consumption_during_the_reset_is_neither_lost_nor_counted_twice():
    user = make_user(credit_balance=10)
    videos = [make_video(duration_seconds=300) for _ in range(10)]
    done = []

    def consume():
        for video in videos:
            unlock_video(user.id, video.id)
            done.append(video.id)

    outcomes = at_once(lambda work: work(), [consume, monthly_reset])
    assert not [o for o in outcomes if isinstance(o, Exception)]
    assert len(done) == 10
    assert UserVideoAccess.select().count() == 10
    balance, bonus = balances(user)
    # The reset put 50 back at some point between the unlocks: those after it spent
    # from 50, those before it from the old 10; none vanished and none counted twice.
    assert 40 <= balance <= 50
    assert bonus == 0


# 2026-12-01 00:30 in Japan is 2026-11-30 15:30 UTC: already December there, still
# November in the months the service counts (CONTRACT section 0: UTC).
JAPAN = timezone(timedelta(hours=9))
JAPAN_AFTER_MIDNIGHT = datetime(2026, 12, 1, 0, 30, tzinfo=JAPAN)


@pytest.fixture
def japanese_local_time():
    """The process's local zone is Japan's (a POSIX rule: no zone files needed)."""
    before = os.environ.get("TZ")
    os.environ["TZ"] = "JST-9"
    time.tzset()
    yield
    if before is None:
        del os.environ["TZ"]
    else:
        os.environ["TZ"] = before
    time.tzset()


def reset_periods():
    return [run.period for run in BatchRun.select().where(BatchRun.name == "monthly-reset")]


def test_the_reset_counts_a_moment_given_in_japan_in_its_utc_month():
    user = make_user(credit_balance=10)
    assert run_monthly_reset(now=JAPAN_AFTER_MIDNIGHT) is not None
    assert reset_periods() == ["2026-11"]
    User.update(credit_balance=5).where(User.id == user.id).execute()
    # The same instant written in UTC is the same month: no second reset.
    assert run_monthly_reset(now=JAPAN_AFTER_MIDNIGHT.astimezone(UTC)) is None
    assert balances(user) == (5, 0)


def test_the_reset_reads_a_naive_moment_as_local_time_like_its_stamps(japanese_local_time):
    # Naive 00:30 on 1 December in a process running in Japan: the access rows are
    # compared with it as 2026-11-30T15:30Z (models.clock.iso), so the month is November.
    naive = JAPAN_AFTER_MIDNIGHT.replace(tzinfo=None)
    assert iso(naive) == "2026-11-30T15:30:00.000Z"
    assert run_monthly_reset(now=naive) is not None
    assert reset_periods() == ["2026-11"]
    assert run_monthly_reset(now=datetime(2026, 11, 30, 15, 30, tzinfo=UTC)) is None


def test_the_reset_at_the_utc_turn_of_the_month_is_the_new_month():
    assert run_monthly_reset(now=datetime(2026, 12, 1, 0, 0, tzinfo=UTC)) is not None
    assert run_monthly_reset(now=datetime(2026, 11, 30, 23, 59, 59, tzinfo=UTC)) is not None
    assert sorted(reset_periods()) == ["2026-11", "2026-12"]

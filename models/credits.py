"""Credits: what a video costs, spending on unlock, bonus grants, access checks and the
monthly reset. Every balance change is one conditional statement."""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import datetime, timedelta
from numbers import Real
from typing import SupportsInt, cast

from peewee import Case

from models.ads.months import month_of
from models.clock import iso, utcnow
from models.db import db, write_transaction
from models.errors import DomainError, NotFound
from models.plans import limit_of_live_plan
from models.tables import BatchRun, User, UserVideoAccess, Video

ACCESS_VALIDITY = timedelta(weeks=4)
CREDIT_MINUTES = 10


class InsufficientCredits(DomainError):
    code = "insufficient_credits"
    status = 402
    message = "Not enough credits to unlock this video."


class NoSubtitles(DomainError):
    code = "no_subtitles"
    status = 409
    message = "This video has no subtitles to unlock."


class InvalidCreditAmount(ValueError):
    """grantBonusCredits was given something that is not a positive whole number."""


class UserNotFound(LookupError):
    """No user has this id."""


def calculate_credit_cost(duration_seconds: int) -> int:
    """One credit per started 10 minutes, at least one."""
    return max(1, math.ceil(max(0, int(duration_seconds)) / (CREDIT_MINUTES * 60)))


@dataclass(frozen=True)
class Unlocked:
    video_id: str
    credits: int
    expires_at: str
    credit_balance: int
    bonus_credit: int


def unlock_video(user_id: str, video_id: str, now: datetime | None = None) -> Unlocked:
    """Spend the video's cost and grant four weeks of access, in one transaction.

    `credit_balance` pays first and `bonus_credit` the shortfall, in one conditional
    UPDATE that cannot take either below zero; without enough credits nothing changes.
    A repeat unlock, before or after expiry, charges again and extends the access. Only
    a video whose subtitles were fetched (`completed`) can be unlocked: any other status
    (pending, unavailable, failed, deleted) is refused and nothing is charged.
    """
    video = Video.get_or_none(Video.id == video_id)
    if video is None:
        raise NotFound("No video has this id.")
    if video.subtitle_status != "completed":
        raise NoSubtitles()
    cost = calculate_credit_cost(video.duration_seconds)
    now = now or utcnow()
    stamp, expires = iso(now), iso(now + ACCESS_VALIDITY)
    covered_by_balance = User.credit_balance >= cost
    with write_transaction():
        spent = (
            User.update(
                # Both right-hand sides read the row as it was before this statement.
                credit_balance=Case(None, [(covered_by_balance, User.credit_balance - cost)], 0),
                bonus_credit=Case(
                    None,
                    [(covered_by_balance, User.bonus_credit)],
                    User.bonus_credit - (cost - User.credit_balance),
                ),
            )
            .where((User.id == user_id) & (User.credit_balance + User.bonus_credit >= cost))
            .execute()
        )
        if spent != 1:
            raise InsufficientCredits()
        (
            UserVideoAccess.insert(
                user=user_id,
                video=video_id,
                credits=cost,
                created_at=stamp,
                updated_at=stamp,
                expires_at=expires,
            )
            .on_conflict(
                conflict_target=[UserVideoAccess.user, UserVideoAccess.video],
                update={
                    UserVideoAccess.credits: cost,
                    UserVideoAccess.expires_at: expires,
                    UserVideoAccess.updated_at: stamp,
                },
            )
            .execute()
        )
        balances = (
            User.select(User.credit_balance, User.bonus_credit).where(User.id == user_id).get()
        )
    return Unlocked(video_id, cost, expires, balances.credit_balance, balances.bonus_credit)


def has_access(user: User | None, video_id: str, now: datetime | None = None) -> bool:
    """Whether the user may read the video's full subtitles now (admins always)."""
    if user is None:
        return False
    if user.role == "admin":
        return True
    unlocked: bool = (
        UserVideoAccess.select()
        .where(
            (UserVideoAccess.user == user.id)
            & (UserVideoAccess.video == video_id)
            & (UserVideoAccess.expires_at > iso(now or utcnow()))
        )
        .exists()
    )
    return unlocked


def _whole_positive_or_zero(amount: object) -> int:
    # Booleans are ints in Python; a grant of True is a bug, not one credit.
    if isinstance(amount, bool) or not isinstance(amount, Real):
        raise InvalidCreditAmount(f"amount must be a whole number, not {amount!r}")
    if isinstance(amount, float) and (math.isnan(amount) or math.isinf(amount)):
        raise InvalidCreditAmount(f"amount must be finite, not {amount!r}")
    # Every Real converts to int; its stub does not say so.
    whole = int(cast(SupportsInt, amount))
    if amount != whole:
        raise InvalidCreditAmount(f"amount must be a whole number, not {amount!r}")
    if amount < 0:
        raise InvalidCreditAmount(f"amount must not be negative, not {amount!r}")
    return whole


def grant_bonus_credits(user_id: str, amount: object) -> None:
    """grantBonusCredits: add `amount` to the user's bonus credits.

    0 does nothing (no database access); a negative, fractional, NaN or infinite
    amount raises InvalidCreditAmount; a missing user raises UserNotFound. It takes no
    lock: callers make repeated grants impossible themselves.
    """
    credits = _whole_positive_or_zero(amount)
    if credits == 0:
        return
    changed = (
        User.update(bonus_credit=User.bonus_credit + credits).where(User.id == user_id).execute()
    )
    if changed != 1:
        raise UserNotFound(user_id)


@dataclass(frozen=True)
class ResetResult:
    users: int
    access_rows_deleted: int


def monthly_reset(now: datetime | None = None) -> ResetResult:
    """Every credit_balance to its plan's limit and every expired access row deleted,
    in two set-based statements of one transaction. bonus_credit is never touched."""
    stamp = iso(now or utcnow())
    with write_transaction():
        users = User.update(credit_balance=limit_of_live_plan()).execute()
        deleted = UserVideoAccess.delete().where(UserVideoAccess.expires_at < stamp).execute()
    return ResetResult(users=users, access_rows_deleted=deleted)


def set_balance_to_plan_limit(user_id: str) -> int:
    """credit_balance to the limit of the user's plan now (subscriptions decide)."""
    with db.atomic():
        User.update(credit_balance=limit_of_live_plan()).where(User.id == user_id).execute()
        balance: int = User.select(User.credit_balance).where(User.id == user_id).scalar()
        return balance


def run_monthly_reset(
    period: str | None = None, *, force: bool = False, now: datetime | None = None
) -> ResetResult | None:
    """The monthly reset, once per period (`YYYY-MM`, by default the UTC month of `now`
    whatever zone it is given in, as every month here): the ledger row and the reset
    commit together, so a redelivered message cannot reset a month twice (and hand
    back what was spent since). `force` runs it again regardless."""
    now = now or utcnow()
    period = period or month_of(now)
    with write_transaction():
        first = (
            db.execute(
                BatchRun.insert(name="monthly-reset", period=period).on_conflict_ignore()
            ).rowcount
            == 1
        )
        if not first and not force:
            return None
        return monthly_reset(now)

"""Referrals: claiming a friend's code before subscribing, and the reward paid once
when the referred user's subscription completes."""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass

from models.clock import now_iso
from models.credits import grant_bonus_credits
from models.db import is_postgres, write_transaction
from models.errors import DomainError, NotFound
from models.tables import Subscription, User

REFERRAL_REWARD_CREDITS = 100
# A caller holding any of these is already a paying subscriber.
SUBSCRIBED_STATUSES = ("active", "trialing", "past_due", "unpaid")


class UnknownCode(NotFound):
    code = "unknown_code"
    message = "No user has this referral code."


class OwnCode(DomainError):
    code = "own_code"
    status = 400
    message = "You cannot use your own referral code."


class AlreadyReferred(DomainError):
    code = "already_referred"
    status = 409
    message = "A referral code has already been applied to your account."


class MutualReferral(DomainError):
    code = "mutual_referral"
    status = 409
    message = "This member was referred by you; two members cannot refer each other."


class AlreadySubscribed(DomainError):
    code = "already_subscribed"
    status = 409
    message = "Referral codes can only be used before subscribing to a paid plan."


@dataclass(frozen=True)
class ReferralSummary:
    """A user's own code to hand out, and how many users have claimed it."""

    code: str | None
    referred_count: int


def referral_summary(user: User) -> ReferralSummary:
    return ReferralSummary(user.referral_code, referral_count(user.id))


def normalise_code(typed: str) -> str:
    """A code as it is stored (models.users.REFERRAL_CODE_ALPHABET, upper case) from
    what a friend typed: any case, full-width letters (NFKC), spaces around it."""
    return unicodedata.normalize("NFKC", typed).strip().upper()


def _code_owner(typed: str) -> User | None:
    """The owner of the code typed, in one query: the code as typed (a code drawn from
    the old alphabet mixes cases, aB0_-lI1) before the code normalised."""
    exact = unicodedata.normalize("NFKC", typed).strip()
    found = list(
        User.select()
        .where(User.referral_code.in_({exact, normalise_code(typed)}))
        .order_by(User.referral_code != exact)
    )
    return found[0] if found else None


def claim_referral(user_id: str, code: str) -> str:
    """Set the caller's referred_by to the code's owner; returns the owner's id.

    The write is one conditional UPDATE inside a transaction holding both members' rows:
    it never overwrites a referrer, never points a user at themselves, and of two members
    claiming each other's code at once only one succeeds (a referral is never mutual).
    """
    owner = _code_owner(code)
    if owner is None:
        raise UnknownCode()
    if owner.id == user_id:
        raise OwnCode()
    caller = User.get_by_id(user_id)
    if caller.referred_by_id is not None:
        raise AlreadyReferred()
    subscribed = (
        Subscription.select()
        .where(
            (Subscription.reference_id == user_id) & Subscription.status.in_(SUBSCRIBED_STATUSES)
        )
        .exists()
    )
    if subscribed:
        raise AlreadySubscribed()
    with write_transaction():
        _lock_users(user_id, owner.id)
        if _referred_by(owner.id) == user_id:
            raise MutualReferral()
        changed = (
            User.update(referred_by=owner.id)
            .where((User.id == user_id) & User.referred_by.is_null() & (User.id != owner.id))
            .execute()
        )
    if changed != 1:
        raise AlreadyReferred()
    return owner.id


def _lock_users(*user_ids: str) -> None:
    """Hold the members' rows for the transaction, in id order so two claims never wait
    for each other in a circle (PostgreSQL; SQLite's BEGIN IMMEDIATE already holds the
    only write lock)."""
    if is_postgres():
        list(
            User.select(User.id).where(User.id.in_(sorted(user_ids))).order_by(User.id).for_update()
        )


def _referred_by(user_id: str) -> str | None:
    found: str | None = User.select(User.referred_by).where(User.id == user_id).scalar()
    return found


def pay_referral_reward(user_id: str) -> bool:
    """Reward both sides once: the conditional UPDATE of referral_rewarded_at and both
    grants commit together, so re-sent or concurrent completions pay one time."""
    with write_transaction():
        marked = (
            User.update(referral_rewarded_at=now_iso())
            .where(
                (User.id == user_id)
                & User.referred_by.is_null(False)
                & User.referral_rewarded_at.is_null()
            )
            .execute()
        )
        if marked != 1:
            return False
        referrer = User.select(User.referred_by).where(User.id == user_id).scalar()
        grant_bonus_credits(user_id, REFERRAL_REWARD_CREDITS)
        grant_bonus_credits(referrer, REFERRAL_REWARD_CREDITS)
    return True


def referral_count(user_id: str) -> int:
    """Users this one brought in: referred by them and rewarded (spec, referral rule 7)."""
    return (
        User.select()
        .where((User.referred_by == user_id) & User.referral_rewarded_at.is_null(False))
        .count()
    )

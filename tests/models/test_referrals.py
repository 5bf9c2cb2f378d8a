"""Referrals: every claim rejection, one referrer per user, a reward paid once."""

from __future__ import annotations

import pytest

from models.clock import now_iso
from models.referrals import (
    AlreadyReferred,
    AlreadySubscribed,
    MutualReferral,
    OwnCode,
    UnknownCode,
    claim_referral,
    pay_referral_reward,
    referral_count,
)
from models.tables import User
from tests.concurrency import at_once
from tests.factories import make_subscription, make_user


def test_a_claim_sets_the_referrer():
    referrer, user = make_user(), make_user()
    assert claim_referral(user.id, referrer.referral_code) == referrer.id
    assert User.get_by_id(user.id).referred_by_id == referrer.id


@pytest.mark.parametrize("typed", ["lower", " padded ", "full-width"])
def test_a_code_claims_whatever_its_case_spaces_or_width(typed):
    # Given a code as a friend might type it: lower case, with spaces, or full-width
    referrer, user = make_user(), make_user()
    code = referrer.referral_code
    as_typed = {
        "lower": code.lower(),
        " padded ": f"  {code} ",
        # U+FF01..U+FF5E are the full-width forms of ASCII 0x21..0x7E
        "full-width": "".join(chr(ord(c) + 0xFEE0) for c in code.lower()),
    }[typed]
    # When it is claimed, then it names the owner
    assert claim_referral(user.id, as_typed) == referrer.id


def test_an_unknown_code():
    with pytest.raises(UnknownCode) as error:
        claim_referral(make_user().id, "NOSUCH00")
    assert (error.value.status, error.value.code) == (404, "unknown_code")


def test_ones_own_code():
    user = make_user()
    with pytest.raises(OwnCode) as error:
        claim_referral(user.id, user.referral_code)
    assert (error.value.status, error.value.code) == (400, "own_code")
    assert User.get_by_id(user.id).referred_by_id is None


def test_a_second_claim_never_overwrites():
    first, second, user = make_user(), make_user(), make_user()
    claim_referral(user.id, first.referral_code)
    with pytest.raises(AlreadyReferred) as error:
        claim_referral(user.id, second.referral_code)
    assert (error.value.status, error.value.code) == (409, "already_referred")
    assert User.get_by_id(user.id).referred_by_id == first.id


@pytest.mark.parametrize("status", ["active", "trialing", "past_due"])
def test_a_subscriber_cannot_claim(status):
    referrer, user = make_user(), make_user()
    make_subscription(user, plan="plus", status=status)
    with pytest.raises(AlreadySubscribed) as error:
        claim_referral(user.id, referrer.referral_code)
    assert (error.value.status, error.value.code) == (409, "already_subscribed")


def test_a_lapsed_subscription_does_not_block_a_claim():
    referrer, user = make_user(), make_user()
    make_subscription(user, plan="plus", status="canceled")
    assert claim_referral(user.id, referrer.referral_code) == referrer.id


def test_concurrent_claims_set_one_referrer():
    user = make_user()
    referrers = [make_user() for _ in range(10)]
    outcomes = at_once(lambda r: claim_referral(user.id, r.referral_code), referrers)
    won = [o for o in outcomes if isinstance(o, str)]
    assert all(isinstance(o, (str, AlreadyReferred)) for o in outcomes)
    assert len(won) == 1
    assert User.get_by_id(user.id).referred_by_id == won[0]


def test_a_referral_cannot_be_mutual():
    a, b = make_user(), make_user()
    claim_referral(a.id, b.referral_code)
    with pytest.raises(MutualReferral):
        claim_referral(b.id, a.referral_code)
    assert User.get_by_id(b.id).referred_by_id is None


@pytest.mark.parametrize("round_", range(5))
def test_two_members_claiming_each_others_code_at_once_make_one_referral(round_):
    # Given two members who each hold the other's code
    a, b = make_user(), make_user()
    # When both claim at the same moment
    outcomes = at_once(
        lambda pair: claim_referral(pair[0].id, pair[1].referral_code), [(a, b), (b, a)]
    )
    # Then one referral is made and the other is refused as mutual
    assert sorted(type(o).__name__ for o in outcomes) == ["MutualReferral", "str"]
    referred = [u for u in (a, b) if User.get_by_id(u.id).referred_by_id is not None]
    assert len(referred) == 1


def test_the_reward_pays_both_sides_once():
    referrer, user = make_user(), make_user()
    claim_referral(user.id, referrer.referral_code)
    assert pay_referral_reward(user.id) is True
    assert pay_referral_reward(user.id) is False
    assert User.get_by_id(user.id).bonus_credit == 100
    assert User.get_by_id(referrer.id).bonus_credit == 100
    assert User.get_by_id(user.id).referral_rewarded_at is not None


def test_no_referrer_no_reward():
    user = make_user()
    assert pay_referral_reward(user.id) is False
    assert User.get_by_id(user.id).bonus_credit == 0


def test_twenty_concurrent_rewards_pay_once():
    referrer, user = make_user(), make_user()
    claim_referral(user.id, referrer.referral_code)
    paid = at_once(lambda _: pay_referral_reward(user.id), range(20))
    assert paid.count(True) == 1 and paid.count(False) == 19
    assert User.get_by_id(user.id).bonus_credit == 100
    assert User.get_by_id(referrer.id).bonus_credit == 100


def test_the_count_is_of_rewarded_referrals():
    referrer = make_user()
    make_user(referred_by=referrer.id, referral_rewarded_at=now_iso())
    make_user(referred_by=referrer.id, referral_rewarded_at=now_iso())
    make_user(referred_by=referrer.id)
    assert referral_count(referrer.id) == 2


def test_a_code_typed_as_it_is_stored_wins_over_its_upper_case_twin():
    """Codes drawn from the old alphabet mix cases: one typed exactly is that member's,
    though another member's code is the same in upper case."""
    old = make_user(referral_code="aB0_-lI1")
    new = make_user(referral_code="AB0_-LI1")
    assert claim_referral(make_user().id, "aB0_-lI1") == old.id
    assert claim_referral(make_user().id, "ab0_-li1") == new.id
    assert claim_referral(make_user().id, " AB0_-LI1 ") == new.id

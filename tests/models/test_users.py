"""Users: referral codes, identity links, sessions."""

from __future__ import annotations

import re
import string

import pytest
from peewee import IntegrityError

from models import users
from models.errors import SignInFailed
from models.referrals import claim_referral
from models.tables import Account, User
from tests.factories import make_user

CODE = re.compile(r"^[A-Za-z0-9_-]{8}$")


def test_a_new_user_gets_an_eight_character_referral_code():
    user = make_user()
    assert CODE.match(user.referral_code)
    assert user.role == "member"
    assert user.credit_balance == 50 and user.bonus_credit == 0


def test_new_codes_leave_out_the_characters_people_confuse():
    alphabet = set(users.REFERRAL_CODE_ALPHABET)
    assert alphabet <= set(string.ascii_letters + string.digits + "_-")  # the spec's
    assert not alphabet & set("0O1IlLo")
    assert len(alphabet) == 31
    codes = {make_user().referral_code for _ in range(20)}
    assert all(set(code) <= alphabet for code in codes)


def test_a_code_drawn_from_the_old_alphabet_can_still_be_claimed():
    owner = make_user(referral_code="aB0_-lI1")
    assert claim_referral(make_user().id, "aB0_-lI1") == owner.id


def test_a_colliding_code_is_drawn_again(monkeypatch):
    taken = make_user().referral_code
    draws = iter([taken, taken, taken, "Fresh_01"])
    monkeypatch.setattr(users, "new_referral_code", lambda: next(draws))
    user = users.create_user(email="new@example.com", name="新規")
    assert user.referral_code == "Fresh_01"


def test_after_three_retries_the_collision_is_raised(monkeypatch):
    taken = make_user().referral_code
    monkeypatch.setattr(users, "new_referral_code", lambda: taken)
    with pytest.raises(IntegrityError):
        users.create_user(email="new@example.com", name="新規")
    assert User.select().count() == 1


def test_first_identity_sign_in_creates_the_user_from_claims():
    user = users.sign_in_with_identity(
        "https://id.example",
        "sub-1",
        {"email": "Hanako@Example.com", "name": "花子", "picture": "https://img/h.png"},
    )
    assert (user.email, user.name, user.image) == (
        "hanako@example.com",
        "花子",
        "https://img/h.png",
    )
    assert Account.get(issuer="https://id.example", subject="sub-1").user_id == user.id


def test_a_returning_identity_gets_the_same_user_and_code():
    first = users.sign_in_with_identity("https://id.example", "sub-1", {"email": "a@b.jp"})
    again = users.sign_in_with_identity("https://id.example", "sub-1", {"email": "a@b.jp"})
    assert again.id == first.id
    assert again.referral_code == first.referral_code
    assert User.select().count() == 1


def test_an_unverified_email_cannot_take_over_an_existing_account():
    make_user(email="owner@example.com")
    with pytest.raises(SignInFailed):
        users.sign_in_with_identity("https://id.example", "x", {"email": "owner@example.com"})
    assert Account.select().count() == 0


def test_a_verified_email_links_to_the_existing_account():
    owner = make_user(email="owner@example.com")
    linked = users.sign_in_with_identity(
        "https://id.example", "x", {"email": "owner@example.com", "email_verified": True}
    )
    assert linked.id == owner.id


def test_a_revoked_or_expired_session_loads_no_user():
    user = make_user()
    token = users.open_session(user)
    assert users.user_for_session(token).id == user.id
    users.revoke_session(token)
    assert users.user_for_session(token) is None
    assert users.user_for_session("forged") is None

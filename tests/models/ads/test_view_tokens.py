"""View tokens: made per ad of a render, verified against the reservation, the clock and
the secret key."""

from __future__ import annotations

import re
from dataclasses import replace
from datetime import UTC, datetime, timedelta

import pytest

from models.ads import view_tokens
from models.settings import get_settings, use_settings

pytestmark = pytest.mark.database_independent

NOW = datetime(2027, 1, 15, 12, 0, tzinfo=UTC)
RENDER = b"0123456789ab"


def test_a_fresh_token_is_valid_for_its_reservation():
    token = view_tokens.make("res-1", 2, RENDER, now=NOW)
    assert view_tokens.verify(token, "res-1", now=NOW).status == "valid"


def test_a_token_is_compact_and_url_safe():
    token = view_tokens.make("res-1", 2, view_tokens.new_render_id(), now=NOW)
    assert re.fullmatch(r"[A-Za-z0-9_-]{44}", token)


def test_a_token_lives_thirty_minutes():
    token = view_tokens.make("res-1", 2, RENDER, now=NOW)
    just_before = NOW + timedelta(minutes=30) - timedelta(seconds=1)
    assert view_tokens.verify(token, "res-1", now=just_before).status == "valid"
    late = view_tokens.verify(token, "res-1", now=NOW + timedelta(minutes=30))
    assert (late.status, late.genuine) == ("expired", True)


def test_a_token_proves_nothing_for_another_reservation():
    token = view_tokens.make("res-1", 2, RENDER, now=NOW)
    other = view_tokens.verify(token, "res-2", now=NOW)
    assert (other.status, other.genuine, other.identity) == ("forged", False, None)


def test_a_token_signed_with_another_secret_key_is_forged():
    token = view_tokens.make("res-1", 2, RENDER, now=NOW)
    previous = get_settings()
    use_settings(replace(previous, secret_key="another-secret"))
    try:
        assert view_tokens.verify(token, "res-1", now=NOW).status == "forged"
    finally:
        use_settings(previous)


def test_any_changed_character_makes_a_token_forged():
    token = view_tokens.make("res-1", 2, RENDER, now=NOW)
    for index in range(len(token)):
        changed = token[:index] + ("A" if token[index] != "A" else "B") + token[index + 1 :]
        assert view_tokens.verify(changed, "res-1", now=NOW).status == "forged", index


@pytest.mark.parametrize(
    "garbage", [None, "", "x", "x" * 44, "=" * 44, "é" * 44, "\x00" * 44, "a" * 10_000]
)
def test_garbage_is_forged_and_never_raises(garbage):
    assert view_tokens.verify(garbage, "res-1", now=NOW).status == "forged"


def test_the_identity_is_the_same_however_often_a_token_comes_back():
    token = view_tokens.make("res-1", 2, RENDER, now=NOW)
    first = view_tokens.verify(token, "res-1", now=NOW).identity
    later = view_tokens.verify(token, "res-1", now=NOW + timedelta(minutes=5)).identity
    assert first == later and first is not None


def test_each_ad_of_a_render_and_each_render_has_its_own_identity():
    def identity(reservation, position, render):
        token = view_tokens.make(reservation, position, render, now=NOW)
        return view_tokens.verify(token, reservation, now=NOW).identity

    identities = {
        identity("res-1", 1, RENDER),
        identity("res-2", 1, RENDER),  # another slot's ad at the same position
        identity("res-3", 2, RENDER),
        identity("res-1", 1, b"another-rend"),
    }
    assert len(identities) == 4


def test_render_ids_differ():
    assert len({view_tokens.new_render_id() for _ in range(100)}) == 100

"""GET /api/me and the country backfill on authenticated requests."""

from __future__ import annotations

import logging

import pytest

from models.clock import now_iso
from models.db import db
from models.tables import User
from tests.factories import make_subscription, make_user, sign_in
from tests.fixtures import tables_to_clear


def test_me_reports_the_account(client):
    user = make_user(email="me@example.com", name="自分")
    body = sign_in(client, user)
    assert body == {
        "id": user.id,
        "name": "自分",
        "email": "me@example.com",
        "role": "member",
        "plan": "free",
        "creditBalance": 50,
        "bonusCredit": 0,
        "referralCode": user.referral_code,
        "referralCount": 0,
        "country": None,
    }


@pytest.mark.parametrize(
    ("plan", "status", "expected"),
    [
        ("plus", "active", "plus"),
        ("pro", "trialing", "pro"),
        ("pro", "canceled", "free"),
        ("plus", "incomplete", "free"),
    ],
)
def test_plan_comes_from_live_subscriptions(client, plan, status, expected):
    user = make_user()
    make_subscription(user, plan=plan, status=status)
    assert sign_in(client, user)["plan"] == expected


def test_referral_count_counts_only_rewarded_referrals(client):
    referrer = make_user()
    make_user(referred_by=referrer.id, referral_rewarded_at=now_iso())
    make_user(referred_by=referrer.id)
    assert sign_in(client, referrer)["referralCount"] == 1


@pytest.mark.parametrize(
    ("header", "expected"),
    [("JP", "JP"), ("XX", None), ("T1", None), (None, None), ("Japan", None), ("ZZ", None)],
)
def test_country_backfill_on_an_authenticated_request(client, header, expected):
    user = make_user()
    sign_in(client, user)
    headers = {"Edge-IPCountry": header} if header else {}
    body = client.get("/api/me", headers=headers).get_json()
    assert body["country"] == expected
    assert User.get_by_id(user.id).country == expected


def test_a_set_country_is_never_overwritten(client):
    user = make_user(country="FR")
    sign_in(client, user)
    assert client.get("/api/me", headers={"Edge-IPCountry": "JP"}).get_json()["country"] == "FR"


def _rows_everywhere() -> dict[str, int]:
    return {
        table: db.execute_sql(f"SELECT COUNT(*) FROM {table}").fetchone()[0]
        for table in tables_to_clear(db)
    }


@pytest.mark.parametrize(
    "path", ["/", "/search?q=猫", "/api/me", "/api/search?q=猫", "/api/ads/slots", "/ads/new"]
)
def test_anonymous_requests_write_nothing(client, path):
    """A visitor with a country header is not a user: no row anywhere, no session."""
    response = client.get(path, headers={"Edge-IPCountry": "JP"})
    assert response.status_code in (200, 302, 401)
    assert {table: n for table, n in _rows_everywhere().items() if n} == {}
    assert "session" not in response.headers.get("Set-Cookie", "")


def test_a_failing_backfill_does_not_block_the_request(client, monkeypatch, caplog):
    user = make_user()
    sign_in(client, user)

    def broken(*_a, **_k):
        raise RuntimeError("disk full")

    monkeypatch.setattr(User, "update", broken)
    with caplog.at_level(logging.ERROR):
        response = client.get("/api/me", headers={"Edge-IPCountry": "JP"})
    assert response.status_code == 200
    assert response.get_json()["country"] is None
    assert "country backfill failed" in caplog.text

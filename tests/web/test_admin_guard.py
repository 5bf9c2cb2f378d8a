"""Every /api/admin/ and /admin/ route requires the admin role."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from tests.factories import make_user, sign_in
from web.cli import main

ADMIN_API = ["/api/admin/queue", "/api/admin/counters"]
ADMIN_PAGES = ["/admin/"]


@pytest.mark.parametrize("path", ADMIN_API)
def test_admin_api_anonymous_is_401(client, path):
    assert client.get(path).status_code == 401


@pytest.mark.parametrize("path", ADMIN_API)
def test_admin_api_member_is_403(client, path):
    sign_in(client, make_user())
    response = client.get(path)
    assert response.status_code == 403
    assert response.get_json()["error"]["code"] == "forbidden"


@pytest.mark.parametrize("path", ADMIN_PAGES)
def test_admin_page_anonymous_goes_to_login(client, path):
    response = client.get(path)
    assert response.status_code == 302
    assert response.headers["Location"].startswith("/login?next=/admin/")


@pytest.mark.parametrize("path", ADMIN_PAGES)
def test_admin_page_member_is_403(client, path):
    sign_in(client, make_user())
    assert client.get(path).status_code == 403


def test_promoted_user_reaches_admin(client):
    user = make_user(email="boss@example.com")
    result = CliRunner().invoke(main, ["users", "promote", "Boss@Example.com"])
    assert result.exit_code == 0, result.output
    sign_in(client, user)
    assert client.get("/admin/").status_code == 200
    assert client.get("/api/admin/queue").status_code == 200
    assert client.post("/api/admin/queue/requeue", json={}).get_json() == {"requeued": 0}
    assert client.get("/api/me").get_json()["role"] == "admin"


def test_promoting_an_unknown_email_fails_clearly():
    result = CliRunner().invoke(main, ["users", "promote", "nobody@example.com"])
    assert result.exit_code != 0
    assert "nobody@example.com" in result.output

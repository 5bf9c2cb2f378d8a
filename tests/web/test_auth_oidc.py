"""Sign-in end to end against oidc-provider-mock running as a real local provider."""

from __future__ import annotations

import re
from dataclasses import replace
from html import unescape
from urllib.parse import parse_qs, urlsplit

import pytest
import requests
from oidc_provider_mock import run_server_in_thread

from models.tables import Account, Session, User
from tests.factories import make_video
from web.app import create_app


@pytest.fixture(scope="module")
def provider():
    with run_server_in_thread() as server:
        yield f"http://localhost:{server.server_port}"


@pytest.fixture
def app(settings, provider):
    app = create_app(
        replace(
            settings,
            oidc_issuer=provider,
            oidc_client_id="subsearch-test",
            oidc_client_secret="client-secret",
        )
    )
    app.config.update(TESTING=True)
    return app


def set_claims(provider, sub, **claims):
    response = requests.put(f"{provider}/users/{sub}", json=claims, timeout=5)
    assert response.ok, response.text


def go_to_provider(client, provider):
    response = client.get("/login?next=/account")
    assert response.status_code == 302
    location = response.headers["Location"]
    assert location.startswith(f"{provider}/oauth2/authorize")
    return location


def answer_at_provider(authorize_url, form):
    response = requests.post(authorize_url, data=form, allow_redirects=False, timeout=5)
    assert response.status_code == 302, response.text
    back = urlsplit(response.headers["Location"])
    assert back.path == "/auth/callback"
    return f"{back.path}?{back.query}"


def sign_in(client, provider, sub):
    callback = answer_at_provider(go_to_provider(client, provider), {"sub": sub})
    return callback, client.get(callback)


def test_first_sign_in_creates_the_user_from_the_provider(client, provider):
    set_claims(
        provider,
        "hanako",
        email="hanako@example.jp",
        name="山田花子",
        picture="https://img.example/h.png",
        email_verified=True,
    )
    _, response = sign_in(client, provider, "hanako")
    assert response.status_code == 302
    assert response.headers["Location"] == "/account"

    me = client.get("/api/me").get_json()
    assert (me["email"], me["name"]) == ("hanako@example.jp", "山田花子")
    user = User.get_by_id(me["id"])
    assert user.image == "https://img.example/h.png"
    assert len(user.referral_code) == 8
    assert Account.get(Account.user == user.id).subject == "hanako"


def test_a_returning_user_is_the_same_user(client, provider, app):
    set_claims(provider, "taro", email="taro@example.jp", name="太郎")
    sign_in(client, provider, "taro")
    first = client.get("/api/me").get_json()

    other_browser = app.test_client()
    sign_in(other_browser, provider, "taro")
    again = other_browser.get("/api/me").get_json()
    assert again["id"] == first["id"]
    assert again["referralCode"] == first["referralCode"]
    assert User.select().count() == 1
    assert Session.select().count() == 2


def test_a_replayed_callback_is_rejected(client, provider, app):
    set_claims(provider, "jiro", email="jiro@example.jp", name="次郎")
    callback, _ = sign_in(client, provider, "jiro")
    assert Session.select().count() == 1

    replay = client.get(callback)
    assert replay.status_code == 400
    assert app.test_client().get(callback).status_code == 400
    assert Session.select().count() == 1


def test_a_forged_callback_is_rejected(client, provider):
    go_to_provider(client, provider)
    response = client.get("/auth/callback?code=forged&state=forged")
    assert response.status_code == 400
    assert client.get("/auth/callback").status_code == 400
    assert User.select().count() == 0


def test_a_code_for_another_state_is_rejected(client, provider, app):
    set_claims(provider, "saburo", email="saburo@example.jp", name="三郎")
    callback = answer_at_provider(go_to_provider(client, provider), {"sub": "saburo"})
    code = parse_qs(urlsplit(callback).query)["code"][0]
    attacker = app.test_client()
    go_to_provider(attacker, provider)
    assert attacker.get(f"/auth/callback?code={code}&state=not-theirs").status_code == 400
    assert User.select().count() == 0


def test_denied_consent_signs_nobody_in(client, provider):
    callback = answer_at_provider(go_to_provider(client, provider), {"action": "deny"})
    assert "error=access_denied" in callback
    response = client.get(callback)
    assert response.status_code == 400
    assert "キャンセル" in response.get_data(as_text=True)
    assert User.select().count() == 0
    assert client.get("/api/me").status_code == 401


def test_login_when_signed_in_goes_straight_on(client, provider):
    set_claims(provider, "shiro", email="shiro@example.jp", name="四郎")
    sign_in(client, provider, "shiro")
    response = client.get("/login?next=/account")
    assert response.status_code == 302
    assert response.headers["Location"] == "/account"


def test_next_cannot_point_off_site(client, provider):
    set_claims(provider, "goro", email="goro@example.jp", name="五郎")
    response = client.get("/login?next=//evil.example/x")
    callback = answer_at_provider(response.headers["Location"], {"sub": "goro"})
    assert client.get(callback).headers["Location"] == "/"


def test_signing_in_from_a_video_moment_comes_back_to_it(client, provider):
    """The header's sign-in link carries the whole address (path and query) through the
    identity provider and back."""
    set_claims(provider, "rokuro", email="rokuro@example.jp", name="六郎")
    video = make_video()
    page = client.get(f"/videos/{video.id}?t=87&q=%E5%A4%A7%E9%98%AA").get_data(as_text=True)
    link = unescape(re.search(r'<a href="([^"]*)"[^>]*>ログイン</a>', page).group(1))
    response = client.get(link)
    assert response.status_code == 302
    callback = answer_at_provider(response.headers["Location"], {"sub": "rokuro"})
    back = client.get(callback).headers["Location"]
    assert back == f"/videos/{video.id}?t=87&q=%E5%A4%A7%E9%98%AA"

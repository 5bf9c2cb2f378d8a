"""The account page speaks the reader's language: plan names, dates, copy buttons for
the referral code and its share link, and the language and time zone form."""

from __future__ import annotations

import re
from dataclasses import replace
from urllib.parse import parse_qs, urlsplit

import pytest
from babel.core import get_global

from models.settings import get_settings, use_settings
from tests.factories import make_user, sign_in
from web.app import create_app
from web.i18n import time_zones


def test_the_plan_reads_as_a_name_not_a_code(client):
    sign_in(client, make_user())
    page = client.get("/account").get_data(as_text=True)
    assert "無料（毎月" in page
    assert ">free" not in page


@pytest.fixture
def public_app(settings):
    """The app as served at a public address other than the one the test client uses."""
    previous = get_settings()
    app = create_app(replace(settings, public_base_url="https://subsearch.example"))
    app.config.update(TESTING=True)
    yield app
    use_settings(previous)


def test_copy_buttons_and_a_share_link_that_fills_in_the_code(public_app):
    """The share link is the service's public address (PUBLIC_BASE_URL), not the one
    this request came in by; a friend who follows it signs in and finds the code filled."""
    app = public_app
    client = app.test_client()
    user = make_user()
    sign_in(client, user)
    page = client.get("/account").get_data(as_text=True)  # asked for at localhost
    assert f'data-copy="{user.referral_code}"' in page
    link = re.search(r"data-share-link>([^<]+)<", page).group(1)
    assert link == f"https://subsearch.example/account?ref={user.referral_code}"
    assert f'data-copy="{link}"' in page
    assert 'role="status"' in page and "コピーしました" in page

    target = urlsplit(link)
    friend_browser = app.test_client()
    to_sign_in = friend_browser.get(f"{target.path}?{target.query}")
    assert to_sign_in.status_code == 302
    sign_in_at = urlsplit(to_sign_in.headers["Location"])
    assert parse_qs(sign_in_at.query)["next"] == [f"/account?ref={user.referral_code}"]
    sign_in(friend_browser, make_user())
    filled = friend_browser.get(f"{target.path}?{target.query}").get_data(as_text=True)
    # the claim form's code field holds the friend's code
    assert re.search(rf'<input name="code"[^>]* value="{user.referral_code}"', filled)


def test_the_language_and_time_zone_form_shows_the_current_choice(client):
    sign_in(client, make_user())
    page = client.get("/account").get_data(as_text=True)
    assert 'action="/account/preferences"' in page
    assert '<option value="Asia/Tokyo"' in page
    token = re.search(r'name="csrf_token" value="([^"]+)"', page).group(1)
    saved = client.post(
        "/account/preferences",
        data={"locale": "en", "time_zone": "Europe/Paris", "csrf_token": token},
    )
    assert saved.status_code == 302
    english = client.get("/account").get_data(as_text=True)
    assert "Referral code" in english and "Language and time zone" in english
    assert '<option value="en" lang="en" selected>' in english
    assert '<option value="Europe/Paris" selected>' in english


def test_error_pages_speak_the_reader_language(client):
    page = client.get("/no-such-page").get_data(as_text=True)
    assert "このページは見つかりません。" in page and "Not found." not in page
    assert "エラー 404" in page
    english = client.get("/no-such-page", headers={"Accept-Language": "en"}).get_data(as_text=True)
    assert "This page does not exist." in english and "Error 404" in english
    api = client.get("/api/no-such-page").get_json()
    assert api["error"] == {"code": "not_found", "message": "Not found."}


def test_the_time_zones_read_as_places_with_japan_first(client):
    """Japan time first, then a group per region, each zone named by its country and
    city in the reader's words; the value stays the IANA name, and every zone of the
    database except aliases of another is offered."""
    sign_in(client, make_user())
    page = client.get("/account").get_data(as_text=True)
    select = re.search(r'<select name="time_zone">(.*?)</select>', page, re.S).group(1)
    options = re.findall(r'<option value="([^"]*)"[^>]*>([^<]*)</option>', select)
    assert options[0] == ("", "言語に合わせる")
    assert options[1] == ("Asia/Tokyo", "日本時間 (UTC+09:00)")
    assert not [text for _, text in options if "/" in text]
    groups = re.findall(r'<optgroup label="([^"]+)">', select)
    assert groups == [
        "アジア", "ヨーロッパ", "南北アメリカ", "オーストラリア", "太平洋", "アフリカ",
        "インド洋", "大西洋", "北極", "南極", "UTC からの時差",
    ]  # fmt: skip
    labels = dict(options)
    assert labels["America/New_York"].startswith("アメリカ合衆国 — ニューヨーク (UTC−0")
    assert labels["America/Argentina/Buenos_Aires"].startswith("アルゼンチン — ")
    assert labels["Etc/GMT+5"] == "UTC−05:00"  # five hours behind, whatever POSIX says
    assert labels["UTC"] == "協定世界時（UTC）"
    offered = {value for value, _ in options if value}
    aliases = get_global("zone_aliases")
    places = {z for z in time_zones() if "/" in z and z not in aliases and not z.startswith("Etc/")}
    assert places <= offered
    english = client.get("/account", headers={"Accept-Language": "en"})
    assert english.status_code == 200


def test_an_alias_stored_before_is_still_shown_as_the_choice(client):
    user = make_user(time_zone="US/Pacific")
    sign_in(client, user)
    page = client.get("/account").get_data(as_text=True)
    chosen = re.search(r'<option value="US/Pacific" selected>([^<]*)</option>', page)
    assert chosen and chosen.group(1).startswith("アメリカ合衆国 — ロサンゼルス")

"""The account page speaks the reader's language: plan names, dates, copy buttons for
the referral code and its share link, and the language and time zone form."""

from __future__ import annotations

import re
from urllib.parse import parse_qs, urlsplit

from tests.factories import make_user, sign_in


def test_the_plan_reads_as_a_name_not_a_code(client):
    sign_in(client, make_user())
    page = client.get("/account").get_data(as_text=True)
    assert "無料（毎月" in page
    assert ">free" not in page


def test_copy_buttons_and_a_share_link_that_fills_in_the_code(client):
    user = make_user()
    sign_in(client, user)
    page = client.get("/account").get_data(as_text=True)
    assert f'data-copy="{user.referral_code}"' in page
    link = re.search(r'data-share-link readonly value="([^"]+)"', page).group(1)
    parts = urlsplit(link.replace("&amp;", "&"))
    assert parts.path == "/login"
    target = parse_qs(parts.query)["next"][0]
    assert target == f"/account?ref={user.referral_code}"
    assert 'role="status"' in page and "コピーしました" in page

    friend = make_user()
    sign_in(client, friend)
    followed = client.get(parts.path + "?" + parts.query)
    assert followed.status_code == 302 and followed.headers["Location"].endswith(target)
    filled = client.get(target).get_data(as_text=True)
    assert f'autocomplete="off" value="{user.referral_code}"' in filled


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
    assert '<option value="en" selected>' in english
    assert '<option value="Europe/Paris" selected>' in english


def test_error_pages_speak_the_reader_language(client):
    page = client.get("/no-such-page").get_data(as_text=True)
    assert "このページは見つかりません。" in page and "Not found." not in page
    assert "エラー 404" in page
    english = client.get("/no-such-page", headers={"Accept-Language": "en"}).get_data(as_text=True)
    assert "This page does not exist." in english and "Error 404" in english
    api = client.get("/api/no-such-page").get_json()
    assert api["error"] == {"code": "not_found", "message": "Not found."}

"""Where sign-in sends people on: only a path of this site, whatever `next` says."""

from __future__ import annotations

import re
from html import unescape
from urllib.parse import quote

import pytest

from tests.factories import make_user, sign_in
from web.auth import _safe_next

OFF_SITE = [
    "/%5Cevil.example/",  # /\evil.example/: a browser reads it as //evil.example/
    "/%5C%5Cevil.example",
    "%5C%5Cevil.example",
    "//evil.example",
    "///evil.example",
    "https://evil.example",
    "https:evil.example",
    "javascript:alert(1)",
    "/%09/evil.example",  # browsers drop the tab: //evil.example
    "/%0A/evil.example",
    "/%0D/evil.example",
    "/%20/evil.example",
    "/%E3%80%80/evil.example",  # an ideographic space
    "evil.example",
    "",
]
ON_SITE = ["/account", "/videos/abc?t=5", "/search?q=%E5%A4%A7%E9%98%AA&page=2", "/ads/new#x"]


def dev_login_target(client, next_value) -> str:
    page = client.get(f"/login?next={next_value}").get_data(as_text=True)
    return unescape(re.search(r'<form id="dev-login"[^>]* data-next="([^"]*)"', page).group(1))


@pytest.mark.parametrize("target", OFF_SITE)
def test_a_signed_in_visitor_is_sent_home_instead_of_off_site(client, target):
    sign_in(client, make_user())
    response = client.get(f"/login?next={target}")
    assert response.status_code == 302
    assert response.headers["Location"] == "/"


@pytest.mark.parametrize("target", OFF_SITE)
def test_the_dev_login_page_navigates_home_instead_of_off_site(client, target):
    assert dev_login_target(client, target) == "/"


@pytest.mark.parametrize("target", ON_SITE)
def test_a_path_of_this_site_is_kept(client, target):
    assert dev_login_target(client, quote(target, safe="")) == target
    sign_in(client, make_user())
    response = client.get(f"/login?next={quote(target, safe='')}")
    assert response.headers["Location"] == target


@pytest.mark.parametrize(
    "target",
    [
        "/\\evil.example",
        "/\tevil",
        "/a\nb",
        "//x",
        "http://x/",
        "/ok\u2028",
        None,
        "/\x7f",
        "/\x00",
    ],
)
def test_the_checker_refuses_what_a_browser_would_read_as_another_host(target):
    assert _safe_next(target) == "/"


def test_the_checker_keeps_ordinary_paths():
    assert _safe_next("/videos/動画?t=1") == "/videos/動画?t=1"

"""The site's icon: every page links one, and /favicon.ico (asked for by browsers and
crawlers whatever a page says) answers with a real icon, kept by the browser a day."""

from __future__ import annotations

import io
import re

from PIL import Image


def test_every_page_links_the_icon_and_it_answers(client):
    html = client.get("/").get_data(as_text=True)
    (href,) = re.findall(r'<link rel="icon" href="([^"]+)" type="image/svg\+xml">', html)
    answer = client.get(href)
    assert answer.status_code == 200
    assert answer.mimetype == "image/svg+xml"
    assert answer.get_data(as_text=True).lstrip().startswith("<svg")
    assert "max-age=86400" in answer.headers["Cache-Control"]


def test_favicon_ico_is_an_icon_at_the_sizes_tabs_and_bookmarks_use(client):
    answer = client.get("/favicon.ico")
    assert answer.status_code == 200
    assert answer.mimetype == "image/vnd.microsoft.icon"
    assert "max-age=86400" in answer.headers["Cache-Control"]
    icon = Image.open(io.BytesIO(answer.get_data()))
    assert icon.format == "ICO"
    assert {(16, 16), (32, 32)} <= icon.info["sizes"]


def test_the_login_and_error_pages_link_it_too(client):
    for path in ("/login", "/no-such-page"):
        assert 'rel="icon"' in client.get(path).get_data(as_text=True), path

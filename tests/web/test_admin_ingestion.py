"""The ingestion panel of /admin (issue 44): the figures `subsearch ingest status` gives,
fetching or paused with why and until when, failures by kind over 24 hours, videos by
status and the Data API's units, in the admin's language."""

from __future__ import annotations

import re

import pytest

from models import ingest, platform_pause
from models.platform.quota import QuotaLedger
from tests.factories import make_admin, sign_in
from tests.fakes.platform_files import manual
from tests.web.test_i18n import japanese_on

CH = "UCadmi0admi0admi0admi0a1"


@pytest.fixture
def blocked(platform_files):
    """A video fetched, one broken, one met by a block (fetching paused)."""
    platform_files.channel(CH, ["admVideo001", "admVideo002", "admVideo003"])
    platform_files.video("admVideo001", CH, manual("一"))
    platform_files.video("admVideo002", CH, manual("二"), faults=["broken"])
    platform_files.video("admVideo003", CH, manual("三"), faults=["ip_blocked"])
    ingest.import_channel(CH)
    ingest.fetch_subtitles("admVideo001")
    ingest.fetch_subtitles("admVideo002")
    with pytest.raises(ingest.FetchLater):
        ingest.fetch_subtitles("admVideo003")
    QuotaLedger(10_000).spend(3)


def panel(client, language):
    html = client.get("/admin/", headers={"Accept-Language": language}).get_data(as_text=True)
    section = re.search(r"<section data-ingestion>(.*?)</section>", html, re.S)
    assert section, "no ingestion panel"
    return section.group(1)


def row(html, attribute, value):
    found = re.search(rf'<tr {attribute}="{value}"><th scope="row">(.*?)</th><td>(.*?)</td>', html)
    assert found, value
    return found.group(1), found.group(2)


def test_the_panel_says_paused_why_and_until_when_in_japanese(client, blocked):
    sign_in(client, make_admin())
    html = panel(client, "ja")
    assert "一時停止中：プラットフォームが本サービスのアドレスを拒否しています" in html
    assert "（アドレスのブロック）" in html
    assert re.search(r"\d{4}/\d\d/\d\d \d\d:\d\d JST に取得を再開します。", html)
    assert row(html, "data-failure", "broken") == ("その他の失敗", "1")
    assert row(html, "data-failure", "ip_blocked")[1] == "1"
    assert row(html, "data-status", "completed") == ("字幕取得済み", "1")
    assert row(html, "data-status", "failed") == ("失敗", "1")
    assert row(html, "data-status", "pending") == ("取得待ち", "1")
    assert "使用 3、残り 9,997" in html
    assert "<code>subsearch videos retry</code>" in html


def test_the_panel_in_english_and_while_fetching(client, blocked):
    platform_pause.answered()
    sign_in(client, make_admin(locale="en"))
    html = panel(client, "en")
    assert japanese_on(html) == []
    assert "<p data-fetching>Fetching.</p>" in html
    assert row(html, "data-status", "pending") == ("Waiting to be fetched", "1")
    assert "3 spent, 9,997 left" in html

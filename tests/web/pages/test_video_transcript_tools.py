"""The video page's transcript tools as the server writes them (issue 47): the files'
menu and the find box for a member with access, in the reader's language, and neither
for anyone else. How they behave in a browser: tests/browser/test_transcript_find.py."""

from __future__ import annotations

import re

import pytest

from models.credits import unlock_video
from models.platform.base import Cue, Subtitles
from models.subtitles import store_track
from tests.factories import make_user, make_video, sign_in

LINKS = re.compile(r'<a href="(/api/videos/[^"]+)" download data-download-format="(\w+)">')


@pytest.fixture
def video():
    found = make_video(title="大阪の夜")
    store_track(found.id, Subtitles("manual", "ja", [Cue(0, 2, "夜景です"), Cue(2, 4, "きれい")]))
    return found


def test_a_reader_with_access_gets_the_files_and_a_hidden_find_box(client, video):
    user = make_user()
    sign_in(client, user)
    unlock_video(user.id, video.id)
    page = client.get(f"/videos/{video.id}").get_data(as_text=True)
    # The three files, by the API's own address
    assert LINKS.findall(page) == [
        (f"/api/videos/{video.id}/subtitles?format={fmt}", fmt) for fmt in ("srt", "vtt", "txt")
    ]
    assert "<summary>字幕をダウンロード</summary>" in page
    # Find: hidden until its script shows it, labelled, its count a status
    assert re.search(r'<div class="transcript-find"[^>]* data-find hidden>', page)
    assert '<label id="find-label" for="find-input">字幕内を検索</label>' in page
    assert '<span class="find-count" role="status" data-find-count></span>' in page
    assert 'src="/static/transcript-find.js"' in page
    # Its words for the count, for the script (i18n.js)
    assert '"find_position": "{total} 件中 {current} 件目"' in page
    assert '"find_none": "見つかりません"' in page


def test_an_english_reader_gets_them_in_english_and_no_japanese_of_ours(client, video):
    user = make_user()
    sign_in(client, user)
    unlock_video(user.id, video.id)
    page = client.get(f"/videos/{video.id}", headers={"Accept-Language": "en"})
    html = page.get_data(as_text=True)
    tools = html[html.index('<details class="transcript-download"') : html.index("<ol")]
    assert "<summary>Download the subtitles</summary>" in tools
    assert ">Find in the subtitles</label>" in tools
    assert not re.search(r"[\u3040-\u30ff\u4e00-\u9fff]", tools), tools
    assert '"find_position": "{current} of {total}"' in html


@pytest.mark.parametrize("who", ["signed out", "locked"])
def test_no_files_and_no_find_without_access(client, video, who):
    if who == "locked":
        sign_in(client, make_user())
    page = client.get(f"/videos/{video.id}").get_data(as_text=True)
    assert "data-download" not in page
    assert "data-find" not in page
    assert "/subtitles?format=" not in page
    assert "transcript-find.js" not in page


def test_a_transcript_without_cues_offers_no_files(client):
    empty = make_video()
    store_track(empty.id, Subtitles("manual", "ja", []))
    user = make_user()
    sign_in(client, user)
    unlock_video(user.id, empty.id)
    page = client.get(f"/videos/{empty.id}").get_data(as_text=True)
    assert "<li>この動画には字幕がありません。</li>" in page
    assert "data-download" not in page and "data-find" not in page

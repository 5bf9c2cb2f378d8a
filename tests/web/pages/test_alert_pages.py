"""Alerts on the pages (issue 49): the search page's 通知 control saves the search being
looked at (its words, channels and meaning), offers a signed-out visitor to sign in and
says when the search is already an alert; the account page lists the member's own
alerts with their news, feed, paused mail and a delete button, and nobody else's."""

from __future__ import annotations

import json
import re
from urllib.parse import parse_qs, quote, urlsplit

import pytest

from models import alerts
from models.tables import Alert, AlertMatch
from tests.factories import make_channel, make_user, make_video, sign_in


def control(page: str) -> str:
    """The 通知 control's markup on a search page."""
    found = re.search(r'<details class="alert-me".*?</details>', page, flags=re.S)
    assert found, "no 通知 control on the page"
    return found.group(0)


def saved_body(page: str) -> dict:
    """What the control sends to POST /api/alerts (without the frequency chosen)."""
    found = re.search(r"data-alert='([^']*)'", control(page))
    assert found
    return json.loads(found.group(1).replace("&#39;", "'").replace("&amp;", "&"))


def alert_section(page: str) -> str:
    found = re.search(r'<section class="stack wide alerts" id="alerts".*?</section>', page, re.S)
    assert found, "no 通知 section on the account page"
    return found.group(0)


def test_the_control_saves_the_search_being_looked_at(client):
    channel = make_channel(title="ラーメン研究所")
    sign_in(client, make_user())
    page = client.get(
        f"/search?q=醤油 -カップ lang:ja&channels={channel.id}&semantic=1&sr=0.7"
    ).get_data(as_text=True)
    assert "<summary>" in control(page) and ">通知</summary>" in control(page)
    assert saved_body(page) == {
        "query": "醤油 -カップ lang:ja",
        "semantic": True,
        "sr": 0.7,
        "channels": [channel.id],
    }
    # In words too: the search, its channels, meaning; and how often to hear of news.
    assert "「醤油 -カップ lang:ja」に当てはまる新しい動画" in control(page)
    assert "チャンネル: ラーメン研究所。" in control(page)
    assert 'name="frequency" value="instant" checked' in control(page)
    assert 'name="frequency" value="daily"' in control(page)
    assert "alerts.js" in page


def test_a_plain_search_saves_its_words_alone(client):
    sign_in(client, make_user())
    page = client.get("/search?q=たこ焼き").get_data(as_text=True)
    assert saved_body(page) == {"query": "たこ焼き", "semantic": False}


def test_a_signed_out_visitor_is_offered_to_sign_in_and_come_back(client):
    page = client.get(f"/search?q={quote('たこ焼き')}&semantic=1").get_data(as_text=True)
    box = control(page)
    assert "data-alert-form" not in box
    link = re.search(r'href="([^"]+)" data-alert-sign-in', box).group(1).replace("&amp;", "&")
    assert urlsplit(link).path == "/login"
    assert parse_qs(urlsplit(link).query)["next"] == [f"/search?q={quote('たこ焼き')}&semantic=1"]


def test_a_search_already_saved_says_so(client):
    user = make_user()
    sign_in(client, user)
    alerts.create_alert(user.id, "たこ焼き", frequency="daily")
    page = client.get("/search?q=たこ焼き").get_data(as_text=True)
    assert "data-alert-already" in control(page)
    assert "data-alert-form" not in control(page)
    assert 'href="/account#alerts"' in control(page)
    # The same words by meaning are another search: offered.
    other = client.get("/search?q=たこ焼き&semantic=1").get_data(as_text=True)
    assert "data-alert-form" in control(other)


def test_a_refused_search_offers_no_alert(client):
    sign_in(client, make_user())
    answer = client.get("/search", query_string={"q": "醤油 -"})
    assert answer.status_code == 400
    assert 'class="alert-me"' not in answer.get_data(as_text=True)


def test_the_account_lists_the_alerts_with_their_news(client):
    user = make_user()
    sign_in(client, user)
    channel = make_channel(title="たこ焼き通信")
    video = make_video(channel, title="大阪のたこ焼き屋台")
    alert = alerts.create_alert(user.id, "たこ焼き", channels=[channel.id], frequency="instant")
    AlertMatch.create(
        alert=alert.id,
        video_id=video.id,
        start_seconds=83.5,
        end_seconds=90.0,
        highlight="<mark>たこ焼き</mark>は&lt;b&gt;熱い&lt;/b&gt;<img src=x>",
        found_at="2026-11-29T03:00:00.000Z",
    )
    alerts.create_alert(user.id, "明石焼き", semantic=True, frequency="daily")
    section = alert_section(client.get("/account").get_data(as_text=True))
    assert section.index("明石焼き") < section.index("たこ焼き")  # newest first
    assert "今のプランで 3 件中 2 件を登録しています。" in section
    item = re.search(rf'data-alert-id="{alert.id}".*?</li>\s*</ul>', section, re.S).group(0)
    assert (
        f'href="/search?q=%E3%81%9F%E3%81%93%E7%84%BC%E3%81%8D&amp;channels={channel.id}"' in item
    )
    assert "見つかるたびにすぐ・チャンネル: たこ焼き通信・" in item
    assert "新着 1 件" in item
    assert f'href="/videos/{video.id}?t=83.5&amp;q=' in item and "大阪のたこ焼き屋台" in item
    # Only the engine's marks are markup: anything else in a highlight is text.
    assert "<mark>たこ焼き</mark>は&lt;b&gt;熱い&lt;/b&gt;&lt;img src=x&gt;" in item
    feed = re.search(r'value="([^"]+)" data-feed-url', item).group(1)
    assert feed.endswith(f"/alerts/feed/{Alert.get_by_id(alert.id).feed_token}.atom")
    assert f'data-copy="{feed}"' in item
    assert "data-renew-feed" in item and "data-delete-alert" in item
    assert 'aria-label="通知「たこ焼き」を削除"' in item
    other = re.search(r'<li class="card alert-item".*?明石焼き.*?</li>', section, re.S).group(0)
    assert "1日1回まとめて・意味でも探す・" in other
    assert "新着動画はまだありません。" in other


def test_a_paused_alert_says_why(client):
    user = make_user()
    sign_in(client, user)
    alert = alerts.create_alert(user.id, "たこ焼き", frequency="instant")
    Alert.update(
        paused_at="2026-11-29T03:00:00.000Z", paused_reason="550 5.1.1 mailbox unavailable"
    ).where(Alert.id == alert.id).execute()
    section = alert_section(client.get("/account").get_data(as_text=True))
    paused = re.search(r'<div class="alert-paused".*?</div>', section, re.S).group(0)
    assert "この通知のメールは止まっています。" in paused
    assert "メールサーバーの応答: 550 5.1.1 mailbox unavailable" in paused
    assert "このページとフィードには引き続き表示されます" in paused
    assert "data-resume-alert" in paused and "メールを再開" in paused


@pytest.mark.parametrize("locale", ["en"])
def test_the_section_in_english(client, locale):
    user = make_user(locale=locale)
    sign_in(client, user)
    alerts.create_alert(user.id, "takoyaki", frequency="daily")
    section = alert_section(client.get("/account").get_data(as_text=True))
    assert ">Alerts</h2>" in section
    assert "Once a day, together" in section
    assert 'aria-label="Delete the alert “takoyaki”"' in section
    assert ">Delete</button>" in section
    assert "1 of 3 alerts in use on your plan." in section


def test_nobody_else_s_alerts_and_none_deleted(client):
    user, other = make_user(), make_user()
    alerts.create_alert(other.id, "他人の検索", frequency="daily")
    gone = alerts.create_alert(user.id, "消した検索", frequency="daily")
    alerts.delete_alert(user.id, gone.id)
    sign_in(client, user)
    section = alert_section(client.get("/account").get_data(as_text=True))
    assert "他人の検索" not in section and "消した検索" not in section
    assert re.search(r"<p class=\"note\" data-alerts-none>通知はまだありません。</p>", section)

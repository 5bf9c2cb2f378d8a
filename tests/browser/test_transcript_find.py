"""The transcript is the reader's (issue 47), on the video page: find in it by keyboard
alone (type, Enter, Shift+Enter, Esc), its count shown and said, the current match
marked apart and in sight; Japanese folded (katakana and hiragana, full-width and
half-width); and the transcript's files in a menu, for a member with access only."""

from __future__ import annotations

import os
import re

import pytest
from playwright.sync_api import expect

from models import ingest
from models.credits import unlock_video
from tests.browser.accessibility import audit, keep_in_report, not_allowed
from tests.browser.test_keyboard_reading import (
    focused,
    player,
    press,
    sign_in_quietly,
    tab_to,
)
from tests.factories import make_user
from tests.fixtures import PAGE_SCREENSHOTS, come_to_rest, keep_screenshot

__all__ = ["player"]  # the keyboard test's fixture, used here by name

CH = "UCtranscriptfindfind0001"
VIDEO = "findCurry01"
TITLE = "カレーの作り方"
SAID = [
    (1.0, "今日はカレーを作ります"),
    (5.0, "玉ねぎを切って炒めます"),
    *[(10.0 + 4 * i, f"{i + 1} 分ほど、じっくり炒めます") for i in range(24)],
    (120.0, "ここで ＣＵＲＲＹ パウダーを入れます"),
    (125.0, "かれーのいい匂いがしてきました"),
    (130.0, "ｶﾚｰ ライスの完成です"),
    (3700.0, "一時間後のおまけ: Curry は英語です"),
]
# The matches of カレー in reading order: カレー, かれー, ｶﾚｰ (folded alike)
CURRY = ["カレー", "かれー", "ｶﾚｰ"]
WIDTHS = (375, 1280)


@pytest.fixture
def curry(platform_files):
    cues = [{"start": start, "end": start + 3.5, "text": text} for start, text in SAID]
    platform_files.channel(CH, [VIDEO], title="料理チャンネル")
    platform_files.video(
        VIDEO,
        CH,
        {"type": "manual", "language": "ja", "cues": cues},
        title=TITLE,
        durationSeconds=3720,
    )
    ingest.import_channel(CH)
    ingest.fetch_subtitles(VIDEO)


def keep_view(page, name: str) -> None:
    """What the window shows (NAME-view.png) beside the whole page (NAME.png): the find
    box stays at the window's top, which a picture of the whole page cannot show."""
    keep_screenshot(page, name)
    if PAGE_SCREENSHOTS:
        page.screenshot(path=os.path.join(PAGE_SCREENSHOTS, f"{name}-view.png"))


def reader_of(page, site, email: str) -> None:
    member = make_user(email=email)
    unlock_video(member.id, VIDEO)
    sign_in_quietly(page, site, member.email)


# The current match is inside the window and inside the transcript's own scroll box (a
# phone's), below the find box that stays at the top of the window. The scroll may be
# smooth, so this is waited for.
IN_SIGHT = """() => {
  const mark = document.querySelector("mark.find-current");
  if (!mark) return false;
  const box = mark.getBoundingClientRect();
  const list = document.querySelector("[data-cues]").getBoundingClientRect();
  const find = document.querySelector("[data-find]").getBoundingClientRect();
  return box.top >= 0 && box.bottom <= innerHeight
    && box.top >= list.top - 1 && box.bottom <= list.bottom + 1
    && (box.top >= find.bottom || box.bottom <= find.top);
}"""


def current_in_sight(page) -> None:
    page.wait_for_function(IN_SIGHT, timeout=3000)


@pytest.mark.parametrize("width", WIDTHS)
def test_find_in_the_transcript_by_keyboard(page, site, curry, player, width):
    reader_of(page, site, f"find-keys-{width}@example.jp")
    page.set_viewport_size({"width": width, "height": 800})
    page.goto(f"{site}/videos/{VIDEO}?q=玉ねぎ")
    status = page.locator("[data-find] [role=status]")
    count = page.locator("[data-find-count]")
    current = page.locator("[data-cues] mark.find-current")
    # The search's own word is marked, as before
    expect(page.locator("[data-cues] mark")).to_have_text(["玉ねぎ"])
    # From the top of the page, by Tab: the files' menu, then the find field
    tab_to(page, "[data-download] summary")
    stop = press(page)
    assert focused(page, "[data-find-input]")
    assert stop["name"] in ("", "INPUT")  # a field: its name is its label, below
    expect(page.get_by_role("searchbox", name="字幕内を検索")).to_be_focused()
    # Typing finds katakana, hiragana and half-width katakana alike, the first current
    page.keyboard.type("カレー")
    expect(count).to_have_text("3 件中 1 件目")
    expect(status).to_have_text("3 件中 1 件目")
    expect(page.locator("[data-cues] mark.find-match")).to_have_text(CURRY)
    expect(current).to_have_count(1)
    expect(current).to_have_text("カレー")
    # Enter: the next match, marked apart and scrolled into sight
    page.keyboard.press("Enter")
    expect(status).to_have_text("3 件中 2 件目")
    expect(current).to_have_text("かれー")
    expect(current).to_have_css("background-color", "rgb(255, 181, 71)")
    expect(page.locator("mark.find-match:not(.find-current)").first).to_have_css(
        "background-color", "rgb(255, 241, 168)"
    )
    current_in_sight(page)
    page.keyboard.press("Enter")
    expect(status).to_have_text("3 件中 3 件目")
    expect(current).to_have_text("ｶﾚｰ")
    current_in_sight(page)
    # Past the last, the first again; Shift+Enter goes back, past the first to the last
    page.keyboard.press("Enter")
    expect(status).to_have_text("3 件中 1 件目")
    page.keyboard.press("Shift+Enter")
    expect(status).to_have_text("3 件中 3 件目")
    page.keyboard.press("Shift+Enter")
    expect(status).to_have_text("3 件中 2 件目")
    expect(current).to_have_text("かれー")
    # The focus never left the field; the buttons are the next stops
    assert focused(page, "[data-find-input]")
    keep_view(page, f"transcript-find-ja-{width}")
    press(page)
    assert focused(page, "[data-find-previous]")
    page.keyboard.press("Enter")
    expect(status).to_have_text("3 件中 1 件目")
    press(page)
    assert focused(page, "[data-find-next]")
    page.keyboard.press("Space")
    expect(status).to_have_text("3 件中 2 件目")
    # Capitals and full-width letters fold too, past the hour
    page.keyboard.press("Shift+Tab")
    page.keyboard.press("Shift+Tab")
    assert focused(page, "[data-find-input]")
    page.keyboard.press("Control+a")
    page.keyboard.type("curry")
    expect(page.locator("[data-cues] mark.find-match")).to_have_text(["ＣＵＲＲＹ", "Curry"])
    # A new word goes on from where the reader was (かれー, 2:05): the next match is past
    # the hour
    expect(status).to_have_text("2 件中 2 件目")
    expect(current.locator("xpath=ancestor::li")).to_have_attribute("data-start", "3700")
    current_in_sight(page)
    page.keyboard.press("Enter")
    expect(status).to_have_text("2 件中 1 件目")
    expect(current).to_have_text("ＣＵＲＲＹ")
    # Nothing found is said so
    page.keyboard.type("ZZ")
    expect(status).to_have_text("見つかりません")
    expect(page.locator("[data-cues] mark.find-match")).to_have_count(0)
    # Esc clears the field, the marks and the count; the search's own mark comes back
    page.keyboard.press("Escape")
    expect(page.locator("[data-find-input]")).to_have_value("")
    expect(status).to_have_text("")
    expect(page.locator("[data-cues] mark")).to_have_text(["玉ねぎ"])
    assert focused(page, "[data-find-input]")


def test_the_download_menu_by_keyboard_gives_each_file_named_after_the_video(
    page, site, curry, player
):
    reader_of(page, site, "find-files@example.jp")
    page.goto(f"{site}/videos/{VIDEO}")
    menu = page.locator("details[data-download]")
    expect(menu).not_to_have_attribute("open", "")
    links = menu.locator("a")
    expect(links.first).to_be_hidden()  # closed: nothing to Tab through
    tab_to(page, "[data-download] summary")
    assert page.locator("[data-download] summary").inner_text() == "字幕をダウンロード"
    page.keyboard.press("Enter")
    expect(menu).to_have_attribute("open", "")
    # Three links, each saying its format and what it is for
    expect(links).to_have_count(3)
    names = [links.nth(i).inner_text() for i in range(3)]
    assert names == [
        "SRT (.srt) – 動画プレーヤー・編集ソフト用",
        "WebVTT (.vtt) – ウェブのプレーヤー用",
        "テキスト (.txt) – 文字だけ",
    ]
    hrefs = [links.nth(i).get_attribute("href") for i in range(3)]
    assert hrefs == [f"/api/videos/{VIDEO}/subtitles?format={fmt}" for fmt in ("srt", "vtt", "txt")]
    # Each link, taken by Tab and Enter, downloads its file under the video's title
    for fmt in ("srt", "vtt", "txt"):
        press(page)
        assert focused(page, f"a[data-download-format={fmt}]")
        with page.expect_download() as download:
            page.keyboard.press("Enter")
        assert download.value.suggested_filename == f"{TITLE}.{fmt}"
        with open(download.value.path(), encoding="utf-8") as saved:
            body = saved.read()
        assert "カレー" in body and "ｶﾚｰ" in body
        if fmt == "srt":
            assert body.startswith("1\n00:00:01,000 --> 00:00:04,500\n今日はカレーを作ります\n\n")
            assert "01:01:40,000 --> 01:01:43,500" in body
        if fmt == "vtt":
            assert body.startswith("WEBVTT\n\n00:00:01.000 --> 00:00:04.500\n")
    # Back to the menu's summary, Enter closes it again
    for _ in range(3):
        page.keyboard.press("Shift+Tab")
    assert focused(page, "[data-download] summary")
    page.keyboard.press("Enter")
    expect(menu).not_to_have_attribute("open", "")


@pytest.mark.parametrize("who", ["signed out", "locked"])
def test_no_files_and_no_find_without_access(page, site, curry, player, who):
    if who == "locked":
        sign_in_quietly(page, site, make_user(email="find-locked@example.jp").email)
    page.goto(f"{site}/videos/{VIDEO}")
    page.wait_for_load_state("load")
    assert page.locator("[data-download]").count() == 0
    assert page.locator("[data-find]").count() == 0
    assert page.locator("a[href*='/subtitles?format=']").count() == 0


def test_without_script_the_find_box_stays_hidden(page_without_script, site, curry):
    member = make_user(email="find-noscript@example.jp")
    unlock_video(member.id, VIDEO)
    page = page_without_script
    assert page.request.post(f"{site}/auth/dev-login", data={"email": member.email}).ok
    page.goto(f"{site}/videos/{VIDEO}")
    expect(page.locator("[data-cues] > li")).to_have_count(len(SAID))
    expect(page.locator("[data-find]")).to_be_hidden()
    # The files need no script
    expect(page.locator("[data-download] summary")).to_be_visible()


@pytest.mark.parametrize("language", ["ja", "en"])
def test_find_and_files_in_the_readers_language(page, site, curry, player, language):
    reader_of(page, site, f"find-{language}@example.jp")
    page.goto(f"{site}/videos/{VIDEO}")
    if language == "en":
        # The footer's language menu, as a reader switches
        come_to_rest(page.get_by_role("button", name="English")).click()
        page.wait_for_url(re.compile(rf"/videos/{VIDEO}$"))
        assert page.evaluate("document.documentElement.lang") == "en"
    words = {
        "ja": ("字幕内を検索", "3 件中 1 件目", "3 件中 2 件目", "字幕をダウンロード"),
        "en": ("Find in the subtitles", "1 of 3", "2 of 3", "Download the subtitles"),
    }[language]
    field = page.get_by_role("searchbox", name=words[0])
    field.fill("カレー")
    status = page.locator("[data-find] [role=status]")
    expect(status).to_have_text(words[1])
    field.press("Enter")
    expect(status).to_have_text(words[2])
    expect(page.get_by_role("search", name=words[0])).to_be_visible()
    page.locator("[data-download] summary").click()
    expect(page.locator("[data-download] summary")).to_have_text(words[3])
    if language == "en":
        tools = page.locator("[data-download], [data-find]").all_inner_texts()
        assert not re.search(r"[\u3040-\u30ff\u4e00-\u9fff]", " ".join(tools)), tools
        assert page.locator("[data-download] a").all_inner_texts() == [
            "SRT (.srt) – for video players and editors",
            "WebVTT (.vtt) – for web players",
            "Plain text (.txt) – the words only",
        ]
    # The menu open, the field in use, its match in sight: axe finds nothing to fix, and
    # the pictures
    for width in WIDTHS:
        page.set_viewport_size({"width": width, "height": 800})
        field.press("Shift+Enter")
        field.press("Enter")
        current_in_sight(page)
        findings = audit(page, f"/videos/{VIDEO} find and files ({language}, {width} px)")
        keep_in_report(findings)
        assert not not_allowed(findings), "\n".join(f.line() for f in not_allowed(findings))
        keep_view(page, f"transcript-tools-{language}-{width}")


def test_who_asks_for_less_motion_is_taken_to_a_match_at_once(page, site, curry, player):
    reader_of(page, site, "find-motion@example.jp")
    page.emulate_media(reduced_motion="reduce")
    page.set_viewport_size({"width": 375, "height": 700})
    page.goto(f"{site}/videos/{VIDEO}")
    field = page.locator("[data-find-input]")
    field.fill("curry")
    field.press("Enter")
    # No smooth scroll to wait for: in sight as soon as the key is handled
    assert page.evaluate(IN_SIGHT)
    field.press("Enter")
    assert page.evaluate(IN_SIGHT)

"""What a screen reader is given on the reading pages: the results under their heading,
their count as a status, lists that hold only their items; the favourite star's name,
state and change said; the transcript's playing cue marked but not read out as it
moves, a jump to a moment said once; an unlock said; an ad's 広告 before its name; our
own English words marked as English."""

from __future__ import annotations

import re

from playwright.sync_api import expect

from models.ads.delivery import clear_process_cache
from models.credits import unlock_video
from tests.browser.test_ad_impressions import live
from tests.browser.test_keyboard_reading import focused, player, sign_in_quietly, tab_to
from tests.browser.test_moment_cues import CH, VIDEO, walk
from tests.browser.test_page_widths import SEARCH, videos
from tests.factories import make_user

__all__ = ["player", "videos", "walk"]  # fixtures of other tests, used here by name

# Every text the element takes, in order, as a screen reader would hear it change.
RECORD = """(selector) => {
  const box = document.querySelector(selector);
  window.__said = [];
  new MutationObserver(() => {
    const words = box.textContent.trim();
    if (words) window.__said.push(words);
  }).observe(box, {childList: true, characterData: true, subtree: true});
}"""


def said(page) -> list[str]:
    return page.evaluate("window.__said")


def test_the_results_are_a_region_under_a_heading_with_their_count_as_a_status(page, site, videos):
    page.goto(f"{site}{SEARCH}")
    # One h1, the results' own, which names their region; the skip link goes there
    assert page.locator("h1").count() == 1
    results = page.get_by_role("region", name="「ラーメン」の検索結果")
    expect(results).to_have_attribute("id", "results")
    assert page.locator(".skip-link").get_attribute("href") == "#results"
    # The count is a status inside it, and in the title a new search or filter loads
    # with, which a screen reader says first
    count = results.get_by_role("status")
    expect(count).to_have_text(f"{len(videos)} 件")
    assert page.title() == f"「ラーメン」の検索結果（{len(videos)} 件） · subsearch"
    # The midroll sits between two lists of results, not inside one; the second list
    # goes on counting from the first
    lists = page.locator("ol.results")
    expect(lists).to_have_count(2)
    assert page.locator("ol.results > :not(li)").count() == 0
    assert lists.nth(1).get_attribute("start") == "13"
    assert page.locator("ol.results + [data-ad-slot=search-result-midroll] + ol.results").count()


def test_the_favourite_star_says_its_name_its_state_and_what_changed(page, site, walk):
    member = make_user(email="reader-star@example.jp")
    sign_in_quietly(page, site, member.email)
    page.goto(f"{site}/search?q=天満")
    star = page.get_by_role("button", name="大阪グルメ散歩 をお気に入りに追加")
    expect(star).to_have_attribute("aria-pressed", "false")
    page.evaluate(RECORD, "[data-favourite-said]")
    tab_to(page, "li.result [data-favourite-channel]")
    page.keyboard.press("Space")
    star = page.locator("li.result [data-favourite-channel]")
    expect(star).to_have_attribute("aria-pressed", "true")
    expect(star).to_have_accessible_name("大阪グルメ散歩 をお気に入りから外す")
    status = page.get_by_role("status").filter(has_text="お気に入り")
    expect(status).to_have_text("大阪グルメ散歩 をお気に入りに追加しました。")
    # The keyboard is still on the star: the reader goes on from where they were
    assert focused(page, "li.result [data-favourite-channel]")
    page.keyboard.press("Enter")
    expect(star).to_have_attribute("aria-pressed", "false")
    expect(status).to_have_text("大阪グルメ散歩 をお気に入りから外しました。")
    assert said(page) == [
        "大阪グルメ散歩 をお気に入りに追加しました。",
        "大阪グルメ散歩 をお気に入りから外しました。",
    ]


def play_to(page, seconds: float) -> None:
    """The player reports its time, as it does while it plays."""
    frame = next(f for f in page.frames if "youtube-nocookie" in f.url)
    frame.evaluate(
        "(t) => parent.postMessage(JSON.stringify("
        "{event: 'infoDelivery', info: {currentTime: t}}), '*')",
        seconds,
    )


def test_the_playing_cue_is_marked_not_read_out_and_a_jump_is_said_once(page, site, walk, player):
    member = make_user(email="reader-cues@example.jp")
    unlock_video(member.id, VIDEO)
    sign_in_quietly(page, site, member.email)
    page.goto(f"{site}/videos/{VIDEO}")
    cues = page.locator("[data-cues]")
    cues.wait_for()
    # Neither the transcript nor anything around it is a live region
    live_around = cues.evaluate(
        "el => { for (let up = el; up; up = up.parentElement) {"
        " if (up.matches('[aria-live], [role=status], [role=log], [role=alert], [role=marquee]'))"
        " return up.outerHTML.slice(0, 80); } return null; }"
    )
    assert live_around is None
    page.evaluate(RECORD, "[data-announce]")
    # As it plays, the cue being played is aria-current, and nothing is said
    play_to(page, 21)
    expect(cues.locator("li[aria-current=true]")).to_have_attribute("data-start", "20.4")
    play_to(page, 82)
    expect(cues.locator("li[aria-current=true]")).to_have_attribute("data-start", "81.5")
    expect(cues.locator("li[aria-current=true]")).to_have_count(1)
    page.wait_for_timeout(700)  # longer than any announcement waits
    assert said(page) == []
    # A jump by keyboard to a cue is said once, politely, with its time
    tab_to(page, "[data-cues] a[data-seek='87.84']")
    page.keyboard.press("Enter")
    announcer = page.locator("[data-announce]")
    expect(announcer).to_have_text("1:27 から再生します。")
    assert announcer.get_attribute("role") == "status"
    play_to(page, 88)
    play_to(page, 94)
    expect(cues.locator("li[aria-current=true]")).to_have_attribute("data-start", "93.1")
    page.wait_for_timeout(300)
    assert said(page) == ["1:27 から再生します。"]


def test_a_moment_opened_from_the_results_says_where_the_video_starts(page, site, walk, player):
    """Signed out, without the transcript: the player starts at the moment, and the page
    says so once."""
    page.goto(f"{site}/videos/{VIDEO}?t=87.84&q=全部で")
    expect(page.get_by_role("status")).to_have_text("動画は 1:27 から始まります。")


def test_an_unlock_is_said_once_and_not_again_on_a_reload(page, site, walk, player):
    member = make_user(email="reader-unlock@example.jp", credit_balance=5)
    sign_in_quietly(page, site, member.email)
    page.goto(f"{site}/videos/{VIDEO}")
    # The region is on the page, empty, before the words come
    announcer = page.locator("[role=status][data-announce]")
    expect(announcer).to_have_text("")
    tab_to(page, "[data-unlock]")
    page.keyboard.press("Enter")
    page.locator("[data-unlocked]").wait_for()
    expect(announcer).to_have_text(
        re.compile(r"^1 クレジットで解除しました.*残りは 4 クレジットです。$")
    )
    page.reload()
    page.locator("[data-cues]").wait_for()
    page.wait_for_timeout(700)
    expect(announcer).to_have_text("")


def test_an_ad_card_says_its_label_before_its_advertiser(page, site, walk):
    live("video-detail-below-player", "読み上げ順の広告主")
    clear_process_cache()
    page.goto(f"{site}/videos/{VIDEO}")
    card = page.locator(".ad-direct")
    # and that it opens a new tab, as every link that does says
    expect(card).to_have_accessible_name("広告 読み上げ順の広告主 （新しいタブで開きます）")
    assert card.locator("img").get_attribute("alt") == ""  # the name is not said twice
    # The house cards too: their label first, in every slot
    labels_first = page.eval_on_selector_all(
        ".ad-card", "cards => cards.map(c => c.firstElementChild.classList.contains('ad-label'))"
    )
    assert labels_first and all(labels_first)


def test_our_english_words_in_a_japanese_page_are_marked_english(page, site, walk):
    page.goto(f"{site}/search?q=天満&channels={CH}")
    assert page.evaluate("document.documentElement.lang") == "ja"
    # The query language's operators, the same in every language
    codes = page.locator("#search-help dt code")
    english = codes.evaluate_all(
        "cs => cs.filter(c => /^[a-z]+[:*]/.test(c.textContent))"
        ".map(c => [c.textContent, c.closest('[lang]').lang])"
    )
    assert english and all(lang == "en" for _, lang in english), english
    # Each language's name, in its own language
    assert page.get_by_role("button", name="English").get_attribute("lang") == "en"

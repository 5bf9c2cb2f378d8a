"""Every moment of a result on /search (issue 47): a card showing three of a video's
moments offers the rest (「あと N 件」), which opens them in place by keyboard, a page
at a time, focus on the first added and a status saying how many came; without script it
is a link to the video with the words. In Japanese and in English, on a phone and a
desktop."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from models import ingest
from models.ads.delivery import clear_process_cache
from tests.browser.accessibility import audit, not_allowed
from tests.fixtures import keep_screenshots_at
from tests.web.api.test_search_api import spaced

CH = "UCmoremomentsmoremoment1"
MANY, FEW = "manyMoment1", "fewMoments1"
SAID = 25  # moments of the first video: 3 shown, 17 on the first page, 5 on the second
HOSTILE = '<img src="x" data-hostile>'  # said in a subtitle: shown as text, never a tag


@pytest.fixture
def moments(platform_files):
    platform_files.channel(CH, [MANY, FEW], title="麺のチャンネル")
    said = [f"ラーメンの話 {n} です。" for n in range(SAID)]
    said[SAID - 1] = f"{HOSTILE} ラーメンの話はこれで終わりです。"
    platform_files.video(MANY, CH, spaced(*said), title="一日中ラーメンの話")
    platform_files.video(FEW, CH, spaced("ラーメンを一杯。"), title="一杯だけ")
    ingest.import_channel(CH)
    for video_id in (MANY, FEW):
        ingest.fetch_subtitles(video_id)
    clear_process_cache()


def card(page, video_id):
    return page.locator(f'li.result[data-video-id="{video_id}"]')


def test_the_rest_of_the_moments_open_in_place_by_keyboard(page, site, moments, violations):
    page.goto(f"{site}/search?q=ラーメン")
    many = card(page, MANY)
    listed = many.locator(".moments > .moment")
    expect(listed).to_have_count(3)
    # A video with no more moments than it shows offers none
    expect(card(page, FEW).locator(".more-moments")).to_have_count(0)

    # The offer is a button naming the count and, for a screen reader, the video
    named = many.get_by_role("button", name="「一日中ラーメンの話」の場面をあと 22 件")
    expect(named).to_have_text("あと 22 件")
    more = many.locator("button.more-moments-button")
    keep_screenshots_at(page, "more-moments-ja-closed")

    # When it is pressed from the keyboard
    more.focus()
    page.keyboard.press("Enter")

    # Then the next page of moments follows the shown ones, focus on the first added,
    # and a status says how many came
    expect(listed).to_have_count(20)
    expect(listed.nth(3).locator(".timestamp")).to_be_focused()
    expect(many.locator("[role=status]")).to_have_text("場面を 17 件追加しました。")
    expect(more).to_have_text("あと 5 件")
    expect(more).to_have_attribute("aria-label", "「一日中ラーメンの話」の場面をあと 5 件")
    keep_screenshots_at(page, "more-moments-ja-open")
    # each drawn as the server draws one: its time into the video, the words marked, and
    # the platform at that time, in the order the API lists them
    api = page.request.get(f"{site}/api/videos/{MANY}/moments?q=ラーメン&perPage=100").json()
    fourth = api["moments"][3]
    opens = next(cue["start"] for cue in fourth["cues"] if "<mark>" in cue["highlight"])
    seconds = f"{opens:.2f}".rstrip("0").rstrip(".")
    added = listed.nth(3)
    expect(added.locator(".timestamp")).to_have_attribute(
        "href", f"/videos/{MANY}?t={seconds}&q=%E3%83%A9%E3%83%BC%E3%83%A1%E3%83%B3"
    )
    minutes, secs = divmod(int(opens), 60)
    expect(added.locator(".timestamp")).to_have_text(f"{minutes}:{secs:02d}")
    expect(added.locator("mark")).to_have_text("ラーメン")
    expect(added.locator(".cue")).to_have_count(len(fourth["cues"]))
    expect(added.locator(".platform-link")).to_have_attribute(
        "href", f"https://www.youtube.com/watch?v={MANY}&t={int(opens)}s"
    )
    # the same markup as a moment the server drew: the same classes in the same order
    drawn = "item => [...item.querySelectorAll('*')].map(node => node.className).join(' ')"
    assert added.evaluate(drawn) == listed.nth(1).evaluate(drawn)
    # the platform link says what the server's say, at its own time
    shown = listed.first.locator(".platform-link").get_attribute("aria-label")
    first_time = listed.first.locator(".timestamp").inner_text()
    expect(added.locator(".platform-link")).to_have_attribute(
        "aria-label", shown.replace(first_time, f"{minutes}:{secs:02d}")
    )

    # And the last page comes with Space on the button, which then goes
    more.focus()
    page.keyboard.press("Space")
    expect(listed).to_have_count(SAID)
    expect(listed.nth(20).locator(".timestamp")).to_be_focused()
    expect(many.locator("[role=status]")).to_have_text("場面を 5 件追加しました。")
    expect(more).to_have_count(0)
    # every moment once, the added ones in the API's order, each opened where it matched
    starts = listed.evaluate_all("items => items.map(item => Number(item.dataset.start))")
    assert starts == [30.0 * n for n in range(SAID)]
    assert api["totalMoments"] == SAID
    # What a subtitle says is text, never markup
    last = listed.last
    expect(last).to_contain_text(HOSTILE)
    expect(many.locator("[data-hostile]")).to_have_count(0)
    assert last.locator("mark").count() == 1
    assert violations == []
    # and axe finds nothing to fail on the opened card
    assert not_allowed(audit(page, "/search (moments opened, ja)")) == []

    keep_screenshots_at(page, "more-moments-ja")
    # The opened card fits a phone and a desktop: nothing wider than the screen
    for width in (375, 1280):
        page.set_viewport_size({"width": width, "height": 800})
        assert page.evaluate("document.documentElement.scrollWidth") <= width


def test_in_english_it_says_how_many_more(page, site, moments):
    page.goto(f"{site}/search?q=ラーメン")
    page.locator("footer").get_by_role("button", name="English").click()
    many = card(page, MANY)

    named = many.get_by_role("button", name="22 more moments in “一日中ラーメンの話”")
    expect(named).to_have_text("22 more")
    more = many.locator("button.more-moments-button")
    more.focus()
    page.keyboard.press("Enter")

    expect(many.locator(".moments > .moment")).to_have_count(20)
    expect(many.locator("[role=status]")).to_have_text("17 more moments shown.")
    expect(more).to_have_text("5 more")
    assert not_allowed(audit(page, "/search (moments opened, en)")) == []
    keep_screenshots_at(page, "more-moments-en")


def test_by_meaning_the_rest_follow_the_same_search(page, site, moments):
    # The search's own conditions go with the button: by meaning, its subtitles only
    page.goto(f"{site}/search?q=ラーメン&semantic=1&sr=0.3&target=subtitle")
    more = card(page, MANY).locator("button.more-moments-button")
    with page.expect_request(lambda request: "/moments?" in request.url) as asked:
        more.click()
    url = asked.value.url
    assert "semantic=1" in url and "sr=0.3" in url and "target=subtitle" in url
    expect(card(page, MANY).locator(".moments > .moment")).to_have_count(20)


def test_a_failure_is_said_and_the_button_stays(page, site, moments):
    page.goto(f"{site}/search?q=ラーメン")
    page.route("**/api/videos/*/moments*", lambda route: route.fulfill(status=503, body="{}"))
    many = card(page, MANY)
    more = many.locator("button.more-moments-button")

    more.focus()
    page.keyboard.press("Enter")

    expect(many.locator("[role=status]")).to_have_text(
        "ほかの場面を読み込めませんでした。もう一度お試しください。"
    )
    expect(many.locator(".moments > .moment")).to_have_count(3)
    expect(more).to_be_focused()


def test_without_script_the_offer_opens_the_video_with_the_words(
    page_without_script, site, moments
):
    page = page_without_script
    page.goto(f"{site}/search?q=ラーメン")

    link = card(page, MANY).get_by_role("link", name="「一日中ラーメンの話」の場面をあと 22 件")

    expect(link).to_have_text("あと 22 件")
    expect(link).to_have_attribute("href", f"/videos/{MANY}?q=%E3%83%A9%E3%83%BC%E3%83%A1%E3%83%B3")

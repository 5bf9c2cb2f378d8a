"""Japanese on a phone breaks lines between phrases, never inside a word: 言葉 is not
drawn as 言 / 葉, 掲載しませんか not as 掲載しませ / んか, 1 か月 not as 1 / か月
(site.css: word-break: auto-phrase under lang="ja"; a number and its unit kept together)."""

from __future__ import annotations

import pytest

from tests.browser.test_first_run import sample  # noqa: F401  (the sample data, loaded)
from tests.browser.test_purchase_form import sign_in
from tests.factories import make_profile, make_user
from tests.fixtures import broken_inside, keep_screenshots_at

PHONE = 375


def at_phone_width(page, url: str) -> None:
    page.set_viewport_size({"width": PHONE, "height": 800})
    page.goto(url)
    page.wait_for_load_state("networkidle")


def words_broken(page, phrases: list[str]) -> list[str]:
    return [phrase for phrase in phrases if broken_inside(page, phrase)]


def test_the_home_page_keeps_its_words_whole(page, site, sample):  # noqa: F811
    at_phone_width(page, f"{site}/")
    broken = words_broken(page, ["言葉", "検索できます"])
    keep_screenshots_at(page, "line-breaks-home", widths=(PHONE,))
    assert broken == []


def test_the_house_cards_on_the_search_page_keep_their_words_whole(page, site, sample):  # noqa: F811
    at_phone_width(page, f"{site}/search?q=たこ焼き")
    broken = words_broken(page, ["掲載しませんか", "1 か月", "関連度"])
    keep_screenshots_at(page, "line-breaks-search", widths=(PHONE,))
    assert broken == []


def test_the_purchase_form_keeps_a_number_with_its_unit(page, site):
    advertiser = make_user(email="line-breaks@example.jp")
    make_profile(advertiser)
    sign_in(page, site, advertiser.email)
    at_phone_width(page, f"{site}/ads/new")
    page.locator("[data-price]").filter(has_text="か月").wait_for()
    broken = words_broken(page, ["1 か月", "前払い"])
    keep_screenshots_at(page, "line-breaks-ads-new", widths=(PHONE,))
    assert broken == []


@pytest.mark.parametrize("phrase", ["掲載しませんか", "1 か月"])
def test_the_measure_sees_a_phrase_split_over_two_lines(page, site, phrase):
    """broken_inside itself: the same words in a column too narrow for them are split."""
    page.goto(f"{site}/no-such-page")
    page.evaluate(
        """(phrase) => {
          const p = document.createElement("p");
          p.style.width = "3.5em";
          p.style.wordBreak = "break-all";
          p.textContent = "この枠に広告を" + phrase;
          document.querySelector("main").prepend(p);
        }""",
        phrase,
    )
    assert broken_inside(page, phrase)

"""Every page reflows (WCAG 1.4.10): at 320 CSS px wide, and at 200% zoom of a
1280 x 800 window, nothing scrolls sideways and no text is cut off; and a reader who
asks for less motion gets none.

200% zoom is emulated as Chromium lays it out: a page zoomed to 200% in a 1280 x 800
window has a viewport of 640 x 400 CSS px drawn at two device pixels per CSS px, which
is what a browser context of that viewport and device scale factor 2 gives."""

from __future__ import annotations

import pytest

from models.credits import unlock_video
from tests.browser.conftest import keep_to_site
from tests.browser.test_keyboard_reading import sign_in_quietly, stand_in_player
from tests.browser.test_page_widths import (
    SEARCH,
    advertiser_pages,
    problems_at,
    reading_pages,
    videos,
)
from tests.factories import make_admin, make_profile, make_user
from tests.fixtures import REAL_BROWSER_UA

__all__ = ["videos"]  # the width test's fixture, used here by name

# Text cut off by a box that hides its overflow: the outermost few, to name in a failure.
# What is hidden on purpose (for screen readers only, the closed skip link) is left out.
CLIPPED = """() => [...document.body.querySelectorAll("*")].filter(el => {
  if (el.closest(".visually-hidden, .skip-link, .balance-wide, [aria-hidden=true]")) return false;
  if (!el.textContent.trim() || !el.getClientRects().length) return false;
  // A box of a pixel or less is hidden for screen readers on purpose (the phone's card
  // list keeps its table's header so), not cut off.
  const box = el.getBoundingClientRect();
  if (box.width <= 1 || box.height <= 1) return false;
  const s = getComputedStyle(el);
  const hides = (value) => value === "hidden" || value === "clip";
  return (hides(s.overflowX) && el.scrollWidth > el.clientWidth + 1)
      || (hides(s.overflowY) && el.scrollHeight > el.clientHeight + 1);
}).slice(0, 3).map(el => el.tagName.toLowerCase() + "." + [...el.classList].join(".")
  + " " + JSON.stringify(el.textContent.trim().slice(0, 40)))"""


def reflow_problems(page, site, paths: list[str], width: int) -> list[str]:
    stand_in_player(page)  # the video pages' first Tab is the page's (see `player`)
    found = []
    for path in paths:
        status = 404 if "no-such" in path else 200
        found += problems_at(page, f"{site}{path}", width, status)
        found += [f"{path} at {width}: {clip} is cut off" for clip in page.evaluate(CLIPPED)]
        # The skip link, once focused, is in sight and widens nothing
        page.keyboard.press("Tab")
        box = page.locator(".skip-link").bounding_box()
        if not (box and box["x"] >= 0 and box["x"] + box["width"] <= width):
            found.append(f"{path} at {width}: the focused skip link leaves the screen")
    return found


def member_pages(videos) -> list[str]:
    return [SEARCH, f"/videos/{videos[1]}", f"/videos/{videos[2]}", "/logout"]


@pytest.fixture
def member(page, site, videos):
    """A member who has read videos[1] (its transcript, with a word wider than a phone)
    and has the credits to unlock videos[2] (its unlock box)."""
    user = make_user(email="reflow-member@example.jp", credit_balance=10)
    unlock_video(user.id, videos[1])
    return user


def test_the_reading_pages_fit_320_css_px(page, site, videos, member):
    public = [*reading_pages(videos), "/login", "/terms"]
    found = reflow_problems(page, site, public, 320)
    sign_in_quietly(page, site, member.email)
    found += reflow_problems(page, site, member_pages(videos), 320)
    assert not found, "\n".join(found)


@pytest.fixture
def zoomed(browser, site):
    """A 1280 x 800 window at 200% zoom: 640 x 400 CSS px at two device pixels each."""
    context = browser.new_context(
        viewport={"width": 640, "height": 400},
        device_scale_factor=2,
        user_agent=REAL_BROWSER_UA,
        locale="ja-JP",
        timezone_id="Asia/Tokyo",
        extra_http_headers={"Edge-IPCountry": "JP", "Accept-Language": "ja"},
    )
    keep_to_site(context, site)
    yield context.new_page()
    context.close()


def test_the_reading_pages_fit_at_200_percent_zoom(zoomed, site, videos, member):
    assert zoomed.evaluate("[innerWidth, devicePixelRatio]") == [640, 2]
    public = [*reading_pages(videos), "/login", "/terms"]
    found = reflow_problems(zoomed, site, public, 640)
    sign_in_quietly(zoomed, site, member.email)
    found += reflow_problems(zoomed, site, member_pages(videos), 640)
    assert not found, "\n".join(found)


MOTION = """() => {
  const s = getComputedStyle(document.querySelector("[data-meaning-switch]"));
  const knob = getComputedStyle(document.querySelector("[data-meaning-switch]"), "::before");
  return [parseFloat(s.transitionDuration), parseFloat(knob.transitionDuration),
          getComputedStyle(document.documentElement).scrollBehavior];
}"""


def test_a_reader_who_asks_for_less_motion_gets_none(page, site, videos):
    page.goto(f"{site}{SEARCH}")
    switch, knob, _ = page.evaluate(MOTION)
    assert switch > 0.1 and knob > 0.1  # the switch slides for everyone else
    page.emulate_media(reduced_motion="reduce")
    switch, knob, scrolling = page.evaluate(MOTION)
    assert switch < 0.001 and knob < 0.001
    assert scrolling == "auto"


@pytest.fixture
def working_pages(site):
    """The pages of an advertiser and an admin, one user both (an admin may advertise),
    with a reservation waiting for review and one paid."""
    admin = make_admin(email="reflow-admin@example.jp")
    profile = make_profile(admin, business_legal_name="株式会社とても長い名前の広告主")
    paths = [
        "/account",
        *advertiser_pages(admin, profile, "pi_reflow"),
        "/admin/",
        "/admin/ads",
        "/admin/ads/report",
        "/admin/revenue",
    ]
    return admin, paths


def test_the_working_pages_fit_320_css_px(page, site, working_pages):
    """An advertiser's and an admin's pages, and the account's: wide tables scroll in
    their own box, nothing else does."""
    admin, paths = working_pages
    sign_in_quietly(page, site, admin.email)
    found = reflow_problems(page, site, paths, 320)
    assert not found, "\n".join(found)


def test_the_working_pages_fit_at_200_percent_zoom(zoomed, site, working_pages):
    admin, paths = working_pages
    sign_in_quietly(zoomed, site, admin.email)
    found = reflow_problems(zoomed, site, paths, 640)
    assert not found, "\n".join(found)

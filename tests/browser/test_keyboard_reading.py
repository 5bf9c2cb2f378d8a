"""The reading pages by keyboard alone, on a phone and on a desktop: search from the home
page, skip to the results, open a moment at its time; unlock a video's subtitles. Every
stop shows a focus ring that stands out, in sight, in the page's reading order, the
skip link first. Only keys once a journey's page has loaded: no clicks."""

from __future__ import annotations

import contextlib
import re

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout
from playwright.sync_api import expect

from models.credits import unlock_video
from models.tables import User
from tests.browser.test_moment_cues import PLAYER, VIDEO, walk
from tests.factories import make_user, make_video
from tests.fixtures import keep_screenshot

__all__ = ["walk"]  # the moment test's fixture, used here by name

WIDTHS = (375, 1280)

# The element the keyboard is on, as a person sees it: in sight, with a ring (an outline
# of 2 px or more, or a shadow) whose colour stands 3:1 against what it is drawn on, and
# after the previous stop in the page's order (None on a page's first stop).
FOCUSED = """() => {
  const el = document.activeElement;
  if (!el || el === document.body) return {name: "(nothing)", visible: false, ring: false};
  const style = getComputedStyle(el);
  const box = el.getBoundingClientRect();
  const visible = box.width > 0 && box.height > 0 && box.bottom > 0 && box.right > 0
    && box.top < innerHeight && box.left < innerWidth && style.visibility !== "hidden";
  const width = parseFloat(style.outlineWidth) || 0;
  const outlined = style.outlineStyle !== "none" && width >= 2;
  const rgb = (colour) => (colour.match(/[\\d.]+/g) || []).map(Number);
  const lum = ([r, g, b]) => {
    const f = (v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; };
    return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b);
  };
  let behind = [255, 255, 255];
  for (let up = el.parentElement; up; up = up.parentElement) {
    const c = rgb(getComputedStyle(up).backgroundColor);
    if (c.length >= 3 && (c.length < 4 || c[3] > 0.5)) { behind = c.slice(0, 3); break; }
  }
  const [hi, lo] = [lum(rgb(style.outlineColor)), lum(behind)].sort((a, b) => b - a);
  const previous = window.__previousStop;
  const after = previous && previous !== el && previous.isConnected
    ? Boolean(previous.compareDocumentPosition(el) & Node.DOCUMENT_POSITION_FOLLOWING) : null;
  window.__previousStop = el;
  const name = (el.getAttribute("aria-label") || el.textContent || el.name || el.tagName)
    .trim().replace(/\\s+/g, " ").slice(0, 40);
  return {
    name, visible, width, after,
    ring: outlined || style.boxShadow !== "none",
    contrast: outlined ? (hi + 0.05) / (lo + 0.05) : null,
    skip: el.classList.contains("skip-link"),
  };
}"""


def press(page, key: str = "Tab") -> dict:
    """Press a key and check where the keyboard landed."""
    page.keyboard.press(key)
    settle(page)
    return check(page, page.evaluate(FOCUSED))


def settle(page) -> None:
    """Wait, a second at most, for the focus to arrive. The player's frame is a page of
    another host, drawn by another process: a Tab that passes through it hands the focus
    over a moment later, and meanwhile the page has it nowhere (its body), which a busy
    machine showed. A focus that never arrives still fails the check that follows."""
    with contextlib.suppress(PlaywrightTimeout):
        page.wait_for_function(
            "() => document.activeElement && document.activeElement !== document.body",
            timeout=1000,
        )


def check(page, stop: dict) -> dict:
    where = f"{page.url}: {stop['name']!r}"
    assert stop["visible"], f"{where} is not in sight"
    assert stop["ring"], f"{where} shows no focus ring"
    assert stop["contrast"] is None or stop["contrast"] >= 3, f"{where}: ring at {stop['contrast']}"
    assert stop["after"] is not False, f"{where} comes before the previous stop"
    return stop


def tab_to(page, selector: str, most: int = 60) -> list[dict]:
    """Tab, checking each stop, until the focus is on `selector`."""
    stops = []
    for _ in range(most):
        stops.append(press(page))
        if page.evaluate("(s) => document.activeElement.matches(s)", selector):
            return stops
    raise AssertionError(f"{selector} not reached in {most} stops: {[s['name'] for s in stops]}")


def focused(page, selector: str) -> bool:
    return page.evaluate("(s) => document.activeElement.matches(s)", selector)


def sign_in_quietly(page, site, email: str) -> None:
    """The development sign-in by its API: the journey's pages stay keyboard only."""
    assert page.request.post(f"{site}/auth/dev-login", data={"email": email}).ok


@pytest.fixture
def player(page):
    """The platform's player, as an empty page of its own host (nothing leaves the
    machine). Refused instead, its frame would show Chromium's error page, which can take
    the focus from the page while it loads, and so a journey's first Tab."""
    stand_in_player(page)


def stand_in_player(page) -> None:
    page.route(
        "https://www.youtube-nocookie.com/embed/**",
        lambda route: route.fulfill(status=200, content_type="text/html", body=PLAYER),
    )


@pytest.mark.parametrize("width", WIDTHS)
def test_search_skip_to_the_results_and_open_a_moment(page, site, walk, player, width):
    member = make_user(email=f"keys-search-{width}@example.jp")
    unlock_video(member.id, VIDEO)
    sign_in_quietly(page, site, member.email)
    page.set_viewport_size({"width": width, "height": 800})
    page.goto(f"{site}/")
    # The skip link first, shown while it has the focus; then the header
    first = press(page)
    assert first["skip"] and first["name"] == "本文へスキップ"
    keep_screenshot(page, f"keys-skip-link-{width}")
    assert press(page)["name"] == "subsearch"
    tab_to(page, ".hero input[type=search]")
    page.keyboard.type("全部で")
    page.keyboard.press("Enter")
    page.wait_for_url(re.compile(r"/search\?q="))
    # On the results page the skip link leads past the form to the results
    skip = press(page)
    assert skip["skip"] and skip["name"] == "検索結果へスキップ"
    page.keyboard.press("Enter")
    assert focused(page, "#results")
    assert page.locator("#results h1").inner_text() == "「全部で」の検索結果"
    # The next stop is the first result, not the form
    assert press(page)["name"].endswith("天満の立ち飲み屋")
    assert focused(page, "#results li.result a.result-video")
    tab_to(page, "#results li.moment a.timestamp")
    keep_screenshot(page, f"keys-moment-{width}")
    page.keyboard.press("Enter")
    # The video opens at that very moment, its cue marked, and says so once
    page.wait_for_url(re.compile(rf"/videos/{VIDEO}\?t=87\.84&q="))
    current = page.locator("[data-cues] > li[aria-current=true]")
    expect(current).to_have_attribute("data-start", "87.84")
    expect(page.locator("[role=status][data-announce]")).to_have_text(
        "動画は 1:27 から始まります。"
    )
    # From here too the keyboard starts at the skip link, then the header
    assert press(page)["skip"]
    assert press(page)["name"] == "subsearch"


@pytest.mark.parametrize("width", WIDTHS)
def test_unlock_a_video_by_keyboard(page, site, walk, player, width):
    member = make_user(email=f"keys-unlock-{width}@example.jp", credit_balance=10)
    sign_in_quietly(page, site, member.email)
    page.set_viewport_size({"width": width, "height": 800})
    page.goto(f"{site}/videos/{VIDEO}")
    assert press(page)["skip"]
    page.keyboard.press("Enter")
    assert focused(page, "main")
    stops = tab_to(page, "[data-unlock]")
    assert stops[-1]["name"] == "1 クレジットで解除"
    keep_screenshot(page, f"keys-unlock-{width}")
    page.keyboard.press("Enter")  # nothing to confirm: the button says the cost
    # The subtitles, and a status that says what it cost and what is left
    page.locator("ol.segments[data-cues]").wait_for()
    announced = page.locator("[role=status][data-announce]")
    expect(announced).to_contain_text("1 クレジットで解除しました")
    expect(announced).to_contain_text("残りは 9 クレジットです。")
    row = User.get_by_id(member.id)
    assert row.credit_balance + row.bonus_credit == 9
    # The keyboard goes on from the subtitles, not from the top of the page again: their
    # files' menu, find in them (field, previous, next), then the first cue
    assert focused(page, "#subtitles-heading")
    press(page)
    assert focused(page, "[data-download] summary")
    stops = tab_to(page, "[data-cues] a.timestamp", most=4)
    assert len(stops) == 4
    assert focused(page, "[data-cues] > li:first-child a.timestamp")
    expect(page).to_have_url(re.compile(rf"/videos/{VIDEO}$"))


def test_a_refused_unlock_keeps_the_focus_on_the_button_and_says_why(page, site, player):
    """Credits spent in another tab: the refusal is said (role=alert) and the keyboard
    is still on the button, not thrown back to the top of the page."""
    member = make_user(email="keys-refused@example.jp", credit_balance=1)
    video = make_video()
    sign_in_quietly(page, site, member.email)
    page.goto(f"{site}/videos/{video.id}")
    User.update(credit_balance=0).where(User.id == member.id).execute()
    # The way there by Tab is the unlock journey's; here the refusal is what is tested.
    page.locator("[data-unlock]").focus()
    page.keyboard.press("Space")
    alert = page.get_by_role("alert")
    expect(alert).to_contain_text("クレジットが足りません")
    expect(page.locator("[data-unlock]")).to_be_enabled()
    assert focused(page, "[data-unlock]")


# Every page a reader meets, tabbed through to its end: each stop shows its ring and
# comes after the one before. The search page with its filters open, so the panel's
# checkboxes, dates, selects, the switch and the summary are stops too.
READING = [
    "/",
    "/search?q=天満&channels=UCmomentcuesmomentcues01&semantic=1",
    "/search?q=該当しない言葉",
    f"/videos/{VIDEO}?t=87.84",
    "/terms",
    "/no-such-page",
]


@pytest.mark.parametrize("width", WIDTHS)
def test_every_stop_on_the_reading_pages_shows_a_ring(page, site, walk, player, width):
    member = make_user(email=f"keys-all-{width}@example.jp")
    unlock_video(member.id, VIDEO)
    page.set_viewport_size({"width": width, "height": 800})
    page.goto(f"{site}/login")
    assert press(page)["skip"]
    tab_to(page, "#dev-login input[name=email]")
    page.keyboard.type(member.email)
    page.keyboard.press("Enter")
    page.wait_for_url(f"{site}/")
    for path in READING:
        page.goto(f"{site}{path}")
        assert press(page)["skip"], path
        for _ in range(200):
            page.keyboard.press("Tab")
            stop = page.evaluate(FOCUSED)
            if stop["name"] == "(nothing)" or (stop["after"] is False and stop["skip"]):
                break  # past the last stop: the browser's controls, or round again
            check(page, stop)
        else:
            raise AssertionError(f"{path}: no end to the stops")
